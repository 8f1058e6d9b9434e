/**
 * The requests hangar sends an upstream itself, beside the SDK: tools/call
 * and the requests it forwards for its clients (resources/read, prompts/get,
 * ...). Each gets an id the SDK never uses (a string starting with "h", also
 * its progress token), one deadline that pauses while the upstream waits for
 * a client, and notifications/cancelled on expiry or the caller's abort. The
 * connection's `intercept` hands their answers and progress here, in
 * arrival order; the answer is passed on as it came.
 */
import {cancelNotice, offCancel, onCancel, type CancelSource} from '../base/cancellation.js';
import type {Deadline, Expiring} from '../base/deadline-book.js';
import {ForwardedResult} from '../wire/forwarded-result.js';
import {isPlainObject} from '../wire/message-classifier.js';
import {ConnectionLostError, RequestCancelledError, UpstreamRpcError, UpstreamTimeoutError} from './connection-errors.js';
import type {Progress} from './connection.js';
import type {UpstreamAsks} from './upstream-asks.js';
import {SteadyMap} from '../base/steady-collections.js';

/** A JSON-RPC message as the transport carries it. */
type Message = Record<string, unknown>;

/** How one request is sent and waited for (see `OwnRequests.send`). */
export type SendOptions = {
	signal?: CancelSource | undefined;
	timeoutMs: number;
	onprogress?: ((progress: Progress) => void) | undefined;
	/** Who made the call, as the engine gave it: a request the upstream ties to this call is that caller's. */
	caller?: unknown;
	/**
	 * Told as the upstream's answer (a result or an error) is read, before
	 * the next line of its output: from then on the call is not in flight,
	 * so a request the upstream sends after it belongs to no call, even when
	 * both came in one read (the promise's reactions would run after it).
	 * For a request its caller cancelled after it was sent (which the
	 * upstream may go on running: cancellation is advisory), told when the
	 * upstream answers it anyway or the connection closes (see
	 * `OwnRequests.cancelledLimit`).
	 */
	onAnswered?: (() => void) | undefined;
};

/** What the requests are sent on. */
export type OwnRequestDeps = {
	/** Sends a message on the connection's transport (rejects when it cannot). */
	sendMessage(message: Message): Promise<void>;
	isClosed(): boolean;
	/** Over a child's pipe: a failed send means the child is gone. */
	overPipe: boolean;
	/** What the upstream asks its client: its wait pauses these requests' deadlines. */
	asks: Pick<UpstreamAsks, 'deadlines'>;
};

/**
 * One request in flight: its deadline, its caller's cancel, and how its
 * answer ends it. One object per request rather than a closure per way it
 * can end: this is on the hot path of every call.
 */
class OwnRequest implements Expiring {
	readonly deadline: Deadline;
	/** Its caller's cancel, while it listens to it. */
	private readonly onAbort: (() => void) | undefined;

	constructor(
		private readonly requests: OwnRequests,
		private readonly deps: OwnRequestDeps,
		readonly id: string,
		private readonly method: string,
		private readonly params: Record<string, unknown>,
		private readonly options: SendOptions,
		private readonly resolve: (answer: Record<string, unknown> | ForwardedResult) => void,
		private readonly reject: (error: unknown) => void,
	) {
		this.deadline = deps.asks.deadlines.add(options.timeoutMs, this);
		if (options.signal !== undefined) {
			this.onAbort = () => this.aborted();
			onCancel(options.signal, this.onAbort);
		}
	}

	get caller(): unknown {
		return this.options.caller;
	}

	get onprogress(): ((progress: Progress) => void) | undefined {
		return this.options.onprogress;
	}

	private cleanup(): void {
		this.deps.asks.deadlines.remove(this.deadline);
		if (this.onAbort !== undefined) offCancel(this.options.signal!, this.onAbort);
		this.requests.forget(this.id);
	}

	private cancel(params: Record<string, unknown>): void {
		this.deps.sendMessage({jsonrpc: '2.0', method: 'notifications/cancelled', params}).catch(() => {});
	}

	/**
	 * The caller cancelled it (`sent`: after it was sent, so the upstream may
	 * still run it). A client's notifications/cancelled is passed on as it
	 * came, its requestId this request's: the upstream reads the client's
	 * reason, or none.
	 */
	aborted(sent = true): void {
		this.cleanup();
		const notice = cancelNotice(this.options.signal);
		// Object.fromEntries: a member named "__proto__" stays a member.
		this.cancel(notice === undefined ? {requestId: this.id, reason: 'cancelled by the client'} : Object.fromEntries(Object.entries(notice).map(([key, value]) => [key, key === 'requestId' ? this.id : value])));
		if (sent && this.options.onAnswered !== undefined) this.requests.cancelledRunning(this.id, this.options.onAnswered);
		this.reject(new RequestCancelledError());
	}

	expire(): void {
		this.cleanup();
		this.cancel({requestId: this.id, reason: `no answer within ${this.options.timeoutMs} ms`});
		// The upstream may run on past hangar's deadline: a late answer tells the engine it stopped.
		if (this.options.onAnswered !== undefined) this.requests.cancelledRunning(this.id, this.options.onAnswered);
		this.reject(new UpstreamTimeoutError(this.options.timeoutMs));
	}

	/** Sending it failed: a child's pipe failing means the child is gone; a remote server's request can fail on its own. */
	unsent(error: unknown): void {
		if (!this.requests.has(this.id)) return;
		this.cleanup();
		this.reject(this.deps.isClosed() || this.deps.overPipe ? new ConnectionLostError() : error);
	}

