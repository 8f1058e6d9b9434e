/**
 * One upstream under supervision. It owns the lifecycle state machine, the
 * circuit breaker, the restart policy, the metrics, the tool list (live,
 * persisted or predefined, always with the time it was verified), the log
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
import type {HangarSettings, ServerConfig, ToolDefinition} from '../config/config.js';
import {HangarError, errorMessage} from '../base/errors.js';
import {LogBuffer} from '../upstream/log-buffer.js';
import type {Logger} from '../base/logger.js';
import {CallMetrics, type CallMetricsSnapshot} from './metrics.js';
import {createProviderMachine, type ProviderEvent, type ProviderState, runningStates} from './provider-state.js';
import {RestartPolicy} from './restart-policy.js';
import type {TransitionRecord} from '../base/state-machine.js';
import type {StateStore} from './state-store.js';
import {
	ConnectionLostError,
	RequestCancelledError,
	UpstreamConnection,
	UpstreamRpcError,
	UpstreamTimeoutError,
	type CallToolResult,
	type Progress,
} from '../upstream/connection.js';
import {describeExit, type ExitInfo} from '../upstream/child-process-transport.js';
import {describeChanges, pinTools, toolChanges, type ToolChange} from './pins.js';

export type ToolsSource = 'live' | 'cache' | 'config' | 'none';

/** What an approval pins, and how many tools: see `Provider.approvalPlan`. */
export type ApprovalPlan =
	| {from: 'changed'; tools: number}
	| {from: 'listed'; tools: number; verifiedAt: number | undefined}
	| {from: 'first-listing'};

export type ProgressUpdate = {progress: number; total?: number | undefined; message?: string | undefined};

export type CallContext = {
	/** Aborted when the downstream client cancels. */
	signal?: AbortSignal | undefined;
	/** Called with progress for the downstream client (startup progress, then relayed upstream progress). */
	onProgress?: ((update: ProgressUpdate) => void) | undefined;
	/** `_meta` to forward upstream (without the progress token, which is replaced). */
	meta?: Record<string, unknown> | undefined;
	/** Names the request in hangar's log lines about this call (the HTTP endpoint's X-Correlation-ID). */
	correlationId?: string | undefined;
	/** A deadline for this call, used when shorter than the upstream's callTimeoutSeconds; `setting` is what sets it, for the error's hint. */
	deadline?: CallDeadline | undefined;
};

export type CallDeadline = {
	ms: number;
	/** The setting that sets it, for the error's hint (e.g. "httpCallTimeoutSeconds"). */
	setting: string;
	/** How much of it the caller spent before the call reached the provider (routing). */
	spentMs?: number | undefined;
};

export type TransitionEvent = TransitionRecord<ProviderState, ProviderEvent> & {provider: string};

