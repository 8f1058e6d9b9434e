/**
 * What an upstream asks its client (sampling, elicitation, roots), relayed
 * through `ClientSide` and answered back on the connection; its
 * cancellations of them; its log messages. While any such request is
 * outstanding, the deadlines of the calls in flight are paused: the upstream
 * cannot finish them before it has its answer, and an elicitation waits for
 * a person. And the wait a start makes for what the upstream asks while
 * starting (its roots) to settle.
 */
import {isPlainObject} from '../wire/message-classifier.js';
import {DeadlineBook} from '../base/deadline-book.js';
import {answerError, noClientSide, tooManyAsks} from './connection-errors.js';
import type {ClientSide, RelayOptions, RelayedMethod} from './client-side.js';
import type {LogBuffer} from './log-buffer.js';
import {RootsRequest, type StartRoots} from './roots-request.js';

type RequestId = string | number;

/** The `_meta` key that ties a message to a task (2025-11-25 tasks). */
export const relatedTaskKey = 'io.modelcontextprotocol/related-task';

/**
 * The most of one upstream connection's requests (sampling, elicitation,
 * roots) relayed to clients and not answered yet: an elicitation may wait
 * for a person for long, and an upstream that keeps asking must not grow
 * hangar's memory (and its client's) without end. Past it, a request is
 * answered at once with an error saying so.
 */
export const maxRelayedAsks = 256;

/** How long after answering its roots/list an upstream gets to apply them before its first call (see settled). */
const rootsSettleMs = 150;

/** What the relay is given by its connection. */
export type UpstreamAskDeps = {
	name: string;
	log: LogBuffer;
	clientSide: ClientSide | undefined;
	events: {
		/** It sent its first roots/list outside any call: on its own, as after initialized (when told roots). */
		onRootsAtStart?: (() => void) | undefined;
		/** Hangar's id for one of the upstream's task ids (see ConnectionEvents.exposedTaskId). */
		exposedTaskId?: ((upstreamTaskId: string) => string | undefined) | undefined;
	};
	/** How many of hangar's own requests are in flight on the connection. */
	callsInFlight(): number;
	/** Which call the upstream's request belongs to, as its transport tells (Streamable HTTP only). */
	origin(id: RequestId): RelayOptions['origin'];
	/** Which call a log message belongs to, as its transport tells (Streamable HTTP only; taken once per message). */
	logOrigin(params: Record<string, unknown>): RelayOptions['origin'];
	/** Sends a message to the upstream (nothing once the connection is closed). */
	send(message: Record<string, unknown>): Promise<void>;
	isClosed(): boolean;
	ping(timeoutMs: number): Promise<void>;
};

export class UpstreamAsks {
	/** The upstream's own requests being answered by a client, by the upstream's id; aborted when it cancels. */
	private readonly relayed = new Map<RequestId, AbortController>();
	/** The relayed requests being answered, each settled once its answer (or error) is sent. */
	private readonly answering = new Set<Promise<void>>();
	/** Its first roots/list, which a start may wait for. */
	private readonly rootsRequest = new RootsRequest();
	/** The deadlines of the calls in flight: paused while the upstream waits for a client's answer (one added meanwhile starts paused). */
	readonly deadlines = new DeadlineBook();
	private holds = 0;
	/** Requests hangar sent on its own through the SDK, for no client, in flight (initialize, list reads; not pings, nor logging/setLevel, its clients' level): see RelayOptions.hangarRequests. */
	hangarRequests = 0;

	constructor(private readonly deps: UpstreamAskDeps) {}

	/** The upstream cancelled one of its requests: true when it was one being relayed (now aborted). */
	cancel(requestId: unknown): boolean {
		const relayed = typeof requestId === 'string' || typeof requestId === 'number' ? this.relayed.get(requestId) : undefined;
		if (relayed === undefined) return false;
		relayed.abort();
		return true;
	}

	/** The connection is gone: every relayed request is cancelled. */
	abortAll(): void {
		for (const controller of this.relayed.values()) controller.abort();
		this.relayed.clear();
	}

	/** Wakes a start waiting for the roots request (the connection closed). */
	wake(): void {
		this.rootsRequest.wake();
	}

	/**
	 * Asks the client side to answer the upstream's request and sends the
	 * answer back. No answer goes back once the upstream cancelled it. While
	 * any such request is outstanding, the deadlines of the calls in flight
	 * are paused: the upstream cannot finish them before it has its answer,
	 * and an elicitation waits for a person.
	 */
	relay(id: RequestId, method: RelayedMethod, given: Record<string, unknown> | undefined): void {
		const {clientSide, name} = this.deps;
		if (this.relayed.size >= maxRelayedAsks && !this.relayed.has(id)) {
			const {code, message, data} = answerError(tooManyAsks(name, method, maxRelayedAsks));
			this.deps.log.push('hangar', `${method} from the upstream was refused: ${message}`);
			void this.deps.send({jsonrpc: '2.0', id, error: {code, message, data}});
			return;
		}

		const params = this.exposeRelatedTask(given);
		if (method === 'roots/list') {
			// Its first, outside any call: it asks on its own (at start-up), and will again at its next start.
			if (this.rootsRequest.arrived() && this.deps.callsInFlight() === 0) this.deps.events.onRootsAtStart?.();
		}

		const controller = new AbortController();
		this.relayed.get(id)?.abort();
		this.relayed.set(id, controller);
		this.holdDeadlines();
		const token = isPlainObject(params?.['_meta']) ? params['_meta']['progressToken'] : undefined;
		const onProgress =
			typeof token === 'string' || typeof token === 'number'
				? (progress: Record<string, unknown>) => {
						if (!controller.signal.aborted) void this.deps.send({jsonrpc: '2.0', method: 'notifications/progress', params: {...progress, progressToken: token}});
					}
				: undefined;
		const answer = clientSide === undefined ? Promise.reject(noClientSide(name, method)) : clientSide.request(name, method, params, {signal: controller.signal, onProgress, origin: this.deps.origin(id), hangarRequests: this.hangarRequests});
		const answered = answer
			.then(
				async result => {
					if (!controller.signal.aborted) await this.deps.send({jsonrpc: '2.0', id, result});
				},
				async (error: unknown) => {
					if (controller.signal.aborted) return;
					const {code, message, data} = answerError(error);
					this.deps.log.push('hangar', `${method} from the upstream was answered with error ${code}: ${message}`);
					await this.deps.send({jsonrpc: '2.0', id, error: {code, message, ...(data === undefined ? {} : {data})}});
				},
			)
			.finally(() => {
				if (this.relayed.get(id) === controller) this.relayed.delete(id);
				this.releaseDeadlines();
				this.answering.delete(answered);
			});
		this.answering.add(answered);
	}

