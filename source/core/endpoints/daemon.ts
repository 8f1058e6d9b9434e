/**
 * The shared supervisor on demand. `mcp-hangar --stdio` with no supervisor
 * for its config starts one, `mcp-hangar serve --linger`, detached (its own
 * session and process group, stdio to STATE_DIR/hangar.log, never to the
 * client's stdout), and bridges to it. The daemon inherits the environment
 * of the client that started it, as the embedded supervisor did.
 *
 * Two clients starting at once each start one; endpoint.json's lock lets one
 * win and the other exits before it has touched the state dir, and both
 * bridges connect to the winner; a bridge attached to the winner stops the
 * daemon it started if that one is still starting (on a slow machine it
 * would otherwise take over, with no client, once the winner lingers out). A lingering daemon exits once no client has
 * been attached for `hangar.lingerSeconds`; a bridge that then finds no
 * supervisor (it raced that exit, or the daemon died) starts another. A
 * supervisor a person started (`tui`, `serve`) is never replaced this way:
 * when it stops, its bridges wait for the person to start one again.
 */
import {spawn} from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import type {Logger, LogLevel} from '../base/logger.js';
import type {StdioBridge} from './bridge.js';
import {readOwner} from './socket-client.js';
import {isAlive} from '../base/process-alive.js';
import {startedByVariable} from '../base/process-origin.js';
import {describeShortage} from '../base/resource-limits.js';
import {makeDirectory} from '../base/make-directory.js';

/** What a daemon is started for: its config file and state dir (a loaded config is one; the quick attach has no more). */
export type DaemonTarget = {path: string; hangar: {stateDir: string}};

/** Where a daemon started by a client writes its log (and anything Node prints before the logger opens). */
export function daemonLogFile(stateDir: string): string {
	return path.join(stateDir, 'hangar.log');
}

/**
 * The log scope of a `--stdio` bridge's lines (`... warn [bridge] ...`): it
 * writes the daemon's log too, and why a daemon did not serve is never the
 * bridge's own words about it.
 */
export const bridgeScope = 'bridge';
const bridgeLine = new RegExp(String.raw`^\S+ \w+ \[${bridgeScope}\] `);

export type StartedDaemon = {
	pid: number;
	logFile: string;
	exited: Promise<number | null>;
	hasExited: () => boolean;
	/** Once it has exited: why, as far as this process can tell (its last log line, a full disk, a failed spawn). */
	problem: () => string | undefined;
};

/** This bridge and the program that launched it (the MCP client), for the daemon's messages about whose environment it has. */
function starter(): string {
	let parent = 'its client';
	try {
		parent = `"${fs.readFileSync(`/proc/${process.ppid}/comm`, 'utf8').trim()}" (pid ${process.ppid})`;
	} catch {
		// No /proc (macOS): the pid alone.
		parent = `pid ${process.ppid}`;
	}

	return `the mcp-hangar --stdio of ${parent}`;
}

/**
 * Starts `mcp-hangar serve --linger` for `config`, detached from this
 * process. Never throws: a daemon that cannot even be started (no space
 * for its log, no process to spawn) is returned as exited, with its problem.
 */
export function startDaemon(config: DaemonTarget, options: {logLevel?: LogLevel | undefined; cli?: string | undefined} = {}): StartedDaemon {
	const {stateDir} = config.hangar;
	const logFile = daemonLogFile(stateDir);
	let fd: number;
	let logStart = 0;
	try {
		makeDirectory(stateDir, 0o700);
		fd = fs.openSync(logFile, 'a', 0o600);
		logStart = fs.fstatSync(fd).size;
	} catch (error) {
		const why = `cannot open its log ${logFile}: ${reasonOf(error)}`;
		return {pid: -1, logFile, exited: Promise.resolve(null), hasExited: () => true, problem: () => why};
	}

	const cli = options.cli ?? process.argv[1]!;
	const args = [cli, 'serve', '--linger', '--config', config.path, '--state-dir', stateDir, '--log-file', logFile];
	if (options.logLevel !== undefined) args.push('--log-level', options.logLevel);
	let exited = false;
	let problem: string | undefined;
	try {
		// detached: its own session, so a client's terminal or process group going away does not signal it.
		const child = spawn(process.execPath, args, {detached: true, stdio: ['ignore', fd, fd], cwd: path.dirname(config.path), env: {...process.env, [startedByVariable]: starter()}});
		const done = new Promise<number | null>(resolve => {
			child.once('exit', code => {
				exited = true;
				if (code !== 0) problem = whyNotServing(stateDir, logFile, logStart, code);
				resolve(code);
			});
			child.once('error', error => {
				exited = true;
				problem = `cannot spawn it: ${reasonOf(error)}`;
				resolve(null);
			});
		});
		child.unref();
		return {pid: child.pid ?? -1, logFile, exited: done, hasExited: () => exited, problem: () => problem};
	} finally {
		fs.closeSync(fd);
	}
}

