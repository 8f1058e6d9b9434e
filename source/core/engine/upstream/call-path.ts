/**
 * The parts of a call's way through an upstream that are not its lifecycle:
 *
 * - the deadline arithmetic, in one place: a caller may bring a deadline of
 *   its own (`CallBudget`, e.g. the HTTP endpoint's, below the usual client
 *   timeout), which starts when the request arrives, is spent by routing and
 *   by a cold start, and applies where it ends before the upstream's own
 *   `callTimeoutSeconds` would;
 * - progress for the downstream client, kept monotonic across hangar's own
 *   start-up notes and the upstream's progress (`ProgressRelay`);
 * - what a failed call is called (`describeCallFailure`): a timeout, a
 *   cancel, a crash, the upstream's own error, or a transport failure, and
 *   whether it counts against the breaker.
 */
import {HangarError, errorMessage, type Hint} from '../../base/errors.js';
import type {RequestContext} from '../request-context.js';
import type {Logger} from '../../base/logger.js';
import type {Clock} from '../../base/clock.js';
import type {LogBuffer} from '../../link/log-buffer.js';
import type {CallMetrics} from './metrics.js';
import {CallHistory} from './call-history.js';
import type {UpstreamRecord} from './upstream-record.js';
import {signInNeededIn} from '../../link/oauth-bearer.js';
import {ConnectionLostError, RequestCancelledError, UpstreamRpcError, UpstreamTimeoutError, type Progress, type ToolAnswer, type UpstreamConnection} from '../../link/connection.js';
import {describeExit, type ExitInfo} from '../../link/child-process-transport.js';
import {callCancelled, callCrashed, callFailed, callTimeout, requestFailed, unavailable} from '../refusals.js';
import {CallersInFlight, type Caller} from '../clients/calls-in-flight.js';
import {offCancel, onCancel, type CancelSource} from '../../base/cancellation.js';
import type {PersistedUpstream} from '../state-store.js';

/**
 * One progress notification for a client: its values, and the upstream's
 * `_meta` passed on as it came. `upstream`: the upstream's own params, when
 * it sent the note: the client's keeps each of their members, in their
 * order, with its own progressToken (and `progress`/`total` shifted past
 * hangar's own startup notes).
 */
export type ProgressUpdate = {
	progress: number;
	total?: number | undefined;
	message?: string | undefined;
	_meta?: Record<string, unknown> | undefined;
	upstream?: Record<string, unknown> | undefined;
};

/** A deadline a caller sets for a whole call, from the request's arrival to its answer. */
export type CallDeadline = {
	ms: number;
	/** The setting that sets it, for the error's hint (e.g. "httpCallTimeoutSeconds"). */
	setting: string;
};

/** One call's deadline, started when the request arrived. */
export class CallBudget {
	private readonly began = performance.now();

	constructor(readonly deadline: CallDeadline) {}

	get spentMs(): number {
		return performance.now() - this.began;
	}

	/** What is left of it, at least 1 ms (a spent budget still gets one turn to time out cleanly). */
	get remainingMs(): number {
		return Math.max(1, Math.round(this.deadline.ms - this.spentMs));
	}
}

/**
 * The timeout a call to an upstream gets: the budget's remainder when it
 * ends before `callTimeoutMs`, else `callTimeoutMs`. `budget` is set when the
 * caller's deadline is the one that applies (its error then names it).
 */
export function callLimit(budget: CallBudget | undefined, callTimeoutMs: number): {timeoutMs: number; budget: CallBudget | undefined} {
	if (budget !== undefined && budget.remainingMs < callTimeoutMs) return {timeoutMs: budget.remainingMs, budget};
	return {timeoutMs: callTimeoutMs, budget: undefined};
}

/**
 * What the call path reads of the request it serves: the request's context
 * (engine/request-context.ts) as the gateway made it. Every field may be
 * absent for hangar's own requests (a resubscribe after a restart).
 */
