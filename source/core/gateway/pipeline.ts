/**
 * One client connection's request pipeline: every message its transport
 * delivers goes through here, and nowhere else.
 *
 *   transport ─► receive: connection state gate ─► method table ─► handler(context, params) ─► one answer
 *
 * - The per-connection state machine (connection-state.ts) is the gate in
 *   front of the table: a request the state does not allow is answered with
 *   -32003 and reaches no handler.
 * - The table maps each method a client may send to its handler; a method
 *   not in it is answered with -32601. Which methods are in it is the
 *   session's business (the local socket endpoint adds hangar's admin
 *   methods; catalog methods come only with their capability).
 * - Each request gets one context (engine/request-context.ts), made here:
 *   its id, method, signal (aborted by the client's notifications/cancelled
 *   or the session's close), deadline, client, correlation id, audience and
 *   record. Handlers and everything below them read it.
 * - A handler returns the result (or `Serialized` JSON, written as it is
 *   where the transport takes lines) or throws; a cancelled request is owed
 *   no answer, every other one gets exactly one.
 * - Each request's protocol generation is read from the request itself
 *   (protocol-era.ts): a modern (2026-07-28) request carries its version and
 *   capabilities in its `_meta`, passes no connection state gate, is served
 *   from the same table (without the legacy-only methods, with the
 *   modern-only ones such as `server/discover`), and is answered with its
 *   `resultType` and the modern error codes. Legacy and modern requests may
 *   share one connection.
 * - Notifications go to their own table; responses (to requests hangar sent
 *   the client for an upstream) to `onResponse`.
 */
import type {JSONRPCMessage, Transport} from '@modelcontextprotocol/server';
import {JsonRpcCode, JsonRpcError, type Audience} from '../base/errors.js';
import type {Logger} from '../base/logger.js';
import type {ClientRecord} from '../engine/clients/clients.js';
import {LiveRequest, requestOperation, type CallDeadline, type ProgressUpdate, type RequestContext} from '../engine/request-context.js';
import {settleWithin} from '../base/settle.js';
import {tuneJitForServing} from '../base/serving-jit.js';
import {createConnectionMachine, sequenceError} from './connection-state.js';
import {errorResponse, toRpcError} from './request-params.js';
import type {BoundRequest} from './modern-clients.js';
import {isModernOnlyMethod, legacyOnlyMethods, methodNotFound, modernErrorCodeOf, modernResult, modernResultJson, requestEra, withoutEnvelope, type ModernRequest} from './protocol-era.js';
import {SteadyMap} from '../base/steady-collections.js';
import {duplicateIdProblem} from '../wire/message-classifier.js';
import {parseExact} from '../base/exact-json.js';

/**
 * Methods of the legacy generation only: a modern (2026-07-28) request has no
 * handshake, no ping, its log level in its `_meta`, and no session to hold a
 * subscription, so these are not found for it.
 */

/** A result already serialized as JSON (a cached tools/list, hangar_list): written as it is where the transport takes lines. */
export class Serialized {
	constructor(readonly json: string) {}
}

/** Params as the client sent them: an object or absent (the wire layer refuses any other shape). */
export type Params = Record<string, unknown> | undefined;

export type RequestHandler = (context: RequestContext, params: Params) => unknown;
export type NotificationHandler = (params: Params) => void;

/** What a transport may offer a session beyond the SDK's `Transport`. */
export type SessionTransport = Transport & {
	/** The transport tells the session that the client closed its input (see drainMs). */
	onInputEnd?: () => void;
	/** The correlation id of the request that carried JSON-RPC request `id` (HTTP: X-Correlation-ID), for the logs of its call. */
	correlationIdOf?: (id: string | number) => string | undefined;
	/** Whether a message that belongs to no request can reach the client now (HTTP: its GET stream is open); unset: always. */
	canSendUnrelated?: () => boolean;
	/**
	 * Writes a message the caller serialized (newline-terminated); `answerTo`, when given: it is the result answering request `answerTo` (the transport need not read the line for it).
	 * Undefined once written; a promise while the transport holds the write back.
	 */
	sendSerialized?: (line: string, answerTo?: string | number) => Promise<void> | undefined;
	/** `send` without a promise unless the transport holds the write back (line transports): the pipeline answers with it where there is one. */
	sendNow?: (message: JSONRPCMessage) => Promise<void> | undefined;
};

