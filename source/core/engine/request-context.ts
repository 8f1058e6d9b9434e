/**
 * One client request as everything below the endpoint sees it: created once
 * where the request enters hangar (the gateway's pipeline, or an in-process
 * caller such as the CLI's `call --standalone`), then handed down unchanged
 * through the router, the supervisor, the upstream's call path and the calls
 * log. Nothing downstream re-derives who asked, when the request must end,
 * or where it is recorded.
 *
 * - `signal` aborts when the client cancels (notifications/cancelled) or its
 *   session closes; `abortedBy` says which. Either way the client is owed
 *   no answer. `cancellation` is the same, cheaper to listen to: the call
 *   path uses it, and the signal is made only for whoever reads it.
 * - `deadline` is the caller's own deadline (HTTP: httpCallTimeoutSeconds),
 *   started when the request arrived, with the setting it came from. It is
 *   not a timer on the signal: whoever waits takes the time left of it
 *   (the router's wait for a first tool list, the call path's wait for a
 *   start, the connection's call timer), because the connection pauses a
 *   call's deadline while its upstream waits for a client to answer a
 *   request of its own, and the error of an expired wait names the phase.
 * - `client` is the session's record (its name, capabilities, roots, calls
 *   in flight): the client that caused whatever the upstream does while this
 *   request is in flight.
 * - `record` is the one record of the request: filled in as it goes (the
 *   route's upstream and name), written to the calls log once when it ends.
 */
import type {Audience} from '../base/errors.js';
import {Cancellation} from '../base/cancellation.js';
import type {ClientRecord} from './clients/clients.js';
import {CallBudget, type CallDeadline, type ProgressUpdate} from './upstream/call-path.js';

export type {CallDeadline, ProgressUpdate};

/** Why a request's signal aborted. */
export type AbortCause = 'cancelled' | 'closed';

/** The one record of a request: what the calls log keeps of it, written once. */
export type RequestRecord = {
	/** When the request arrived, in ms since the epoch. */
	readonly at: number;
	/** When it arrived, on `performance.now()`'s clock (its duration is measured from here). */
	readonly began: number;
	/** Who asked, as the calls log names it: the client's name from initialize, else its session label, else "hangar". */
	readonly caller: string;
	/** The upstream the request was routed to (a per-client server's template name), once routed. */
	upstream: string | undefined;
	/** That upstream's own name for what was asked (a tool, a prompt) or its own URI, once routed. */
	target: string | undefined;
	/** Whether it has been written to the calls log (it is written at most once). */
	written: boolean;
};

/** What every handler and everything below it reads of one request. */
export type RequestContext = {
	/** The JSON-RPC id as the client wrote it. */
	readonly id: string | number;
	readonly method: string;
	/** Aborted by the client's cancel or the session's close (see `abortedBy`). */
	readonly signal: AbortSignal;
	/** The same cancel as `signal`, without an AbortSignal unless one is asked for (base/cancellation.ts). */
	readonly cancellation: Cancellation;
	/** Why `signal` aborted; undefined while it has not. */
	readonly abortedBy: AbortCause | undefined;
	/** The caller's own deadline, from the request's arrival (undefined: only the upstream's callTimeoutSeconds applies). */
	readonly deadline: CallBudget | undefined;
	/** The session that sent it; undefined for in-process callers (the CLI's own calls, demo traffic). */
	readonly client: ClientRecord | undefined;
	/** Names the request in hangar's log lines (HTTP: X-Correlation-ID). */
	readonly correlationId: string | undefined;
	/** Who reads its errors: hangar's own CLI gets hints for a shell. */
	readonly audience: Audience;
	/** Progress for the client, when it sent a progress token (startup notes, then the upstream's progress). */
	readonly onProgress: ((update: ProgressUpdate) => void) | undefined;
	/** The client's own progress token, if it sent one: a task's progress after its CreateTaskResult goes out under it (task-book.ts). */
	readonly progressToken?: string | number | undefined;
	/** The request's `_meta` to forward upstream, without the progress token (which is replaced upstream). */
	readonly meta: Record<string, unknown> | undefined;
	/** Its `task` param (2025-11-25 tasks: run it as a task, answered with a CreateTaskResult), forwarded as it came. */
	readonly task: Record<string, unknown> | undefined;
	/** Its params as the client sent them: a tools/call's members hangar does not read go upstream as they came. */
	readonly params?: Record<string, unknown> | undefined;
	readonly record: RequestRecord;
};

