/**
 * `mcp-hangar --stdio`: a thin bridge to the supervisor for this config and
 * state dir, started first (a detached `serve --linger`, see daemon.ts) when
 * none is running. With `--standalone`, or when the state dir can never serve
 * this config (another config's supervisor owns it, the socket path cannot
 * work), a supervisor of its own for this one client (runtime.ts's
 * serveStandalone).
 *
 * Deciding, and bridging, need only the config, the socket's client side and
 * the wire: the engine is loaded only when this process has to run it, so a
 * client whose hangar is already running starts in the time it takes to
 * connect.
 */
import fs from 'node:fs';
import {ConfigError, loadConfig, parseConfig, stateDirOf, type HangarConfig} from '../config/read-config.js';
import {fileSink, logLevels, splitLogger, stderrSink, type Logger, type LogLevel} from '../base/logger.js';
import {StdioBridge} from './bridge.js';
import {daemonLogFile, keepDaemon, startDaemon} from './daemon.js';
import {attachToSupervisor, socketPath, type Attached} from './socket-client.js';

export type StdioOptions = {
	configPath: string;
	stateDir?: string | undefined;
	logger: Logger;
	/** Passed on to a daemon this client starts. */
	logLevel?: LogLevel | undefined;
	standalone?: boolean;
};

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
		fs.mkdirSync(stateDir, {recursive: true, mode: 0o700});
		return splitLogger([
			{sink: stderrSink(), level},
			{sink: fileSink(daemonLogFile(stateDir)), level: fileLevel},
		]);
	} catch {
		// A state dir that cannot be written must not keep a client from its tools: stderr alone then.
		return splitLogger([{sink: stderrSink(), level}]);
	}
}

export async function serveStdio(options: StdioOptions): Promise<void> {
	const {logger} = options;
	let config: HangarConfig;
	try {
		config = loadConfig(options.configPath, {stateDir: options.stateDir});
	} catch (error) {
		if (error instanceof ConfigError && options.standalone !== true) return attachDespite(error, options);
		throw error;
	}

	if (options.standalone !== true) {
		const attachment = await attachToSupervisor(config);
		if (attachment.socket !== undefined) {
			await runBridge(config, attachment, logger, options.logLevel);
			return;
		}

		if (!attachment.permanent) {
			const daemon = startDaemon(config, {logLevel: options.logLevel});
			logger.info(`no supervisor for ${config.hangar.stateDir} (${attachment.why}); started one (pid ${daemon.pid}, mcp-hangar serve --linger, log ${daemon.logFile})`);
			await runBridge(config, {socket: undefined, path: socketPath(config.hangar.stateDir), owner: undefined}, logger, options.logLevel, daemon);
			return;
		}

		logger.warn(`not attaching to a supervisor: ${attachment.why}; running one for this client alone`);
	}

	// Its launch upstreams boot while the engine loads (early-launch.ts); a bridge needs neither.
	const {launchEarly} = await import('./early-launch.js');
	launchEarly(config, {standalone: true});
	const {serveStandalone} = await import('./runtime.js');
	await serveStandalone(config, logger, options.stateDir);
}

/**
 * A config file that does not validate, while a supervisor runs its previous
 * version (a reload refused it): the client attaches to that supervisor
 * rather than failing; with none running, the error stands.
 */
async function attachDespite(error: ConfigError, options: StdioOptions): Promise<void> {
	const stateDir = stateDirOf(options.configPath, {stateDir: options.stateDir});
	const attachment = await attachToSupervisor({path: error.file, hangar: {stateDir}});
	if (attachment.socket === undefined) throw error;
	options.logger.warn(`${error.message}\nAttaching to the supervisor that runs its previous version.`);
	// Its own settings are unknown: the bridge runs on the defaults, and starts no daemon with a file that cannot run.
	await runBridge(parseConfig({mcpServers: {}}, error.file, {stateDir}), attachment, options.logger, options.logLevel, undefined, false);
}

async function runBridge(
	config: HangarConfig,
	{socket, path: where, owner}: Omit<Attached, 'socket'> & {socket: Attached['socket'] | undefined},
	logger: Logger,
	logLevel: LogLevel | undefined,
	started?: ReturnType<typeof startDaemon>,
	keep = true,
): Promise<void> {
	const bridge = new StdioBridge({
		socketPath: where,
		stateDir: config.hangar.stateDir,
		input: process.stdin,
		output: process.stdout,
		logger,
		maxMessageBytes: config.hangar.maxMessageBytes,
		requestTimeoutMs: config.hangar.callTimeoutMs,
		socket,
	});
	if (socket !== undefined) logger.info(`attached to the supervisor at ${where}${owner === undefined ? '' : ` (pid ${owner.pid}, mcp-hangar ${owner.kind})`}`);
	if (keep) keepDaemon(bridge, config, logger, {started, logLevel});
	// The bridge owns no upstream: a signal just ends it.
	for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP'] as const) process.on(signal, () => process.exit(0));
	bridge.start();
	process.exit(await bridge.exited);
}