export type PipelineOptions = {
	transport: SessionTransport;
	/** Names the connection in the state machine's errors and the log. */
	subject: string;
	logger: Logger;
	/** The session's record: every request's context names it as its client. */
	client: ClientRecord;
	/** A deadline for every request, from its arrival to its answer (HTTP: hangar.httpCallTimeoutSeconds); whoever waits takes the time left. */
	deadline?: CallDeadline | undefined;
	/** Binds a modern request to its client's identity (modern-clients.ts); unset: the session's record. `notify` sends a notification tied to the request. */
	modernClient?: ((modern: ModernRequest, notify: (method: string, params: Record<string, unknown>) => void, id: string | number) => BoundRequest) | undefined;
	/** The caching hints of a result hangar merged (its aggregated lists; see cache-hints.ts); undefined: the upstream's own, or none. */
	cacheHints?: ((method: string) => {ttlMs: number; cacheScope: string} | undefined) | undefined;
};

export class Pipeline {
	readonly machine;
	/**
	 * Whether the client's initialize has its result (written in order, before
	 * anything written after it): until then a client knows nothing of what
	 * hangar serves, and is sent no notification of it (session.ts).
	 */
	initializeAnswered = false;
	/** A notifications/initialized that arrived before the initialize was answered: applied once it is. */
	private earlyInitialized: {params: Params} | undefined;
	/**
	 * Answers to requests a client sent behind its `initialize` (piped lines),
	 * held until that is answered: a first run's initialize waits for the
	 * upstreams, and its call would otherwise be answered first. Pings are not held.
	 */
	private heldAnswers: Array<() => void> | undefined;
	/** Who reads this connection's errors; the initialize handler sets it (hangar's own CLI: 'cli'). */
	audience: Audience = 'mcp';
	/** Told of every response the client sends (answers to what hangar asked it for an upstream). */
	onResponse?: (message: JSONRPCMessage) => void;
	/** Told once when the connection closed, after every request in flight was aborted. */
	onClose?: () => void;
	private readonly requests = new Map<string, RequestHandler>();
	/** Methods only modern requests are served (server/discover). */
	private readonly modernRequests = new Map<string, RequestHandler>();
	private readonly notifications = new Map<string, NotificationHandler>();
	/** Requests in flight: from their arrival until their answer is written (or they are owed none). */
	private readonly inflight = new SteadyMap<string | number, InFlight>();
	/** Requests the client cancelled whose handlers have not ended: in flight still, but their ids free for new requests. */
	private readonly cancelled = new Set<InFlight>();
	/** Told when the last request in flight is done (see drain). */
	private idleWaiters: Array<() => void> = [];
	private readonly transport: SessionTransport;
	private readonly logger: Logger;
	private readonly client: ClientRecord;
	private readonly deadline: CallDeadline | undefined;
	private readonly correlationIdOf: ((id: string | number) => string | undefined) | undefined;
	private readonly modernClient: PipelineOptions['modernClient'];
	private readonly cacheHints: PipelineOptions['cacheHints'];
	private closed = false;

	constructor(options: PipelineOptions) {
		this.transport = options.transport;
		this.logger = options.logger;
		this.client = options.client;
		this.deadline = options.deadline;
		this.modernClient = options.modernClient;
		this.cacheHints = options.cacheHints;
		this.correlationIdOf = options.transport.correlationIdOf?.bind(options.transport);
		this.machine = createConnectionMachine(options.subject);
	}

	/** Serves `method` with `handler` (replacing any handler it had). */
	handle(method: string, handler: RequestHandler): void {
		this.requests.set(method, handler);
	}

	/** Stops serving `method` (a 2025 request for it is then not found). */
	unhandle(method: string): void {
		this.requests.delete(method);
	}

