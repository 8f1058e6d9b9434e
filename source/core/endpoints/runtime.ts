/**
 * Process-level wiring shared by every way of running hangar: open the state
 * store, build the supervisor, and make sure that however the process ends
 * (stdin EOF, SIGINT, SIGTERM, SIGHUP, an internal error) every upstream is
 * stopped in order before it exits. The synchronous `exit` hook is the last
 * resort that SIGKILLs any upstream process tree still alive; a SIGKILL of
 * hangar itself is left to the watchdog (process-registry.ts).
 *
 * SIGHUP means "the terminal went away" for `--stdio` and the TUI, which
 * exit; `serve` has no terminal to lose (a client's daemon runs in its own
 * session), so there it means what it means for daemons: reload the config.
 */
import {loadConfig, logConfigIssues, type HangarConfig} from '../config/read-config.js';
import {GatewaySession} from '../gateway/session.js';
import type {HttpEndpoint, HttpListenOptions} from './http-endpoint.js';
import {LineTransport, logDrops} from '../wire/line-transport.js';
import {managementTools} from '../gateway/management-tools.js';
import {EndpointBusyError, LocalEndpoint, busyEndpoint} from './local-endpoint.js';
import {bridgeSettings, type EndpointOwner} from './socket-client.js';
import type {Logger} from '../base/logger.js';
import {terminalOutput} from '../base/terminal-text.js';
import {killAllTreesSync} from '../link/process-registry.js';
import {cliClientName} from '../wire/protocol.js';
import {lowFdLimitWarning} from '../base/resource-limits.js';
import {dropEarly} from '../link/early-spawn.js';
import {StateStore} from '../engine/state-store.js';
import {Supervisor} from '../engine/supervisor.js';
import {registerAndWatch} from '../engine/supervisor-registry.js';
import {startAudit} from '../engine/observe/audit-log.js';
import {tracingEnabled} from '../engine/observe/trace-scope.js';
import {maskText} from '../base/secret-mask.js';
import {settleWithin} from '../base/settle.js';
import module from 'node:module';

export async function createSupervisor(
	config: HangarConfig,
	logger: Logger,
	options: {readOnly?: boolean | undefined; stateDir?: string | undefined; quiet?: boolean} = {},
): Promise<Supervisor> {
	// Node raised the soft limit to the hard one already (resource-limits.ts): a low limit can only be reported.
	const lowLimit = lowFdLimitWarning();
	if (lowLimit !== undefined) logger.warn(lowLimit);
	const store = await StateStore.open(config.hangar.stateDir, logger.child('state'), undefined, {readOnly: options.readOnly});
	// `quiet`: the caller shows the config's issues and the state's problems itself (status does, in its output).
	if (options.quiet !== true) {
		logConfigIssues(config, logger);
		for (const problem of store.problems) logger.warn(problem);
	}

	// A reload reads the file as it was read at start: --state-dir still overrides the file's stateDir.
	const supervisor = new Supervisor(config, store, logger, {loadOptions: {stateDir: options.stateDir}, hangarTools: managementTools});
	// Only a supervisor that serves keeps the trail (status and check-config read the state dir only).
	if (options.readOnly !== true) {
		startAudit(supervisor, logger.child('audit'));
		// OpenTelemetry is loaded only when the OTEL_* variables ask for traces.
		if (tracingEnabled(process.env)) {
			const {tracerFromEnv, otlpTracesUrl} = await import('../engine/observe/tracing.js');
			supervisor.tracing = await tracerFromEnv(process.env, logger.child('traces'));
			logger.info(`exporting OpenTelemetry traces over OTLP/HTTP to ${maskText(otlpTracesUrl(process.env))} (OTEL_* environment variables)`);
		}
	}

	return supervisor;
}

/** `hangar.metricsPort`: the loopback scrape port of any supervisor that serves clients, closed before the upstreams stop. */
async function exportMetrics(supervisor: Supervisor, logger: Logger, controller: ExitController): Promise<void> {
	const port = supervisor.config.hangar.metricsPort;
	if (port === 0) return;
	// Loaded here: node:http alone is about 8 MiB of RSS, which a supervisor that exports nothing should not hold.
	const {listenMetrics} = await import('./metrics-endpoint.js');
	const server = await listenMetrics(supervisor, port, logger.child('metrics'));
	if (server !== undefined) controller.beforeShutdown(async () => void server.close());
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
				killAllTreesSync();
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

			// The last spans, exported if the collector answers soon.
			if (supervisor.tracing !== undefined) await settleWithin(supervisor.tracing.shutdown().catch(() => {}), 2000);

			killAllTreesSync();
			process.exit(code);
		})();
		return exiting;
	};

	for (const signal of signals) {
		process.on(signal, () => {
			if (exiting !== undefined) {
				// A second signal while stopping: stop waiting.
				killAllTreesSync();
				process.exit(1);
			}

			void exit(`received ${signal}`, 0);
		});
	}

	// mcp-hangar shutdown over the local socket (admin-methods.ts): as SIGTERM, its reason naming who asked.
	supervisor.on('exitAsked', who => void exit(`asked by ${who}`, 0));

	process.on('uncaughtException', error => {
		logger.error(`internal error: ${error.stack ?? error.message}`);
		void exit('internal error', 1);
	});
	process.on('unhandledRejection', reason => {
		// Logged, not fatal: one bad promise must not take every client's endpoint down.
		logger.error(`unhandled rejection: ${reason instanceof Error ? (reason.stack ?? reason.message) : String(reason)}`);
	});
	process.on('exit', () => killAllTreesSync());

	return {exit, beforeShutdown: hook => hooks.push(hook)};
}

