/**
 * The shared supervisor on demand. `mcp-hangar --stdio` with no supervisor
 * for its config starts one, `mcp-hangar serve --linger`, detached (its own
 * session and process group, stdio to STATE_DIR/hangar.log, never to the
 * client's stdout), and bridges to it. The daemon inherits the environment
 * of the client that started it, as the embedded supervisor did.
 *
 * Two clients starting at once each start one; endpoint.json's lock lets one
 * win and the other exits before it has touched the state dir, and both
 * bridges connect to the winner. A lingering daemon exits once no client has
 * been attached for `hangar.lingerSeconds`; a bridge that then finds no
 * supervisor (it raced that exit, or the daemon died) starts another. A
 * supervisor a person started (`tui`, `serve`) is never replaced this way:
 * when it stops, its bridges wait for the person to start one again.
 */
import {spawn} from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import type {HangarConfig} from '../config/read-config.js';
import type {Logger, LogLevel} from '../base/logger.js';
import type {StdioBridge} from './bridge.js';
import {readOwner} from './socket-client.js';
import {isAlive} from '../base/process-alive.js';
import {startedByVariable} from '../base/process-origin.js';

/** Where a daemon started by a client writes its log (and anything Node prints before the logger opens). */
export function daemonLogFile(stateDir: string): string {
	return path.join(stateDir, 'hangar.log');
}

export type StartedDaemon = {pid: number; logFile: string; exited: Promise<number | null>; hasExited: () => boolean};

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

/** Starts `mcp-hangar serve --linger` for `config`, detached from this process. */
export function startDaemon(config: HangarConfig, options: {logLevel?: LogLevel | undefined; cli?: string | undefined} = {}): StartedDaemon {
	const {stateDir} = config.hangar;
	fs.mkdirSync(stateDir, {recursive: true, mode: 0o700});
	const logFile = daemonLogFile(stateDir);
	const fd = fs.openSync(logFile, 'a', 0o600);
	const cli = options.cli ?? process.argv[1]!;
	const args = [cli, 'serve', '--linger', '--config', config.path, '--state-dir', stateDir, '--log-file', logFile];
	if (options.logLevel !== undefined) args.push('--log-level', options.logLevel);
	let exited = false;
	try {
		// detached: its own session, so a client's terminal or process group going away does not signal it.
		const child = spawn(process.execPath, args, {detached: true, stdio: ['ignore', fd, fd], cwd: path.dirname(config.path), env: {...process.env, [startedByVariable]: starter()}});
		const done = new Promise<number | null>(resolve => {
			child.once('exit', code => {
				exited = true;
				resolve(code);
			});
			child.once('error', () => {
				exited = true;
				resolve(null);
			});
		});
		child.unref();
		return {pid: child.pid ?? -1, logFile, exited: done, hasExited: () => exited};
	} finally {
		fs.closeSync(fd);
	}
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
	config: HangarConfig,
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
		lastStart = Date.now();
		tries += 1;
		logger.info(`bridge: no supervisor for ${stateDir}; started one (pid ${daemon.pid}, mcp-hangar serve --linger, log ${daemon.logFile})`);
	};

	bridge.machine.onTransition(record => {
		if (record.to === 'open' || record.to === 'replaying') {
			knownLingers = readOwner(stateDir)?.linger === true;
			tries = 0;
		}

		if (record.to === 'backoff' && retry === undefined) consider();
	});
}
