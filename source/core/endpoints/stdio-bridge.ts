/**
 * The bridge side of `mcp-hangar --stdio`: its log, running the bridge
 * (bridge.ts) with the daemon kept there (daemon.ts), and the quick attach
 * that every client after the first takes.
 *
 * The quick attach is what `dist/cli.js` runs for a plain `--stdio` before
 * the CLI loads (cli/stdio-args.ts): it finds the state dir from the config
 * file's `hangar.stateDir` (paths.ts, a JSON.parse, no schema), connects, and
 * takes the two settings a bridge needs from the supervisor's endpoint.json
 * (EndpointOwner.bridge), so it loads neither the config schema (zod) nor
 * meow nor the engine: what it loads is this module's imports, the bridge's
 * own line splitting (bridge-wire.ts), the wire's classification, and the
 * logger. It declines, and the full CLI decides as before (stdio.ts), when
 * no supervisor answers, when it runs another config, when endpoint.json
 * does not carry the settings, or when the config file changed after that
 * supervisor started (it may not validate: the full path says so, and
 * attaches anyway).
 *
 * When nothing answers (and may start to: a missing or refusing socket),
 * it starts the daemon and waits for it to answer (whenServing), then
 * bridges like any later client, so the first client's bridge does not keep
 * the CLI's modules either. When the daemon exits without serving (a config
 * that does not validate, say) or is slow, it declines with the daemon
 * handed over (stdio.ts takes it with takeEarlyDaemon): the CLI then checks
 * the config and explains, or bridges to that daemon as before.
 */
import fs from 'node:fs';
import path from 'node:path';
import {resolveConfigPath, stateDirOf} from '../config/paths.js';
import {fileSink, logLevels, splitLogger, stderrSink, type Logger, type LogLevel} from '../base/logger.js';
import {StdioBridge} from './bridge.js';
import {bridgeScope, daemonLogFile, keepDaemon, startDaemon, type DaemonTarget, type StartedDaemon} from './daemon.js';
import {attachToSupervisor, socketPath, type Attached, type Attachment, type BridgeSettings} from './socket-client.js';
import {makeDirectory} from '../base/make-directory.js';

/**
 * The log of `--stdio`: stderr is the client's, which shows it to people as
 * warnings or errors, so only warnings and errors go there by default
 * (`--log-level` sets that threshold); everything from info up goes to
 * STATE_DIR/hangar.log, the file the daemon a client starts writes too.
 * With `--log-file`, everything at the level goes to that file alone.
 */
export function stdioLogger(options: {configPath: string; stateDir?: string | undefined; logLevel?: LogLevel | undefined; logFile?: string | undefined}): Logger {
	if (options.logFile !== undefined) return splitLogger([{sink: fileSink(options.logFile), level: options.logLevel ?? 'info'}]);
	const level = options.logLevel ?? 'warn';
	const stateDir = stateDirOf(options.configPath, {stateDir: options.stateDir});
	const fileLevel = logLevels.indexOf(level) < logLevels.indexOf('info') ? level : 'info';
	try {
		makeDirectory(stateDir, 0o700);
		return splitLogger([
			{sink: stderrSink(), level},
			{sink: fileSink(daemonLogFile(stateDir)), level: fileLevel},
		]);
	} catch {
		// A state dir that cannot be written must not keep a client from its tools: stderr alone then.
		return splitLogger([{sink: stderrSink(), level}]);
	}
}

export type QuickStdioOptions = {config?: string | undefined; stateDir?: string | undefined; logLevel?: LogLevel | undefined; logFile?: string | undefined};

/**
 * Bridges to the running supervisor of this config when that needs nothing
 * of the config but its state dir (see the module comment); never returns
 * then (the process exits with the bridge). Resolves false, having written
 * nothing to stdout, when the full CLI must decide; a daemon it started
 * then waits in takeEarlyDaemon.
 */
export async function attachQuickly(options: QuickStdioOptions): Promise<boolean> {
	const configPath = resolveConfigPath(options.config);
	const stateDir = stateDirOf(configPath, {stateDir: options.stateDir});
	let configChangedAt: number;
	try {
		configChangedAt = fs.statSync(configPath).mtimeMs;
	} catch {
		return false;
	}

	const target: DaemonTarget = {path: configPath, hangar: {stateDir}};
	let attachment = await attachToSupervisor(target);
	let started: {daemon: StartedDaemon; why: string} | undefined;
	if (attachment.socket === undefined) {
		if (attachment.permanent) return false;
		started = {daemon: startDaemon(target, {logLevel: options.logLevel}), why: attachment.why};
		attachment = await whenServing(target, started.daemon);
		if (attachment.socket === undefined) {
			handover[earlyDaemonKey] = {...started, target};
			return false;
		}
	}

	const settings = attachment.owner?.bridge;
	const startedAt = Date.parse(attachment.owner?.startedAt ?? '');
	if (settings === undefined || !(configChangedAt <= startedAt)) {
		// A probe: a connection that sends nothing is not a client (local-endpoint.ts).
		attachment.socket.destroy();
		if (started !== undefined) handover[earlyDaemonKey] = {...started, target};
		return false;
	}

	const logger = stdioLogger({configPath, stateDir: options.stateDir, logLevel: options.logLevel, logFile: options.logFile}).child(bridgeScope);
	if (started !== undefined) logger.info(`no supervisor for ${stateDir} (${started.why}); started one (pid ${started.daemon.pid}, mcp-hangar serve --linger, log ${started.daemon.logFile})`);
	await runBridge(target, settings, attachment, logger, options.logLevel, started?.daemon);
	return true;
}

