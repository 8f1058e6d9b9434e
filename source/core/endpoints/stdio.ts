/**
 * `mcp-hangar --stdio`: a thin bridge to the supervisor listening for this
 * state dir when there is one (unless `--standalone`), else a supervisor of
 * its own for this one client (runtime.ts's serveStandalone). Deciding, and
 * bridging, need only the config, the socket's client side and the wire: the
 * engine is loaded only when this process has to run it, so a client whose
 * hangar is already running starts in the time it takes to connect.
 */
import {loadConfig, type HangarConfig} from '../config/config.js';
import type {Logger} from '../base/logger.js';
import {StdioBridge} from './bridge.js';
import {attachToSupervisor, type Attached} from './socket-client.js';

export type StdioOptions = {configPath: string; stateDir?: string | undefined; logger: Logger; standalone?: boolean};

export async function serveStdio(options: StdioOptions): Promise<void> {
	const {logger} = options;
	const config = loadConfig(options.configPath, {stateDir: options.stateDir});
	if (options.standalone !== true) {
		const attachment = await attachToSupervisor(config);
		if (attachment.socket !== undefined) {
			await runBridge(config, attachment, logger);
			return;
		}

		if (attachment.permanent) logger.warn(`not attaching to a supervisor: ${attachment.why}; running one for this client alone`);
		else logger.debug(`no supervisor to attach to (${attachment.why}); running one for this client alone`);
	}

	const {serveStandalone} = await import('./runtime.js');
	await serveStandalone(config, logger);
}

async function runBridge(config: HangarConfig, {socket, path: where, owner}: Attached, logger: Logger): Promise<void> {
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
	logger.info(`attached to the supervisor at ${where}${owner === undefined ? '' : ` (pid ${owner.pid}, mcp-hangar ${owner.kind})`}`);
	// The bridge owns no upstream: a signal just ends it.
	for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP'] as const) process.on(signal, () => process.exit(0));
	bridge.start();
	process.exit(await bridge.exited);
}