export type CallContext = Partial<Pick<RequestContext, 'signal' | 'cancellation' | 'deadline' | 'onProgress' | 'meta' | 'task' | 'params' | 'correlationId' | 'client' | 'id'>> & {
	/** A deadline of its own, in place of callTimeoutSeconds and the caller's (tasks/result, which waits for its task to end). */
	ownDeadline?: CallDeadline | undefined;
	/** A start the call already waited for before it was given to this instance (see `CallPath.startBefore`). */
	startedBefore?: StartedBefore | undefined;
};

/**
 * A start waited for before a call chose its instance: an "auto" upstream may
 * learn in its start that the call belongs on its client's own instance
 * (routed-calls.ts). The call goes on from it: its deadline counts from
 * `began` within `limit`, its progress is numbered on by `relay`, and a
 * `failure` (the start's, or the call's own deadline or cancel) is the call's.
 */
export type StartedBefore = {
	began: number;
	limit: ReturnType<typeof callLimit>;
	relay: ProgressRelay | undefined;
	failure?: unknown;
};

/** What cancels a call: the request's cancellation (no AbortSignal made for it), else the signal it was given. */
function cancelOf(context: CallContext): CancelSource | undefined {
	return context.cancellation ?? context.signal;
}

/** What is left of a call's `limit` that began at `began` (at least 1 ms). */
function remainingOf(limit: {timeoutMs: number}, began: number): number {
	return Math.max(1, Math.round(limit.timeoutMs - (performance.now() - began)));
}

/** The call state file counters, one function each rather than a closure per call. */
function countCall(upstream: PersistedUpstream): void {
	upstream.counters.calls += 1;
}

function countFailedCall(upstream: PersistedUpstream): void {
	upstream.counters.calls += 1;
	upstream.counters.failures += 1;
}

/** Why a wait inside a call was given up. */
export class AbortReason extends Error {
	/** `waitingOn`: for a start that ran out of time, the requests it was still waiting on (start-steps.ts). */
	constructor(
		readonly kind: 'deadline' | 'cancelled' | 'stopping' | 'start-timeout',
		readonly waitingOn?: string,
	) {
		super(kind);
	}
}

