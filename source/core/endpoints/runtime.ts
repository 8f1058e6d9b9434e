/**
 * Process-level wiring shared by every way of running hangar: open the state
 * store, build the supervisor, and make sure that however the process ends
 * (stdin EOF, SIGINT, SIGTERM, SIGHUP, an internal error) every upstream is
 * stopped in order before it exits. The synchronous `exit` hook is the last
 * resort that SIGKILLs any process group still alive.
 *
 * SIGHUP means "the terminal went away" for `--stdio` and the TUI, which
 * exit; `serve` has no terminal to lose (a client's daemon runs in its own
 * session), so there it means what it means for daemons: reload the config.
 */
import {StdioBridge} from './bridge.js';
import {ConfigError, loadConfig, parseConfig, stateDirOf, type HangarConfig} from '../config/config.js';
import {keepDaemon, startDaemon} from './daemon.js';
import {GatewaySession} from '../gateway/session.js';
import {HttpEndpoint, type HttpListenOptions} from './http-endpoint.js';
import {LineTransport} from '../wire/line-transport.js';
import {LocalEndpoint, attachToSupervisor, busyEndpoint, socketPath, type Attached, type EndpointOwner} from './local-endpoint.js';
import type {Logger, LogLevel} from '../base/logger.js';
import {killAllProcessGroupsSync} from '../upstream/process-registry.js';
import {StateStore} from '../engine/state-store.js';
import {Supervisor} from '../engine/supervisor.js';

export async function createSupervisor(
	config: HangarConfig,
	logger: Logger,
	options: {readOnly?: boolean | undefined; stateDir?: string | undefined} = {},
): Promise<Supervisor> {
	const store = await StateStore.open(config.hangar.stateDir, logger.child('state'), undefined, {readOnly: options.readOnly});
	for (const problem of store.problems) logger.warn(problem);
	// A reload reads the file as it was read at start: --state-dir still overrides the file's stateDir.
	return new Supervisor(config, store, logger, {loadOptions: {stateDir: options.stateDir}});
}

export type ExitController = {
	/** Stops everything and exits with `code`. Safe to call more than once. */
	exit: (reason: string, code: number) => Promise<never>;
	/** Runs `hook` at exit before the upstreams stop (e.g. drain the local endpoint's clients). */
	beforeShutdown: (hook: () => Promise<void>) => void;
};

/** Installs signal, error and exit hooks that stop `supervisor` before the process exits (`signals`: those that mean exit). */
export function installExitHandlers(
	supervisor: Supervisor,
	logger: Logger,
	forceAfterMs: number,
	signals: readonly NodeJS.Signals[] = ['SIGINT', 'SIGTERM', 'SIGHUP'],
): ExitController {
	let exiting: Promise<never> | undefined;
	const hooks: Array<() => Promise<void>> = [];

	const exit = async (reason: string, code: number): Promise<never> => {
		exiting ??= (async () => {
			const force = setTimeout(() => {
				logger.error(`shutdown took longer than ${forceAfterMs} ms; killing the remaining upstreams`);
				killAllProcessGroupsSync();
				process.exit(code === 0 ? 1 : code);
			}, forceAfterMs);
			force.unref();
			for (const hook of hooks) {
				try {
					await hook();
				} catch (error) {
					logger.error(`shutdown step failed: ${(error as Error).message}`);
				}
			}

			try {
				await supervisor.shutdown(reason);
			} catch (error) {
				logger.error(`shutdown failed: ${(error as Error).message}`);
			}

			killAllProcessGroupsSync();
			process.exit(code);
		})();
		return exiting;
	};

	for (const signal of signals) {
		process.on(signal, () => {
			if (exiting !== undefined) {
				// A second signal while stopping: stop waiting.
				killAllProcessGroupsSync();
				process.exit(1);
			}

			void exit(`received ${signal}`, 0);
		});
	}

	process.on('uncaughtException', error => {
		logger.error(`internal error: ${error.stack ?? error.message}`);
		void exit('internal error', 1);
	});
	process.on('unhandledRejection', reason => {
		// Logged, not fatal: one bad promise must not take every client's endpoint down.
		logger.error(`unhandled rejection: ${reason instanceof Error ? (reason.stack ?? reason.message) : String(reason)}`);
	});
	process.on('exit', () => killAllProcessGroupsSync());

	return {exit, beforeShutdown: hook => hooks.push(hook)};
}

export type StdioOptions = {
	configPath: string;
	stateDir?: string | undefined;
	logger: Logger;
	/** Passed on to a daemon this client starts. */
	logLevel?: LogLevel | undefined;
	standalone?: boolean;
};

/**
 * `mcp-hangar --stdio`: a bridge to the supervisor for this config and
 * state dir, started first (a detached `serve --linger`, see daemon.ts) when
 * none is running. With `standalone`, or when the state dir can never serve
 * this config (another config's supervisor owns it, the socket path cannot
 * work), one gateway session on stdin/stdout with an embedded supervisor.
 */
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

	const supervisor = await createSupervisor(config, logger, {stateDir: options.stateDir});
	const grace = config.hangar.stopGraceMs;
	const controller = installExitHandlers(supervisor, logger, grace * 2 + 8000);

	const transport = new LineTransport(process.stdin, process.stdout, config.hangar.maxMessageBytes);
	const session = new GatewaySession({supervisor, transport, logger: logger.child('gateway'), label: 'stdio', kind: 'stdio'});
	session.onClose(() => {
		void controller.exit('stdin closed', 0);
	});
	await session.start();
	supervisor.watchConfig();
	void supervisor.launch();
	logger.info(`serving MCP on stdio with ${config.servers.length} upstreams`, {config: config.path, stateDir: config.hangar.stateDir});
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