	/** `params` with the task id of its `related-task` `_meta` as hangar handed it out (a request the upstream sends during a task's tasks/result). */
	private exposeRelatedTask(params: Record<string, unknown> | undefined): Record<string, unknown> | undefined {
		const meta = params?.['_meta'];
		if (!isPlainObject(meta) || !isPlainObject(meta[relatedTaskKey])) return params;
		const related = meta[relatedTaskKey];
		const exposed = typeof related['taskId'] === 'string' ? this.deps.events.exposedTaskId?.(related['taskId']) : undefined;
		if (exposed === undefined) return params;
		return {...params, _meta: {...meta, [relatedTaskKey]: {...related, taskId: exposed}}};
	}

	/**
	 * Resolves once what the upstream asks its client while starting (roots,
	 * right after initialized) is answered, so that an upstream that scopes
	 * itself by its client's roots has them before it serves its first call;
	 * resolves with whether it asked for roots.
	 *
	 * - Whether it will ask is learned: an upstream that asked on its own
	 *   (outside any call) after an earlier start told `roots`
	 *   (`roots.expected`) is waited for until its roots/list arrives
	 *   (server-everything asks 350 ms after initialized), at most
	 *   `pingTimeoutMs`. Otherwise (not known, or it did not ask last time)
	 *   it gets three round trips for a request to arrive.
	 * - Once the answer is sent: three round trips and at least rootsSettleMs.
	 *   server-filesystem checks each root on disk before it applies them,
	 *   and MCP has no signal for "roots applied": this part is a heuristic.
	 */
	async settled(signal: AbortSignal, pingTimeoutMs: number, roots: StartRoots): Promise<{askedRoots: boolean}> {
		if (roots.told && roots.expected === true) {
			if (!this.deps.isClosed()) await this.rootsRequest.wait(signal, pingTimeoutMs);
		} else if (roots.told) {
			// A request sent in answer to initialized may come after the lists, and after an await or two
			// of the upstream's own: a few round trips let it arrive.
			for (let turn = 0; turn < 3 && this.answering.size === 0 && !this.rootsRequest.asked && !this.deps.isClosed() && !signal.aborted; turn++) await this.deps.ping(pingTimeoutMs).catch(() => {});
		}

		const askedRoots = this.rootsRequest.asked;
		// Roots answered before this point (server-filesystem asks at once, during the lists) still need applying.
		if (this.answering.size === 0 && !askedRoots) return {askedRoots};
		const aborted = new Promise<void>(resolve => {
			signal.addEventListener('abort', () => resolve(), {once: true});
		});
		await Promise.race([Promise.allSettled([...this.answering]), aborted]);
		// Applying roots can take file system work (server-filesystem resolves each root on disk), which a
		// busy machine slows: at least three round trips and rootsSettleMs after the answer.
		const answeredAt = Date.now();
		for (let turn = 0; (turn < 3 || Date.now() - answeredAt < rootsSettleMs) && !signal.aborted && !this.deps.isClosed(); turn++) {
			await this.deps.ping(pingTimeoutMs).catch(() => {});
			if (turn >= 2) await new Promise(resolve => setTimeout(resolve, 10));
		}

		return {askedRoots};
	}

	private holdDeadlines(): void {
		this.holds += 1;
		if (this.holds === 1) this.deadlines.pause();
	}

	private releaseDeadlines(): void {
		this.holds -= 1;
		if (this.holds === 0) this.deadlines.resume();
	}

	logMessage(params: Record<string, unknown> | undefined): void {
		if (params === undefined || typeof params['level'] !== 'string') return;
		const data = params['data'];
		const logger = typeof params['logger'] === 'string' ? ` (${params['logger']})` : '';
		const text = `log ${params['level']}${logger}: ${typeof data === 'string' ? data : JSON.stringify(data)}`;
		// An upstream's log messages are its output too: they share its budget (see log-buffer.ts).
		if (this.deps.log.admit('stdout', text.length)) this.deps.log.push('hangar', text);
		const origin = this.deps.logOrigin(params);
		this.deps.clientSide?.log(this.deps.name, params, origin?.kind === 'call' ? origin.caller : undefined, this.hangarRequests);
	}
}
