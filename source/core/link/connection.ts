/**
 * One live MCP session with one upstream, over stdio (a child process behind
 * `ChildProcessTransport`) or over the network (Streamable HTTP, falling back
 * to SSE). This is one of the few modules that import the MCP SDK; the rest
 * of the engine sees `UpstreamConnection` only.
 *
 * `tools/call` and the requests hangar forwards for its clients
 * (resources/read, prompts/get, ...) are sent and matched here, beside the
 * SDK (see `intercept`): hangar forwards what the upstream said, its errors'
 * codes and data included, instead of the SDK re-judging or rebuilding them,
 * and sees each call's progress in the order it arrived.
 * The requests an upstream sends its client (sampling, elicitation, roots)
 * are handled here too and relayed through `ClientSide`.
 */
import {
	Client,
	ProtocolError,
	SdkError,
	SdkErrorCode,
	type CallToolResult,
	type ClientCapabilities,
	type JSONRPCMessage,
	type Progress,
	type StreamableHTTPClientTransport,
	type Transport,
} from '@modelcontextprotocol/client';
import {z} from 'zod';
import {errorMessage} from '../base/errors.js';
import {ConnectionLostError, RequestCancelledError, UpstreamRpcError, UpstreamTimeoutError, stripSdkPrefix, tooLargeAnswer} from './connection-errors.js';
import {NO_SDK_TIMEOUT, connectRemote} from './remote-transport.js';
import type {ServerConfig, ToolDefinition} from '../config/read-config.js';
import type {LogBuffer} from './log-buffer.js';
import {isPlainObject} from '../wire/message-classifier.js';
import {implementationInfo} from '../wire/protocol.js';
import {ChildProcessTransport, type ExitInfo} from './child-process-transport.js';
import {isRelayedMethod, type ClientSide, type LoggingLevel, type RelayOptions} from './client-side.js';
import {OwnRequests} from './own-requests.js';
import {StreamOrigins} from './stream-origins.js';
import type {StartRoots} from './roots-request.js';
import {UpstreamAsks} from './upstream-asks.js';

export type {CallToolResult, Progress};
export {ConnectionLostError, RequestCancelledError, UpstreamRpcError, UpstreamTimeoutError} from './connection-errors.js';

/**
 * The client capabilities an upstream is told when hangar has no client side
 * to relay to (a connection opened for a check, not for clients): none.
 * Otherwise the client side says (`ClientSide.capabilities`): a per-client
 * instance is told what its own client declared, a shared one only what
 * hangar can honour for whichever client it would ask.
 */
export const noClientCapabilities: Record<string, unknown> = {};

/** An upstream's `serverInfo` and `instructions` from initialize. */
export type UpstreamIdentity = {serverInfo: {name: string; version: string} | null; instructions: string | null};

/** The most of an upstream's instructions passed on (characters); the rest is cut. */
export const identityInstructionsLimit = 4000;

/** How an upstream's connection is opened: `UpstreamConnection.open`, or a test's (`UpstreamConnection.over`). */
export type OpenConnection = typeof UpstreamConnection.open;

export type ConnectionEvents = {
	onClose: (exit: ExitInfo | undefined) => void;
	/** The upstream said its tools changed; `meta`: the notification's `_meta`, passed on to clients. */
	onToolsChanged: (meta?: Record<string, unknown>) => void;
	/** The upstream said its resources (and templates) or its prompts changed; `meta` as for tools. */
	onListChanged?: (kind: 'resources' | 'prompts', meta?: Record<string, unknown>) => void;
	/** A resource the upstream was asked to watch (resources/subscribe) changed; `meta`: the notification's `_meta`, passed on to clients. */
	onResourceUpdated?: (uri: string, meta: Record<string, unknown> | undefined) => void;
	/** It sent its first roots/list outside any call: on its own, as after initialized (when told roots). */
	onRootsAtStart?: () => void;
	/** The upstream's `notifications/tasks/status` params: one of its tasks changed status (2025-11-25 tasks). */
	onTaskStatus?: (params: Record<string, unknown>) => void;
	/** Progress the upstream sent for one of its tasks (its own id) after answering the task's tools/call with a CreateTaskResult: the progress token stays valid for the task's life. */
	onTaskProgress?: (upstreamTaskId: string, progress: Progress) => void;
	/** Hangar's id for one of the upstream's task ids, for the `related-task` `_meta` of a request it sends a client; undefined: not a task hangar handed out. */
	exposedTaskId?: (upstreamTaskId: string) => string | undefined;
	/** A remote upstream needs a person to sign in (OAuth): no sign-in, or its tokens stopped working (oauth-bearer.ts). */
	onSignInNeeded?: (reason: string) => void;
};

