/**
 * One upstream under supervision: what the rest of hangar calls, commands
 * and reads. It is made of parts, each owning the state it changes:
 *
 * - the state machine (upstream-state.ts): the one owner of its state;
 * - `Lifecycle`: the connection, starts, crashes, restarts and stops;
 * - `CallPath`: calls in flight, activity, call history, tool errors;
 * - `UpstreamHealth`: the health ping, the breaker's probe, the idle stop;
 * - `ToolList` and `Catalog`: its tools and its resources, templates and prompts;
 * - the breaker, the restart policy, the metrics, the log buffer and the timers.
 *
 * The parts get narrow typed dependencies (the parts they use, a few
 * callbacks), never this object. What is left here is the wiring, the
 * answers to "may it be called / started / approved now", and the refusals.
 * The rules:
 *
 * - Concurrent callers of a cold upstream share one start promise.
 * - A call gets a deadline of `callTimeoutMs` (or the caller's shorter one,
 *   e.g. the HTTP endpoint's) covering start and call; when it passes the
 *   caller gets a CallTimeout error and the upstream request is cancelled.
 * - Timeouts, transport errors, crashes, failed pings and failed starts count
 *   against the breaker; a tool result with `isError` does not.
 */
import {EventEmitter} from 'node:events';
import {systemClock, type Clock} from '../../base/clock.js';
import {CircuitBreaker} from './circuit-breaker.js';
import type {HangarSettings, ServerConfig, ToolDefinition} from '../../config/read-config.js';
import {LogBuffer, copyToLog, stderrLinesRead, stderrSummary} from '../../link/log-buffer.js';
import type {Logger} from '../../base/logger.js';
import {CallMetrics} from './metrics.js';
import {snapshotOf, type UpstreamSnapshot} from './upstream-snapshot.js';
import {createUpstreamMachine, runningStates, type AdminState, type UpstreamEvent, type UpstreamMachine, type UpstreamState, type StopTarget, type TransitionEvent} from './upstream-state.js';
import {RestartPolicy} from './restart-policy.js';
import type {TransitionRecord} from '../../base/state-machine.js';
import type {StateStore} from '../state-store.js';
import {UpstreamConnection, type OpenConnection, type ToolAnswer} from '../../link/connection.js';
import type {ClientSide} from '../../link/client-side.js';
import type {ToolChange} from './pins.js';
import type {CallersInFlight} from '../clients/calls-in-flight.js';
import {CallPath, abortable, type CallContext, type StartedBefore, type UpstreamFacts} from './call-path.js';
import type {CallHistory, CallRecord} from './call-history.js';
import {UpstreamHealth} from './upstream-health.js';
import {UpstreamTimers} from './upstream-timers.js';
import {ToolList, type ApprovalPlan, type ToolsSource} from './tool-list.js';
import {Catalog, type CatalogKind, type ServerCapabilities} from './catalog.js';
import {ListRefresh} from './list-refresh.js';
import {Lifecycle} from './lifecycle.js';
export {attemptStderr} from '../../link/log-buffer.js';
import {initialState, recordFirstSeen, upstreamRecord, type UpstreamRecord} from './upstream-record.js';
import {eraView, isDualEra, type EraView} from './upstream-era.js';
import {toolFiltered, restartHint} from '../refusals.js';
import {PersonActions} from './person-actions.js';

/**
 * What a test may put in place of the real world: the clock (time and
 * timers) and how a connection is opened (e.g. over the SDK's in-memory
 * transport). Production uses the system clock and `UpstreamConnection.open`.
 */
export type UpstreamSeams = {
	clock?: Clock | undefined;
	openConnection?: OpenConnection | undefined;
};

export type {AdminState, ApprovalPlan, CallRecord, StopTarget, ToolsSource, TransitionEvent, UpstreamSnapshot};

/** A list a list_changed is about, as clients are told of it (resources include their templates). */
export type ListKind = 'tools' | 'resources' | 'prompts';

const listKindsOf: Record<Exclude<ListKind, 'tools'>, CatalogKind[]> = {resources: ['resources', 'resourceTemplates'], prompts: ['prompts']};

