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
 * The requests an upstream sends its client (sampling, elicitation, roots) are
 * relayed through `ClientSide`; a modern upstream's listen is upstream-listen.ts.
 */
import {Client, ProtocolError, SdkError, SdkErrorCode} from '@modelcontextprotocol/client';
import type {CallToolResult, ClientCapabilities, JSONRPCMessage, Progress, StreamableHTTPClientTransport, Transport} from '@modelcontextprotocol/client';
import {z} from 'zod';
import {errorMessage} from '../base/errors.js';
import {ConnectionLostError, RequestCancelledError, UpstreamRpcError, UpstreamTimeoutError, answerFault, malformedAnswer, stripSdkPrefix, tooLargeAnswer} from './connection-errors.js';
import {NO_SDK_TIMEOUT, connectRemote} from './remote-transport.js';
import type {ServerConfig, ToolDefinition} from '../config/read-config.js';
import type {LogBuffer} from './log-buffer.js';
import {isPlainObject} from '../wire/message-classifier.js';
import {toolCallParams} from './call-params.js';
import {ForwardedResult} from '../wire/forwarded-result.js';
import {implementationInfo, supportedProtocolVersions} from '../wire/protocol.js';
import {ChildProcessTransport, type ExitInfo} from './child-process-transport.js';
import {sendInRounds} from './input-rounds.js';
import {modernEnvelope, negotiationFor, openInEra, withServerVersion, type ConnectionEra, type EraHint, type Opening, type UpstreamEra} from './modern-mode.js';
import {isRelayedMethod, type ClientSide, type LoggingLevel, type RelayOptions} from './client-side.js';
import {OwnRequests, type SendOptions} from './own-requests.js';
import {signalOf} from '../base/cancellation.js';
import {StreamOrigins, type StreamOrigin} from './stream-origins.js';
import type {StartRoots} from './roots-request.js';
import {UpstreamAsks} from './upstream-asks.js';
import type {ConnectionEvents} from './connection-events.js';
import {isTerminalTaskStatus, TaskProgressTokens} from './task-progress.js';
import {ListHints} from './list-hints.js';
import {eachPage} from './list-pages.js';
import {ExtensionTasks} from './extension-tasks.js';
import {UpstreamListen, withoutListenId} from './upstream-listen.js';

export type {CallToolResult, Progress};
export {ForwardedResult} from '../wire/forwarded-result.js';

/**
 * A tool call's result: as the upstream wrote it (`ForwardedResult`, from a
 * stdio upstream: passed on as text unless hangar must change it), or parsed.
 */
export type ToolAnswer = CallToolResult | ForwardedResult;

/** A tool answer as a parsed result, for whoever reads it in full. */
export function parsedAnswer(answer: ToolAnswer): CallToolResult {
	return answer instanceof ForwardedResult ? (answer.value() as CallToolResult) : answer;
}
export {ConnectionLostError, RequestCancelledError, UpstreamRpcError, UpstreamTimeoutError} from './connection-errors.js';
export type {ConnectionEra, EraHint, SavedEra, UpstreamEra} from './modern-mode.js';

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

export type {ConnectionEvents} from './connection-events.js';

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