/** How long the quick attach waits for a daemon it started before the CLI takes over (as it did before the wait). */
const serveWaitMs = 5000;

/**
 * Waits for the daemon this client just started (or one that won the race to
 * serve the state dir) to answer on the socket, so that the first client
 * too bridges without loading the CLI: its bridge then idles at what every
 * later client's does (about 49 MiB) where the CLI's modules kept it near 72.
 * Gives up, and the CLI decides as before (its config check explains a
 * config that does not load), when the daemon exits, the socket can never
 * work, or nothing answers within serveWaitMs.
 *
 * Each try is woken by an event: the socket appearing in the state dir (a
 * change the watch cannot name counts too), or the daemon's exit. Polling
 * is the fallback where the state dir cannot be watched, or the socket is
 * there but refused (bound, not listening yet), and a slow safety net
 * where it is watched; until then the bridge makes no connect() and takes
 * no CPU from the daemon's start.
 */
async function whenServing(target: DaemonTarget, daemon: StartedDaemon): Promise<Attachment> {
	const deadline = Date.now() + serveWaitMs;
	let exited = false;
	let changed = false;
	let wake: (() => void) | undefined;
	void daemon.exited.then(() => {
		exited = true;
		wake?.();
	});
	const where = socketPath(target.hangar.stateDir);
	const socketName = path.basename(where);
	let watcher: fs.FSWatcher | undefined;
	try {
		watcher = fs.watch(target.hangar.stateDir, (_event, name) => {
			if (name !== null && name !== socketName) return;
			changed = true;
			wake?.();
		});
		watcher.on('error', () => {
			watcher?.close();
			watcher = undefined;
		});
	} catch {}

	try {
		let pauseMs = 5;
		for (;;) {
			changed = false;
			const attachment = await attachToSupervisor(target, 500);
			if (attachment.socket !== undefined || attachment.permanent || exited || daemon.hasExited() || Date.now() >= deadline) return attachment;
			// A change during that try (the socket appearing while it failed) is tried again at once.
			if (changed) continue;
			await new Promise<void>(resolve => {
				const polling = watcher === undefined || fs.existsSync(where);
				const timer = setTimeout(resolve, Math.min(polling ? pauseMs : watchedSafetyMs, Math.max(deadline - Date.now(), 0)));
				wake = () => {
					clearTimeout(timer);
					resolve();
				};
			});
			wake = undefined;
			pauseMs = Math.min(pauseMs * 2, 40);
		}
	} finally {
		watcher?.close();
	}
}

/** How often whenServing tries while the state dir is watched: only in case the watch missed the socket appearing. */
const watchedSafetyMs = 250;

/**
 * Where the daemon attachQuickly started waits for the CLI: on globalThis, not
 * in a variable of this module, because this module exists twice in a process
 * that declines. The attach runs from the bundled dist/cli.js
 * (scripts/bundle.js), which has this module inlined; the CLI it then loads
 * imports dist/core/endpoints/stdio-bridge.js, a second copy.
 */
const earlyDaemonKey = Symbol.for('mcp-hangar.early-daemon');
const handover = globalThis as unknown as Record<typeof earlyDaemonKey, {daemon: StartedDaemon; target: DaemonTarget; why: string} | undefined>;

/** The daemon attachQuickly started for `target` before it declined, and why it did, handed over once. */
export function takeEarlyDaemon(target: DaemonTarget): {daemon: StartedDaemon; why: string} | undefined {
	const early = handover[earlyDaemonKey];
	handover[earlyDaemonKey] = undefined;
	if (early === undefined) return undefined;
	if (early.target.path === target.path && early.target.hangar.stateDir === target.hangar.stateDir) return early;
	stopDaemon(early.daemon);
	return undefined;
}

/** Stops a daemon this process started that is not wanted after all (it has touched nothing of its own yet, or exits on its own). */
export function stopDaemon(daemon: StartedDaemon): void {
	if (daemon.hasExited() || daemon.pid <= 0) return;
	try {
		process.kill(daemon.pid, 'SIGTERM');
	} catch {}
}

/** Runs the bridge on this process's stdin and stdout until the client goes; exits the process. */
export async function runBridge(
	target: DaemonTarget,
	settings: BridgeSettings,
	{socket, path: where, owner}: Omit<Attached, 'socket'> & {socket: Attached['socket'] | undefined},
	logger: Logger,
	logLevel: LogLevel | undefined,
	started?: StartedDaemon,
	keep = true,
): Promise<void> {
	const bridge = new StdioBridge({
		socketPath: where,
		stateDir: target.hangar.stateDir,
		input: process.stdin,
		output: process.stdout,
		logger,
		maxMessageBytes: settings.maxMessageBytes,
		requestTimeoutMs: settings.requestTimeoutMs,
		socket,
	});
	if (socket !== undefined) logger.info(`attached to the supervisor at ${where}${owner === undefined ? '' : ` (pid ${owner.pid}, mcp-hangar ${owner.kind})`}`);
	if (keep) keepDaemon(bridge, target, logger, {started, logLevel});
	// The bridge owns no upstream: a signal just ends it.
	for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP'] as const) process.on(signal, () => process.exit(0));
	bridge.start();
	process.exit(await bridge.exited);
}