export {relatedTaskKey} from './upstream-asks.js';

/** The list requests besides tools/list, and the key of each answer's array. */
export const listMethods = {
	resources: {method: 'resources/list', key: 'resources'},
	resourceTemplates: {method: 'resources/templates/list', key: 'resourceTemplates'},
	prompts: {method: 'prompts/list', key: 'prompts'},
} as const;

/**
 * Accepts any object as a result of a forwarded request (resources/read,
 * prompts/get, completion/complete, ...): hangar forwards what the upstream
 * said rather than re-judging it.
 */
const passthroughObject = z.custom<Record<string, unknown>>(value => isPlainObject(value), {message: 'expected a result object'});

type RequestId = string | number;


/** Task progress tokens followed per connection, at most (the oldest is forgotten first). */
const taskTokensLimit = 1000;

export class UpstreamConnection {
	private closedByUs = false;
	private closed = false;
	/** The requests hangar sends itself in flight (tools/call and forwarded ones; see own-requests.ts). */
	private readonly pending: OwnRequests;
	/** Progress tokens of task-augmented calls answered with a CreateTaskResult, and the upstream's id of the task (see onTaskProgress). */
	private readonly taskTokens = new Map<string, string>();
	private readonly unsubscribe: Array<() => void> = [];
	/** What the upstream asks its client, relayed (see upstream-asks.ts); it pauses the deadlines of the calls in flight. */
	private readonly asks: UpstreamAsks;

	private constructor(
		private readonly name: string,
		private readonly client: Client,
		private readonly transport: Transport,
		private readonly child: ChildProcessTransport | undefined,
		private readonly log: LogBuffer,
		private readonly clientSide: ClientSide | undefined,
		/** Over Streamable HTTP: which stream each of the upstream's requests came on. */
		private readonly origins: StreamOrigins | undefined,
		private readonly events: ConnectionEvents,
	) {
		this.asks = new UpstreamAsks({
			name,
			log,
			clientSide,
			events,
			callsInFlight: () => this.pending.size,
			origin: id => this.originOf(id),
			send: async message => this.send(message as JSONRPCMessage),
			isClosed: () => this.closed,
			ping: async timeoutMs => this.ping(timeoutMs),
		});
		this.pending = new OwnRequests({sendMessage: message => this.transport.send(message as JSONRPCMessage), isClosed: () => this.closed, overPipe: child !== undefined, asks: this.asks});
		this.pending.onTaskAnswer = (token, result) => this.followTaskProgress(token, result);
	}

	/**
	 * Spawns or connects, and runs `initialize`. Rejects when the signal
	 * aborts (start timeout, stop) after tearing down whatever was started.
	 */
	static async open(
		config: ServerConfig,
		log: LogBuffer,
		events: ConnectionEvents,
		signal: AbortSignal,
		graceMs: number,
		clientSide?: ClientSide,
	): Promise<UpstreamConnection> {
		return UpstreamConnection.connect(undefined, config, log, events, signal, graceMs, clientSide);
	}

	/** Opens connections over transports made elsewhere (the SDK's in-memory pair in unit tests): `transport()` once per start. */
	static over(transport: () => Transport): OpenConnection {
		return async (config, log, events, signal, graceMs, clientSide) => UpstreamConnection.connect(transport(), config, log, events, signal, graceMs, clientSide);
	}

