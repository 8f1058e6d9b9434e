/**
 * The requests hangar sends an upstream itself, beside the SDK: tools/call
 * and the requests it forwards for its clients (resources/read, prompts/get,
 * ...). Each gets an id the SDK never uses (a string starting with "h", also
 * its progress token), one deadline that pauses while the upstream waits for
 * a client, and notifications/cancelled on expiry or the caller's abort. The
 * connection's `intercept` hands their answers and progress here, in
 * arrival order; the answer is passed on as it came.
 */
import {PausableTimer} from '../base/pausable-timer.js';
import {ForwardedResult} from '../wire/forwarded-result.js';
import {isPlainObject} from '../wire/message-classifier.js';
import {ConnectionLostError, RequestCancelledError, UpstreamRpcError, UpstreamTimeoutError} from './connection-errors.js';
import type {Progress} from './connection.js';
import type {UpstreamAsks} from './upstream-asks.js';

/** A JSON-RPC message as the transport carries it. */
type Message = Record<string, unknown>;

/** A request in flight: how its answer and its progress are delivered. */
type PendingCall = {
	settle: (message: Message | Error) => void;
	onprogress: ((progress: Progress) => void) | undefined;
	/** Who made the call, as the engine gave it: a request the upstream ties to this call is that caller's. */
	caller: unknown;
};

/** What the requests are sent on. */
export type OwnRequestDeps = {
	/** Sends a message on the connection's transport (rejects when it cannot). */
	sendMessage(message: Message): Promise<void>;
	isClosed(): boolean;
	/** Over a child's pipe: a failed send means the child is gone. */
	overPipe: boolean;
	/** What the upstream asks its client: its wait pauses these requests' deadlines. */
	asks: Pick<UpstreamAsks, 'deadlines' | 'holding'>;
};

export class OwnRequests {
	/** In flight, by their ("h"-prefixed string) id, which is also their progress token. */
	private readonly pending = new Map<string, PendingCall>();
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
		this.pending.delete(id);
		call?.settle(message);
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
	}

	/**
	 * Sends one request of `method`, its answer matched in the connection's `intercept` (`settle`),
	 * with one timer for the deadline (paused while the upstream waits for a
	 * client); on expiry or the caller's abort it sends
	 * notifications/cancelled, and a late answer is dropped. With
	 * `onprogress`, the request's id is its progress token. The answer is
	 * passed on as it came: a result object as the upstream wrote it (from a
	 * stdio upstream, its text: a `ForwardedResult`), an
	 * error with its own code and data (the SDK would rebuild some, e.g. turn
	 * -32002 into -32602).
	 */
	async send(
		method: string,
		params: Record<string, unknown>,
		options: {signal?: AbortSignal | undefined; timeoutMs: number; onprogress?: ((progress: Progress) => void) | undefined; caller?: unknown},
	): Promise<Record<string, unknown> | ForwardedResult> {
		return new Promise<Record<string, unknown> | ForwardedResult>((resolve, reject) => {
			if (this.deps.isClosed()) {
				reject(new ConnectionLostError());
				return;
			}

			const id = `h${this.nextId++}`;
			// The client's own token (if any) is replaced: progress comes back under this request's id.
			if (options.onprogress !== undefined) params['_meta'] = {...(params['_meta'] as Record<string, unknown> | undefined), progressToken: id};
			const cleanup = () => {
				deadline.clear();
				this.deps.asks.deadlines.delete(deadline);
				options.signal?.removeEventListener('abort', onAbort);
				this.pending.delete(id);
			};

			const cancel = (reason: string) => {
				this.deps.sendMessage({jsonrpc: '2.0', method: 'notifications/cancelled', params: {requestId: id, reason}}).catch(() => {});
			};

			const onAbort = () => {
				cleanup();
				cancel('cancelled by the client');
				reject(new RequestCancelledError());
			};

			const deadline = new PausableTimer(
				options.timeoutMs,
				() => {
					cleanup();
					cancel(`no answer within ${options.timeoutMs} ms`);
					reject(new UpstreamTimeoutError(options.timeoutMs));
				},
				this.deps.asks.holding,
			);
			this.deps.asks.deadlines.add(deadline);

			this.pending.set(id, {
				caller: options.caller,
				onprogress: options.onprogress,
				settle: message => {
					cleanup();
					if (message instanceof Error) {
						reject(message);
						return;
					}

					const response = message as {result?: unknown; error?: {code?: unknown; message?: unknown; data?: unknown}};
					if (response.error !== undefined) {
						const code = typeof response.error.code === 'number' ? response.error.code : -32_603;
						reject(new UpstreamRpcError(code, String(response.error.message ?? 'error without a message'), response.error.data));
						return;
					}

					const result = response.result;
					// A stdio upstream's result kept as its text (forwarded-result.ts): checked already.
					if (result instanceof ForwardedResult) {
						// A task's answer is read in full (once): the task's progress follows it.
						if (options.onprogress !== undefined && params['task'] !== undefined && result.hasTask) this.onTaskAnswer?.(id, result.value() as Record<string, unknown>);
						resolve(result);
						return;
					}

					if (!isPlainObject(result)) {
						reject(new Error(`the upstream answered ${method} with a result that is not an object`));
						return;
					}

					// Synchronously, before any later message is read: progress right behind the answer is the task's.
					if (options.onprogress !== undefined && params['task'] !== undefined) this.onTaskAnswer?.(id, result);
					resolve(result);
				},
			});
			if (options.signal?.aborted) {
				onAbort();
				return;
			}

			options.signal?.addEventListener('abort', onAbort, {once: true});
			this.deps.sendMessage({jsonrpc: '2.0', id, method, params}).catch((error: unknown) => {
				if (!this.pending.has(id)) return;
				cleanup();
				// A child's pipe failing means it is gone; a remote server's request can fail on its own.
				reject(this.deps.isClosed() || this.deps.overPipe ? new ConnectionLostError() : error);
			});
		});
	}
}