export type RequestInit = {
	id: string | number;
	method: string;
	client?: ClientRecord | undefined;
	/** Names the caller in the calls log when there is no client record (e.g. "demo traffic"). */
	caller?: string | undefined;
	deadline?: CallDeadline | undefined;
	correlationId?: string | undefined;
	audience?: Audience | undefined;
	onProgress?: ((update: ProgressUpdate) => void) | undefined;
	progressToken?: string | number | undefined;
	meta?: Record<string, unknown> | undefined;
	task?: Record<string, unknown> | undefined;
	params?: Record<string, unknown> | undefined;
	/** When it arrived, in ms since the epoch, if the caller already read the clock; else now. */
	at?: number | undefined;
	/** An outer signal that cancels this request too (an in-process caller's). */
	signal?: AbortSignal | undefined;
};

/**
 * A request in flight: its context, and the controls only its owner (the
 * pipeline) uses: `abort` and `end`. No AbortController unless its signal is
 * read, and no timer: this is on the hot path of every call.
 */
export class LiveRequest implements RequestContext {
	readonly id: string | number;
	readonly method: string;
	readonly deadline: CallBudget | undefined;
	readonly client: ClientRecord | undefined;
	readonly correlationId: string | undefined;
	readonly audience: Audience;
	readonly onProgress: ((update: ProgressUpdate) => void) | undefined;
	readonly progressToken: string | number | undefined;
	readonly meta: Record<string, unknown> | undefined;
	readonly task: Record<string, unknown> | undefined;
	readonly params: Record<string, unknown> | undefined;
	readonly record: RequestRecord;
	readonly cancellation = new Cancellation();
	private cause: AbortCause | undefined;
	private readonly outer: AbortSignal | undefined;
	private readonly onOuterAbort: (() => void) | undefined;

	constructor(init: RequestInit) {
		this.id = init.id;
		this.method = init.method;
		this.client = init.client;
		this.correlationId = init.correlationId;
		this.audience = init.audience ?? 'mcp';
		this.onProgress = init.onProgress;
		this.progressToken = init.progressToken;
		this.meta = init.meta;
		this.task = init.task;
		this.params = init.params;
		this.record = {
			at: init.at ?? Date.now(),
			began: performance.now(),
			caller: init.caller ?? init.client?.name ?? init.client?.label ?? 'hangar',
			upstream: undefined,
			target: undefined,
			written: false,
		};
		this.deadline = init.deadline === undefined ? undefined : new CallBudget(init.deadline);

		if (init.signal !== undefined) {
			this.outer = init.signal;
			this.onOuterAbort = () => this.abort('cancelled');
			if (init.signal.aborted) this.abort('cancelled');
			else init.signal.addEventListener('abort', this.onOuterAbort, {once: true});
		}
	}

	get signal(): AbortSignal {
		return this.cancellation.signal;
	}

	get abortedBy(): AbortCause | undefined {
		return this.cause;
	}

	/** Whether the client is owed no answer: it cancelled the request, or its session closed. */
	get unanswerable(): boolean {
		return this.cause !== undefined;
	}

	/**
	 * Aborts the signal, once; the first cause is the one that counts.
	 * `notice`: the params of the client's notifications/cancelled, which
	 * the upstream is sent as they came (its own request's id in them).
	 */
	abort(cause: AbortCause, notice?: Record<string, unknown>): void {
		if (this.cause !== undefined) return;
		this.cause = cause;
		this.cancellation.abort(new RequestAbort(cause, notice));
	}

	/** The request was answered (or dropped): its listener on an outer signal goes. */
	end(): void {
		if (this.onOuterAbort !== undefined) this.outer?.removeEventListener('abort', this.onOuterAbort);
	}
}

/** The reason a request's signal carries when it aborts. */
export class RequestAbort extends Error {
	constructor(
		readonly kind: AbortCause,
		/** The params of the client's notifications/cancelled, when that is what cancelled it (see `cancelNotice`). */
		readonly notice?: Record<string, unknown>,
	) {
		super(kind === 'closed' ? 'the client\'s session closed' : 'the client cancelled the request');
	}
}

/** How a request names itself in an error: its method, and the tool, prompt or resource it is for (`tools/call "echo"`). */
export function requestOperation(request: {readonly method: string; readonly record: {readonly target: string | undefined}}): string {
	return request.record.target === undefined ? request.method : `${request.method} "${request.record.target}"`;
}