	private static async connect(
		given: Transport | undefined,
		config: ServerConfig,
		log: LogBuffer,
		events: ConnectionEvents,
		signal: AbortSignal,
		graceMs: number,
		clientSide: ClientSide | undefined,
	): Promise<UpstreamConnection> {
		// The plain 2025 initialize handshake (the v2 SDK's default, named so it stays deliberate): upstreams
		// are told the newest 2025 revision and answer with theirs, as before; no server/discover probe.
		// The SDK builds its JSON Schema validator only when one is needed, which hangar's client never does.
		const client = new Client(implementationInfo, {
			capabilities: (clientSide?.capabilities ?? noClientCapabilities) as ClientCapabilities,
			versionNegotiation: {mode: 'legacy'},
		});
		let connection: UpstreamConnection | undefined;
		let transport: Transport;
		let child: ChildProcessTransport | undefined;
		let origins: StreamOrigins | undefined;
		const remote = given === undefined && config.launch.kind === 'remote';

		if (given !== undefined) {
			transport = given;
		} else if (config.launch.kind === 'stdio') {
			child = new ChildProcessTransport(config.launch, log, config.maxUpstreamMessageBytes, graceMs);
			child.onOversized = (id, bytes) => connection?.answerTooLarge(id, bytes);
			transport = child;
		} else {
			origins = new StreamOrigins();
			transport = await connectRemote(config, client, log, signal, origins, reason => events.onSignInNeeded?.(reason));
		}

		client.onerror = error => log.push('hangar', `protocol error: ${error.message}`);
		client.onclose = () => {
			if (connection === undefined || connection.closed) return;
			connection.closed = true;
			if (!connection.closedByUs) events.onClose(child?.exit);
			connection.failPending();
		};
		client.setNotificationHandler('notifications/tools/list_changed', notification => events.onToolsChanged(notification.params?._meta));
		// Only log messages sent during initialize get here; afterwards `intercept` takes them in order.
		client.setNotificationHandler('notifications/message', notification => connection?.asks.logMessage(notification.params));
		client.setNotificationHandler('notifications/resources/list_changed', notification => events.onListChanged?.('resources', notification.params?._meta));
		client.setNotificationHandler('notifications/prompts/list_changed', notification => events.onListChanged?.('prompts', notification.params?._meta));
		client.setNotificationHandler('notifications/resources/updated', notification => events.onResourceUpdated?.(notification.params.uri, notification.params._meta));

		connection = new UpstreamConnection(config.name, client, transport, child, log, clientSide, origins, events);
		const abort = () => {
			void connection?.close(graceMs);
		};

		signal.addEventListener('abort', abort, {once: true});
		try {
			if (!remote) await client.connect(transport, {signal, timeout: NO_SDK_TIMEOUT});
			connection.intercept();
			connection.followClients();
			signal.throwIfAborted();
			return connection;
		} catch (error) {
			await connection.close(graceMs);
			throw error;
		} finally {
			signal.removeEventListener('abort', abort);
		}
	}

	get pid(): number | undefined {
		return this.child?.pid;
	}

	/** What the upstream said of itself at initialize: its `serverInfo` and `instructions` (bounded: a client's context pays for them). */
	get identity(): UpstreamIdentity {
		const info = this.client.getServerVersion();
		const instructions = this.client.getInstructions();
		return {
			serverInfo: info === undefined ? null : {name: String(info.name).slice(0, 200), version: String(info.version).slice(0, 100)},
			instructions: typeof instructions === 'string' && instructions.trim() !== '' ? instructions.slice(0, identityInstructionsLimit) : null,
		};
	}

	get exit(): ExitInfo | undefined {
		return this.child?.exit;
	}

	get isOpen(): boolean {
		return !this.closed;
	}