export class Upstream extends EventEmitter<{
	transition: [TransitionEvent];
	tools: [];
	/** Its resources, templates or prompts changed. */
	catalog: [];
	/** A resource it watches for hangar (resources/subscribe) changed: its own URI. */
	resourceUpdated: [string, Record<string, unknown> | undefined];
	/** The upstream's notifications/tasks/status params (its own task id). */
	taskStatus: [Record<string, unknown>];
	/** Progress the upstream sent for one of its tasks (its own id) after the CreateTaskResult: the notification's params without the token. */
	taskProgress: [string, Record<string, unknown>];
	/**
	 * The `_meta` of the list_changed notifications it sent for one list
	 * (merged, later keys win), once the re-read they caused has settled:
	 * the list_changed hangar sends clients carries it.
	 */
	listMeta: [ListKind, Record<string, unknown>];
	activity: [];
}> {
	readonly log: LogBuffer;
	readonly metrics = new CallMetrics();
	/** The `_meta` of list_changed notifications whose re-read has not settled yet, per list. */
	private readonly pendingListMeta = new Map<ListKind, Record<string, unknown>>();
	readonly toolList: ToolList;
	readonly catalog: Catalog;
	readonly breaker: CircuitBreaker;
	private readonly machine: UpstreamMachine;
	private readonly record: UpstreamRecord;
	private readonly timers: UpstreamTimers;
	private readonly lifecycle: Lifecycle;
	private readonly calls: CallPath;
	private readonly health: UpstreamHealth;
	private readonly actions: PersonActions;
	private readonly lists: ListRefresh;
	private readonly createdAt: number;
	/** Hangar's id for one of its task ids (set by the supervisor, which hands them out). */
	exposedTaskId: (upstreamTaskId: string) => string | undefined = () => undefined;

	constructor(
		readonly config: ServerConfig,
		private readonly settings: HangarSettings,
		store: StateStore,
		logger: Logger,
		/** Who answers the upstream's requests for its client, and receives its log messages. */
		clientSide?: ClientSide,
		/**
		 * Set for one instance of a per-client server (`<server>#<n>`): its name
		 * in transitions, logs and errors. Its persisted state (tool cache, pins,
		 * quarantine, counters) is the server's, so instances never show up as
		 * upstreams of their own in the state file.
		 */
		private readonly instanceName?: string,
		seams: UpstreamSeams = {},
		/** Set for an era twin: driven in its 2026-07-28 mode, its lists its own (not saved as the server's). */
		readonly drivenIn?: 'modern',
	) {
		super();
		const clock = seams.clock ?? systemClock;
		this.createdAt = clock.now();
		this.timers = new UpstreamTimers(clock);
		this.log = new LogBuffer(settings.logLines);
		copyToLog(this.log, logger, this.name);
		const record = upstreamRecord(store, config.name);
		this.record = record;
		if (!store.has(config.name)) recordFirstSeen(record, config, settings, clock.now());
		const initial = initialState(config, record);
		const machine = createUpstreamMachine(this.name, initial, 200, () => clock.now());
		this.machine = machine;
		this.breaker = new CircuitBreaker({
			threshold: settings.failureThreshold,
			minMs: settings.backoffMinMs,
			maxMs: settings.backoffMaxMs,
		});
		const restartPolicy = new RestartPolicy({
			maxRestarts: settings.restartBudget.maxRestarts,
			windowMs: settings.restartBudget.windowMs,
			minDelayMs: settings.backoffMinMs,
			maxDelayMs: settings.backoffMaxMs,
		});
		machine.onTransition(transition => {
			logger.info(`${transition.from} -> ${transition.to}: ${transition.reason}`, {upstream: this.name, event: transition.event});
			this.log.push('hangar', `${transition.from} -> ${transition.to}: ${transition.reason}`, transition.at);
			this.emit('transition', {...transition, upstream: this.name});
		});

		this.toolList = new ToolList(config.name, config, store, this.log, settings.pinning, instanceName === undefined);
		if (initial === 'invalid') this.metrics.lastError = `invalid config entry: ${config.invalid}`;
		this.catalog = new Catalog(config.name, store, this.log, () => this.emit('catalog'), drivenIn === undefined);
		const onActivity = () => {
			if (!this.timers.has('idle')) this.health.scheduleIdle();
			this.emit('activity');
		};

		this.lifecycle = new Lifecycle({
			name: this.name,
			config,
			settings,
			machine,
			breaker: this.breaker,
			restartPolicy,
			timers: this.timers,
			metrics: this.metrics,
			log: this.log,
			record,
			toolList: this.toolList,
			clock,
			openConnection: seams.openConnection ?? UpstreamConnection.open,
			clientSide,
			eraPin: drivenIn,
			events: {
				opened: (tools, catalog) => {
					// The catalog first: a new tool list is written to the state file at once, and takes the catalog with it.
					this.lists.setCatalog(catalog.capabilities, catalog.lists);
					this.lists.setTools(tools);
				},
				ready: () => {
					this.health.scheduleHealth();
					this.health.scheduleIdle();
				},
				gone: () => this.health.connectionGone(),
				toolsChanged: meta => {
					this.noteListMeta('tools', meta);
					this.refreshTools('the upstream sent notifications/tools/list_changed');
				},
				listChanged: (kinds, why, meta) => {
					this.noteListMeta(kinds.includes('prompts') ? 'prompts' : 'resources', meta);
					this.refreshCatalog(kinds, why);
				},
				resourceUpdated: (uri, meta) => this.emit('resourceUpdated', uri, meta),
				taskStatus: params => this.emit('taskStatus', params),
				taskProgress: (upstreamTaskId, progress) => this.emit('taskProgress', upstreamTaskId, progress),
				exposedTaskId: upstreamTaskId => this.exposedTaskId(upstreamTaskId),
			},
		});
		this.lists = new ListRefresh({
			settings,
			toolList: this.toolList,
			catalog: this.catalog,
			log: this.log,
			lifecycle: this.lifecycle,
			state: () => this.state,
			toolsChanged: () => this.emit('tools'),
			catalogChanged: () => this.emit('catalog'),
		});
		this.calls = new CallPath({
			name: this.name,
			callTimeoutMs: config.callTimeoutMs,
			logger,
			log: this.log,
			metrics: this.metrics,
			record,
			clock,
			connector: {
				ready: () => (this.state === 'ready' ? this.lifecycle.connection() : undefined),
				whenReady: async (why, signal, progress) => this.lifecycle.whenReady(why, signal, progress),
			},
			outcomes: {
				answered: () => {
					if (this.state === 'ready') this.breaker.recordSuccess();
				},
				failed: what => this.health.recordFailure(what),
			},
			failureFacts: () => this.failureFacts(),
			onActivity,
		});
		const calls = this.calls;
		const idleSince = () => this.idleSince;
		this.health = new UpstreamHealth({
			idleTimeoutMs: config.idleTimeoutMs,
			settings,
			clock,
			timers: this.timers,
			breaker: this.breaker,
			metrics: this.metrics,
			log: this.log,
			lifecycle: this.lifecycle,
			load: {
				get inFlight() {
					return calls.inFlight;
				},
				get idleSince() {
					return idleSince();
				},
			},
			refreshTools: why => this.refreshTools(why),
			onActivity: () => this.emit('activity'),
		});
		this.actions = new PersonActions({
			name: this.name,
			config,
			machine,
			lifecycle: this.lifecycle,
			metrics: this.metrics,
			record,
			restartPolicy,
			breaker: this.breaker,
			toolList: this.toolList,
			clock,
		});
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
		return this.lifecycle.connection()?.pid;
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

	/** The last finished calls and their per-tool metrics. */
	get history(): CallHistory {
		return this.calls.history;
	}

	/** Where the stop in progress lands (only while stopping). */
	get stoppingTo(): StopTarget | undefined {
		return this.lifecycle.stoppingTo;
	}

	/** What a person or the config set: switched off once stopped, quarantined or disabled, or while stopping towards one of them. */
	get admin(): AdminState {
		const state = this.state === 'stopping' ? this.stoppingTo : this.state;
		return state === 'stopped' || state === 'quarantined' || state === 'disabled' ? state : 'enabled';
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
				return this.stoppingTo === 'cold';
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

	/** Whether it is saved as dual-era (not for a twin itself): 2026-07-28 clients get its era twin (clients/era-twins.ts). */
	get dualEra(): boolean {
		return this.drivenIn === undefined && isDualEra(this.record.read().era, this.config);
	}

	/** Which protocol generation it speaks, as saved from its last probe (see upstream-era.ts). */
	get era(): EraView {
		return eraView(this.record.read().era, this.config);
	}

	/** Why it is quarantined, and what changed if a pinned tool changed; undefined when it is not quarantined. */
	get quarantineInfo(): {reason: string; at: number | undefined; changes: ToolChange[]} | undefined {
		if (this.state !== 'quarantined' && this.stoppingTo !== 'quarantined') return undefined;
		const admin = this.record.read().admin;
		if (admin !== undefined) return {reason: admin.reason, at: admin.at, changes: admin.changes ?? []};
		return {reason: this.lifecycle.quarantineReason(), at: this.machine.transitions().at(-1)?.at, changes: []};
	}

	/** How and when its tools were pinned (at first use, or by a person's approval) and how many; undefined when nothing is pinned. */
	get pins(): ToolList['pins'] {
		return this.toolList.pins;
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
		if (!this.startsAtLaunch || this.lifecycle.isDisposed) return;
		const reason = this.config.lazy ? 'discovering tools (none cached or predefined)' : 'lazy is false: started at launch';
		// Nothing cached or predefined: start once to learn the tools; the idle stop puts it back to cold.
		await this.lifecycle.begin(reason).catch(() => {});
	}

	snapshot(): UpstreamSnapshot {
		return snapshotOf({
			name: this.name,
			state: this.state,
			breaker: this.breaker,
			pid: this.pid,
			transport: this.config.launch.kind,
			toolList: this.toolList,
			metrics: this.metrics,
			calls: this.calls,
			lifecycle: this.lifecycle,
			nextRetryAt: this.nextRetryAt(),
			stateSince: this.machine.transitions().at(-1)?.at ?? this.createdAt,
		});
	}

	private nextRetryAt(): number | undefined {
		if (this.state === 'degraded') return this.breaker.nextProbeAt;
		if (this.state === 'dead') return this.lifecycle.restartAt;
		return undefined;
	}

	/**
	 * Idle since its last call began or ended, or since it started if that was
	 * later: an upstream started by a person (or at launch) long after its last
	 * call is not idle from that call.
	 */
	get idleSince(): number {
		return Math.max(this.calls.lastActivityAt, this.lifecycle.startedAt ?? 0, this.health.lastTaskEndedAt);
	}

	/**
	 * Holds off the idle stop while one of its tasks is live (a stop would
	 * lose it); returns the release, which re-arms the idle stop from then.
	 */
	holdIdle(): () => void {
		return this.health.holdIdle();
	}

	/** Its tasks that are live now (held off the idle stop). */
	get tasksLive(): number {
		return this.health.tasksLive;
	}

	/** Calls and other requests in flight now. */
	get callsInFlight(): number {
		return this.calls.inFlight;
	}

	/** The calls and requests in flight here, by the client session that sent each (the call path's). */
	get callers(): CallersInFlight {
		return this.calls.callers;
	}

	/** The live connection while ready: what a subscription is sent on. */
	get readyConnection(): UpstreamConnection | undefined {
		return this.state === 'ready' ? this.lifecycle.connection() : undefined;
	}

	// ---------------------------------------------------------------------
	// Calls

	/** Calls a tool of this upstream: see `CallPath`. A tool its filter keeps out, or left out as malformed, is refused, however the call named it. Not async: a layer of promise less on every call. */
	callTool(tool: string, args: Record<string, unknown> | undefined, context: CallContext = {}): Promise<ToolAnswer> {
		const rule = this.toolList.filterRule(tool);
		const malformed = this.toolList.leftOutRefusal(tool); // left out of tools/list: clients would reject it (tool-check.ts)
		if (rule !== undefined || malformed !== undefined) return Promise.reject(rule === undefined ? malformed : toolFiltered(this.name, tool, rule));
		return this.calls.run(tool, args, context);
	}

	/** The tools it lists that its config entry's filter keeps out, each with the rule. */
	get filteredTools(): ReadonlyArray<{name: string; rule: string}> {
		return this.toolList.filtered;
	}

	/** Sends a request other than a tool call (resources/read, prompts/get, ...): see `CallPath.request`. */
	async request(method: string, params: Record<string, unknown>, operation: string, context: CallContext = {}): Promise<Record<string, unknown>> {
		return this.calls.request(method, params, operation, context);
	}

	/** Waits for (or triggers) a start before a call chooses its instance: see `CallPath.startBefore`. */
	async startBefore(why: string, context: CallContext): Promise<StartedBefore> {
		return this.calls.startBefore(why, context);
	}

	/** What the call path needs to say why a call failed. */
	private failureFacts(): UpstreamFacts {
		return {
			connectionOpen: this.lifecycle.connection()?.isOpen ?? false,
			lastExit: this.lifecycle.lastExit,
			stderrTail: () => stderrSummary(this.log.tail(stderrLinesRead, 'stderr').map(line => line.text)),
			crashHint: () => restartHint(this.state, this.lifecycle.restartAt, this.name),
			nextRetryAt: this.nextRetryAt(),
			signInNeeded: this.state === 'needs-sign-in' ? this.transitions.at(-1)?.reason : undefined,
			server: this.config.name,
			remoteUrl: this.config.launch.kind === 'stdio' ? undefined : this.config.launch.url,
		};
	}

	/**
	 * Waits until the tool list is known: used when a client calls a tool of
	 * an upstream whose tools have never been listed (first run, no cache).
	 * Starts a cold upstream; errors are left to the call that follows.
	 */
	async learnTools(signal: AbortSignal): Promise<void> {
		if (this.state === 'starting') {
			await abortable(this.lifecycle.starting!, signal).catch(() => {});
		} else if (this.state === 'cold' && this.toolList.source === 'none') {
			await abortable(this.lifecycle.begin('on demand: a call named a tool of this upstream before its tools were known'), signal).catch(() => {});
		}
	}

	/**
	 * Starts a cold upstream and waits for its start (an instance whose tool
	 * list a session's tools/list needs), or for a start in progress; errors
	 * are left to the calls that follow.
	 */
	async warm(reason: string, signal: AbortSignal): Promise<void> {
		if (this.state === 'starting') await abortable(this.lifecycle.starting!, signal).catch(() => {});
		else if (this.state === 'cold') await abortable(this.lifecycle.begin(reason), signal).catch(() => {});
	}

	// ---------------------------------------------------------------------
	// Tools and catalog: see `ListRefresh`

	/** Keeps a list_changed's `_meta` until the re-read it causes settles (see the listMeta event). */
	private noteListMeta(kind: ListKind, meta: Record<string, unknown> | undefined): void {
		if (meta !== undefined) this.pendingListMeta.set(kind, {...this.pendingListMeta.get(kind), ...meta});
	}

	/** Hands on the `_meta` kept for `kind` once none of its lists is being re-read. */
	private flushListMeta(kind: ListKind): void {
		const meta = this.pendingListMeta.get(kind);
		if (meta === undefined) return;
		const busy = kind === 'tools' ? this.toolList.isRefreshing : listKindsOf[kind].some(list => this.catalog.isRefreshing(list));
		if (busy) return;
		this.pendingListMeta.delete(kind);
		this.emit('listMeta', kind, meta);
	}

	/** Re-reads some of its catalog lists after a list_changed; bursts coalesce per list. */
	refreshCatalog(kinds: CatalogKind[], why: string): void {
		this.lists.refreshCatalog(kinds, why, kind => this.flushListMeta(kind === 'prompts' ? 'prompts' : 'resources'));
	}

	/** Re-reads the tool list; coalesces bursts of list_changed into at most one extra refresh. */
	refreshTools(why: string): void {
		this.lists.refreshTools(why, () => this.flushListMeta('tools'));
	}

	// ---------------------------------------------------------------------
	// A person's actions, and the supervisor's: see `PersonActions`

	/** A person's start: from cold, stopped or dead (resets the restart budget). */
	async start(reason = 'started by a person'): Promise<void> {
		return this.actions.start(reason);
	}

	/** Stops the upstream; `target` says where it lands (cold: idle, stopped: a person, ...). */
	async stop(target: StopTarget, reason: string): Promise<void> {
		return this.actions.stop(target, reason);
	}

	async restart(reason = 'restarted by a person'): Promise<void> {
		return this.actions.restart(reason);
	}

	async quarantine(reason: string): Promise<void> {
		return this.actions.quarantine(reason);
	}

	/** A person approves the upstream: lifts a quarantine and pins its tools as `approvalPlan` says. */
	approve(reason: string): ApprovalPlan {
		return this.actions.approve(reason);
	}

	/** Follows a quarantine or approval another hangar process saved; true when it was quarantined now. */
	async applySavedAdmin(): Promise<boolean> {
		return this.actions.applySavedAdmin();
	}

	/** Stops everything for shutdown and disposes timers; the upstream is unusable afterwards. */
	async shutdown(reason: string): Promise<void> {
		this.lifecycle.dispose();
		if (runningStates.has(this.state)) await this.stop('cold', reason).catch(() => {});
		this.lifecycle.clearTimers();
	}
}