	/** The handler `method` is served with (both eras), if any. */
	handlerOf(method: string): RequestHandler | undefined {
		return this.requests.get(method);
	}

	/** Serves `method` with `handler` for modern (2026-07-28) requests only. */
	handleModern(method: string, handler: RequestHandler): void {
		this.modernRequests.set(method, handler);
	}

	/** Acts on notification `method` (notifications/initialized and cancelled are the pipeline's own; this runs after). */
	on(method: string, handler: NotificationHandler): void {
		this.notifications.set(method, handler);
	}

	/** The methods served now, for tests and the docs. */
	get methods(): string[] {
		return [...this.requests.keys()];
	}

	async start(): Promise<void> {
		this.transport.onclose = () => this.closedByTransport();
		this.transport.onerror = error => this.logger.debug(`transport error: ${error.message}`);
		this.transport.onmessage = message => this.receive(message);
		await this.transport.start();
	}

	async close(): Promise<void> {
		await this.transport.close();
		// A transport that closes without telling: close all the same.
		this.closedByTransport();
	}

	/** Requests in flight right now. */
	get inFlight(): number {
		return this.inflight.size + this.cancelled.size;
	}

	/** Resolves when every request in flight has been answered, or after `timeoutMs`. */
	async drain(timeoutMs: number): Promise<void> {
		if (this.inFlight === 0) return;
		await settleWithin(new Promise<void>(resolve => this.idleWaiters.push(resolve)), timeoutMs);
	}

	receive(message: JSONRPCMessage): void {
		// Read once: the client's last activity and the request's record share it.
		const now = Date.now();
		this.client.touch(now);
		const record = message as {id?: string | number; method?: unknown; params?: Params};
		const method = record.method;
		if (typeof method !== 'string') {
			this.onResponse?.(message);
			return;
		}

		if (!('id' in message)) {
			this.notified(method, record.params);
			return;
		}

		const id = record.id!;
		// The process serves a client now: its call path is compiled soon (serving-jit.ts).
		tuneJitForServing();
		const era = requestEra(id, method, record.params);
		if (era.era === 'refused') {
			this.answerError(id, era.code, era.message, era.data);
			return;
		}

		const modern = era.era === 'modern' ? era.request : undefined;
		// A 2026-07-28 method without its envelope: the envelope is missing, not an initialize.
		if (modern === undefined && this.machine.state !== 'closed' && isModernOnlyMethod(method) && !this.requests.has(method)) {
			this.answerError(id, JsonRpcCode.MethodNotFound, methodNotFound(method, false));
			return;
		}

		// A modern request needs no handshake: only a closed connection refuses it.
		const refused = modern === undefined || this.machine.state === 'closed' ? sequenceError(this.machine.state, method) : undefined;
		if (refused !== undefined) {
			this.answerError(id, refused.code, refused.message, refused.data);
			return;
		}

		const handler = modern === undefined ? this.requests.get(method) : (this.modernRequests.get(method) ?? (legacyOnlyMethods.has(method) ? undefined : this.requests.get(method)));
		if (handler === undefined) {
			this.answerError(id, JsonRpcCode.MethodNotFound, methodNotFound(method, modern !== undefined));
			return;
		}

		if (this.inflight.has(id)) {
			const problem = duplicateIdProblem(id);
			this.answerError(id, problem.code, problem.message);
			return;
		}

		// A modern request belongs to its client's identity, not to the connection's session (modern-clients.ts).
		const bound = modern === undefined ? undefined : this.modernClient?.(modern, (notification, params) => this.notify(notification, params, id), id);
		const context = this.contextFor(id, method, record.params, modern, bound?.client ?? this.client, now);
		if (method === 'initialize' && modern === undefined) {
			this.machine.apply('initialize', 'initialize request received');
			this.heldAnswers = [];
		}
		const request: InFlight = {context, modern, bound};
		this.inflight.set(id, request);
		this.serve(handler, request, record.params);
	}

	/** Sends a message to the client (a request hangar asks it for an upstream, a notification tied to a request). */
	async send(message: JSONRPCMessage, options?: Parameters<Transport['send']>[1]): Promise<void> {
		await this.transport.send(message, options);
	}