/**
 * `mcp-hangar --stdio` with no supervisor to attach to (or `--standalone`):
 * one gateway session on stdin/stdout with an embedded supervisor behind it.
 * stdio.ts decides; this part loads the engine, so it is imported only then.
 * `stateDir`: the --state-dir given, which a reload keeps over the file's.
 */
export async function serveStandalone(config: HangarConfig, logger: Logger, stateDir?: string): Promise<void> {
	const supervisor = await createSupervisor(config, logger, {stateDir});
	const grace = config.hangar.stopGraceMs;
	const controller = installExitHandlers(supervisor, logger, grace * 2 + 8000);
	await exportMetrics(supervisor, logger, controller);

	const transport = new LineTransport(process.stdin, process.stdout, config.hangar.maxMessageBytes, logDrops(logger, 'the stdio client'));
	const session = new GatewaySession({supervisor, transport, logger: logger.child('gateway'), label: 'stdio', kind: 'stdio'});
	session.onClose(() => {
		void controller.exit('stdin closed', 0);
	});
	await session.start();
	// Another supervisor of this config (a client that resolved another state dir) is warned about in the log.
	const registration = registerAndWatch({config: config.path, stateDir: config.hangar.stateDir, kind: 'stdio'}, logger);
	controller.beforeShutdown(async () => registration.close());
	supervisor.watchConfig();
	// What was spawned early for an upstream the launch did not start after all is not kept.
	void supervisor.launch().then(launched);
	logger.info(`serving MCP on stdio with ${config.servers.length} upstreams`, {config: config.path, stateDir: config.hangar.stateDir});
}

/**
 * Once the launch has settled: what was spawned early for an upstream the
 * launch did not start after all is not kept, and the compile cache (turned
 * on by dist/cli.js, cli/node-runtime.ts) is written now, with the modules a
 * start and a first call load, rather than only at a clean exit: a
 * supervisor that runs for days, or ends by a signal no hook survives, would
 * otherwise leave the next one (another config's, or its own successor) to
 * compile them all again. Modules loaded from the cache are not written again.
 */
function launched(): void {
	dropEarly();
	if (typeof module.flushCompileCache === 'function') module.flushCompileCache();
}

export type ServeOptions = {
	configPath: string;
	stateDir?: string | undefined;
	logger: Logger;
	/** `--http`: also serve MCP over Streamable HTTP (see resolveHttpOptions). */
	http?: HttpListenOptions | undefined;
	/** `--linger`: exit once no client has been attached for hangar.lingerSeconds (what `--stdio` starts). */
	linger?: boolean | undefined;
	/** The config as already loaded (by the CLI, to spawn upstreams early: see early-launch.ts). */
	config?: HangarConfig | undefined;
};

/**
 * `--http` for `serve` and `tui`: listens, and closes the endpoint (its
 * sessions drained and closed) before the upstreams stop at exit.
 */