export type ServeOptions = {
	configPath: string;
	stateDir?: string | undefined;
	logger: Logger;
	/** `--http`: also serve MCP over Streamable HTTP (see resolveHttpOptions). */
	http?: HttpListenOptions | undefined;
	/** `--linger`: exit once no client has been attached for hangar.lingerSeconds (what `--stdio` starts). */
	linger?: boolean | undefined;
};

/**
 * `--http` for `serve` and `tui`: listens, and closes the endpoint (its
 * sessions drained and closed) before the upstreams stop at exit.
 */
async function listenHttp(supervisor: Supervisor, logger: Logger, options: HttpListenOptions, controller: ExitController): Promise<HttpEndpoint> {
	const endpoint = await HttpEndpoint.listen({...options, supervisor, logger});
	controller.beforeShutdown(async () => endpoint.close());
	return endpoint;
}

export type OwnedSupervisor = {supervisor: Supervisor; controller: ExitController; endpoint: LocalEndpoint; http: HttpEndpoint | undefined};

/**
 * Starts a supervisor that owns its state dir's endpoints (`tui`, `serve`):
 * refuses in one sentence (exit 1) when another already serves the state
 * dir, then builds the supervisor and its exit handlers and listens on the
 * local socket and, with `http`, over HTTP; both are drained at exit before
 * any upstream stops.
 */
export async function startOwner(
	config: HangarConfig,
	logger: Logger,
	kind: EndpointOwner['kind'],
	http: HttpListenOptions | undefined,
	options: {stateDir?: string | undefined; linger?: boolean | undefined} = {},
): Promise<OwnedSupervisor> {
	const refuse = (message: string): void => {
		process.stderr.write(`mcp-hangar ${kind}: ${message}\n`);
	};

	const busy = await busyEndpoint(config.hangar.stateDir);
	if (busy !== undefined) {
		refuse(busy.message);
		process.exit(1);
	}

	try {
		// Before the state store opens: of two owners started at once, the loser must not take its lock.
		await LocalEndpoint.claim(config.hangar.stateDir, {configPath: config.path, kind, logger, linger: options.linger});
	} catch (error) {
		refuse((error as Error).message);
		process.exit(1);
	}

	const supervisor = await createSupervisor(config, logger, {stateDir: options.stateDir});
	// serve: SIGHUP reloads the config (see the module comment).
	const controller = installExitHandlers(supervisor, logger, config.hangar.stopGraceMs * 2 + 8000, kind === 'serve' ? ['SIGINT', 'SIGTERM'] : undefined);
	supervisor.watchConfig();
	try {
		const endpoint = await LocalEndpoint.listen({supervisor, logger, kind, linger: options.linger});
		controller.beforeShutdown(async () => endpoint.close());
		return {supervisor, controller, endpoint, http: http === undefined ? undefined : await listenHttp(supervisor, logger, http, controller)};
	} catch (error) {
		refuse((error as Error).message);
		return controller.exit('an endpoint could not be opened', 1);
	}
}

/** `mcp-hangar serve`: a headless supervisor that MCP clients attach to through the local socket (and over HTTP with `--http`). */
export async function serveDaemon(options: ServeOptions): Promise<void> {
	const {logger} = options;
	const config = loadConfig(options.configPath, {stateDir: options.stateDir});
	const {supervisor, endpoint, http, controller} = await startOwner(config, logger, 'serve', options.http, {stateDir: options.stateDir, linger: options.linger});
	process.on('SIGHUP', () => {
		void supervisor.reload('SIGHUP');
	});
	if (options.linger === true) lingerWhileIdle(supervisor, controller, logger);
	if (!supervisor.store.isWriter) {
		logger.warn(`hangar pid ${supervisor.store.writerPid ?? '?'} holds the state lock of ${config.hangar.stateDir}: quarantines and approvals made here are not saved`);
	}

	void supervisor.launch();
	logger.info(`serving ${config.servers.length} upstreams to MCP clients on ${endpoint.path}${http === undefined ? '' : ` and ${http.url}`}`, {config: config.path, stateDir: config.hangar.stateDir});
}

/** A daemon's first client may take a while to connect on a busy machine: it is not given up on sooner than this. */
const firstClientGraceMs = 30_000;

/**
 * `serve --linger`: exits once no client (a `--stdio` bridge, the CLI, an
 * attached TUI, an HTTP session: every session counts itself in
 * `supervisor.clients`) has been attached for hangar.lingerSeconds, read
 * when the wait begins, so a reload changes the next one. The upstreams
 * stop with it, in order, as at any exit.
 */
function lingerWhileIdle(supervisor: Supervisor, controller: ExitController, logger: Logger): void {
	let timer: NodeJS.Timeout | undefined;
	const arm = (ms: number): void => {
		timer = setTimeout(() => {
			timer = undefined;
			if (supervisor.clients.size > 0) return;
			void controller.exit(`no client attached for ${Math.round(ms / 100) / 10} s (hangar.lingerSeconds)`, 0);
		}, ms);
	};

	supervisor.clients.on('changed', () => {
		if (supervisor.clients.size > 0) {
			clearTimeout(timer);
			timer = undefined;
		} else if (timer === undefined) {
			const ms = supervisor.config.hangar.lingerMs;
			logger.info(`no client attached: exiting in ${Math.round(ms / 100) / 10} s unless one attaches (hangar.lingerSeconds)`);
			arm(ms);
		}
	});
	arm(Math.max(supervisor.config.hangar.lingerMs, firstClientGraceMs));
}