	/** Sends a notification; dropped when the connection is not open. */
	notify(method: string, params?: Record<string, unknown>, relatedRequestId?: string | number): void {
		if (this.closed) return;
		const message = {jsonrpc: '2.0', method, ...(params === undefined ? {} : {params})} as JSONRPCMessage;
		this.transport.send(message, relatedRequestId === undefined ? undefined : {relatedRequestId}).catch(() => {});
	}

	private contextFor(id: string | number, method: string, params: Params, modern: ModernRequest | undefined, client: ClientRecord, at: number): LiveRequest {
		const meta = params?.['_meta'];
		let onProgress: ((update: ProgressUpdate) => void) | undefined;
		let forwarded: Record<string, unknown> | undefined;
		let token: string | number | undefined;
		// Most requests carry no _meta: nothing to copy on the hot path. The progress token is replaced upstream.
		if (typeof meta === 'object' && meta !== null && !Array.isArray(meta)) {
			const {progressToken, ...rest} = meta as Record<string, unknown>;
			// The modern envelope is hangar's to read: each upstream is told its own.
			forwarded = modern === undefined ? rest : withoutEnvelope(rest);
			if (typeof progressToken === 'string' || typeof progressToken === 'number') {
				onProgress = this.progressTo(id, progressToken, () => context);
				token = progressToken;
			}
		}

		const task = params?.['task'];
		const context: LiveRequest = new LiveRequest({
			id,
			method,
			client,
			at,
			deadline: this.deadline,
			correlationId: this.correlationIdOf?.(id),
			audience: this.audience,
			onProgress,
			progressToken: token,
			meta: forwarded,
			params,
			task: typeof task === 'object' && task !== null && !Array.isArray(task) ? (task as Record<string, unknown>) : undefined,
		});
		return context;
	}

	/** Progress for the client's request `id` under its own token; over HTTP it goes on that request's own stream. */
	private progressTo(id: string | number, progressToken: string | number, request: () => LiveRequest | undefined): (update: ProgressUpdate) => void {
		return update => {
			// This request's own, still answerable (its id may be a newer request's after a cancel).
			const context = this.inflight.get(id)?.context;
			if (context === undefined || context !== request() || context.unanswerable) return;
			if (update.upstream !== undefined) {
				this.notify('notifications/progress', progressAsSent(update.upstream, progressToken, update), id);
				return;
			}

			const params = {
				progressToken,
				progress: update.progress,
				...(update.total === undefined ? {} : {total: update.total}),
				...(update.message === undefined ? {} : {message: update.message}),
				...(update._meta === undefined ? {} : {_meta: update._meta}),
			};
			this.notify('notifications/progress', params, id);
		};
	}

	/**
	 * Runs `handler` and answers with what it returns or throws. Not an async
	 * function: a handler's promise costs one reaction, not a chain of awaits
	 * (this is on the path of every call). Every answer comes at least one
	 * microtask after its request, as with an await: a handler that answers at
	 * once (ping) is not answered before one that failed at once and came
	 * first (the order clients see for requests sent together).
	 */
	private serve(handler: RequestHandler, request: InFlight, params: Params): void {
		let result: unknown;
		try {
			result = handler(request.context, params);
		} catch (error) {
			queueMicrotask(() => this.failed(request, error));
			return;
		}

		if (isThenable(result)) {
			result.then(
				value => this.answer(request, value),
				(error: unknown) => this.failed(request, error),
			);
		} else {
			queueMicrotask(() => this.answer(request, result));
		}
	}