async function listenHttp(supervisor: Supervisor, logger: Logger, options: HttpListenOptions, controller: ExitController): Promise<HttpEndpoint> {
	// Loaded here: only serve --http and tui --http need the SDK's HTTP server transport.
	const [{HttpEndpoint}, {metricsOf}] = await Promise.all([import('./http-endpoint.js'), import('./metrics-endpoint.js')]);
	// Counting from the start, not from the first scrape of /metrics.
	await metricsOf(supervisor);
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
		terminalOutput.err(`mcp-hangar ${kind}: ${message}\n`);
	};

	// A daemon a client started that finds another supervisor serving its state dir lost a start
	// race, or came too late: its bridge attaches to that one. Not a failure: exit 0, so the bridge
	// does not report it as one.
	const lostRace = (message: string): never => {
		if (options.linger === true) {
			logger.info(`not needed: ${message.replace(/ Clients started with .*$/, '')}; the clients attach to that one`);
			process.exit(0);
		}

		refuse(message);
		process.exit(1);
	};

	const busy = await busyEndpoint(config.hangar.stateDir);
	if (busy !== undefined) lostRace(busy.message);

	try {
		// Before the state store opens: of two owners started at once, the loser must not take its lock.
		await LocalEndpoint.claim(config.hangar.stateDir, {configPath: config.path, kind, logger, linger: options.linger, bridge: bridgeSettings(config)});
	} catch (error) {
		if (error instanceof EndpointBusyError) lostRace(error.message);
		refuse((error as Error).message);
		process.exit(1);
	}

	const supervisor = await createSupervisor(config, logger, {stateDir: options.stateDir});
	// serve: SIGHUP reloads the config (see the module comment).
	const controller = installExitHandlers(supervisor, logger, config.hangar.stopGraceMs * 2 + 8000, kind === 'serve' ? ['SIGINT', 'SIGTERM'] : undefined);
	supervisor.watchConfig();
	await exportMetrics(supervisor, logger, controller);
	try {
		const endpoint = await LocalEndpoint.listen({supervisor, logger, kind, linger: options.linger});
		controller.beforeShutdown(async () => endpoint.close());
		const registration = registerAndWatch({config: config.path, stateDir: config.hangar.stateDir, kind: options.linger === true ? 'serve --linger' : kind, socket: endpoint.path}, logger);
		controller.beforeShutdown(async () => registration.close());
		return {supervisor, controller, endpoint, http: http === undefined ? undefined : await listenHttp(supervisor, logger, http, controller)};
	} catch (error) {
		refuse((error as Error).message);
		return controller.exit('an endpoint could not be opened', 1);
	}
}

/** `mcp-hangar serve`: a headless supervisor that MCP clients attach to through the local socket (and over HTTP with `--http`). */
export async function serveDaemon(options: ServeOptions): Promise<void> {
	const {logger} = options;
	const config = options.config ?? loadConfig(options.configPath, {stateDir: options.stateDir});
	const {supervisor, endpoint, http, controller} = await startOwner(config, logger, 'serve', options.http, {stateDir: options.stateDir, linger: options.linger});
	process.on('SIGHUP', () => {
		void supervisor.reload('SIGHUP');
	});
	if (options.linger === true) lingerWhileIdle(supervisor, controller, logger);
	if (!supervisor.store.isWriter) {
		logger.warn(`hangar pid ${supervisor.store.writerPid ?? '?'} holds the state lock of ${config.hangar.stateDir}: quarantines and approvals are refused here until it exits, then this process takes the state dir over`);
	}

	void supervisor.launch().then(launched);
	logger.info(`serving ${config.servers.length} upstreams to MCP clients on ${endpoint.path}${http === undefined ? '' : ` and ${http.url}`}`, {config: config.path, stateDir: config.hangar.stateDir});
}

/** A daemon's first client may take a while to connect on a busy machine: it is not given up on sooner than this. */
const firstClientGraceMs = 30_000;

/**
 * `serve --linger`: exits once no client (a `--stdio` bridge, an attached
 * TUI, an HTTP session: every session counts itself in `supervisor.clients`)
 * has been attached for hangar.lingerSeconds, read when the wait begins, so
 * a reload changes the next one. The upstreams stop with it, in order, as at
 * any exit.
 *
 * The CLI's one-shot sessions (`status`, `call`, …) do not extend the wait:
 * the idle time counts from when the last lasting client left, and a CLI
 * session only holds the exit off while it runs. A session that has not
 * said who it is yet (connecting, or a probe of the socket) holds it off too,
 * without restarting the count.
 */
function lingerWhileIdle(supervisor: Supervisor, controller: ExitController, logger: Logger): void {
	let timer: NodeJS.Timeout | undefined;
	let idleSince: number | undefined = Date.now();
	let waitMs = Math.max(supervisor.config.hangar.lingerMs, firstClientGraceMs);
	const sessions = () => [...supervisor.clients.sessions()];
	let seen: number | undefined;
	const check = (): void => {
		// Every call says `changed`; only who is connected matters here (a check with the same sessions changes nothing).
		if (supervisor.clients.membership === seen) return;
		seen = supervisor.clients.membership;
		clearTimeout(timer);
		timer = undefined;
		const now = sessions();
		if (now.some(record => record.name !== null && record.name !== cliClientName)) {
			idleSince = undefined;
			return;
		}

		if (idleSince === undefined) {
			idleSince = Date.now();
			waitMs = supervisor.config.hangar.lingerMs;
			logger.info(`no client attached: exiting in ${Math.round(waitMs / 100) / 10} s unless one attaches (hangar.lingerSeconds)`);
		}

		// Someone is connecting, or a CLI command is running: wait for it to leave, the deadline unchanged.
		if (now.length > 0) return;
		const left = Math.max(0, idleSince + waitMs - Date.now());
		timer = setTimeout(() => {
			timer = undefined;
			if (sessions().length > 0) return;
			void controller.exit(`no client attached for ${Math.round(waitMs / 100) / 10} s (hangar.lingerSeconds)`, 0);
		}, left);
	};

	supervisor.clients.on('changed', check);
	check();
}
