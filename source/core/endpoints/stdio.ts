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
import {startDaemon} from './daemon.js';
import {attachToSupervisor, bridgeSettings, socketPath} from './socket-client.js';
import {runBridge} from './stdio-bridge.js';

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
		if (error instanceof ConfigError && options.standalone !== true) return attachDespite(error, options);
		throw error;
	}

	if (options.standalone !== true) {
		const attachment = await attachToSupervisor(config);
		if (attachment.socket !== undefined) {
			await runBridge(config, bridgeSettings(config), attachment, logger, options.logLevel);
			return;
		}

		if (!attachment.permanent) {
			const daemon = startDaemon(config, {logLevel: options.logLevel});
			logger.info(`no supervisor for ${config.hangar.stateDir} (${attachment.why}); started one (pid ${daemon.pid}, mcp-hangar serve --linger, log ${daemon.logFile})`);
			await runBridge(config, bridgeSettings(config), {socket: undefined, path: socketPath(config.hangar.stateDir), owner: undefined}, logger, options.logLevel, daemon);
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
	const defaults = parseConfig({mcpServers: {}}, error.file, {stateDir});
	await runBridge(defaults, bridgeSettings(defaults), attachment, options.logger, options.logLevel, undefined, false);
}