	private answer(request: InFlight, value: unknown): void {
		const {context, modern} = request;
		if (this.holdsBack(context)) {
			this.heldAnswers!.push(() => this.answer(request, value));
			return;
		}

		if (context.unanswerable) {
			this.done(request);
			if (context.method === 'initialize') this.releaseAnswers();
			return;
		}

		let sent: Promise<void> | undefined;
		try {
			let result = value;
			if (modern !== undefined) {
				const hints = this.cacheHints?.(context.method);
				result = result instanceof Serialized ? new Serialized(modernResultJson(context.method, result.json, hints)) : modernResult(context.method, result, hints);
			}

			if (result instanceof Serialized) sent = this.sendResult(context.id, result.json);
			// Written as the SDK's server wrote answers, byte for byte; tools/call as hangar always wrote it.
			else if (context.method === 'tools/call') sent = this.sendNow({jsonrpc: '2.0', id: context.id, result} as JSONRPCMessage);
			else sent = this.sendNow({result, jsonrpc: '2.0', id: context.id} as JSONRPCMessage);
			if (context.method === 'initialize') this.initializeAnswered = true;
		} catch (error) {
			this.failed(request, writeFailure(context, error));
			return;
		}

		// A notifications/initialized that came before this answer (a client that pipes its lines) takes effect now, after it.
		if (context.method === 'initialize' && this.earlyInitialized !== undefined) {
			const params = this.earlyInitialized.params;
			this.earlyInitialized = undefined;
			this.notified('notifications/initialized', params);
		}

		if (context.method === 'initialize') this.releaseAnswers();

		// In flight until the transport took the answer (a client that does not read holds a session's drain).
		if (sent === undefined) this.done(request);
		else
			sent.then(
				() => this.done(request),
				(error: unknown) => this.failed(request, writeFailure(context, error)),
			);
	}

	private failed(request: InFlight, error: unknown): void {
		const {context, modern} = request;
		if (this.holdsBack(context)) {
			this.heldAnswers!.push(() => this.failed(request, error));
			return;
		}

		// A refused initialize leaves the connection waiting for a corrected one (an initialized sent ahead of it went with it).
		if (context.method === 'initialize' && this.machine.can('initialize_failed')) {
			this.earlyInitialized = undefined;
			this.machine.apply('initialize_failed', 'initialize was answered with an error');
		}

		// The answers held behind it go after its error (queued: this one is sent below first).
		if (context.method === 'initialize') queueMicrotask(() => this.releaseAnswers());
		if (context.unanswerable) {
			this.done(request); // Cancelled (or closed): the protocol says no response.
			return;
		}

		const couldNot = (failure: unknown) => this.logger.debug(`${context.method} could not be answered: ${String(failure)}`);
		let sent: Promise<void> | undefined;
		try {
			const rpc = toRpcError(error, context.method, context.audience);
			const code = modern === undefined ? rpc.code : modernErrorCodeOf(rpc.code);
			sent = this.sendNow(errorResponse(context.id, code, rpc.message, rpc.data));
		} catch (failure) {
			couldNot(failure);
		}

		if (sent === undefined) this.done(request);
		else
			sent.then(
				() => this.done(request),
				(failure: unknown) => {
					couldNot(failure);
					this.done(request);
				},
			);
	}

	/** Whether the answer to `context` waits behind initialize's (a piped client's requests before that answer). */
	private holdsBack(context: LiveRequest): boolean {
		return this.heldAnswers !== undefined && context.method !== 'initialize' && context.method !== 'ping';
	}

	/** Sends the answers held behind initialize, in the order they were ready. */
	private releaseAnswers(): void {
		const held = this.heldAnswers;
		this.heldAnswers = undefined;
		if (held !== undefined) for (const send of held) send();
	}

	/** The request is answered (or owed no answer): it leaves the requests in flight. */
	private done(request: InFlight): void {
		if (this.inflight.get(request.context.id) === request) this.inflight.delete(request.context.id);
		else this.cancelled.delete(request);
		request.context.end();
		request.bound?.end();
		if (this.inFlight === 0 && this.idleWaiters.length > 0) for (const wake of this.idleWaiters.splice(0)) wake();
	}

	/** Writes `message` to the client: a promise only while the transport holds writes back. */
	private sendNow(message: JSONRPCMessage): Promise<void> | undefined {
		return this.transport.sendNow === undefined ? this.transport.send(message) : this.transport.sendNow(message);
	}

