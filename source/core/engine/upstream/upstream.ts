/**
 * One upstream under supervision. It owns the lifecycle state machine, the
 * circuit breaker, the restart policy, the metrics, the tool list (live,
 * persisted or predefined, always with the time it was verified), its
 * catalog (capabilities, resources, templates, prompts: live or cached), the log
 * buffer and the timers (restart, probe, health ping, idle stop).
 *
 * Every state change goes through `this.machine.apply(event, reason)`; the
 * machine rejects anything its table does not allow. Calls, people and
 * timers all meet here, so the rules are enforced in one place:
 *
 * - Concurrent callers of a cold upstream share one start promise.
 * - A call gets a deadline of `callTimeoutMs` (or the caller's shorter one,
 *   e.g. the HTTP endpoint's) covering start and call; when it passes the
 *   caller gets a CallTimeout error and the upstream request is cancelled.
 * - Timeouts, transport errors, crashes, failed pings and failed starts count
 *   against the breaker; a tool result with `isError` does not.
 */
import {EventEmitter} from 'node:events';
import {CircuitBreaker, type BreakerState} from './circuit-breaker.js';
import type {HangarSettings, ServerConfig, ToolDefinition} from '../../config/read-config.js';
import {HangarError, errorMessage} from '../../base/errors.js';
import {LogBuffer, copyToLog, type LogLine} from '../../link/log-buffer.js';
import type {Logger} from '../../base/logger.js';
import {maskText} from '../../base/secret-mask.js';
import {CallMetrics, type CallMetricsSnapshot} from './metrics.js';
import {createUpstreamMachine, runningStates, type AdminState, type UpstreamEvent, type UpstreamState, type StopTarget, type TransitionEvent} from './upstream-state.js';
import {RestartPolicy} from './restart-policy.js';
import type {TransitionRecord} from '../../base/state-machine.js';
import type {StateStore} from '../state-store.js';
import {ConnectionLostError, UpstreamConnection, type CallToolResult} from '../../link/connection.js';
import {describeExit, type ExitInfo} from '../../link/child-process-transport.js';
import {diagnoseLaunch, SpawnError, type LaunchProblem} from '../../link/launch-problem.js';
import type {ClientSide} from '../../link/client-side.js';
import {pinTools, rugPullReason, type ToolChange} from './pins.js';
import {CallersInFlight} from '../clients/calls-in-flight.js';
import {AbortReason, CallPath, abortable, type CallContext, type ProgressRelay, type UpstreamFacts} from './call-path.js';
import {CallHistory, type CallRecord} from './call-history.js';
import {UpstreamHealth} from './upstream-health.js';
import {UpstreamTimers} from './upstream-timers.js';
import {RugPull, ToolList, type ApprovalPlan, type ToolsSource} from './tool-list.js';
import {Catalog, catalogKinds, servesKind, type CatalogKind, type CatalogLists, type ServerCapabilities} from './catalog.js';
import {toolFiltered, notApprovable, notStartable, restartHint, rugPulled, seconds, startFailed, startInterrupted, unavailable} from '../refusals.js';

export type {AdminState, ApprovalPlan, CallRecord, StopTarget, ToolsSource, TransitionEvent};

export type UpstreamSnapshot = {
	name: string;
	state: UpstreamState;
	breaker: BreakerState;
	pid: number | undefined;
	transport: 'stdio' | 'remote';
	tools: number;
	toolsSource: ToolsSource;
	lastVerifiedAt: number | undefined;
	calls: number;
	failures: number;
	toolErrors: number;
	consecutiveFailures: number;
	latencyMs: {p50: number | undefined; p95: number | undefined};
	lastError: string | undefined;
	nextRetryAt: number | undefined;
	startedAt: number | undefined;
	inFlight: number;
	restarts: number;
	stateSince: number;
};

const settleEvent: Record<StopTarget, UpstreamEvent> = {
	cold: 'settle_cold',
	stopped: 'settle_stopped',
	quarantined: 'settle_quarantined',
	disabled: 'settle_disabled',
};