	/** Its answer, or the error that ends it. */
	settle(message: Message | Error): void {
		this.cleanup();
		if (message instanceof Error) {
			this.reject(message);
			return;
		}

		this.options.onAnswered?.();

		const response = message as {result?: unknown; error?: {code?: unknown; message?: unknown; data?: unknown}};
		if (response.error !== undefined) {
			const code = typeof response.error.code === 'number' ? response.error.code : -32_603;
			this.reject(new UpstreamRpcError(code, String(response.error.message ?? 'error without a message'), response.error.data));
			return;
		}

		const result = response.result;
		const followsTask = this.options.onprogress !== undefined && this.params['task'] !== undefined;
		// A stdio upstream's result kept as its text (forwarded-result.ts): checked already.
		if (result instanceof ForwardedResult) {
			// A task's answer is read in full (once): the task's progress follows it.
			if (followsTask && result.hasTask) this.requests.onTaskAnswer?.(this.id, result.value());
			this.resolve(result);
			return;
		}

		if (!isPlainObject(result)) {
			this.reject(new Error(`the upstream answered ${this.method} with a result that is not an object`));
			return;
		}

		// Synchronously, before any later message is read: progress right behind the answer is the task's.
		if (followsTask) this.requests.onTaskAnswer?.(this.id, result);
		this.resolve(result);
	}
}

/**
 * The requests a caller cancelled after they were sent kept per connection,
 * so that an answer the upstream sends anyway tells their caller they no
 * longer run; past it the oldest is forgotten (its caller counts it until
 * the deadline it had: engine/clients/calls-in-flight.ts).
 */
export const cancelledLimit = 256;

export class OwnRequests {
	/** In flight, by their ("h"-prefixed string) id, which is also their progress token. */
	private readonly pending = new SteadyMap<string, OwnRequest>();
	/** Cancelled after they were sent, by id: told (`onAnswered`) when the upstream answers anyway or the connection closes. */
	private readonly cancelled = new Map<string, () => void>();
	private nextId = 0;

	constructor(private readonly deps: OwnRequestDeps) {}

	get size(): number {
		return this.pending.size;
	}

	/** Who made the request with this id; undefined when it has ended or hangar made it itself. */
	callerOf(id: string): unknown {
		return this.pending.get(id)?.caller;
	}

	/** Whether a request with this id is in flight. */
	has(id: string): boolean {
		return this.pending.has(id);
	}

	/** Its answer (or the error that ends it): a late answer to a request that timed out or was cancelled is dropped. */
	settle(id: string, message: Message | Error): void {
		const call = this.pending.get(id);
		if (call === undefined) {
			this.answeredAfterCancel(id);
			return;
		}

		this.pending.delete(id);
		call.settle(message);
	}

	/** Its caller cancelled request `id` after it was sent: `done` is told when the upstream answers it anyway, or the connection closes. */
	cancelledRunning(id: string, done: () => void): void {
		this.cancelled.set(id, done);
		if (this.cancelled.size > cancelledLimit) this.cancelled.delete(this.cancelled.keys().next().value!);
	}

	private answeredAfterCancel(id: string): void {
		const done = this.cancelled.get(id);
		if (done === undefined) return;
		this.cancelled.delete(id);
		done();
	}

	/** Its progress; false when no request in flight has that token (progress after it ended: a task's, or dropped). */
	progress(token: string, progress: Progress): boolean {
		const call = this.pending.get(token);
		call?.onprogress?.(progress);
		return call !== undefined;
	}

	/** Told, synchronously, when a request sent with `task` and a progress token is answered (its token may live on with the task). */
	onTaskAnswer: ((token: string, result: Record<string, unknown>) => void) | undefined;

	/** Fails every request in flight: the connection is gone. */
	failAll(): void {
		const calls = [...this.pending.values()];
		this.pending.clear();
		for (const call of calls) call.settle(new ConnectionLostError());
		// Cancelled ones run no more either.
		const cancelled = [...this.cancelled.values()];
		this.cancelled.clear();
		for (const done of cancelled) done();
	}

	/** It ended: its id is free of it (a late answer is dropped). */
	forget(id: string): void {
		this.pending.delete(id);
	}

	/**
	 * Sends one request of `method`, its answer matched in the connection's `intercept` (`settle`),
	 * with a deadline (on the book of the connection's deadlines, paused while the upstream waits for a
	 * client); on expiry or the caller's abort it sends
	 * notifications/cancelled, and a late answer is dropped. With
	 * `onprogress`, the request's id is its progress token. The answer is
	 * passed on as it came: a result object as the upstream wrote it (from a
	 * stdio upstream, its text: a `ForwardedResult`), an
	 * error with its own code and data (the SDK would rebuild some, e.g. turn
	 * -32002 into -32602).
	 */
	send(method: string, params: Record<string, unknown>, options: SendOptions): Promise<Record<string, unknown> | ForwardedResult> {
		if (this.deps.isClosed()) return Promise.reject(new ConnectionLostError());
		const id = `h${this.nextId++}`;
		// The client's own token (if any) is replaced: progress comes back under this request's id.
		if (options.onprogress !== undefined) params['_meta'] = {...(params['_meta'] as Record<string, unknown> | undefined), progressToken: id};
		return new Promise<Record<string, unknown> | ForwardedResult>((resolve, reject) => {
			const request = new OwnRequest(this, this.deps, id, method, params, options, resolve, reject);
			this.pending.set(id, request);
			if (options.signal?.aborted === true) {
				request.aborted(false);
				return;
			}

			this.deps.sendMessage({jsonrpc: '2.0', id, method, params}).catch((error: unknown) => request.unsent(error));
		});
	}
}