export class UpstreamConnection {
	private closedByUs = false;
	private closed = false;
	/** The requests hangar sends itself in flight (tools/call and forwarded ones; see own-requests.ts). */
	private readonly pending: OwnRequests;
	/** Progress tokens of task-augmented calls answered with a CreateTaskResult, and the upstream's id of the task (see onTaskProgress). */
	private readonly taskTokens = new TaskProgressTokens();
	private readonly unsubscribe: Array<() => void> = [];
	/** What the upstream asks its client, relayed (see upstream-asks.ts); it pauses the deadlines of the calls in flight. */
	private readonly asks: UpstreamAsks;
	/** The caching hints of the lists last read (list-hints.ts), and a modern upstream's subscriptions/listen stream (upstream-listen.ts). */
	readonly listHints = new ListHints();
	private readonly listening: UpstreamListen;
	/** A modern upstream's tasks extension, driven as 2025 tasks (extension-tasks.ts). */
	private readonly extensionTasks: ExtensionTasks;
	/** The era this connection speaks (set once it is open; see modern-mode.ts). */
	private eraState: ConnectionEra = {era: 'legacy', protocolVersion: undefined, probed: false};

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
			origin: id => this.originOf(this.origins?.take(id)),
			logOrigin: params => this.originOf(this.origins?.takeLog(params)),
			send: async message => this.send(message as JSONRPCMessage),
			isClosed: () => this.closed,
			ping: async timeoutMs => this.ping(timeoutMs),
		});
		this.pending = new OwnRequests({sendMessage: message => this.transport.send(message as JSONRPCMessage), isClosed: () => this.closed, overPipe: child !== undefined, asks: this.asks});
		this.pending.onTaskAnswer = (token, result) => this.taskTokens.follow(token, result);
		this.listening = new UpstreamListen({listen: async filter => client.listen(filter), capabilities: () => this.serverCapabilities, isClosed: () => this.closed, log});
		const capabilities = () => client.getServerCapabilities() as Record<string, unknown> | undefined;
		this.extensionTasks = new ExtensionTasks({name, clientSide, events, capabilities, modern: () => this.modern, send: async (method, params, options) => this.sendOne(method, params, options)});
	}

	/** The upstream said list `method` changed: its hints are stale; the `_meta` that goes on, without hangar's listen id. */
	private changed(method: string, meta: Record<string, unknown> | undefined): Record<string, unknown> | undefined {
		this.listHints.changed(method);
		return withoutListenId(meta);
	}

	/**
	 * Spawns or connects, and opens the session in the upstream's era: with
	 * a saved verdict (`era`), straight in it; without one, probing with
	 * `server/discover` first (see modern-mode.ts `openInEra`). Rejects when
	 * the signal aborts (start timeout, stop) after tearing down whatever
	 * was started.
	 */
	static async open(
		config: ServerConfig,
		log: LogBuffer,
		events: ConnectionEvents,
		signal: AbortSignal,
		graceMs: number,
		clientSide?: ClientSide,
		era?: EraHint,
	): Promise<UpstreamConnection> {
		return openInEra({given: undefined, config, log, events, signal, graceMs, clientSide}, era, UpstreamConnection.connect);
	}

	/** Opens connections over transports made elsewhere (the SDK's in-memory pair in unit tests): `transport()` once per start. */
	static over(transport: () => Transport): OpenConnection {
		return async (config, log, events, signal, graceMs, clientSide, era) => openInEra({given: transport(), config, log, events, signal, graceMs, clientSide}, era, UpstreamConnection.connect);
	}

	private static async connect(opening: Opening<ConnectionEvents, Transport>, hint: EraHint, attempt: {exit: ExitInfo | undefined}): Promise<UpstreamConnection> {
		const {given, config, log, events, signal, graceMs, clientSide} = opening;
		attempt.exit = undefined;
		// The SDK's negotiation for the era (modern-mode.ts); hangar relays input requests itself (input-rounds.ts).
		// The SDK builds its JSON Schema validator only when one is needed, which hangar's client never does.
		const client = new Client((clientSide?.clientInfo ?? implementationInfo) as typeof implementationInfo, {
			capabilities: (clientSide?.capabilities ?? noClientCapabilities) as ClientCapabilities,
			versionNegotiation: negotiationFor(hint, config.startTimeoutMs),
			// A per-client instance is asked for its client's version first (the SDK offers the first 2025 one).
			...(clientSide?.protocolVersion === undefined ? {} : {supportedProtocolVersions: [clientSide.protocolVersion, ...supportedProtocolVersions.filter(version => version !== clientSide.protocolVersion)]}),
			inputRequired: {autoFulfill: false},
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
			child.onMalformedAnswer = (id, method, answer, problem) => connection?.answerMalformed(id, answerFault(method, answer, problem));
			transport = child;
		} else {
			origins = new StreamOrigins();
			transport = await connectRemote(config, client, log, signal, origins, reason => events.onSignInNeeded?.(reason));
		}

		client.onerror = error => log.push('hangar', `protocol error: ${error.message}`);
		let closeReported = false;
		client.onclose = () => {
			attempt.exit = child?.exit;
			if (connection === undefined || connection.closed) return;
			connection.closed = true;
			if (!connection.closedByUs) {
				closeReported = true;
				events.onClose(child?.exit);
			}

			connection.failPending();
		};
		client.setNotificationHandler('notifications/tools/list_changed', notification => events.onToolsChanged(connection?.changed('tools/list', notification.params?._meta)));
		// Only log messages sent during initialize get here; afterwards `intercept` takes them in order.
		client.setNotificationHandler('notifications/message', notification => connection?.asks.logMessage(notification.params));
		client.setNotificationHandler('notifications/resources/list_changed', notification => events.onListChanged?.('resources', connection?.changed('resources/list', notification.params?._meta)));
		client.setNotificationHandler('notifications/prompts/list_changed', notification => events.onListChanged?.('prompts', connection?.changed('prompts/list', notification.params?._meta)));
		client.setNotificationHandler('notifications/resources/updated', notification => events.onResourceUpdated?.(notification.params.uri, withoutListenId(notification.params._meta)));

		connection = new UpstreamConnection(config.name, client, transport, child, log, clientSide, origins, events);
		const abort = () => {
			void connection?.close(graceMs);
		};

		signal.addEventListener('abort', abort, {once: true});
		connection.asks.hangarRequests += 1; // initialize (or the era probe): what the upstream says meanwhile is no client's
		try {
			if (!remote) await client.connect(transport, {signal, timeout: NO_SDK_TIMEOUT, ...(hint === 'legacy' ? {prior: {kind: 'legacy'}} : {})});
			const era: UpstreamEra = client.getProtocolEra() === 'modern' ? 'modern' : 'legacy';
			connection.eraState = {era, protocolVersion: client.getNegotiatedProtocolVersion(), probed: hint === undefined};
			if (hint === undefined) log.push('hangar', `era probe: ${era === 'modern' ? 'it answered server/discover: driven as 2026-07-28' : 'no 2026-07-28 answer to server/discover: driven with the 2025 initialize'}`);
			connection.intercept();
			connection.followClients();
			if (era === 'modern') connection.listening.start();
			signal.throwIfAborted();
			return connection;
		} catch (error) {
			const closedWith = await connection.close(graceMs);
			attempt.exit ??= child?.exit;
			// A process that ended by itself during the start (the probe can see it first): the engine records its exit, whose code says whether a retry can help (126, 127).
			const own = child?.exit ?? closedWith;
			if (!closeReported && own !== undefined && own.stoppedBy === undefined) events.onClose(own);
			throw withServerVersion(error);
		} finally {
			connection.asks.hangarRequests -= 1;
			signal.removeEventListener('abort', abort);
		}
	}

	/** The era this connection speaks, and whether this start probed for it. */
	get era(): ConnectionEra {
		return this.eraState;
	}

	/** After a probe that cost a second spawn: the era was still learned by probing. */
	markProbed(tentative = false, dual = false): void {
		this.eraState = {...this.eraState, probed: true, tentative, ...(dual ? {dual} : {})};
	}

	private get modern(): boolean {
		return this.eraState.era === 'modern';
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
	 * SDK sees them (after `client.connect`, which installs the SDK's own
	 * `onmessage`): answers and progress of the requests hangar sends itself
	 * (ids the SDK never uses: strings starting with "h"), progress delivered
	 * synchronously in arrival order (the SDK would drop one read in the same
	 * chunk as its result); the upstream's requests for its client and their
	 * cancellations, relayed through `ClientSide`; its log messages, in order.
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
					// Its params as they came (the client's note keeps their members: pipeline.ts), its token hangar's.
					if (!this.pending.progress(token, record.params as Progress)) {
						const {progressToken: _token, ...progress} = record.params!;
						this.taskProgress(token, progress as Progress);
					}
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

	/** An answer that broke the protocol: its request is answered now with hangar's error saying what was wrong (see `malformedAnswer`). */
	private answerMalformed(id: RequestId, fault: string): void {
		this.transport.onmessage?.(malformedAnswer(this.name, id, fault) as JSONRPCMessage);
	}

	/** Progress under the token of a call that became a task: the task's (a late one of a plain call is dropped). */
	private taskProgress(token: string, progress: Progress): void {
		const taskId = this.taskTokens.taskOf(token);
		if (taskId !== undefined) this.events.onTaskProgress?.(taskId, progress);
	}

	/** The task `taskId` ended (or its result was fetched): progress under its token is dropped from now on. */
	forgetTaskTokens(taskId: unknown): void {
		this.taskTokens.forget(taskId);
	}

	/** Fails every call in flight and cancels every relayed request: the connection is gone. */
	failPending(): void {
		this.taskTokens.clear();
		this.extensionTasks.clear();
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
		// A modern upstream sends its client no requests: it asks inside the calls that need an answer.
		if (this.modern) return {askedRoots: false};
		return this.asks.settled(signal, pingTimeoutMs, roots);
	}

	/** What the upstream's transport says a request or log message belongs to (Streamable HTTP only; see stream-origins.ts). */
	private originOf(origin: StreamOrigin | undefined): RelayOptions['origin'] {
		if (origin === undefined) return undefined;
		if (origin.kind === 'outside') return {kind: 'outside'};
		const caller = this.pending.callerOf(origin.callId);
		// A call that has ended, or one hangar made itself: nothing more is known than over stdio.
		return caller === undefined ? undefined : {kind: 'call', caller};
	}

	/** Follows what the clients want of every upstream: the log level, and their roots changing. */
	private followClients(): void {
		const clientSide = this.clientSide;
		// A modern upstream reads the log level from each request's envelope, and asks for roots inside calls.
		if (clientSide === undefined || this.modern) return;
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
		// Not counted as hangar's own: the level is its clients', and the count would drop until its answer's
		// continuation ran (a microtask after the lines that came with the answer) the log messages of the call sent beside it.
		this.request(async () => this.client.setLoggingLevel(level), undefined, undefined, false).then(
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
	 * Lists every tool, following `nextCursor` pages. Each definition is kept as the upstream wrote it, keys in its
	 * order (the SDK's schema would put the keys it knows first, `$schema` and `icons` among them): only a tool
	 * without a string name is left out here (one clients would reject is left out of what is served: tool-check.ts).
	 */
	async listTools(signal: AbortSignal): Promise<ToolDefinition[]> {
		const tools: ToolDefinition[] = [];
		await this.eachPage('tools/list', signal, page => {
			const listed = page['tools'];
			if (!Array.isArray(listed)) throw new UpstreamRpcError(-32_603, 'tools/list answered without a "tools" array', undefined);
			for (const tool of listed) {
				if (isPlainObject(tool) && typeof tool['name'] === 'string' && tool['name'] !== '') tools.push(tool as ToolDefinition);
				else this.log.push('hangar', `tools/list: left out an entry that is not a tool with a name: ${JSON.stringify(tool)?.slice(0, 200)}`);
			}
		});
		return tools;
	}

	/** Reads every page of a list, following `nextCursor` (list-pages.ts), and keeps the listing's caching hints (list-hints.ts). */
	private async eachPage(method: string, signal: AbortSignal, take: (page: Record<string, unknown>) => void): Promise<void> {
		const read = async (cursor: string | undefined) => this.request(() => this.client.request({method, params: cursor === undefined ? {} : {cursor}} as never, passthroughObject, {signal, timeout: NO_SDK_TIMEOUT}));
		await eachPage(method, read, (page, first) => {
			take(page);
			this.listHints.page(method, page, first);
		}, this.log);
	}

	/** What the upstream answered `initialize` with (undefined before it did). */
	get serverCapabilities(): Record<string, unknown> | undefined {
		return this.extensionTasks.capabilities(this.client.getServerCapabilities() as Record<string, unknown> | undefined);
	}

	/** Reads one of the lists besides tools/list in full, following `nextCursor` pages. */
	async listAll(kind: keyof typeof listMethods, signal: AbortSignal): Promise<Array<Record<string, unknown>>> {
		const {method, key} = listMethods[kind];
		const items: Array<Record<string, unknown>> = [];
		await this.eachPage(method, signal, page => {
			const list = page[key];
			if (Array.isArray(list)) items.push(...list.filter(item => isPlainObject(item)));
		});
		return items;
	}

	/**
	 * Sends a request that is not a tool call (resources/read, prompts/get,
	 * tasks/*, ...) on the same path as a tool call, progress included, and
	 * resolves with the upstream's result as it came (a tasks-extension
	 * upstream's tasks methods are translated: extension-tasks.ts).
	 */
	forward(method: string, params: Record<string, unknown>, options: SendOptions): Promise<Record<string, unknown>> {
		if (this.modern && this.listening.handles(method)) return this.listening.request(method, params);
		if (this.extensionTasks.handles(method)) return this.extensionTasks.request(method, params, withSignal(options));
		return this.sendOne(method, params, options);
	}

	/** One request on the connection's path (a modern upstream's envelope and rounds included), its answer parsed. */
	private async sendOne(method: string, params: Record<string, unknown>, options: SendOptions): Promise<Record<string, unknown>> {
		const result = await this.sendRounds(method, {...params}, options);
		return result instanceof ForwardedResult ? result.value() : result;
	}

	/** `pending.send`, with a modern upstream's envelope and multi-round-trip answers (see input-rounds.ts); a modern upstream's answer is read in full, since hangar looks for `input_required` in it. */
	private sendRounds(method: string, params: Record<string, unknown>, options: SendOptions): Promise<Record<string, unknown> | ForwardedResult> {
		if (!this.modern) return this.pending.send(method, params, options);
		params['_meta'] = {...(params['_meta'] as Record<string, unknown> | undefined), ...modernEnvelope(this.clientSide, noClientCapabilities, options.caller)};
		this.extensionTasks.outgoing(method, params);
		return sendInRounds(this.name, method, params, withSignal(options), this.clientSide, async (sent, timeoutMs) => {
			// A round's answer may ask for more input: the call is still in flight until the last one.
			const answer = await this.pending.send(method, sent, {...options, timeoutMs, onAnswered: undefined});
			return this.extensionTasks.incoming(method, sent, answer instanceof ForwardedResult ? answer.value() : answer);
		}, this.log);
	}

	/**
	 * Calls a tool with a deadline of `timeoutMs`, which stops while the
	 * upstream waits for a client's answer to a request of its own. The
	 * result, `isError` and structured content included, is passed on as the
	 * upstream sent it: from a stdio upstream as its text (`ForwardedResult`).
	 */
	callTool(
		name: string,
		args: Record<string, unknown> | undefined,
		options: SendOptions & {
			meta?: Record<string, unknown> | undefined;
			/** The client's `task` param: the upstream runs the call as a task and answers with a CreateTaskResult. */
			task?: Record<string, unknown> | undefined;
			/** The client's params: the members hangar does not read (all but name, arguments, _meta, task and the input rounds' own) go upstream as they came. */
			clientParams?: Record<string, unknown> | undefined;
		},
	): Promise<ToolAnswer> {
		const params = toolCallParams(name, args, options.meta, options.task, options.clientParams);
		return this.sendRounds('tools/call', params, options) as Promise<ToolAnswer>;
	}

	/** A health check: `ping`, or `server/discover` for a modern upstream, whose era has no ping. */
	async ping(timeoutMs: number): Promise<void> {
		// Not counted as hangar's own (a health check makes no upstream ask or log anything of a client's): a slow
		// answer would otherwise hold every untied message and request of its clients off for pingTimeoutMs.
		if (this.modern) await this.request(async () => this.client.discover({timeout: timeoutMs}), undefined, timeoutMs, false);
		else await this.request(async () => this.client.ping({timeout: timeoutMs}), undefined, timeoutMs, false);
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

	/** Maps the SDK's errors to hangar's: the upstream's own JSON-RPC errors (ProtocolError) vs the SDK's local ones (SdkError: closed, never open, its timer). */
	private async request<T>(run: () => Promise<T>, signal?: AbortSignal, timeoutMs?: number, counted = true): Promise<T> {
		const own = counted ? 1 : 0;
		this.asks.hangarRequests += own;
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
		} finally {
			this.asks.hangarRequests -= own;
		}
	}
}

/** `options` with a real AbortSignal, for the paths that wait on one (a modern upstream's rounds, the tasks extension). */
function withSignal(options: SendOptions): SendOptions & {signal?: AbortSignal | undefined} {
	return options.signal === undefined || options.signal instanceof AbortSignal ? (options as SendOptions & {signal?: AbortSignal}) : {...options, signal: signalOf(options.signal)};
}