export class Upstream extends EventEmitter<{
	transition: [TransitionEvent];
	tools: [];
	/** Its resources, templates or prompts changed. */
	catalog: [];
	/** A resource it watches for hangar (resources/subscribe) changed: its own URI. */
	resourceUpdated: [string];
	activity: [];
}> {
	readonly log: LogBuffer;
	readonly metrics = new CallMetrics();
	readonly history = new CallHistory();
	readonly toolList: ToolList;
	readonly catalog: Catalog;
	private readonly machine;
	readonly breaker: CircuitBreaker;
	private readonly restartPolicy: RestartPolicy;
	private readonly timers = new UpstreamTimers();
	private readonly calls: CallPath;
	/** The calls and requests in flight here, by the client session that sent each. */
	readonly callers = new CallersInFlight();
	private readonly health: UpstreamHealth;

	private connection: UpstreamConnection | undefined;
	private startPromise: Promise<UpstreamConnection> | undefined;
	private startAbort: AbortController | undefined;
	private stopPromise: Promise<void> | undefined;

	private inFlight = 0;
	private lastActivityAt = Date.now();
	private startedAt: number | undefined;
	private toolErrors = 0;
	private restartCount = 0;
	private lastExit: ExitInfo | undefined;
	private restartAt: number | undefined;
	/** Set when its last start failed for a reason a retry cannot fix (see launch-problem.ts). */
	private permanentProblem: LaunchProblem | undefined;
	/** Where a stop in progress lands. */
	private stopTarget: StopTarget | undefined;
	private disposed = false;
	private readonly createdAt = Date.now();

	constructor(
		readonly config: ServerConfig,
		private readonly settings: HangarSettings,
		private readonly store: StateStore,
		private readonly logger: Logger,
		/** Who answers the upstream's requests for its client, and receives its log messages. */
		private readonly clientSide?: ClientSide,
		/**
		 * Set for one instance of a per-client server (`<server>#<n>`): its name
		 * in transitions, logs and errors. Its persisted state (tool cache, pins,
		 * quarantine, counters) is the server's, so instances never show up as
		 * upstreams of their own in the state file.
		 */
		private readonly instanceName?: string,
	) {
		super();
		this.log = new LogBuffer(settings.logLines);
		copyToLog(this.log, this.logger, this.name);
		const isNew = !store.has(config.name);
		const persisted = store.upstream(config.name);
		if (isNew) {
			const now = Date.now();
			store.update(config.name, upstream => {
				upstream.firstSeenAt = now;
				if (settings.quarantineNew && !config.disabled && !config.quarantined && config.invalid === undefined) {
					upstream.admin = {state: 'quarantined', at: now, reason: 'new upstream: "quarantineNew" is on, so it waits for a person to approve it'};
				}
			});
		}

		// A disabled entry never runs, so its problems (if any) wait until it is enabled; --check-config still lists them.
		const initial: UpstreamState = config.disabled
			? 'disabled'
			: config.invalid !== undefined
				? 'invalid'
				: config.quarantined || persisted.admin?.state === 'quarantined'
				? 'quarantined'
				: 'cold';
		this.machine = createUpstreamMachine(this.name, initial);
		this.breaker = new CircuitBreaker({
			threshold: settings.failureThreshold,
			minMs: settings.backoffMinMs,
			maxMs: settings.backoffMaxMs,
		});
		this.restartPolicy = new RestartPolicy({
			maxRestarts: settings.restartBudget.maxRestarts,
			windowMs: settings.restartBudget.windowMs,
			minDelayMs: settings.backoffMinMs,
			maxDelayMs: settings.backoffMaxMs,
		});
		this.machine.onTransition(record => {
			this.logger.info(`${record.from} -> ${record.to}: ${record.reason}`, {upstream: this.name, event: record.event});
			this.log.push('hangar', `${record.from} -> ${record.to}: ${record.reason}`, record.at);
			this.emit('transition', {...record, upstream: this.name});
		});

		this.toolList = new ToolList(config.name, config, store, this.log, settings.pinning);
		if (initial === 'invalid') this.metrics.lastError = `invalid config entry: ${config.invalid}`;
		this.catalog = new Catalog(config.name, store, this.log, () => this.emit('catalog'));
		this.calls = new CallPath(this, logger);
		this.health = new UpstreamHealth(this, this.timers, settings);
		if (persisted.lastExit !== undefined) {
			this.lastExit = {code: persisted.lastExit.code, signal: persisted.lastExit.signal, at: persisted.lastExit.at};
		}
	}

	get name(): string {
		return this.instanceName ?? this.config.name;
	}

	get state(): UpstreamState {
		return this.machine.state;
	}

	get tools(): readonly ToolDefinition[] {
		return this.toolList.tools;
	}

	get toolsSource(): ToolsSource {
		return this.toolList.source;
	}

	/** Bumped whenever the tool list's content changes. */
	get toolsRevision(): number {
		return this.toolList.revision;
	}

	get pid(): number | undefined {
		return this.connection?.pid;
	}

	/** Its capabilities from its last initialize, this run or cached; undefined when never known. */
	get capabilities(): ServerCapabilities | undefined {
		return this.catalog.capabilities;
	}

	/** Bumped whenever its resources or resource templates change. */
	get resourcesRevision(): number {
		return this.catalog.resourcesRevision;
	}

	/** Bumped whenever its prompts change. */
	get promptsRevision(): number {
		return this.catalog.promptsRevision;
	}

	/** The recorded state transitions, oldest first (bounded). */
	get transitions(): ReadonlyArray<TransitionRecord<UpstreamState, UpstreamEvent>> {
		return this.machine.transitions();
	}

	/** The last finished calls, oldest first. */
	recentCalls(): CallRecord[] {
		return this.history.recent();
	}

	/** Metrics per tool called. */
	get toolMetrics(): ReadonlyMap<string, CallMetrics> {
		return this.history.byTool;
	}

	/** Where the stop in progress lands (only while stopping). */
	get stoppingTo(): StopTarget | undefined {
		return this.state === 'stopping' ? this.stopTarget : undefined;
	}

	/** What a person or the config set: switched off once stopped, quarantined or disabled, or while stopping towards one of them. */
	get admin(): AdminState {
		const state = this.state === 'stopping' ? this.stoppingTo : this.state;
		return state === 'stopped' || state === 'quarantined' || state === 'disabled' ? state : 'enabled';
	}

	/** When the tool list was last read from the upstream itself. */
	get toolsVerified(): number | undefined {
		return this.toolList.verifiedAt;
	}

	/** Whether `tool` may be called: the upstream lists it, or its tools are not known yet (the call will start it and find out). */
	listsTool(tool: string): boolean {
		return this.toolList.lists(tool);
	}

	/** Whether a call made now would be attempted (routed, or wait for a start) rather than refused. */
	get callable(): boolean {
		switch (this.state) {
			case 'ready':
			case 'starting':
			case 'cold': {
				return true;
			}

			case 'stopping': {
				return this.stopTarget === 'cold';
			}

			default: {
				return false;
			}
		}
	}

	/** Whether the tool list may be out of date: from a previous run or the config, or not verified within the refresh interval. */
	get toolsStale(): boolean {
		return this.toolList.stale(this.settings.toolsRefreshMs);
	}

	/** Why it is quarantined, and what changed if a pinned tool changed; undefined when it is not quarantined. */
	get quarantineInfo(): {reason: string; at: number | undefined; changes: ToolChange[]} | undefined {
		if (this.state !== 'quarantined' && this.stoppingTo !== 'quarantined') return undefined;
		const admin = this.store.upstream(this.config.name).admin;
		if (admin !== undefined) return {reason: admin.reason, at: admin.at, changes: admin.changes ?? []};
		return {reason: this.quarantineReason(), at: this.machine.transitions().at(-1)?.at, changes: []};
	}

	/** How and when its tools were pinned (at first use, or by a person's approval) and how many; undefined when nothing is pinned. */
	get pins(): ToolList['pins'] {
		return this.toolList.pins;
	}

	/** Whether a pinned tool's definition matches the pin: 'pinned', 'unpinned' (no pin for it). */
	pinOf(tool: string): 'pinned' | 'unpinned' {
		return this.toolList.pinOf(tool);
	}

	/** What a person's approval would pin (see `ToolList.approvalPlan`). */
	get approvalPlan(): ApprovalPlan {
		return this.toolList.approvalPlan;
	}

	/** Whether `launch()` would start this upstream. */
	get startsAtLaunch(): boolean {
		return this.state === 'cold' && (!this.config.lazy || this.toolList.source === 'none');
	}

	/**
	 * Whether it is learning its tools for the first time: it has none, from
	 * this run, an earlier one or the config, and is starting or about to be
	 * started at launch. A client's first list waits for these (see
	 * Supervisor.awaitDiscovery).
	 */
	get discovering(): boolean {
		return this.toolList.source === 'none' && (this.state === 'starting' || this.startsAtLaunch);
	}

	/** Called once after construction: starts eager upstreams; resolves when the start has settled. */
	async launch(): Promise<void> {
		if (!this.startsAtLaunch || this.disposed) return;
		const reason = this.config.lazy ? 'discovering tools (none cached or predefined)' : 'lazy is false: started at launch';
		// Nothing cached or predefined: start once to learn the tools; the idle stop puts it back to cold.
		await this.beginStart('start', reason).catch(() => {});
	}

	snapshot(): UpstreamSnapshot {
		const m: CallMetricsSnapshot = this.metrics.snapshot();
		return {
			name: this.name,
			state: this.state,
			breaker: this.breaker.state,
			pid: this.connection?.pid,
			transport: this.config.launch.kind,
			tools: this.toolList.tools.length,
			toolsSource: this.toolList.source,
			lastVerifiedAt: this.toolList.verifiedAt,
			calls: m.calls,
			failures: m.failures,
			toolErrors: this.toolErrors,
			consecutiveFailures: this.breaker.consecutiveFailures,
			latencyMs: m.latencyMs,
			lastError: m.lastError,
			nextRetryAt: this.nextRetryAt(),
			startedAt: this.startedAt,
			inFlight: this.inFlight,
			restarts: this.restartCount,
			stateSince: this.machine.transitions().at(-1)?.at ?? this.createdAt,
		};
	}

	private nextRetryAt(): number | undefined {
		if (this.state === 'degraded') return this.breaker.nextProbeAt;
		if (this.state === 'dead') return this.restartAt;
		return undefined;
	}

	// ---------------------------------------------------------------------
	// Calls

	/** Calls a tool of this upstream: see `CallPath`. A tool its filter keeps out is refused, however the call named it. */
	async callTool(tool: string, args: Record<string, unknown> | undefined, context: CallContext = {}): Promise<CallToolResult> {
		const rule = this.toolList.filterRule(tool);
		if (rule !== undefined) throw toolFiltered(this.name, tool, rule);
		return this.calls.run(tool, args, context);
	}

	/** The tools it lists that its config entry's filter keeps out, each with the rule. */
	get filteredTools(): ReadonlyArray<{name: string; rule: string}> {
		return this.toolList.filtered;
	}

	/**
	 * Sends a request other than a tool call (resources/read, prompts/get,
	 * completion/complete, resources/subscribe, ...): started on demand, within
	 * the call deadline; see `CallPath.request`.
	 */
	async request(method: string, params: Record<string, unknown>, operation: string, context: CallContext = {}): Promise<Record<string, unknown>> {
		return this.calls.request(method, params, operation, context);
	}

	/** A request (a tool call or another) began: counted as in flight and as activity. */
	requestBegan(): void {
		this.inFlight += 1;
		this.lastActivityAt = Date.now();
		this.emit('activity');
	}

	requestEnded(): void {
		this.inFlight -= 1;
		this.lastActivityAt = Date.now();
		if (!this.timers.has('idle')) this.health.scheduleIdle();
		this.emit('activity');
	}

	/** The live connection while ready: the call path's hot path. */
	get readyConnection(): UpstreamConnection | undefined {
		return this.state === 'ready' ? this.connection : undefined;
	}

	/** A call was answered by the upstream (a result, `isError` or not). */
	callAnswered(isError: boolean): void {
		if (isError) this.toolErrors += 1;
		if (this.state === 'ready') this.breaker.recordSuccess();
	}

	/** A call ended, either way; `failed`: it counts against the breaker. */
	callEnded(tool: string, failed: boolean): void {
		this.inFlight -= 1;
		this.lastActivityAt = Date.now();
		if (failed) this.health.recordFailure(`call to "${tool}" failed`);
		this.store.update(
			this.config.name,
			upstream => {
				upstream.counters.calls += 1;
				if (failed) upstream.counters.failures += 1;
			},
			true,
		);
		// The idle timer re-arms itself from lastActivityAt, so calls need not reset it.
		if (!this.timers.has('idle')) this.health.scheduleIdle();
		this.emit('activity');
	}

	/** What the call path needs to say why a call failed. */
	failureFacts(): UpstreamFacts {
		return {
			connectionOpen: this.connection?.isOpen ?? false,
			lastExit: this.lastExit,
			stderrTail: () => this.log.tail(5, 'stderr').map(line => line.text),
			crashHint: () => restartHint(this.state, this.restartAt, this.name),
			nextRetryAt: this.nextRetryAt(),
		};
	}

	/** Resolves with a live connection, starting the upstream if it may be started on demand; refuses (HangarError) when it may not. */
	async ensureReady(why: string, signal: AbortSignal, progress: ProgressRelay | undefined): Promise<UpstreamConnection> {
		for (;;) {
			signal.throwIfAborted();
			switch (this.state) {
				case 'ready': {
					return this.connection!;
				}

				case 'starting': {
					const waiting = abortable(this.startPromise!, signal);
					return progress === undefined ? waiting : progress.during(`waiting for upstream "${this.name}" to start`, waiting);
				}

				case 'cold': {
					const starting = abortable(this.beginStart('start', `on demand: ${why}`), signal);
					return progress === undefined ? starting : progress.during(`starting upstream "${this.name}"`, starting);
				}

				case 'stopping': {
					await abortable(this.stopPromise ?? Promise.resolve(), signal);
					continue;
				}

				case 'degraded': {
					throw unavailable(this.name, why, {
						state: 'degraded',
						consecutiveFailures: this.breaker.consecutiveFailures,
						lastError: this.metrics.lastError,
						nextProbeAt: this.breaker.nextProbeAt,
					});
				}

				case 'dead': {
					// The reason of the transition to dead says how it ended (exit, stderr, restart plan).
					throw unavailable(this.name, why, {state: 'dead', reason: this.lastTransitionReason(), restartAt: this.restartAt, permanent: this.permanentProblem?.hint});
				}

				case 'stopped': {
					throw unavailable(this.name, why, {state: 'stopped', reason: this.lastTransitionReason()});
				}

				case 'quarantined': {
					throw unavailable(this.name, why, {state: 'quarantined', reason: this.quarantineReason(), byConfig: this.config.quarantined});
				}

				case 'disabled': {
					throw unavailable(this.name, why, {state: 'disabled'});
				}

				case 'invalid': {
					throw unavailable(this.name, why, {state: 'invalid', reason: this.config.invalid ?? 'see its details'});
				}
			}
		}
	}

	private quarantineReason(): string {
		const admin = this.store.upstream(this.config.name).admin;
		if (admin !== undefined) return admin.reason;
		if (this.config.quarantined) return '"quarantined": true in the config';
		return this.lastTransitionReason();
	}

	private lastTransitionReason(): string {
		return this.machine.transitions().at(-1)?.reason ?? 'no reason recorded';
	}

	/**
	 * Waits until the tool list is known: used when a client calls a tool of
	 * an upstream whose tools have never been listed (first run, no cache).
	 * Starts a cold upstream; errors are left to the call that follows.
	 */
	async learnTools(signal: AbortSignal): Promise<void> {
		if (this.state === 'starting') {
			await abortable(this.startPromise!, signal).catch(() => {});
		} else if (this.state === 'cold' && this.toolList.source === 'none') {
			await abortable(this.beginStart('start', 'on demand: a call named a tool of this upstream before its tools were known'), signal).catch(() => {});
		}
	}

	// ---------------------------------------------------------------------
	// Start

	private beginStart(event: 'start', reason: string): Promise<UpstreamConnection> {
		this.timers.clear('restart');
		this.restartAt = undefined;
		this.permanentProblem = undefined;
		this.machine.apply(event, reason);
		const controller = new AbortController();
		this.startAbort = controller;
		const timer = setTimeout(() => controller.abort(new AbortReason('start-timeout')), this.config.startTimeoutMs);
		const began = performance.now();
		const promise = (async () => {
			let connection: UpstreamConnection | undefined;
			try {
				connection = await UpstreamConnection.open(
					this.config,
					this.log,
					{
						onClose: exit => this.onConnectionClosed(connection, exit),
						onToolsChanged: () => this.refreshTools('the upstream sent notifications/tools/list_changed'),
						onListChanged: kind => this.refreshCatalog(kind === 'prompts' ? ['prompts'] : ['resources', 'resourceTemplates'], `the upstream sent notifications/${kind}/list_changed`),
						onResourceUpdated: uri => this.emit('resourceUpdated', uri),
					},
					controller.signal,
					this.settings.stopGraceMs,
					this.clientSide,
				);
				// The catalog is read beside the tools: it adds no round trip to the start, and a list
				// that fails to read is logged and left as it was rather than failing the start.
				const [tools, catalog] = await Promise.all([connection.listTools(controller.signal), this.readCatalog(connection, controller.signal)]);
				// What it asked its client while starting (roots) is answered before it serves a call.
				await connection.clientRequestsSettled(controller.signal, this.settings.pingTimeoutMs, this.clientSide?.capabilities['roots'] !== undefined);
				controller.signal.throwIfAborted();
				const changes = this.toolList.pinnedChanges(tools);
				if (changes.length > 0) throw new RugPull(changes, tools);
				this.connection = connection;
				this.startedAt = Date.now();
				// The catalog first: a new tool list is written to the state file at once, and takes the catalog with it.
				this.setCatalog(catalog.capabilities, catalog.lists);
				this.setTools(tools);
				this.store.update(this.config.name, upstream => {
					upstream.counters.starts += 1;
					upstream.identity = connection!.identity;
				});
				const ms = Math.round(performance.now() - began);
				const pid = connection.pid === undefined ? '' : `pid ${connection.pid}, `;
				if (this.breaker.state === 'closed') {
					this.machine.apply('started', `started in ${ms} ms (${pid}${tools.length} tools)`);
				} else {
					this.breaker.recordSuccess();
					this.machine.apply('started', `started in ${ms} ms (${pid}${tools.length} tools); circuit closed`);
				}

				this.health.scheduleHealth();
				this.health.scheduleIdle();
				return connection;
			} catch (error) {
				if (error instanceof RugPull && connection !== undefined) {
					const exit = await connection.close(this.settings.stopGraceMs);
					if (exit !== undefined) this.recordExit(exit);
					throw this.onRugPull(error.changes, error.tools, 'stop');
				}

				void connection?.close(this.settings.stopGraceMs);
				throw this.onStartFailed(error, controller.signal, began);
			} finally {
				clearTimeout(timer);
				if (this.startAbort === controller) this.startAbort = undefined;
				this.startPromise = undefined;
			}
		})();
		this.startPromise = promise;
		// Callers that gave up (deadline, cancel) must not leave an unhandled rejection behind.
		promise.catch(() => {});
		return promise;
	}

	private onStartFailed(error: unknown, signal: AbortSignal, began: number): HangarError {
		const reason: unknown = signal.aborted ? signal.reason : undefined;
		if (reason instanceof AbortReason && reason.kind === 'stopping') return startInterrupted(this.name);

		const ms = Math.round(performance.now() - began);
		const startedAtWallClock = Date.now() - ms;
		const {lines: stderr, earlier} = attemptStderr(this.log.tail(5, 'stderr'), startedAtWallClock);
		const exit = this.lastExit !== undefined && this.lastExit.at >= startedAtWallClock ? this.lastExit : undefined;
		const problem = this.launchProblem(error, exit);
		if (problem !== undefined) return this.onPermanentFailure(problem, ms, stderr);
		let what: string;
		if (reason instanceof AbortReason && reason.kind === 'start-timeout') {
			what = `no answer to initialize/tools/list within the start timeout of ${seconds(this.config.startTimeoutMs)}`;
		} else if (error instanceof SpawnError) {
			what = error.message;
		} else if (exit !== undefined) {
			what = `the process ${describeExit(exit)} during initialization`;
		} else if (error instanceof ConnectionLostError || /connection closed/i.test(errorMessage(error))) {
			what = 'the connection closed during initialization';
		} else {
			what = errorMessage(error);
		}

		const detail = `${what}${stderr.length > 0 ? `; last stderr${earlier ? ' (from an earlier start)' : ''}: ${stderr.join(' | ')}` : ''}`;
		this.metrics.lastError = `start failed: ${detail}`;
		this.breaker.recordFailure(Date.now());
		const delay = this.restartPolicy.recordCrash(Date.now());
		this.store.update(this.config.name, upstream => {
			upstream.counters.crashes += 1;
		});
		const plan = this.planRestart(delay);
		this.machine.apply('start_failed', `start failed after ${ms} ms: ${detail}; ${plan}`);
		return startFailed(this.name, {detail, restartAt: this.restartAt, remote: this.config.launch.kind !== 'stdio', stderr});
	}

	/**
	 * Whether a failed start is one a retry cannot fix: the spawn itself
	 * failed, or the process exited at once with 126/127 (the shell's and
	 * env's "cannot execute" and "not found"), and the file system says why.
	 */
	private launchProblem(error: unknown, exit: ExitInfo | undefined): LaunchProblem | undefined {
		const launch = this.config.launch;
		if (launch.kind !== 'stdio') return undefined;
		if (!(error instanceof SpawnError) && exit?.code !== 127 && exit?.code !== 126) return undefined;
		return diagnoseLaunch(launch);
	}

	/** Straight to dead with the reason, no retry, no breaker or budget spent: only a person's start or a config change tries again. */
	private onPermanentFailure(problem: LaunchProblem, ms: number, stderr: string[]): HangarError {
		this.permanentProblem = problem;
		this.metrics.lastError = `start failed: ${problem.message}`;
		this.timers.clear('restart');
		this.restartAt = undefined;
		this.machine.apply('start_failed', `start failed after ${ms} ms: ${problem.message} (permanent: not retried)`);
		return startFailed(this.name, {detail: problem.message, restartAt: undefined, remote: false, stderr, permanent: problem.hint});
	}

	/**
	 * A pinned tool changed: the upstream is quarantined with the diff, and its
	 * new tool list is never exposed. From a start (`how` = 'stop': the start is
	 * abandoned through stopping) or a refresh of a running upstream.
	 */
	private onRugPull(changes: ToolChange[], tools: readonly ToolDefinition[], how: 'stop' | 'running'): HangarError {
		const reason = rugPullReason(this.store.upstream(this.config.name).pins, changes);
		this.store.update(this.config.name, upstream => {
			upstream.admin = {state: 'quarantined', at: Date.now(), reason, changes, seen: pinTools(tools)};
		});
		this.metrics.lastError = `quarantined: ${reason}`;
		if (how === 'stop') {
			this.stopTarget = 'quarantined';
			this.machine.apply('stop', reason);
			this.machine.apply('settle_quarantined', 'the process was stopped; its changed tools were never exposed');
		} else {
			void this.stop('quarantined', reason).catch(() => {});
		}

		return rugPulled(this.name, reason, changes);
	}

	/** Schedules an automatic restart when the budget allows; returns a sentence for the transition reason. */
	private planRestart(delay: number | undefined): string {
		const {maxRestarts, windowMs} = this.restartPolicy.budget;
		if (delay === undefined) {
			this.restartAt = undefined;
			return `restart budget spent (${maxRestarts + 1} failures within ${seconds(windowMs)}, at most ${maxRestarts} restarts): stays dead until it is started again`;
		}

		this.restartAt = Date.now() + delay;
		this.timers.once('restart', delay, () => {
			if (this.state !== 'dead' || this.disposed) return;
			this.restartCount += 1;
			this.beginStart('start', `automatic restart after ${seconds(delay)} backoff`).catch(() => {});
		});
		return `restarting in ${seconds(delay)}`;
	}

	private onConnectionClosed(connection: UpstreamConnection | undefined, exit: ExitInfo | undefined): void {
		if (exit !== undefined) this.recordExit(exit);
		// A start in progress (no connection handed out yet) handles its own failure.
		if (connection === undefined || connection !== this.connection) return;
		this.connection = undefined;
		this.health.connectionGone();
		if (this.state !== 'ready' && this.state !== 'degraded') return;

		const stderr = this.log.tail(3, 'stderr').map(line => line.text);
		const what = exit === undefined ? 'the connection closed' : `the process ${describeExit(exit)}`;
		const detail = `${what}${stderr.length > 0 ? `; last stderr: ${stderr.join(' | ')}` : ''}`;
		this.metrics.lastError = `crashed: ${detail}`;
		this.breaker.recordFailure(Date.now());
		const delay = this.restartPolicy.recordCrash(Date.now());
		this.store.update(this.config.name, upstream => {
			upstream.counters.crashes += 1;
		});
		this.machine.apply('crashed', `${detail}; ${this.planRestart(delay)}`);
	}

	private recordExit(exit: ExitInfo): void {
		this.lastExit = exit;
		const stderrTail = this.log.tail(10, 'stderr').map(line => line.text);
		this.store.update(this.config.name, upstream => {
			upstream.lastExit = {code: exit.code, signal: exit.signal, at: exit.at, stderrTail};
		});
	}

	// ---------------------------------------------------------------------
	// Tools

	private setTools(tools: ToolDefinition[]): void {
		this.toolList.set(tools, 'live');
		this.emit('tools');
	}

	/** The capabilities of a fresh connection and every list they say it serves. */
	private async readCatalog(connection: UpstreamConnection, signal: AbortSignal): Promise<{capabilities: ServerCapabilities; lists: Partial<CatalogLists>}> {
		const capabilities = (connection.serverCapabilities ?? {}) as ServerCapabilities;
		const lists: Partial<CatalogLists> = {};
		await Promise.all(
			catalogKinds
				.filter(kind => servesKind(capabilities, kind))
				.map(async kind => {
					try {
						lists[kind] = (await connection.listAll(kind, signal)) as never;
					} catch (error) {
						if (!signal.aborted) this.log.push('hangar', `reading its ${kind} failed at start: ${errorMessage(error)}`);
					}
				}),
		);
		return {capabilities, lists};
	}

	private setCatalog(capabilities: ServerCapabilities, lists: Partial<CatalogLists>): void {
		const before = `${this.catalog.resourcesRevision}:${this.catalog.promptsRevision}`;
		const wasUnknown = this.catalog.capabilities === undefined;
		this.catalog.setLive(capabilities, lists);
		if (wasUnknown || before !== `${this.catalog.resourcesRevision}:${this.catalog.promptsRevision}`) this.emit('catalog');
	}

	/** Re-reads some of its catalog lists after a list_changed; bursts coalesce per list. */
	refreshCatalog(kinds: CatalogKind[], why: string): void {
		const connection = this.connection;
		if (connection === undefined) return;
		for (const kind of kinds) {
			this.catalog.refresh(kind, why, async () => {
				const list = await connection.listAll(kind, AbortSignal.timeout(this.settings.pingTimeoutMs * 2));
				if (connection !== this.connection) return undefined;
				return list as never;
			});
		}
	}

	/** Re-reads the tool list; coalesces bursts of list_changed into at most one extra refresh. */
	refreshTools(why: string): void {
		const connection = this.connection;
		if (connection === undefined) return;
		this.toolList.refresh(
			why,
			async () => connection.listTools(AbortSignal.timeout(this.settings.pingTimeoutMs * 2)),
			(tools, reason) => {
				if (connection !== this.connection || (this.state !== 'ready' && this.state !== 'degraded')) return;
				const changes = this.toolList.pinnedChanges(tools);
				if (changes.length > 0) {
					this.onRugPull(changes, tools, 'running');
					return;
				}

				this.log.push('hangar', `tool list refreshed (${tools.length} tools): ${reason}`);
				this.setTools(tools);
			},
		);
	}

	// ---------------------------------------------------------------------
	// What health checking needs (see UpstreamHealth)

	/**
	 * Idle since its last call began or ended, or since it started if that was
	 * later: an upstream started by a person (or at launch) long after its last
	 * call is not idle from that call.
	 */
	get idleSince(): number {
		return Math.max(this.lastActivityAt, this.startedAt ?? 0);
	}

	get liveConnection(): UpstreamConnection | undefined {
		return this.connection;
	}

	get callsInFlight(): number {
		return this.inFlight;
	}

	apply(event: 'trip' | 'probe_ok' | 'probe_failed', reason: string): void {
		this.machine.apply(event, reason);
	}

	stopIdle(reason: string): void {
		this.stop('cold', reason).catch(() => {});
	}

	activity(): void {
		this.emit('activity');
	}

	// ---------------------------------------------------------------------
	// Commands from people and from the supervisor

	/** A person's start: from cold, stopped or dead (resets the restart budget). */
	async start(reason = 'started by a person'): Promise<void> {
		if (this.state === 'stopping') await this.stopPromise;
		switch (this.state) {
			case 'ready':
			case 'degraded': {
				return;
			}

			case 'starting': {
				await this.startPromise;
				return;
			}

			case 'quarantined':
			case 'disabled':
			case 'invalid': {
				throw notStartable(this.name, this.state, this.config.invalid);
			}

			default: {
				this.restartPolicy.reset();
				this.breaker.recordSuccess();
				await this.beginStart('start', reason);
			}
		}
	}

	/** Stops the upstream; `target` says where it lands (cold: idle, stopped: a person, ...). */
	async stop(target: StopTarget, reason: string): Promise<void> {
		if (this.state === 'stopping') {
			await this.stopPromise;
		}

		if (runningStates.has(this.state)) {
			this.stopTarget = target;
			this.machine.apply('stop', reason);
			this.clearAllTimers();
			const stopping = this.runStop(target, reason);
			this.stopPromise = stopping;
			try {
				await stopping;
			} finally {
				if (this.stopPromise === stopping) this.stopPromise = undefined;
			}

			return;
		}

		// Not running: settle directly where the table allows it.
		this.timers.clear('restart');
		this.restartAt = undefined;
		if (this.state === target) return;
		const event: UpstreamEvent | undefined =
			target === 'stopped' ? 'person_stop' : target === 'quarantined' ? 'quarantine' : target === 'disabled' ? 'disable' : undefined;
		if (event === undefined) return; // Going "cold" from a non-running state needs nothing.
		this.machine.apply(event, reason);
	}

	private async runStop(target: StopTarget, reason: string): Promise<void> {
		this.startAbort?.abort(new AbortReason('stopping'));
		await this.startPromise?.catch(() => {});
		const connection = this.connection;
		this.connection = undefined;
		let how = '';
		if (connection !== undefined) {
			const exit = await connection.close(this.settings.stopGraceMs);
			if (exit !== undefined) {
				this.recordExit(exit);
				how = ` (${exit.stoppedBy === undefined ? describeExit(exit) : `ended by ${exit.stoppedBy}`})`;
			}
		}

		this.machine.apply(settleEvent[target], `${reason}${how}`);
	}

	async restart(reason = 'restarted by a person'): Promise<void> {
		await this.stop('cold', reason);
		await this.start(reason);
	}

	async quarantine(reason: string): Promise<void> {
		this.store.update(this.config.name, upstream => {
			// Kept in state.json: a reason someone typed is masked like everything hangar stores.
			upstream.admin = {state: 'quarantined', at: Date.now(), reason: maskText(reason)};
		});
		await this.stop('quarantined', reason);
	}

	/**
	 * A person approves the upstream: lifts a quarantine (back to cold) and pins
	 * its tools as `approvalPlan` says. A quarantine set in the config file can
	 * only be lifted there.
	 */
	approve(reason: string): ApprovalPlan {
		if (this.state === 'quarantined' && this.config.quarantined) throw notApprovable(this.name, 'quarantined-by-config');
		if (this.state === 'disabled') throw notApprovable(this.name, 'disabled');
		if (this.state === 'invalid') throw unavailable(this.name, 'approve', {state: 'invalid', reason: this.config.invalid ?? 'see its details'});
		const plan = this.toolList.approve();
		if (this.state === 'quarantined') this.machine.apply('release', reason);
		return plan;
	}

	/**
	 * Follows a quarantine or approval another hangar process saved (found
	 * when this one took the state dir over): stops into quarantine, or
	 * lifts it. True when it was quarantined now.
	 */
	async applySavedAdmin(): Promise<boolean> {
		const admin = this.store.upstream(this.config.name).admin;
		if (admin?.state === 'quarantined' && this.state !== 'quarantined' && this.state !== 'disabled' && this.state !== 'invalid') {
			await this.stop('quarantined', `${admin.reason} (saved by another hangar process)`);
			return true;
		}

		if (admin === undefined && this.state === 'quarantined' && !this.config.quarantined) this.machine.apply('release', 'approved in another hangar process');
		return false;
	}

	/** Stops everything for shutdown and disposes timers; the upstream is unusable afterwards. */
	async shutdown(reason: string): Promise<void> {
		this.disposed = true;
		this.clearAllTimers();
		if (runningStates.has(this.state)) await this.stop('cold', reason).catch(() => {});
		this.clearAllTimers();
	}

	private clearAllTimers(): void {
		this.timers.clearAll();
		this.restartAt = undefined;
	}
}

/**
 * The stderr lines a failed start should quote: this attempt's own (since
 * `since`), so a start that failed five times does not repeat every earlier
 * attempt's "boom"; when this attempt wrote nothing, the newest earlier
 * lines, marked `earlier` so the message says they are not this attempt's.
 */
export function attemptStderr(tail: readonly LogLine[], since: number): {lines: string[]; earlier: boolean} {
	const own = tail.filter(line => line.at >= since).map(line => line.text);
	if (own.length > 0 || tail.length === 0) return {lines: own, earlier: false};
	return {lines: tail.slice(-1).map(line => line.text), earlier: true};
}