	/**
	 * Takes the messages hangar handles itself from the transport before the
	 * SDK sees them. It must run after `client.connect`, which installs the
	 * SDK's own `onmessage` (a handler set before would run but could not
	 * keep a message from the SDK).
	 *
	 * - Answers and progress of `tools/call` and of the requests `forward`
	 *   sends, matched by ids the SDK never
	 *   uses (strings starting with "h"; the SDK's are numbers). Progress is
	 *   delivered here, synchronously and in arrival order: the SDK runs
	 *   notification handlers a microtask later but handles a response at
	 *   once, removing the call's progress handler, so a progress notification
	 *   read in the same chunk as the result (the usual case for the last one)
	 *   would be dropped.
	 * - The upstream's requests for its client (sampling, elicitation, roots)
	 *   and its cancellations of them, relayed through `ClientSide`.
	 * - Its log messages, in order with everything else it sends.
	 */
	private intercept(): void {
		const transport = this.transport;
		const sdk = transport.onmessage;
		if (sdk === undefined) return;
		transport.onmessage = (message, extra) => {
			const record = message as {id?: unknown; method?: unknown; params?: Record<string, unknown>};
			const method = record.method;
			if (method === undefined) {
				if (typeof record.id === 'string' && record.id.startsWith('h')) {
					// A late answer to a call that timed out or was cancelled is dropped, as the SDK would.
					this.pending.settle(record.id, message as Record<string, unknown>);
					return;
				}
			} else if (method === 'notifications/progress') {
				const token = record.params?.['progressToken'];
				if (typeof token === 'string' && token.startsWith('h')) {
					// Progress after the call ended (server-everything goes on after a cancel) is dropped.
					const {progressToken: _token, ...progress} = record.params!;
					if (!this.pending.progress(token, progress as Progress)) this.taskProgress(token, progress as Progress);
					return;
				}
			} else if (typeof method === 'string' && isRelayedMethod(method) && (typeof record.id === 'string' || typeof record.id === 'number')) {
				this.asks.relay(record.id, method, record.params);
				return;
			} else if (method === 'notifications/cancelled') {
				if (this.asks.cancel(record.params?.['requestId'])) return;
			} else if (method === 'notifications/message') {
				this.asks.logMessage(record.params);
				return;
			} else if (method === 'notifications/elicitation/complete') {
				this.clientSide?.notify?.(method, record.params);
				return;
			} else if (method === 'notifications/tasks/status') {
				// Here, in arrival order with the answers: a status sent right after a CreateTaskResult follows it.
				if (isPlainObject(record.params)) {
					if (isTerminalTaskStatus(record.params['status'])) this.forgetTaskTokens(record.params['taskId']);
					this.events.onTaskStatus?.(record.params);
				}

				return;
			}

			sdk(message, extra);
		};
	}

	/**
	 * An answer longer than hangar.maxUpstreamMessageBytes was discarded as
	 * it streamed in (memory stays bounded): its request is answered now
	 * with hangar's error, on the path every answer takes, instead of
	 * waiting out its deadline for an answer that will never come.
	 */
	private answerTooLarge(id: RequestId | undefined, bytes: number): void {
		const limit = this.child?.maxLineBytes;
		if (id === undefined) {
			this.log.push('hangar', `could not tell which request the dropped line of ${bytes} bytes answered: that request waits out its deadline`);
			return;
		}

		this.transport.onmessage?.(tooLargeAnswer(this.name, id, bytes, limit) as JSONRPCMessage);
	}

	/** Progress under the token of a call that became a task: the task's (a late one of a plain call is dropped). */
	private taskProgress(token: string, progress: Progress): void {
		const taskId = this.taskTokens.get(token);
		if (taskId !== undefined) this.events.onTaskProgress?.(taskId, progress);
	}

	/** A call sent with `task` and a progress token was answered with a CreateTaskResult: its progress goes on. */
	private followTaskProgress(token: string, result: Record<string, unknown>): void {
		const task = result['task'];
		if (!isPlainObject(task) || typeof task['taskId'] !== 'string' || isTerminalTaskStatus(task['status'])) return;
		this.taskTokens.set(token, task['taskId']);
		if (this.taskTokens.size > taskTokensLimit) this.taskTokens.delete(this.taskTokens.keys().next().value!);
	}

	/** The task `taskId` ended (or its result was fetched): progress under its token is dropped from now on. */
	forgetTaskTokens(taskId: unknown): void {
		for (const [token, id] of this.taskTokens) if (id === taskId) this.taskTokens.delete(token);
	}

	/** Fails every call in flight and cancels every relayed request: the connection is gone. */
	failPending(): void {
		this.taskTokens.clear();
		this.pending.failAll();
		this.asks.abortAll();
		for (const unsubscribe of this.unsubscribe.splice(0)) unsubscribe();
		this.asks.wake();
	}

	// ---------------------------------------------------------------------
	// What the upstream sends its client

	/**
	 * Resolves once what the upstream asks its client while starting (roots)
	 * is answered and applied; with whether it asked for roots (see
	 * UpstreamAsks.settled).
	 */
	async clientRequestsSettled(signal: AbortSignal, pingTimeoutMs: number, roots: StartRoots): Promise<{askedRoots: boolean}> {
		return this.asks.settled(signal, pingTimeoutMs, roots);
	}