function reasonOf(error: unknown): string {
	return describeShortage((error as NodeJS.ErrnoException).code) ?? (error as Error).message;
}

/**
 * Why a daemon exited without serving: a full file system under the state
 * dir first (its own log may not have been written then), else the last
 * line it logged (not a bridge's: they share the file), else its exit code.
 */
function whyNotServing(stateDir: string, logFile: string, logStart: number, code: number | null): string {
	try {
		const stats = fs.statfsSync(stateDir);
		if (stats.bavail === 0) return `no space left on device: the file system of ${stateDir} is full`;
	} catch {}

	try {
		const fd = fs.openSync(logFile, 'r');
		try {
			const size = Math.min(fs.fstatSync(fd).size - logStart, 4096);
			const buffer = Buffer.alloc(Math.max(size, 0));
			fs.readSync(fd, buffer, 0, buffer.length, Math.max(logStart, fs.fstatSync(fd).size - 4096));
			const last = buffer.toString('utf8').trim().split('\n').findLast(line => line.trim() !== '' && !bridgeLine.test(line))?.trim();
			if (last !== undefined) return `${last.slice(0, 500)} (exit code ${code ?? 'unknown'}, log ${logFile})`;
		} finally {
			fs.closeSync(fd);
		}
	} catch {}

	return `it exited with code ${code ?? 'unknown'} and logged nothing of its own; see ${logFile}`;
}

/**
 * Keeps a bridge's supervisor there: when the bridge finds no supervisor and
 * the one it knew was a lingering daemon (or the one it started is gone),
 * starts another, at most once per `minGapMs` and `maxTries` times in a row
 * without a connection (a daemon that cannot start must not be restarted
 * forever: the bridge's held requests then get SupervisorUnavailable).
 */
export function keepDaemon(
	bridge: StdioBridge,
	config: DaemonTarget,
	logger: Logger,
	options: {started: StartedDaemon | undefined; logLevel?: LogLevel | undefined; minGapMs?: number; maxTries?: number},
): void {
	const {stateDir} = config.hangar;
	let daemon = options.started;
	let lastStart = daemon === undefined ? 0 : Date.now();
	let tries = daemon === undefined ? 0 : 1;
	let knownLingers = readOwner(stateDir)?.linger === true;
	const minGapMs = options.minGapMs ?? 2000;
	const maxTries = options.maxTries ?? 5;
	let retry: NodeJS.Timeout | undefined;
	// The daemon this bridge stopped itself (it lost the race to another): its exit is no problem.
	let stopped: StartedDaemon | undefined;
	// A daemon that exits without serving: the bridge's held requests are answered with why.
	const tellProblem = (started: StartedDaemon): void => {
		void started.exited.then(() => {
			const problem = started === stopped ? undefined : started.problem();
			if (problem !== undefined) {
				logger.warn(`bridge: the supervisor this client started could not serve: ${problem}`);
				// The last start it will make: its held requests learn why now, not at their deadline (a client's own is often as long).
				bridge.daemonFailed(problem, tries >= maxTries);
			}
		});
	};

	if (daemon !== undefined) tellProblem(daemon);

	const consider = (): void => {
		retry = undefined;
		if (bridge.state !== 'backoff' && bridge.state !== 'connecting') return;
		// One we started that is still running is starting up, or lost the race to a winner that is.
		if (daemon !== undefined && !daemon.hasExited()) return;
		const owner = readOwner(stateDir);
		if (owner !== undefined && isAlive(owner.pid)) return;
		if (!knownLingers && daemon === undefined) return;
		if (tries >= maxTries) return;
		const wait = lastStart + minGapMs - Date.now();
		if (wait > 0) {
			retry = setTimeout(consider, wait);
			return;
		}

		if (daemon?.hasExited() === true) logger.warn(`bridge: the supervisor this client started is gone; see ${daemon.logFile}`);
		daemon = startDaemon(config, {logLevel: options.logLevel});
		tellProblem(daemon);
		lastStart = Date.now();
		tries += 1;
		logger.info(`bridge: no supervisor for ${stateDir}; started one (pid ${daemon.pid}, mcp-hangar serve --linger, log ${daemon.logFile})`);
	};

	bridge.machine.onTransition(record => {
		if (record.to === 'open' || record.to === 'replaying') {
			const owner = readOwner(stateDir);
			knownLingers = owner?.linger === true;
			tries = 0;
			// Attached to another daemon: the one this bridge started lost the race, or is still starting and would
			// take over (with nobody to serve) once the winner lingers out. It has touched nothing yet: stop it.
			if (daemon !== undefined && !daemon.hasExited() && owner !== undefined && owner.pid !== daemon.pid && isAlive(owner.pid)) {
				try {
					process.kill(daemon.pid, 'SIGTERM');
					stopped = daemon;
				} catch {}

				daemon = undefined;
			}
		}

		if (record.to === 'backoff' && retry === undefined) consider();
	});
}