	/** Answers request `id` with `json`, the result's JSON: written as it is where the transport takes lines. */
	private sendResult(id: string | number, json: string): Promise<void> | undefined {
		if (this.transport.sendSerialized !== undefined) return this.transport.sendSerialized(`{"jsonrpc":"2.0","id":${JSON.stringify(id)},"result":${json}}\n`, id);
		return this.transport.send({jsonrpc: '2.0', id, result: parseExact(json)} as JSONRPCMessage);
	}

	private answerError(id: string | number, code: number, message: string, data?: unknown): void {
		this.sendNow(errorResponse(id, code, message, data))?.catch(() => {});
	}

	private notified(method: string, params: Params): void {
		if (method === 'notifications/initialized') {
			if (!this.machine.can('initialized')) {
				this.logger.warn(`ignored notifications/initialized in state ${this.machine.state}`);
				return;
			}

			if (!this.initializeAnswered) {
				// Sent before its initialize was answered: nothing may reach the client ahead of that answer (answer()).
				this.earlyInitialized = {params};
				return;
			}

			this.machine.apply('initialized', 'notifications/initialized received');
		} else if (method === 'notifications/cancelled') {
			const requestId = params?.['requestId'];
			const request = typeof requestId === 'string' || typeof requestId === 'number' ? this.inflight.get(requestId) : undefined;
			if (request !== undefined) {
				request.context.abort('cancelled', params);
				// A cancelled request is never answered: its id is free again at once (line-transport.ts, the bridge and HTTP free it too), while its handler winds down.
				if (this.inflight.get(request.context.id) === request) {
					this.inflight.delete(request.context.id);
					this.cancelled.add(request);
				}
			}
		}

		this.notifications.get(method)?.(params);
	}

	private closedByTransport(): void {
		if (this.closed) return;
		this.closed = true;
		if (this.machine.can('close')) this.machine.apply('close', 'the transport closed');
		// A cancelled request (this.cancelled) was aborted already: an abort is once.
		for (const request of this.inflight.values()) request.context.abort('closed');
		this.onClose?.();
	}
}

/**
 * Why an answer could not be written, as its error: one JSON.stringify could
 * not write (a RangeError: nested thousands of levels deep, which an
 * upstream's result may be) as an error that says so rather than a bare
 * "Maximum call stack size exceeded"; any other failure as it is.
 */
function writeFailure(context: LiveRequest, error: unknown): unknown {
	if (!(error instanceof RangeError)) return error;
	const {upstream} = context.record;
	const operation = requestOperation(context);
	const hint = 'Retrying gets the same answer: the upstream must answer with JSON nested less deeply.';
	return new JsonRpcError(
		JsonRpcCode.InternalError,
		`${upstream === undefined ? '' : `upstream "${upstream}": `}${operation} failed: its answer could not be written as JSON (${error.message}; nested too deeply), so hangar cannot pass it on. ${hint}`,
		{error: 'AnswerNotWritable', upstream: upstream ?? null, operation, hint},
	);
}

/**
 * An upstream's progress params as the client is sent them: every member as
 * it came, in its order, but the token (the client's own) and the values
 * hangar shifted past its own startup notes.
 */
function progressAsSent(upstream: Record<string, unknown>, progressToken: string | number, update: ProgressUpdate): Record<string, unknown> {
	const params: Record<string, unknown> = {};
	for (const key of Object.keys(upstream)) {
		const value = key === 'progressToken' ? progressToken : key === 'progress' ? update.progress : key === 'total' ? update.total : upstream[key];
		// defineProperty: a member named "__proto__" stays a member.
		Object.defineProperty(params, key, {value, enumerable: true, writable: true, configurable: true});
	}

	return params;
}

/** A request in flight: its context, its generation, and its binding to a modern client's identity (ended with it). */
type InFlight = {readonly context: LiveRequest; readonly modern: ModernRequest | undefined; readonly bound: BoundRequest | undefined};

function isThenable(value: unknown): value is PromiseLike<unknown> {
	return typeof value === 'object' && value !== null && typeof (value as {then?: unknown}).then === 'function';
}