	/** What the upstream's transport says the request belongs to (Streamable HTTP only; see stream-origins.ts). */
	private originOf(id: RequestId): RelayOptions['origin'] {
		const origin = this.origins?.take(id);
		if (origin === undefined) return undefined;
		if (origin.kind === 'outside') return {kind: 'outside'};
		const caller = this.pending.callerOf(origin.callId);
		// A call that has ended, or one hangar made itself: nothing more is known than over stdio.
		return caller === undefined ? undefined : {kind: 'call', caller};
	}

	/** Follows what the clients want of every upstream: the log level, and their roots changing. */
	private followClients(): void {
		const clientSide = this.clientSide;
		if (clientSide === undefined) return;
		this.unsubscribe.push(
			clientSide.onLogLevel(level => this.setLogLevel(level)),
			clientSide.onRootsChanged(() => {
				if (!this.closed) this.client.sendRootsListChanged().catch(() => {});
			}),
		);
		this.setLogLevel(clientSide.logLevel);
	}

	/**
	 * Asks the upstream for `level`, when it declared `logging`. Nothing is
	 * sent while no client asked for a level, so the upstream keeps its own
	 * default; when the last client that asked goes away it keeps the last one.
	 */
	private setLogLevel(level: LoggingLevel | undefined): void {
		if (level === undefined || this.closed || this.client.getServerCapabilities()?.logging === undefined) return;
		this.client.setLoggingLevel(level).then(
			() => this.log.push('hangar', `asked for log messages from level ${level} on (logging/setLevel)`),
			(error: unknown) => this.log.push('hangar', `logging/setLevel ${level} failed: ${errorMessage(error)}`),
		);
	}

	private async send(message: JSONRPCMessage): Promise<void> {
		if (this.closed) return;
		await this.transport.send(message).catch((error: unknown) => this.log.push('hangar', `could not send ${(message as {method?: string}).method ?? 'an answer'} to the upstream: ${errorMessage(error)}`));
	}

	// ---------------------------------------------------------------------
	// Calls

	/**
	 * Lists every tool, following `nextCursor` pages. Each definition is kept
	 * as the upstream wrote it, keys in its order (the SDK's schema would put
	 * the keys it knows first, `$schema` and `icons` among them): only a tool
	 * without a string name is left out.
	 */
	async listTools(signal: AbortSignal): Promise<ToolDefinition[]> {
		const tools: ToolDefinition[] = [];
		let cursor: string | undefined;
		const seen = new Set<string>();
		do {
			const page = await this.request(
				() => this.client.request({method: 'tools/list', params: cursor === undefined ? {} : {cursor}}, passthroughObject, {signal, timeout: NO_SDK_TIMEOUT}),
			);
			const listed = page['tools'];
			if (!Array.isArray(listed)) throw new UpstreamRpcError(-32_603, 'tools/list answered without a "tools" array', undefined);
			for (const tool of listed) {
				if (isPlainObject(tool) && typeof tool['name'] === 'string' && tool['name'] !== '') tools.push(tool as ToolDefinition);
				else this.log.push('hangar', `tools/list: left out an entry that is not a tool with a name: ${JSON.stringify(tool)?.slice(0, 200)}`);
			}

			cursor = typeof page['nextCursor'] === 'string' ? page['nextCursor'] : undefined;
			if (cursor !== undefined) {
				if (seen.has(cursor)) break; // A server that repeats a cursor would loop forever.
				seen.add(cursor);
			}
		} while (cursor !== undefined);

		return tools;
	}

	/** What the upstream answered `initialize` with (undefined before it did). */
	get serverCapabilities(): Record<string, unknown> | undefined {
		return this.client.getServerCapabilities() as Record<string, unknown> | undefined;
	}

