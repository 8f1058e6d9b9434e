/**
 * `mcp-hangar --stdio`: a thin bridge to the supervisor for this config and
 * state dir, started first (a detached `serve --linger`, see daemon.ts) when
 * none is running. With `--standalone`, or when the state dir can never serve
 * this config (another config's supervisor owns it, the socket path cannot
 * work), a supervisor of its own for this one client (runtime.ts's
 * serveStandalone).
 *
 * Deciding, and bridging, need only the config, the socket's client side and
 * the wire: the engine is loaded only when this process has to run it. A
 * client whose hangar is already running usually does not get here at all:
 * `dist/cli.js` attaches it before the CLI loads (stdio-bridge.ts's
 * attachQuickly), and this module decides what that declined.
 */
import {ConfigError, loadConfig, parseConfig, stateDirOf, type HangarConfig} from '../config/read-config.js';
import type {Logger, LogLevel} from '../base/logger.js';
import {bridgeScope, startDaemon, type StartedDaemon} from './daemon.js';
import {attachToSupervisor, bridgeSettings, socketPath} from './socket-client.js';
import {runBridge, stopDaemon, takeEarlyDaemon} from './stdio-bridge.js';

export {stdioLogger} from './stdio-bridge.js';

export type StdioOptions = {
	configPath: string;
	stateDir?: string | undefined;
	logger: Logger;
	/** Passed on to a daemon this client starts. */
	logLevel?: LogLevel | undefined;
	standalone?: boolean;
};

export async function serveStdio(options: StdioOptions): Promise<void> {
	const {logger} = options;
	let config: HangarConfig;
	try {
		config = loadConfig(options.configPath, {stateDir: options.stateDir});
	} catch (error) {
		// A daemon started early (stdio-bridge.ts) for a config that does not load is not wanted.
		const early = takeEarlyDaemon({path: options.configPath, hangar: {stateDir: stateDirOf(options.configPath, {stateDir: options.stateDir})}});
		if (early !== undefined) stopDaemon(early.daemon);
		if (error instanceof ConfigError && options.standalone !== true) return attachDespite(error, options);
		throw error;
	}

	const early = options.standalone === true ? undefined : takeEarlyDaemon(config);

	if (options.standalone !== true) {
		const attachment = await attachToSupervisor(config);
		// A bridge's lines in the log it shares with the daemon are its own (daemon.ts quotes only the daemon's).
		const bridgeLog = logger.child(bridgeScope);
		const started = (daemon: StartedDaemon, why: string): void => {
			bridgeLog.info(`no supervisor for ${config.hangar.stateDir} (${why}); started one (pid ${daemon.pid}, mcp-hangar serve --linger, log ${daemon.logFile})`);
		};

		if (attachment.socket !== undefined) {
			// The early daemon may be the one that answered by now, or have lost to it (keepDaemon stops it then).
			if (early !== undefined) started(early.daemon, early.why);
			await runBridge(config, bridgeSettings(config), attachment, bridgeLog, options.logLevel, early?.daemon);
			return;
		}

		if (!attachment.permanent) {
			const daemon = early?.daemon ?? startDaemon(config, {logLevel: options.logLevel});
			started(daemon, early?.why ?? attachment.why);
			await runBridge(config, bridgeSettings(config), {socket: undefined, path: socketPath(config.hangar.stateDir), owner: undefined}, bridgeLog, options.logLevel, daemon);
			return;
		}

		if (early !== undefined) stopDaemon(early.daemon);
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
	const bridgeLog = options.logger.child(bridgeScope);
	bridgeLog.warn(`${error.message}\nAttaching to the supervisor that runs its previous version.`);
	// Its own settings are unknown: the bridge runs on the defaults, and starts no daemon with a file that cannot run.
	const defaults = parseConfig({mcpServers: {}}, error.file, {stateDir});
	await runBridge(defaults, bridgeSettings(defaults), attachment, bridgeLog, options.logLevel, undefined, false);
}