/** Rejects as soon as `signal` aborts, without cancelling the shared work behind `promise`. */
export async function abortable<T>(promise: Promise<T>, signal: AbortSignal): Promise<T> {
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

/** What the upstream's lifecycle knows that says why a call failed. */
export type UpstreamFacts = {
	connectionOpen: boolean;
	lastExit: ExitInfo | undefined;
	stderrTail: () => string[];
	/** What to do about a crash, and when it restarts. */
	crashHint: () => Hint;
	nextRetryAt: number | undefined;
	/** A remote upstream's url: what to check when a request to it fails (only its origin is said: a path or query may carry a key). */
	remoteUrl?: string | undefined;
	/** Why it needs sign-in, when a lost sign-in is what ended the call (its connection is closed for that). */
	signInNeeded?: string | undefined;
	/** The configured server's name: what a person signs in to (an instance or era twin has its own name). */
	server: string;
};

/** What the call path knows about the upstream when a call fails. */
export type FailureContext = UpstreamFacts & {
	upstream: string;
	tool: string;
	phase: 'start' | 'call';
	/** The timeout that applied, and the caller's budget when it was the one. */
	timeoutMs: number;
	budget: CallBudget | undefined;
};

/** What a failed call is answered with, and whether it counts against the breaker. */
export function describeCallFailure(error: unknown, context: FailureContext): {error: Error; countsForBreaker: boolean} {
	const {upstream, tool, phase} = context;
	if (error instanceof UpstreamTimeoutError) {
		return {
			error: callTimeout({upstream, tool, phase, timeoutMs: context.budget?.deadline.ms ?? context.timeoutMs, setting: context.budget?.deadline.setting}),
			// A timeout during a start is counted by the start itself, if it fails.
			countsForBreaker: phase === 'call',
		};
	}

	if (error instanceof RequestCancelledError) return {error: callCancelled(upstream, tool), countsForBreaker: false};
	if (error instanceof HangarError) return {error, countsForBreaker: false};
	if (error instanceof UpstreamRpcError) {
		// The upstream answered: it is alive. Forward its error as it said it.
		return {error: new UpstreamRpcError(error.code, `upstream "${upstream}": tools/call "${tool}" failed: ${error.message}`, error.data), countsForBreaker: false};
	}

	const signIn = signInNeededIn(error)?.reason ?? context.signInNeeded;
	if (signIn !== undefined) return {error: unavailable(upstream, `call to tool "${tool}"`, {state: 'needs-sign-in', reason: signIn, server: context.server}), countsForBreaker: false};
	if (error instanceof ConnectionLostError || !context.connectionOpen) {
		const exit = context.lastExit;
		return {
			error: callCrashed(upstream, tool, {
				what: exit === undefined ? 'the connection to the upstream closed' : `the upstream ${describeExit(exit)}`,
				stderr: context.stderrTail(),
				hint: context.crashHint(),
				details: {exitCode: exit?.code, signal: exit?.signal, nextRetryAt: context.nextRetryAt},
			}),
			// The crash itself is counted once by the exit handler.
			countsForBreaker: false,
		};
	}

	return {error: callFailed(upstream, tool, errorMessage(error), context.remoteUrl), countsForBreaker: true};
}

/**
 * Keeps progress monotonic for one downstream call: startup notes come first
 * (1, 2, ...), then upstream progress is shifted past them, because the
 * protocol requires each value to be larger than the last.
 */
export class ProgressRelay {
	private offset = 0;
	/** The last value sent; nothing yet at first, so an upstream's first value may be 0 (as the conformance suite's is). */
	private last = Number.NEGATIVE_INFINITY;

	constructor(private readonly send: (update: ProgressUpdate) => void) {}

	/** Sends a note now and one a second while `work` runs, so clients that reset their timeout on progress keep waiting. */
	async during<T>(message: string, work: Promise<T>): Promise<T> {
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
		this.offset += 1;
		this.last = this.offset;
		this.send({progress: this.offset, message});
	}

	upstream(update: Progress): void {
		const progress = this.offset + update.progress;
		if (progress <= this.last) return;
		this.last = progress;
		const meta = (update as {_meta?: unknown})._meta;
		this.send({
			progress,
			total: update.total === undefined ? undefined : this.offset + update.total,
			message: update.message,
			_meta: meta !== null && typeof meta === 'object' && !Array.isArray(meta) ? (meta as Record<string, unknown>) : undefined,
			upstream: update as Record<string, unknown>,
		});
	}
}

/** Errors that refuse a call without trying the upstream. */
const refusalCodes: ReadonlySet<string> = new Set(['CircuitOpen', 'UpstreamUnavailable']);

/** Where a call's connection comes from: the upstream's lifecycle. */
export type CallConnector = {
	/** The live connection while ready (the hot path), else undefined. */
	ready(): UpstreamConnection | undefined;
	/** Waits for (or triggers) a start; throws the refusal when the upstream may not start. */
	whenReady(why: string, signal: AbortSignal, progress: ProgressRelay | undefined): Promise<UpstreamConnection>;
};

/** What a call's outcome means for the upstream's health (see `UpstreamHealth`). */
export type CallOutcomes = {
	/** The upstream answered a call (a result, `isError` or not): it is alive. */
	answered(): void;
	/** A call failed in a way that counts against the breaker. */
	failed(what: string): void;
};

/** What the call path is given; it owns the rest (in flight, activity, history, tool errors). */
export type CallPathDeps = {
	name: string;
	callTimeoutMs: number;
	logger: Logger;
	log: LogBuffer;
	metrics: CallMetrics;
	record: UpstreamRecord;
	clock: Clock;
	connector: CallConnector;
	outcomes: CallOutcomes;
	/** What the lifecycle knows that says why a call failed. */
	failureFacts(): UpstreamFacts;
	/** Calls in flight changed (one began or ended): re-arm the idle stop, tell listeners. */
	onActivity(): void;
};

/**
 * One upstream's calls: the deadline, the wait for a start, the call itself,
 * progress, and what each outcome is recorded and answered as. It owns what
 * calls change: the count in flight, the time of the last activity, the
 * history of finished calls and the count of `isError` results.
 */
export class CallPath {
	readonly history = new CallHistory();
	/** The calls and requests in flight here, by the client session that sent each, and hangar's own (see `CallersInFlight`). */
	readonly callers: CallersInFlight;
	private inFlightCount = 0;
	private lastActivity: number;
	private toolErrorCount = 0;

	constructor(private readonly deps: CallPathDeps) {
		this.lastActivity = deps.clock.now();
		this.callers = new CallersInFlight(() => deps.clock.now());
	}

	/** Who a call or request stands for while in flight (see `CallersInFlight`): its session's call, else one of hangar's own. */
	private beginCaller(context: CallContext): Caller | undefined {
		if (context.client !== undefined && context.id !== undefined) return this.callers.begin(context.client, context.id);
		this.callers.beginOwn();
		return undefined;
	}

	/**
	 * It ended. One its client cancelled after it was sent may still run at
	 * the upstream (cancellation is advisory): it counts for what is left of
	 * `limit`, at most callTimeoutSeconds (a tasks/result's own deadline of an
	 * hour is a wait for its task, not work of its own), unless the upstream
	 * answers it sooner or the connection closes (the connection tells `onAnswered`).
	 */
	private endCaller(caller: Caller | undefined, mayRun: 'cancelled' | 'timed out' | undefined, limit: {timeoutMs: number}, began: number): void {
		// One hangar gave up on (its deadline passed) is the likeliest to run on: it counts for a whole callTimeoutSeconds.
		const forMs = mayRun === undefined ? 0 : mayRun === 'timed out' ? this.deps.callTimeoutMs : Math.min(remainingOf(limit, began), this.deps.callTimeoutMs);
		if (caller === undefined) this.callers.endOwn(mayRun === undefined ? undefined : forMs);
		else if (mayRun !== undefined) this.callers.cancelled(caller, forMs);
		else this.callers.end(caller);
	}

	/** Calls and other requests in flight now. */
	get inFlight(): number {
		return this.inFlightCount;
	}

	/** When the last call or request began or ended (or when this path was made). */
	get lastActivityAt(): number {
		return this.lastActivity;
	}

	/** Tool results with `isError`, this run. */
	get toolErrors(): number {
		return this.toolErrorCount;
	}

	private began(): void {
		this.inFlightCount += 1;
		this.lastActivity = this.deps.clock.now();
		this.deps.onActivity();
	}

	/** `now`: the clock as the caller last read it, if it just did (a read of the clock less per call). */
	private ended(now = this.deps.clock.now()): void {
		this.inFlightCount -= 1;
		this.lastActivity = now;
		this.deps.onActivity();
	}

	async run(tool: string, args: Record<string, unknown> | undefined, context: CallContext): Promise<ToolAnswer> {
		// The hot path: a ready upstream costs no extra timer or AbortController here; the
		// connection's deadline book is the deadline and the request's cancellation cancels it.
		const deps = this.deps;
		const before = context.startedBefore;
		const began = before?.began ?? performance.now();
		this.began();
		// While the call is in flight, a request the upstream sends its client can belong to this session (see CallersInFlight).
		const caller = this.beginCaller(context);
		let phase: 'start' | 'call' = 'start';
		const progress = before === undefined ? (context.onProgress === undefined ? undefined : new ProgressRelay(context.onProgress)) : before.relay;
		const limit = before?.limit ?? callLimit(context.deadline, deps.callTimeoutMs);
		const cancel = cancelOf(context);
		let failed = false;
		let mayRun: 'cancelled' | 'timed out' | undefined;
		let endedAt: number | undefined;
		try {
			if (cancel?.aborted) throw new RequestCancelledError();
			let connection = deps.connector.ready();
			let timeoutMs = limit.timeoutMs;
			if (connection === undefined || before !== undefined) {
				if (before?.failure !== undefined) throw before.failure;
				connection ??= await this.readyWithin(`call to tool "${tool}"`, cancel, progress, remainingOf(limit, began));
				timeoutMs = remainingOf(limit, began);
			}

			phase = 'call';
			const result = await connection.callTool(tool, args, {
				signal: cancel,
				timeoutMs,
				meta: context.meta,
				task: context.task,
				clientParams: context.params,
				onprogress: progress === undefined ? undefined : update => progress.upstream(update),
				caller,
				onAnswered: caller === undefined ? undefined : () => this.callers.end(caller),
			});
			const now = deps.clock.now();
			endedAt = now;
			const ms = performance.now() - began;
			const isError = result.isError === true;
			deps.metrics.recordSuccess(ms, now);
			this.history.tool(tool).recordSuccess(ms, now);
			this.history.remember({at: now, tool, ms, ok: !isError, error: isError ? 'the tool returned isError' : undefined});
			if (isError) this.toolErrorCount += 1;
			deps.outcomes.answered();
			if (context.correlationId !== undefined) {
				deps.logger.debug(`tools/call "${tool}" answered in ${Math.round(ms)} ms`, {correlationId: context.correlationId, isError: isError ? true : undefined});
			}

			return result;
		} catch (error) {
			mayRun = phase !== 'call' ? undefined : error instanceof RequestCancelledError ? 'cancelled' : error instanceof UpstreamTimeoutError ? 'timed out' : undefined;
			const mapped = describeCallFailure(error, {...deps.failureFacts(), upstream: deps.name, tool, phase, timeoutMs: limit.timeoutMs, budget: limit.budget});
			failed = mapped.countsForBreaker;
			const ms = performance.now() - began;
			// A refusal (breaker open, dead, stopped, ...) is not a new failure of the upstream: counting it,
			// and storing its message as lastError, would bury the real cause under copies of itself.
			const refused = phase === 'start' && mapped.error instanceof HangarError && refusalCodes.has(mapped.error.codeName);
			// Nor is a client's cancel (or its going away): every other client would see it in status as the upstream's error.
			// Kept without its hint: "it restarts in 0.2 s; retry after that" is true when the call fails, not when status is read later.
			const kept = mapped.error instanceof HangarError ? mapped.error.sentence : mapped.error.message;
			if (!refused && !(error instanceof RequestCancelledError)) {
				deps.metrics.recordFailure(ms, kept);
				this.history.tool(tool).recordFailure(ms, kept);
			}

			endedAt = deps.clock.now();
			this.history.remember({at: endedAt, tool, ms, ok: false, error: kept});
			if (context.correlationId !== undefined) {
				deps.logger.warn(`tools/call "${tool}" failed after ${Math.round(ms)} ms: ${mapped.error.message}`, {correlationId: context.correlationId});
				deps.log.push('hangar', `tools/call "${tool}" failed (correlation id ${context.correlationId}): ${mapped.error.message}`);
			}

			throw mapped.error;
		} finally {
			this.endCaller(caller, mayRun, limit, began);
			this.callEnded(tool, failed, endedAt);
		}
	}

	/**
	 * A request other than a tool call (resources/read, prompts/get,
	 * completion/complete, resources/subscribe, ...): the same start on
	 * demand, deadline and cancel as a call, and the upstream's result as it
	 * came. Its failures are not counted against the breaker or in the tool
	 * metrics: a resource that cannot be read says nothing about the tools.
	 */
	async request(method: string, params: Record<string, unknown>, operation: string, context: CallContext): Promise<Record<string, unknown>> {
		const deps = this.deps;
		const before = context.startedBefore;
		const began = before?.began ?? performance.now();
		const limit = before?.limit ?? (context.ownDeadline === undefined ? callLimit(context.deadline, deps.callTimeoutMs) : {timeoutMs: context.ownDeadline.ms, budget: new CallBudget(context.ownDeadline)});
		this.began();
		const caller = this.beginCaller(context);
		const progress = before === undefined ? (context.onProgress === undefined ? undefined : new ProgressRelay(context.onProgress)) : before.relay;
		const cancel = cancelOf(context);
		let sent = false;
		let mayRun: 'cancelled' | 'timed out' | undefined;
		try {
			if (cancel?.aborted) throw new RequestCancelledError();
			if (before?.failure !== undefined) throw before.failure;
			const connection = deps.connector.ready() ?? (await this.readyWithin(operation, cancel, progress, remainingOf(limit, began)));
			const remaining = remainingOf(limit, began);
			sent = true;
			return await connection.forward(method, params, {
				signal: cancel,
				timeoutMs: remaining,
				onprogress: progress === undefined ? undefined : update => progress.upstream(update),
				caller,
				onAnswered: caller === undefined ? undefined : () => this.callers.end(caller),
			});
		} catch (error) {
			mayRun = !sent ? undefined : error instanceof RequestCancelledError ? 'cancelled' : error instanceof UpstreamTimeoutError ? 'timed out' : undefined;
			if (error instanceof HangarError) throw error;
			if (error instanceof UpstreamRpcError) throw new UpstreamRpcError(error.code, `upstream "${deps.name}": ${operation} failed: ${error.message}`, error.data);
			if (error instanceof RequestCancelledError) throw requestFailed(deps.name, operation, {kind: 'failed', message: 'cancelled by the client'});
			if (error instanceof UpstreamTimeoutError) {
				throw requestFailed(deps.name, operation, {kind: 'timeout', timeoutMs: limit.budget?.deadline.ms ?? limit.timeoutMs, setting: limit.budget?.deadline.setting});
			}

			if (error instanceof ConnectionLostError) throw requestFailed(deps.name, operation, {kind: 'lost', message: 'the connection to the upstream closed while the request was in flight'});
			throw requestFailed(deps.name, operation, {kind: 'failed', message: errorMessage(error), remoteUrl: deps.failureFacts().remoteUrl});
		} finally {
			this.endCaller(caller, mayRun, limit, began);
			this.ended();
		}
	}

	/**
	 * Waits for (or triggers) a start before a call or request chooses its
	 * instance (`why` as the call would say it), within its deadline and
	 * cancel, as the call's own start would, progress notes included; what
	 * the call goes on from (`StartedBefore`), its failure not thrown. The
	 * caller counts as in flight here meanwhile, so that what the upstream
	 * asks while starting is placed with it as during the call.
	 */
	async startBefore(why: string, context: CallContext): Promise<StartedBefore> {
		const began = performance.now();
		const limit = callLimit(context.deadline, this.deps.callTimeoutMs);
		const relay = context.onProgress === undefined ? undefined : new ProgressRelay(context.onProgress);
		const caller = this.beginCaller(context);
		try {
			await this.readyWithin(why, cancelOf(context), relay, limit.timeoutMs);
			return {began, limit, relay};
		} catch (failure) {
			return {began, limit, relay, failure};
		} finally {
			this.endCaller(caller, undefined, limit, began);
		}
	}

	/** A call ended, either way; `failed`: it counts against the breaker. Counted in the state file, lazily. */
	private callEnded(tool: string, failed: boolean, now: number | undefined): void {
		if (failed) this.deps.outcomes.failed(`call to "${tool}" failed`);
		this.deps.record.update(failed ? countFailedCall : countCall, true);
		this.ended(now);
	}

	/** The slow path: wait for (or trigger) a start, within the call's deadline and the caller's signal. */
	private async readyWithin(why: string, cancel: CancelSource | undefined, progress: ProgressRelay | undefined, timeoutMs: number): Promise<UpstreamConnection> {
		const controller = new AbortController();
		const cancelDeadline = this.deps.clock.after(timeoutMs, () => controller.abort(new AbortReason('deadline')));
		const onCancelled = () => controller.abort(new AbortReason('cancelled'));
		if (cancel !== undefined) onCancel(cancel, onCancelled);
		try {
			return await this.deps.connector.whenReady(why, controller.signal, progress);
		} catch (error) {
			const reason: unknown = controller.signal.aborted ? controller.signal.reason : undefined;
			if (reason instanceof AbortReason && reason.kind === 'deadline') throw new UpstreamTimeoutError(timeoutMs);
			if (reason instanceof AbortReason && reason.kind === 'cancelled') throw new RequestCancelledError();
			throw error;
		} finally {
			cancelDeadline();
			if (cancel !== undefined) offCancel(cancel, onCancelled);
		}
	}
}