	/** Reads one of the lists besides tools/list in full, following `nextCursor` pages. */
	async listAll(kind: keyof typeof listMethods, signal: AbortSignal): Promise<Array<Record<string, unknown>>> {
		const {method, key} = listMethods[kind];
		const items: Array<Record<string, unknown>> = [];
		let cursor: string | undefined;
		const seen = new Set<string>();
		do {
			const page = await this.request(
				() => this.client.request({method, params: cursor === undefined ? {} : {cursor}} as never, passthroughObject, {signal, timeout: NO_SDK_TIMEOUT}),
			);
			const list = page[key];
			if (Array.isArray(list)) items.push(...list.filter(item => isPlainObject(item)));
			cursor = typeof page['nextCursor'] === 'string' ? page['nextCursor'] : undefined;
			if (cursor !== undefined) {
				if (seen.has(cursor)) break; // A server that repeats a cursor would loop forever.
				seen.add(cursor);
			}
		} while (cursor !== undefined);

		return items;
	}

	/**
	 * Sends a request that is not a tool call (resources/read, prompts/get,
	 * completion/complete, resources/subscribe, ...) on the same path as a
	 * tool call, progress included, and resolves with the upstream's result
	 * as it came.
	 */
	async forward(
		method: string,
		params: Record<string, unknown>,
		options: {signal?: AbortSignal | undefined; timeoutMs: number; onprogress?: ((progress: Progress) => void) | undefined; caller?: unknown},
	): Promise<Record<string, unknown>> {
		return this.pending.send(method, {...params}, options);
	}

	/**
	 * Calls a tool with a deadline of `timeoutMs`, which stops while the
	 * upstream waits for a client's answer to a request of its own. The
	 * result, `isError` and structured content included, is passed on as the
	 * upstream sent it.
	 */
	async callTool(
		name: string,
		args: Record<string, unknown> | undefined,
		options: {
			signal?: AbortSignal | undefined;
			timeoutMs: number;
			onprogress?: ((progress: Progress) => void) | undefined;
			meta?: Record<string, unknown> | undefined;
			/** The client's `task` param: the upstream runs the call as a task and answers with a CreateTaskResult. */
			task?: Record<string, unknown> | undefined;
			/** Who makes the call (opaque here): over Streamable HTTP, a request the upstream sends on its stream is theirs. */
			caller?: unknown;
		},
	): Promise<CallToolResult> {
		const params: Record<string, unknown> = {name};
		if (args !== undefined) params['arguments'] = args;
		if (options.meta !== undefined && Object.keys(options.meta).length > 0) params['_meta'] = options.meta;
		if (options.task !== undefined) params['task'] = options.task;
		return (await this.pending.send('tools/call', params, options)) as CallToolResult;
	}

	async ping(timeoutMs: number): Promise<void> {
		await this.request(async () => this.client.ping({timeout: timeoutMs}), undefined, timeoutMs);
	}

	/** Closes the session and stops the process (stdin close, SIGTERM, SIGKILL). */
	async close(graceMs: number): Promise<ExitInfo | undefined> {
		this.closedByUs = true;
		if (this.child !== undefined) {
			const exit = await this.child.stop(graceMs);
			this.closed = true;
			this.failPending();
			return exit;
		}

		this.closed = true;
		this.failPending();
		try {
			if ('terminateSession' in this.transport) await (this.transport as StreamableHTTPClientTransport).terminateSession().catch(() => {});
			await this.transport.close();
		} catch {}

		return undefined;
	}

	/**
	 * Maps the SDK's errors to hangar's: the upstream's own JSON-RPC errors
	 * (ProtocolError) vs the SDK's local ones (SdkError: the connection
	 * closed or was never open, its own timer ran out).
	 */
	private async request<T>(run: () => Promise<T>, signal?: AbortSignal, timeoutMs?: number): Promise<T> {
		try {
			return await run();
		} catch (error) {
			if (signal?.aborted) throw new RequestCancelledError();
			if (error instanceof SdkError) {
				if (error.code === SdkErrorCode.ConnectionClosed || error.code === SdkErrorCode.NotConnected) throw new ConnectionLostError();
				// The SDK's own timer (the caller's abort was handled above).
				if (error.code === SdkErrorCode.RequestTimeout && timeoutMs !== undefined) throw new UpstreamTimeoutError(timeoutMs);
			} else if (error instanceof ProtocolError) {
				throw new UpstreamRpcError(error.code, stripSdkPrefix(error.message), error.data);
			}

			throw error;
		}
	}
}

/** Whether a task status is one after which the task never changes (2025-11-25 tasks). */
function isTerminalTaskStatus(status: unknown): boolean {
	return status === 'completed' || status === 'failed' || status === 'cancelled';
}