export type ProviderSnapshot = {
	name: string;
	state: ProviderState;
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

export type StopTarget = 'cold' | 'stopped' | 'quarantined' | 'disabled';

export type AdminState = 'enabled' | 'disabled' | 'quarantined' | 'stopped';

/** One finished call, for the detail views. */
export type CallRecord = {at: number; tool: string; ms: number; ok: boolean; error: string | undefined};

const recentLimit = 50;

const settleEvent: Record<StopTarget, ProviderEvent> = {
	cold: 'settle_cold',
	stopped: 'settle_stopped',
	quarantined: 'settle_quarantined',
	disabled: 'settle_disabled',
};

/** Errors that refuse a call without trying the upstream. */
const refusalCodes: ReadonlySet<string> = new Set(['CircuitOpen', 'UpstreamUnavailable']);

/** A freshly listed tool set changed a pinned tool. */
class RugPull extends Error {
	constructor(
		readonly changes: ToolChange[],
		readonly tools: readonly ToolDefinition[],
	) {
		super('a pinned tool changed');
	}
}

class AbortReason extends Error {
	constructor(readonly kind: 'deadline' | 'cancelled' | 'stopping' | 'start-timeout') {
		super(kind);
	}
}

function seconds(ms: number): string {
	return `${Math.round(ms / 100) / 10} s`;
}

export class Provider extends EventEmitter<{
	transition: [TransitionEvent];
	tools: [];
	activity: [];
}> {
	readonly log: LogBuffer;
	readonly metrics = new CallMetrics();
	readonly toolMetrics = new Map<string, CallMetrics>();
	private readonly machine;
	private readonly breaker: CircuitBreaker;
	private readonly restartPolicy: RestartPolicy;

	private connection: UpstreamConnection | undefined;
	private startPromise: Promise<UpstreamConnection> | undefined;
	private startAbort: AbortController | undefined;
	private stopPromise: Promise<void> | undefined;

	private toolList: ToolDefinition[] = [];
	/** Bumped whenever the tool list's content changes (not when the same list is verified again). */
	toolsRevision = 0;
	private toolsFrom: ToolsSource = 'none';
	private toolsVerifiedAt: number | undefined;
	private refreshing: Promise<void> | undefined;
	private refreshAgain = false;

	private inFlight = 0;
	private lastActivityAt = Date.now();
	private startedAt: number | undefined;
	private toolErrors = 0;
	private restartCount = 0;
	private lastExit: ExitInfo | undefined;
	private restartAt: number | undefined;
	/** Where a stop in progress lands. */
	private stopTarget: StopTarget | undefined;
	/** The last finished calls (a ring, oldest overwritten). */
	private readonly recent: CallRecord[] = [];
	private recentNext = 0;

	private restartTimer: NodeJS.Timeout | undefined;
	private probeTimer: NodeJS.Timeout | undefined;
	private healthTimer: NodeJS.Timeout | undefined;
	private idleTimer: NodeJS.Timeout | undefined;
	private refreshTimer: NodeJS.Timeout | undefined;
	private disposed = false;
	private readonly createdAt = Date.now();

	constructor(
		readonly config: ServerConfig,
		private readonly settings: HangarSettings,
		private readonly store: StateStore,
		private readonly logger: Logger,
	) {
		super();
		this.log = new LogBuffer(settings.logLines);
		// Upstream stderr and stray stdout also go to hangar's own log (stderr or --log-file), never to a terminal.
		this.log.onLine(line => {
			if (line.source !== 'hangar') this.logger.info(`${line.source}: ${line.text}`, {upstream: config.name});
		});
		const isNew = !store.has(config.name);
		const persisted = store.upstream(config.name);
		if (isNew) {
			const now = Date.now();
			store.update(config.name, upstream => {
				upstream.firstSeenAt = now;
				if (settings.quarantineNew && !config.disabled && !config.quarantined) {
					upstream.admin = {state: 'quarantined', at: now, reason: 'new upstream: "quarantineNew" is on, so it waits for a person to approve it'};
				}
			});
		}

		const initial: ProviderState = config.disabled
			? 'disabled'
			: config.quarantined || persisted.admin?.state === 'quarantined'
				? 'quarantined'
				: 'cold';
		this.machine = createProviderMachine(config.name, initial);
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
			this.logger.info(`${record.from} -> ${record.to}: ${record.reason}`, {upstream: config.name, event: record.event});
			this.log.push('hangar', `${record.from} -> ${record.to}: ${record.reason}`, record.at);
			this.emit('transition', {...record, provider: config.name});
		});

		if (persisted.tools !== undefined) {
			this.toolList = persisted.tools;
			this.toolsFrom = 'cache';
			this.toolsVerifiedAt = persisted.toolsVerifiedAt;
		} else if (config.tools !== undefined) {
			this.toolList = config.tools;
			this.toolsFrom = 'config';
		}

		if (persisted.lastExit !== undefined) {
			this.lastExit = {code: persisted.lastExit.code, signal: persisted.lastExit.signal, at: persisted.lastExit.at};
		}
	}

	get name(): string {
		return this.config.name;
	}

	get state(): ProviderState {
		return this.machine.state;
	}

	get tools(): readonly ToolDefinition[] {
		return this.toolList;
	}

	get toolsSource(): ToolsSource {
		return this.toolsFrom;
	}

	get pid(): number | undefined {
		return this.connection?.pid;
	}

	/** The recorded state transitions, oldest first (bounded). */
	get transitions(): ReadonlyArray<TransitionRecord<ProviderState, ProviderEvent>> {
		return this.machine.transitions();
	}

	/** The last finished calls, oldest first. */
	recentCalls(): CallRecord[] {
		return this.recent.length < recentLimit ? [...this.recent] : [...this.recent.slice(this.recentNext), ...this.recent.slice(0, this.recentNext)];
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
		return this.toolsVerifiedAt;
	}

	/** Whether `tool` may be called: the upstream lists it, or its tools are not known yet (the call will start it and find out). */
	listsTool(tool: string): boolean {
		return this.toolsFrom === 'none' || this.toolList.some(definition => definition.name === tool);
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
		if (this.toolsFrom !== 'live') return true;
		const interval = this.settings.toolsRefreshMs;
		return interval > 0 && this.toolsVerifiedAt !== undefined && Date.now() - this.toolsVerifiedAt > interval;
	}

	/** Why it is quarantined, and what changed if a pinned tool changed; undefined when it is not quarantined. */
	get quarantineInfo(): {reason: string; at: number | undefined; changes: ToolChange[]} | undefined {
		if (this.state !== 'quarantined' && this.stoppingTo !== 'quarantined') return undefined;
		const admin = this.store.upstream(this.name).admin;
		if (admin !== undefined) return {reason: admin.reason, at: admin.at, changes: admin.changes ?? []};
		return {reason: this.quarantineReason(), at: this.machine.transitions().at(-1)?.at, changes: []};
	}

	/** Pinned tool hashes (set when a person approved the upstream), or undefined when nothing is pinned. */
	get pins(): {approvedAt: number; tools: number | undefined} | undefined {
		const pins = this.store.upstream(this.name).pins;
		return pins === undefined ? undefined : {approvedAt: pins.approvedAt, tools: pins.tools === undefined ? undefined : Object.keys(pins.tools).length};
	}

	/** Whether a pinned tool's definition matches the pin: 'pinned', 'unpinned' (no pin for it). */
	pinOf(tool: string): 'pinned' | 'unpinned' {
		return this.store.upstream(this.name).pins?.tools?.[tool] === undefined ? 'unpinned' : 'pinned';
	}

	/** Whether `launch()` would start this upstream. */
	get startsAtLaunch(): boolean {
		return this.state === 'cold' && (!this.config.lazy || this.toolsFrom === 'none');
	}

	/** Called once after construction: starts eager upstreams; resolves when the start has settled. */
	async launch(): Promise<void> {
		if (!this.startsAtLaunch || this.disposed) return;
		const reason = this.config.lazy ? 'discovering tools (none cached or predefined)' : 'lazy is false: started at launch';
		// Nothing cached or predefined: start once to learn the tools; the idle stop puts it back to cold.
		await this.beginStart('start', reason).catch(() => {});
	}

	snapshot(): ProviderSnapshot {
		const m: CallMetricsSnapshot = this.metrics.snapshot();
		return {
			name: this.name,
			state: this.state,
			breaker: this.breaker.state,
			pid: this.connection?.pid,
			transport: this.config.launch.kind,
			tools: this.toolList.length,
			toolsSource: this.toolsFrom,
			lastVerifiedAt: this.toolsVerifiedAt,
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

	async callTool(tool: string, args: Record<string, unknown> | undefined, context: CallContext = {}): Promise<CallToolResult> {
		// The hot path: a ready upstream costs no extra timer or AbortController here; the
		// SDK request's own timer is the deadline and the caller's signal cancels it.
		const began = performance.now();
		this.inFlight += 1;
		this.lastActivityAt = Date.now();
		this.emit('activity');

		let phase: 'start' | 'call' = 'start';
		const progress = context.onProgress === undefined ? undefined : new ProgressRelay(context.onProgress);
		// The caller's deadline applies when it ends before the upstream's own callTimeoutSeconds would.
		const deadline = context.deadline !== undefined && context.deadline.ms - (context.deadline.spentMs ?? 0) < this.config.callTimeoutMs ? context.deadline : undefined;
		const timeoutMs = deadline === undefined ? this.config.callTimeoutMs : deadline.ms - (deadline.spentMs ?? 0);
		let countAsFailure = false;
		try {
			if (context.signal?.aborted) throw new RequestCancelledError();
			const connection =
				this.state === 'ready' && this.connection !== undefined
					? this.connection
					: await this.readyWithin(`call to tool "${tool}"`, context.signal, progress, timeoutMs);
			phase = 'call';
			const remaining = Math.max(1, Math.round(timeoutMs - (performance.now() - began)));
			const result = await connection.callTool(tool, args, {
				signal: context.signal,
				timeoutMs: remaining,
				meta: context.meta,
				onprogress: progress === undefined ? undefined : update => progress.upstream(update),
			});
			const ms = performance.now() - began;
			this.metrics.recordSuccess(ms);
			this.toolMetric(tool).recordSuccess(ms);
			if (result.isError === true) this.toolErrors += 1;
			this.remember({at: Date.now(), tool, ms, ok: result.isError !== true, error: result.isError === true ? 'the tool returned isError' : undefined});
			if (this.state === 'ready') this.breaker.recordSuccess();
			if (context.correlationId !== undefined) {
				this.logger.debug(`tools/call "${tool}" answered in ${Math.round(ms)} ms`, {correlationId: context.correlationId, isError: result.isError === true ? true : undefined});
			}

			return result;
		} catch (error) {
			const mapped = this.mapCallError(error, tool, phase, deadline);
			countAsFailure = mapped.countsForBreaker;
			const ms = performance.now() - began;
			// A refusal (breaker open, dead, stopped, ...) is not a new failure of the upstream: counting it,
			// and storing its message as lastError, would bury the real cause under copies of itself.
			const refused = phase === 'start' && mapped.error instanceof HangarError && refusalCodes.has(mapped.error.codeName);
			if (!refused) {
				this.metrics.recordFailure(ms, mapped.error.message);
				this.toolMetric(tool).recordFailure(ms, mapped.error.message);
			}

			this.remember({at: Date.now(), tool, ms, ok: false, error: mapped.error.message});
			if (context.correlationId !== undefined) {
				this.logger.warn(`tools/call "${tool}" failed after ${Math.round(ms)} ms: ${mapped.error.message}`, {correlationId: context.correlationId});
				this.log.push('hangar', `tools/call "${tool}" failed (correlation id ${context.correlationId}): ${mapped.error.message}`);
			}

			throw mapped.error;
		} finally {
			this.inFlight -= 1;
			this.lastActivityAt = Date.now();
			if (countAsFailure) this.recordBreakerFailure(`call to "${tool}" failed`);
			this.store.update(
				this.name,
				upstream => {
					upstream.counters.calls += 1;
					if (countAsFailure) upstream.counters.failures += 1;
				},
				true,
			);
			// The idle timer re-arms itself from lastActivityAt, so calls need not reset it.
			if (this.idleTimer === undefined) this.scheduleIdle();
			this.emit('activity');
		}
	}

	/** The slow path: wait for (or trigger) a start, within the call's deadline and the caller's signal. */
	private async readyWithin(why: string, signal: AbortSignal | undefined, progress: ProgressRelay | undefined, timeoutMs: number): Promise<UpstreamConnection> {
		const controller = new AbortController();
		const deadline = setTimeout(() => controller.abort(new AbortReason('deadline')), timeoutMs);
		const onCancel = () => controller.abort(new AbortReason('cancelled'));
		signal?.addEventListener('abort', onCancel, {once: true});
		try {
			return await this.ensureReady(why, controller.signal, progress);
		} catch (error) {
			const reason: unknown = controller.signal.aborted ? controller.signal.reason : undefined;
			if (reason instanceof AbortReason && reason.kind === 'deadline') throw new UpstreamTimeoutError(timeoutMs);
			if (reason instanceof AbortReason && reason.kind === 'cancelled') throw new RequestCancelledError();
			throw error;
		} finally {
			clearTimeout(deadline);
			signal?.removeEventListener('abort', onCancel);
		}
	}

	private remember(record: CallRecord): void {
		if (this.recent.length < recentLimit) {
			this.recent.push(record);
		} else {
			this.recent[this.recentNext] = record;
			this.recentNext = (this.recentNext + 1) % recentLimit;
		}
	}

	private toolMetric(tool: string): CallMetrics {
		let metric = this.toolMetrics.get(tool);
		if (metric === undefined) {
			metric = new CallMetrics();
			this.toolMetrics.set(tool, metric);
		}

		return metric;
	}

	/** `deadline`: the caller's, when it was the one that applied (else callTimeoutSeconds did). */
	private mapCallError(error: unknown, tool: string, phase: 'start' | 'call', deadline: CallDeadline | undefined): {error: Error; countsForBreaker: boolean} {
		const operation = `tools/call "${tool}"`;
		if (error instanceof UpstreamTimeoutError) {
			const timeoutMs = deadline?.ms ?? this.config.callTimeoutMs;
			const limit = deadline === undefined ? '' : `, the deadline set by hangar.${deadline.setting}`;
			const [during, after] =
				phase === 'start'
					? ["timed out during the upstream's cold start", 'the start goes on, so a retry may find it ready']
					: ['timed out waiting for the upstream to answer', 'the request was cancelled upstream'];
			return {
				error: new HangarError({
					code: 'CallTimeout',
					upstream: this.name,
					operation,
					message: `no answer within ${seconds(timeoutMs)}${limit} (${during}); ${after}`,
					hint:
						deadline === undefined
							? 'Raise "callTimeoutSeconds" for this server if the tool is slow, or check its logs.'
							: `Raise "${deadline.setting}" in the "hangar" settings (keep it below your client's own timeout) if the tool is slow, or check its logs.`,
					details: {phase, timeoutMs},
				}),
				// A timeout during a start is counted by the start itself, if it fails.
				countsForBreaker: phase === 'call',
			};
		}

		if (error instanceof RequestCancelledError) {
			return {
				error: new HangarError({code: 'UpstreamError', upstream: this.name, operation, message: 'cancelled by the client'}),
				countsForBreaker: false,
			};
		}

		if (error instanceof HangarError) return {error, countsForBreaker: false};
		if (error instanceof UpstreamRpcError) {
			// The upstream answered: it is alive. Forward its error as it said it.
			const forwarded = new UpstreamRpcError(error.code, `upstream "${this.name}": ${operation} failed: ${error.message}`, error.data);
			return {error: forwarded, countsForBreaker: false};
		}

		if (error instanceof ConnectionLostError || !(this.connection?.isOpen ?? false)) {
			const exit = this.lastExit;
			const stderr = this.log.tail(5, 'stderr').map(line => line.text);
			const what = exit === undefined ? 'the connection to the upstream closed' : `the upstream ${describeExit(exit)}`;
			return {
				error: new HangarError({
					code: 'UpstreamCrashed',
					upstream: this.name,
					operation,
					message: `${what} while the call was in flight${stderr.length > 0 ? `; last stderr: ${stderr.join(' | ')}` : ''}`,
					hint: this.restartHint(),
					details: {exitCode: exit?.code, signal: exit?.signal, stderrTail: stderr, nextRetryAt: this.nextRetryAt()},
				}),
				// The crash itself is counted once by the exit handler.
				countsForBreaker: false,
			};
		}

		return {
			error: new HangarError({
				code: 'UpstreamError',
				upstream: this.name,
				operation,
				message: errorMessage(error),
				hint: 'Check the upstream\'s stderr in hangar\'s log.',
			}),
			countsForBreaker: true,
		};
	}

	private restartHint(): string {
		if (this.state === 'dead' && this.restartAt !== undefined) {
			return `It restarts automatically in ${seconds(Math.max(0, this.restartAt - Date.now()))} (at ${new Date(this.restartAt).toISOString()}); retry after that.`;
		}

		if (this.state === 'dead') return `Its restart budget is spent: fix the cause (see its stderr: hangar_details, or key l in mcp-hangar tui), then start it again (key s, or hangar_start).`;
		return 'Retry the call; hangar restarts crashed upstreams automatically.';
	}

	/** Resolves with a live connection, starting the upstream if it may be started on demand. */
	private async ensureReady(why: string, signal: AbortSignal, progress: ProgressRelay | undefined): Promise<UpstreamConnection> {
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
					const at = this.breaker.nextProbeAt;
					throw new HangarError({
						code: 'CircuitOpen',
						upstream: this.name,
						operation: why,
						message: `the circuit breaker is open after ${this.breaker.consecutiveFailures} consecutive failures (last: ${this.metrics.lastError ?? 'unknown'})`,
						hint: at === undefined ? 'A probe is running now; retry in a moment.' : `The next probe is at ${new Date(at).toISOString()} (in ${seconds(Math.max(0, at - Date.now()))}); retry after that.`,
						details: {nextRetryAt: at},
					});
				}

				case 'dead': {
					// The reason of the transition to dead says how it ended (exit, stderr, restart plan).
					throw new HangarError({
						code: 'UpstreamUnavailable',
						upstream: this.name,
						operation: why,
						message: `the upstream is dead: ${this.lastTransitionReason()}`,
						hint: this.restartHint(),
						details: {state: 'dead', nextRetryAt: this.restartAt},
					});
				}

				case 'stopped': {
					throw new HangarError({
						code: 'UpstreamUnavailable',
						upstream: this.name,
						operation: why,
						message: `the upstream is stopped (${this.lastTransitionReason()}) and does not start on demand`,
						hint: `Start it again: key s in mcp-hangar tui, or the hangar_start tool {"server": "${this.name}"}.`,
						details: {state: 'stopped'},
					});
				}

				case 'quarantined': {
					throw new HangarError({
						code: 'UpstreamUnavailable',
						upstream: this.name,
						operation: why,
						message: `the upstream is quarantined (${this.quarantineReason()}) and its calls are refused`,
						hint: this.config.quarantined
							? 'Remove "quarantined": true from its entry in the config and restart hangar once you trust it.'
							: `A person lifts it once they trust it: key u in mcp-hangar tui, or mcp-hangar approve ${this.name}.`,
						details: {state: 'quarantined'},
					});
				}

				case 'disabled': {
					throw new HangarError({
						code: 'UpstreamUnavailable',
						upstream: this.name,
						operation: why,
						message: 'the upstream is disabled in the config',
						hint: 'Remove "disabled": true from its entry in the config and restart hangar.',
						details: {state: 'disabled'},
					});
				}
			}
		}
	}

	private quarantineReason(): string {
		const admin = this.store.upstream(this.name).admin;
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
		} else if (this.state === 'cold' && this.toolsFrom === 'none') {
			await abortable(this.beginStart('start', 'on demand: a call named a tool of this upstream before its tools were known'), signal).catch(() => {});
		}
	}

	// ---------------------------------------------------------------------
	// Start

	private beginStart(event: 'start', reason: string): Promise<UpstreamConnection> {
		this.clearTimer('restart');
		this.restartAt = undefined;
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
					},
					controller.signal,
					this.settings.stopGraceMs,
				);
				const tools = await connection.listTools(controller.signal);
				controller.signal.throwIfAborted();
				const changes = this.pinnedChanges(tools);
				if (changes.length > 0) throw new RugPull(changes, tools);
				this.connection = connection;
				this.startedAt = Date.now();
				this.setTools(tools, 'live');
				this.store.update(this.name, upstream => {
					upstream.counters.starts += 1;
				});
				const ms = Math.round(performance.now() - began);
				const pid = connection.pid === undefined ? '' : `pid ${connection.pid}, `;
				if (this.breaker.state === 'closed') {
					this.machine.apply('started', `started in ${ms} ms (${pid}${tools.length} tools)`);
				} else {
					this.breaker.recordSuccess();
					this.machine.apply('started', `started in ${ms} ms (${pid}${tools.length} tools); circuit closed`);
				}

				this.scheduleHealth();
				this.scheduleIdle();
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
		if (reason instanceof AbortReason && reason.kind === 'stopping') {
			return new HangarError({
				code: 'UpstreamUnavailable',
				upstream: this.name,
				operation: 'start',
				message: 'the start was interrupted because the upstream is being stopped',
			});
		}

		const ms = Math.round(performance.now() - began);
		const stderr = this.log.tail(5, 'stderr').map(line => line.text);
		const startedAtWallClock = Date.now() - ms;
		const exit = this.lastExit !== undefined && this.lastExit.at >= startedAtWallClock ? this.lastExit : undefined;
		let what: string;
		if (reason instanceof AbortReason && reason.kind === 'start-timeout') {
			what = `no answer to initialize/tools/list within the start timeout of ${seconds(this.config.startTimeoutMs)}`;
		} else if (exit !== undefined) {
			what = `the process ${describeExit(exit)} during initialization`;
		} else if (error instanceof ConnectionLostError || /connection closed/i.test(errorMessage(error))) {
			what = 'the connection closed during initialization';
		} else {
			what = errorMessage(error);
		}

		const detail = `${what}${stderr.length > 0 ? `; last stderr: ${stderr.join(' | ')}` : ''}`;
		this.metrics.lastError = `start failed: ${detail}`;
		this.breaker.recordFailure(Date.now());
		const delay = this.restartPolicy.recordCrash(Date.now());
		this.store.update(this.name, upstream => {
			upstream.counters.crashes += 1;
		});
		const plan = this.planRestart(delay);
		this.machine.apply('start_failed', `start failed after ${ms} ms: ${detail}; ${plan}`);
		return new HangarError({
			code: 'StartFailed',
			upstream: this.name,
			operation: 'start',
			message: detail,
			hint: `${this.restartAt === undefined ? 'It stays dead until it is started again (key s in mcp-hangar tui, or hangar_start).' : `Hangar retries in ${seconds(Math.max(0, this.restartAt - Date.now()))} (at ${new Date(this.restartAt).toISOString()}).`} ${
				this.config.launch.kind === 'stdio'
					? 'If it keeps failing, check its command, args and env in the config and its stderr.'
					: 'If it keeps failing, check that the server is running and reachable at its url, and its headers.'
			}`,
			details: {stderrTail: stderr, nextRetryAt: this.restartAt},
		});
	}

	/** Changes of pinned tools in a freshly listed tool set (none when nothing is pinned yet). */
	private pinnedChanges(tools: readonly ToolDefinition[]): ToolChange[] {
		const pins = this.store.upstream(this.name).pins;
		if (pins === undefined) return [];
		if (pins.tools === undefined) {
			// Approved before its tools were known: the first list it serves is the one pinned.
			this.store.update(this.name, upstream => {
				upstream.pins = {approvedAt: pins.approvedAt, tools: pinTools(tools)};
			});
			this.log.push('hangar', `pinned ${tools.length} tools (approved before they were first listed)`);
			return [];
		}

		return toolChanges(pins.tools, tools);
	}

	/**
	 * A pinned tool changed: the upstream is quarantined with the diff, and its
	 * new tool list is never exposed. From a start (`how` = 'stop': the start is
	 * abandoned through stopping) or a refresh of a running upstream.
	 */
	private onRugPull(changes: ToolChange[], tools: readonly ToolDefinition[], how: 'stop' | 'running'): HangarError {
		const reason = `a pinned tool changed since a person approved it: ${describeChanges(changes)}`;
		this.store.update(this.name, upstream => {
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

		return new HangarError({
			code: 'UpstreamUnavailable',
			upstream: this.name,
			operation: 'tools/list',
			message: `quarantined: ${reason}`,
			hint: `See the diff with hangar_details; if the change is expected, a person approves it again (key u in mcp-hangar tui, or mcp-hangar approve ${this.name}).`,
			details: {state: 'quarantined', changes},
		});
	}

	/** Schedules an automatic restart when the budget allows; returns a sentence for the transition reason. */
	private planRestart(delay: number | undefined): string {
		const {maxRestarts, windowMs} = this.restartPolicy.budget;
		if (delay === undefined) {
			this.restartAt = undefined;
			return `restart budget spent (${maxRestarts + 1} failures within ${seconds(windowMs)}, at most ${maxRestarts} restarts): stays dead until it is started again`;
		}

		this.restartAt = Date.now() + delay;
		this.clearTimer('restart');
		this.restartTimer = setTimeout(() => {
			this.restartTimer = undefined;
			if (this.state !== 'dead' || this.disposed) return;
			this.restartCount += 1;
			this.beginStart('start', `automatic restart after ${seconds(delay)} backoff`).catch(() => {});
		}, delay);
		return `restarting in ${seconds(delay)}`;
	}

	private onConnectionClosed(connection: UpstreamConnection | undefined, exit: ExitInfo | undefined): void {
		if (exit !== undefined) this.recordExit(exit);
		// A start in progress (no connection handed out yet) handles its own failure.
		if (connection === undefined || connection !== this.connection) return;
		this.connection = undefined;
		this.clearTimer('health');
		this.clearTimer('refresh');
		this.clearTimer('probe');
		this.clearTimer('idle');
		if (this.state !== 'ready' && this.state !== 'degraded') return;

		const stderr = this.log.tail(3, 'stderr').map(line => line.text);
		const what = exit === undefined ? 'the connection closed' : `the process ${describeExit(exit)}`;
		const detail = `${what}${stderr.length > 0 ? `; last stderr: ${stderr.join(' | ')}` : ''}`;
		this.metrics.lastError = `crashed: ${detail}`;
		this.breaker.recordFailure(Date.now());
		const delay = this.restartPolicy.recordCrash(Date.now());
		this.store.update(this.name, upstream => {
			upstream.counters.crashes += 1;
		});
		this.machine.apply('crashed', `${detail}; ${this.planRestart(delay)}`);
	}

	private recordExit(exit: ExitInfo): void {
		this.lastExit = exit;
		const stderrTail = this.log.tail(10, 'stderr').map(line => line.text);
		this.store.update(this.name, upstream => {
			upstream.lastExit = {code: exit.code, signal: exit.signal, at: exit.at, stderrTail};
		});
	}

	// ---------------------------------------------------------------------
	// Tools

	private setTools(tools: ToolDefinition[], source: ToolsSource): void {
		const changed = JSON.stringify(tools) !== JSON.stringify(this.toolList);
		this.toolList = tools;
		this.toolsFrom = source;
		this.toolsVerifiedAt = Date.now();
		if (changed) this.toolsRevision += 1;
		this.store.update(this.name, upstream => {
			upstream.tools = tools;
			upstream.toolsVerifiedAt = this.toolsVerifiedAt;
		});
		this.emit('tools');
	}

	/** Re-reads the tool list; coalesces bursts of list_changed into at most one extra refresh. */
	refreshTools(why: string): void {
		if (this.refreshing !== undefined) {
			this.refreshAgain = true;
			return;
		}

		const connection = this.connection;
		if (connection === undefined) return;
		this.refreshing = (async () => {
			try {
				const signal = AbortSignal.timeout(this.settings.pingTimeoutMs * 2);
				const tools = await connection.listTools(signal);
				if (connection === this.connection && (this.state === 'ready' || this.state === 'degraded')) {
					const changes = this.pinnedChanges(tools);
					if (changes.length > 0) {
						this.onRugPull(changes, tools, 'running');
						return;
					}

					this.log.push('hangar', `tool list refreshed (${tools.length} tools): ${why}`);
					this.setTools(tools, 'live');
				}
			} catch (error) {
				this.log.push('hangar', `tool list refresh failed: ${errorMessage(error)}`);
			} finally {
				this.refreshing = undefined;
				if (this.refreshAgain) {
					this.refreshAgain = false;
					this.refreshTools(why);
				}
			}
		})();
	}

	// ---------------------------------------------------------------------
	// Breaker, probe, health

	private recordBreakerFailure(what: string): void {
		const opened = this.breaker.recordFailure(Date.now());
		if (!opened) return;
		if (this.state === 'ready') {
			const at = this.breaker.nextProbeAt!;
			this.machine.apply(
				'trip',
				`circuit opened after ${this.breaker.consecutiveFailures} consecutive failures (${what}: ${this.metrics.lastError ?? 'unknown'}); probe in ${seconds(at - Date.now())}`,
			);
			this.clearTimer('health');
			this.scheduleProbe();
		}
	}

	private scheduleProbe(): void {
		this.clearTimer('probe');
		const at = this.breaker.nextProbeAt;
		if (at === undefined) return;
		this.probeTimer = setTimeout(() => {
			this.probeTimer = undefined;
			void this.probe();
		}, Math.max(0, at - Date.now()));
	}

	private async probe(): Promise<void> {
		const connection = this.connection;
		if (this.state !== 'degraded' || connection === undefined) return;
		this.breaker.beginProbe();
		const began = performance.now();
		try {
			await connection.ping(this.settings.pingTimeoutMs);
			if (this.state !== 'degraded' || connection !== this.connection) return;
			this.breaker.recordSuccess();
			this.machine.apply('probe_ok', `probe ping answered in ${Math.round(performance.now() - began)} ms; circuit closed`);
			this.scheduleHealth();
			this.scheduleIdle();
		} catch (error) {
			if (this.state !== 'degraded' || connection !== this.connection) return;
			this.breaker.recordFailure(Date.now());
			const at = this.breaker.nextProbeAt!;
			this.metrics.lastError = `probe failed: ${pingFailure(error, this.settings.pingTimeoutMs)}`;
			this.machine.apply('probe_failed', `${this.metrics.lastError}; next probe in ${seconds(at - Date.now())}`);
			this.scheduleProbe();
		}
	}

	private scheduleHealth(): void {
		this.clearTimer('health');
		this.clearTimer('refresh');
		if (this.settings.toolsRefreshMs > 0) {
			this.refreshTimer = setInterval(() => {
				if (this.state === 'ready') this.refreshTools(`periodic refresh (toolsRefreshSeconds ${this.settings.toolsRefreshMs / 1000})`);
			}, this.settings.toolsRefreshMs);
		}

		if (this.settings.healthIntervalMs <= 0) return;
		this.healthTimer = setInterval(() => {
			void this.healthCheck();
		}, this.settings.healthIntervalMs);
	}

	private async healthCheck(): Promise<void> {
		const connection = this.connection;
		if (this.state !== 'ready' || connection === undefined) return;
		try {
			await connection.ping(this.settings.pingTimeoutMs);
		} catch (error) {
			if (this.state !== 'ready' || connection !== this.connection) return;
			this.metrics.lastError = `health ping failed: ${pingFailure(error, this.settings.pingTimeoutMs)}`;
			this.log.push('hangar', this.metrics.lastError);
			this.recordBreakerFailure('health ping');
			this.emit('activity');
		}
	}

	// ---------------------------------------------------------------------
	// Idle stop

	/**
	 * Idle since its last call began or ended, or since it started if that was
	 * later: an upstream started by a person (or at launch) long after its last
	 * call is not idle from that call.
	 */
	get idleSince(): number {
		return Math.max(this.lastActivityAt, this.startedAt ?? 0);
	}

	private scheduleIdle(): void {
		this.clearTimer('idle');
		if (this.config.idleTimeoutMs <= 0 || this.inFlight > 0) return;
		if (this.state !== 'ready' && this.state !== 'degraded') return;
		const due = this.idleSince + this.config.idleTimeoutMs - Date.now();
		this.idleTimer = setTimeout(() => {
			this.idleTimer = undefined;
			// With calls in flight, the last one to finish re-arms the timer.
			if (this.inFlight > 0 || (this.state !== 'ready' && this.state !== 'degraded')) return;
			const idleMs = Date.now() - this.idleSince;
			if (idleMs < this.config.idleTimeoutMs) {
				this.scheduleIdle();
				return;
			}

			this.stop('cold', `idle for ${seconds(idleMs)} (idleTimeoutSeconds ${this.config.idleTimeoutMs / 1000})`).catch(() => {});
		}, Math.max(0, due));
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
			case 'disabled': {
				throw new HangarError({
					code: 'UpstreamUnavailable',
					upstream: this.name,
					operation: 'start',
					message: `the upstream is ${this.state}`,
					hint:
						this.state === 'quarantined'
							? `A person lifts the quarantine first: key u in mcp-hangar tui, or mcp-hangar approve ${this.name}.`
							: 'Remove "disabled": true from its entry in the config and restart hangar.',
				});
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
		this.clearTimer('restart');
		this.restartAt = undefined;
		if (this.state === target) return;
		const event: ProviderEvent | undefined =
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
		this.store.update(this.name, upstream => {
			upstream.admin = {state: 'quarantined', at: Date.now(), reason};
		});
		await this.stop('quarantined', reason);
	}

	/**
	 * What a person's approval pins, decided here once for `approve()`, the
	 * approval's answer and the TUI's question: after a rug pull, the whole
	 * list it served then (the one its diff shows); else the list in hand, live
	 * or cached from an earlier run (the one hangar_details shows); else, when
	 * none was ever listed (or only the config's predefined one), the first
	 * list it serves. Only counts the tools: the TUI asks for it on every
	 * render, and the pins themselves (a hash per tool) are made by `approve()`.
	 */
	get approvalPlan(): ApprovalPlan {
		const seen = this.store.upstream(this.name).admin?.seen;
		if (seen !== undefined) return {from: 'changed', tools: Object.keys(seen).length};
		// Distinct names: the pins are keyed by name, so a tool listed twice is pinned once.
		if (this.toolsFrom === 'live' || this.toolsFrom === 'cache') return {from: 'listed', tools: new Set(this.toolList.map(tool => tool.name)).size, verifiedAt: this.toolsVerifiedAt};
		return {from: 'first-listing'};
	}

	/**
	 * A person approves the upstream: lifts a quarantine (back to cold) and pins
	 * its tools as `approvalPlan` says. A quarantine set in the config file can
	 * only be lifted there.
	 */
	approve(reason: string): ApprovalPlan {
		if (this.state === 'quarantined' && this.config.quarantined) {
			throw new HangarError({
				code: 'UpstreamUnavailable',
				upstream: this.name,
				operation: 'approve',
				message: 'it is quarantined by "quarantined": true in the config',
				hint: 'Remove "quarantined": true from its entry in the config and restart hangar.',
			});
		}

		if (this.state === 'disabled') {
			throw new HangarError({
				code: 'UpstreamUnavailable',
				upstream: this.name,
				operation: 'approve',
				message: 'it is disabled in the config',
				hint: 'Remove "disabled": true from its entry in the config and restart hangar.',
			});
		}

		const plan = this.approvalPlan;
		const pins = plan.from === 'changed' ? this.store.upstream(this.name).admin?.seen : plan.from === 'listed' ? pinTools(this.toolList) : undefined;
		this.store.update(this.name, upstream => {
			upstream.admin = undefined;
			upstream.pins = {approvedAt: Date.now(), tools: pins};
		});
		if (this.state === 'quarantined') this.machine.apply('release', reason);
		return plan;
	}

	/** Stops everything for shutdown and disposes timers; the provider is unusable afterwards. */
	async shutdown(reason: string): Promise<void> {
		this.disposed = true;
		this.clearAllTimers();
		if (runningStates.has(this.state)) await this.stop('cold', reason).catch(() => {});
		this.clearAllTimers();
	}

	private clearTimer(which: 'restart' | 'probe' | 'health' | 'idle' | 'refresh'): void {
		switch (which) {
			case 'refresh': {
				if (this.refreshTimer !== undefined) clearInterval(this.refreshTimer);
				this.refreshTimer = undefined;
				break;
			}

			case 'restart': {
				if (this.restartTimer !== undefined) clearTimeout(this.restartTimer);
				this.restartTimer = undefined;
				break;
			}

			case 'probe': {
				if (this.probeTimer !== undefined) clearTimeout(this.probeTimer);
				this.probeTimer = undefined;
				break;
			}

			case 'health': {
				if (this.healthTimer !== undefined) clearInterval(this.healthTimer);
				this.healthTimer = undefined;
				break;
			}

			case 'idle': {
				if (this.idleTimer !== undefined) clearTimeout(this.idleTimer);
				this.idleTimer = undefined;
				break;
			}
		}
	}

	private clearAllTimers(): void {
		this.clearTimer('restart');
		this.clearTimer('probe');
		this.clearTimer('health');
		this.clearTimer('idle');
		this.clearTimer('refresh');
		this.restartAt = undefined;
	}
}

function pingFailure(error: unknown, timeoutMs: number): string {
	if (error instanceof UpstreamTimeoutError) return `no answer to ping within ${seconds(timeoutMs)}`;
	const message = errorMessage(error);
	if (/timed out/i.test(message)) return `no answer to ping within ${seconds(timeoutMs)}`;
	return message;
}

/** Rejects as soon as `signal` aborts, without cancelling the shared work behind `promise`. */
async function abortable<T>(promise: Promise<T>, signal: AbortSignal): Promise<T> {
	signal.throwIfAborted();
	return new Promise<T>((resolve, reject) => {
		const onAbort = () => reject(signal.reason);
		signal.addEventListener('abort', onAbort, {once: true});
		promise.then(
			value => {
				signal.removeEventListener('abort', onAbort);
				resolve(value);
			},
			(error: unknown) => {
				signal.removeEventListener('abort', onAbort);
				reject(error);
			},
		);
	});
}

/**
 * Keeps progress monotonic for one downstream call: startup notes come first
 * (1, 2, ...), then upstream progress is shifted past them, because the
 * protocol requires each value to be larger than the last.
 */
class ProgressRelay {
	private offset = 0;
	private last = 0;

	constructor(private readonly send: ((update: ProgressUpdate) => void) | undefined) {}

	/** Sends a note now and one a second while `work` runs, so clients that reset their timeout on progress keep waiting. */
	async during<T>(message: string, work: Promise<T>): Promise<T> {
		if (this.send === undefined) return work;
		this.note(message);
		const began = Date.now();
		const ticker = setInterval(() => this.note(`${message} (${Math.round((Date.now() - began) / 1000)} s)`), 1000);
		try {
			return await work;
		} finally {
			clearInterval(ticker);
		}
	}

	note(message: string): void {
		if (this.send === undefined) return;
		this.offset += 1;
		this.last = this.offset;
		this.send({progress: this.offset, message});
	}

	upstream(update: Progress): void {
		if (this.send === undefined) return;
		const progress = this.offset + update.progress;
		if (progress <= this.last) return;
		this.last = progress;
		this.send({
			progress,
			total: update.total === undefined ? undefined : this.offset + update.total,
			message: update.message,
		});
	}
}
