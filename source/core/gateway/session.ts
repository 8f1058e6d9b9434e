/**
 * One client's MCP session with hangar: a low-level SDK `Server` (it passes
 * upstream JSON Schemas through untouched, which `McpServer` would not) on a
 * `Transport`, behind a guard that enforces the per-connection protocol state
 * machine. The same class serves `--stdio`, local socket clients and HTTP
 * sessions; it reads the supervisor's state and sends it calls, and it is
 * the `ClientPeer` through which upstreams reach this client: their
 * requests for sampling, elicitation and roots, and their log messages at
 * the level this client set.
 */
import {randomBytes} from 'node:crypto';
import {Server} from '@modelcontextprotocol/sdk/server/index.js';
import type {Transport} from '@modelcontextprotocol/sdk/shared/transport.js';
import {
	ListToolsRequestSchema,
	SetLevelRequestSchema,
	type CallToolResult,
	type JSONRPCMessage,
	type Tool,
} from '@modelcontextprotocol/sdk/types.js';
import type {ClientPeer, ClientRecord, ClientTransport} from '../engine/clients/clients.js';
import {relayedRequests, type ClientCapability, type RelayedMethod} from '../link/client-side.js';
import type {LogBuffer} from '../link/log-buffer.js';
import type {ConnectionState} from './connection-state.js';
import {isPlainObject} from '../wire/message-classifier.js';
import {callsMethod, cliClientName, commandMethod, configMethod, consoleChangedNotification, consoleMethod, implementationInfo, logsMethod} from '../wire/protocol.js';
import type {CallLogDetail} from '../engine/call-log.js';
import {settleWithin} from '../base/settle.js';
import {HangarError, JsonRpcCode, JsonRpcError, errorMessage, type Audience} from '../base/errors.js';
import type {Logger} from '../base/logger.js';
import {
	ManagementParamsError,
	checkArguments,
	isManagementTool,
	managementToolAllowed,
	managementToolRefusal,
	managementToolsFor,
	runManagementTool,
	statusJson,
	type ManagementToolsSetting,
} from './management-tools.js';
import {CallBudget, type CallDeadline, type ProgressUpdate} from '../engine/upstream/call-path.js';
import {commands, isCommand, type Supervisor} from '../engine/supervisor.js';
import type {Subscriber} from '../engine/routing/subscriptions.js';
import {sessionInstructions} from './instructions.js';
import {advertised, registerCatalogRequests} from './catalog-requests.js';
import {page, pageSize} from './pagination.js';
import {GuardedTransport, errorResponse, toRpcError, type CallParams} from './guarded-transport.js';

export {invalidParams} from './guarded-transport.js';
import {ConsoleChannel, parseConsoleParams} from './console.js';
import {configView, type ConfigView, type ReloadView} from '../views/views.js';


export type ConfigAnswer = {config: ConfigView; reload: ReloadView | null};

/** A page of the calls log for `logs --calls`: the calls after `after`, oldest first, with their previews. */
export type CallsPage = {
	calls: CallLogDetail[];
	/** The seq to ask for next. */
	next: number;
	/** Calls between `after` and the first one here fell off the bounded log. */
	gap: boolean;
};

export type LogPage = {
	server: string;
	/** Numbered among every line the upstream's buffer ever held; `next` is the number to ask for next. */
	lines: Array<{n: number; at: string; source: 'stderr' | 'stdout' | 'hangar'; text: string}>;
	next: number;
	/** Lines before `lines` fell off the bounded buffer, or the upstream was replaced by a reload (numbering began again). */
	gap: boolean;
};

const logWaitMs = 20_000;



/** What a transport may offer a session beyond the SDK's `Transport`. */
export type SessionTransport = Transport & {
	/** The transport tells the session that the client closed its input (see drainMs). */
	onInputEnd?: () => void;
	/** The correlation id of the request that carried JSON-RPC request `id` (HTTP: X-Correlation-ID), for the logs of its call. */
	correlationIdOf?: (id: string | number) => string | undefined;
	/** Whether a message that belongs to no request can reach the client now (HTTP: its GET stream is open); unset: always. */
	canSendUnrelated?: () => boolean;
};

/** A request this session sent its client for an upstream, awaiting the client's answer. */
type Asked = {
	settle: (message: {result?: unknown; error?: {code?: unknown; message?: unknown; data?: unknown}} | Error) => void;
	onProgress: ((params: Record<string, unknown>) => void) | undefined;
};

/** The ids of requests hangar sends its clients: strings, where the SDK server's own are numbers. */
const askedPrefix = 'hangar-';

export type GatewaySessionOptions = {
	supervisor: Supervisor;
	transport: SessionTransport;
	/** When the client closes its input, how long calls in flight may take to be answered before the session closes. */
	drainMs?: number;
	logger: Logger;
	/** A label for logs ("stdio", a socket peer, an HTTP session id). */
	label: string;
	/** How the client is connected, for the clients view; socket sessions also serve `hangar/command` (a person's commands). */
	kind: ClientTransport;
	/**
	 * A deadline for every tools/call, from its arrival to its answer, used
	 * where shorter than the upstream's callTimeoutSeconds (HTTP sessions:
	 * hangar.httpCallTimeoutSeconds, below the usual client timeout).
	 */
	callDeadline?: CallDeadline;
};

export class GatewaySession {
	readonly server: Server;
	private readonly guard: GuardedTransport;
	private readonly supervisor: Supervisor;
	private readonly logger: Logger;
	private readonly label: string;
	private readonly unsubscribe: () => void;
	private closedListeners: Array<() => void> = [];
	private readonly inflight = new Map<string | number, AbortController>();
	private readonly serving = new Set<Promise<void>>();
	private readonly exposure: 'direct' | 'search';
	/** A person's session (the CLI; see personMethod): hangar.managementTools does not apply to it. */
	private person = false;
	private readonly callDeadline: CallDeadline | undefined;
	private readonly correlationIdOf: ((id: string | number) => string | undefined) | undefined;
	/** Requests sent to the client for upstreams, by id (askedPrefix, this session's nonce, a number). */
	private readonly asked = new Map<string, Asked>();
	private nextAsked = 0;
	/**
	 * Makes this session's request ids its own: a bridge that reconnects to a
	 * new supervisor may still deliver its client's late answer to a request
	 * of the old session, which must not pass for the answer to a new one.
	 */
	private readonly askedNonce = randomBytes(4).toString('hex');
	/** This session in the supervisor's list of clients. */
	readonly client: ClientRecord;
	/** This session as a watcher of resources (resources/subscribe). */
	private readonly subscriber: Subscriber;
	/** Set once the session reads a console snapshot: it is an attached terminal UI. */
	private console: ConsoleChannel | undefined;
	/** Who reads its errors: hangar's own CLI gets hints for a shell. */
	private audience: Audience = 'mcp';
	private closed = false;
	/** The first list's wait for launch discovery (see firstList). */
	private firstListWait: Promise<void> | undefined;
	/** Whether that wait is over: then tools/list may take the guard's fast path. */
	private firstListDone = false;

	constructor(options: GatewaySessionOptions) {
		this.supervisor = options.supervisor;
		this.logger = options.logger;
		this.label = options.label;
		this.callDeadline = options.callDeadline;
		this.correlationIdOf = options.transport.correlationIdOf?.bind(options.transport);
		this.guard = new GuardedTransport(options.transport, options.label, options.logger);
		this.client = options.supervisor.clients.add(options.kind, options.label);
		let declared: ClientCapability[] = [];
		let declaredCapabilities: Record<string, unknown> = {};
		this.guard.onInitialize = params => {
			if (params.clientInfo !== undefined) this.client.identify(String(params.clientInfo.name), String(params.clientInfo.version));
			this.audience = options.kind === 'socket' && params.clientInfo?.name === cliClientName ? 'cli' : 'mcp';
			const capabilities = params.capabilities;
			declared = Object.values(relayedRequests).filter(capability => isPlainObject(capabilities?.[capability]));
			declaredCapabilities = isPlainObject(capabilities) ? capabilities : {};
		};

		// Upstreams' requests reach the client only once it has finished initializing, as the protocol says.
		this.guard.onInitialized = () => this.client.declare(declared, declaredCapabilities);
		this.client.peer = this.peer(options.transport.canSendUnrelated?.bind(options.transport));
		this.guard.onClientMessage = message => this.fromClient(message);
		if (options.kind === 'socket') {
			this.guard.onCommand = (id, method, params) => {
				const serving =
					method === configMethod
						? this.serveConfig(id, params)
						: method === logsMethod
							? this.serveLogs(id, params)
							: method === callsMethod
								? this.serveCalls(id, params)
								: this.serveCommand(id, params);
				void serving.catch(async (error: unknown) => {
					const rpc = toRpcError(error, method, this.audience);
					await this.guard.send(errorResponse(id, rpc.code, rpc.message, rpc.data));
				});
			};
			this.guard.onConsole = (id, params) => {
				void this.serveConsole(id, params);
			};
			this.guard.onPerson = id => {
				this.person = true;
				void this.guard.send({jsonrpc: '2.0', id, result: {}} as JSONRPCMessage);
			};
		}
		this.exposure = options.supervisor.config.hangar.exposure;
		// The SDK takes capabilities before connect: what the upstreams serve (cached for cold ones) is known from memory now.
		const capabilities = options.supervisor.capabilities();
		this.server = new Server(implementationInfo, {capabilities: {...advertised(capabilities), logging: {}}, instructions: sessionInstructions(options.supervisor.config, options.supervisor.store)});
		this.server.onerror = error => this.logger.debug(`session error: ${error.message}`);
		this.server.setRequestHandler(ListToolsRequestSchema, async request => {
			// In search exposure the list is the fixed set of hangar_* tools: nothing to wait for.
			if (this.exposure === 'direct') await this.firstList();
			const {items, nextCursor} = page('tools/list', this.listTools(), request.params?.cursor);
			return {tools: items, ...(nextCursor === undefined ? {} : {nextCursor})};
		});
		this.guard.onToolsList = (id, cursor) => {
			// Pages after the first (and a list longer than one page) go to the handler above, and so does
			// every list until the first one's wait for launch discovery is over.
			if (this.exposure === 'direct' && !this.firstListDone) return false;
			const whole = cursor === undefined ? this.toolsList() : undefined;
			if (whole === undefined) return false;
			this.guard.sendResult(id, whole.result, whole.json).catch((error: unknown) => this.logger.debug(`tools/list could not be answered: ${errorMessage(error)}`));
			return true;
		};
		// Replaces the SDK's own handler: the level is this session's, and hangar asks the upstreams for the most verbose one.
		this.server.setRequestHandler(SetLevelRequestSchema, request => {
			this.client.setLogLevel(request.params.level);
			return {};
		});
		this.subscriber = {
			notify: uri => {
				if (this.guard.machine.state === 'ready') this.server.sendResourceUpdated({uri}).catch(() => {});
			},
			client: this.client,
		};
		registerCatalogRequests(this.server, {
			supervisor: options.supervisor,
			capabilities,
			subscriber: this.subscriber,
			client: this.client,
			callDeadline: options.callDeadline,
			toRpcError,
			beforeList: async () => this.firstList(),
		});
		// tools/call is the hot path: it is served by serveCall straight from the guard, without the
		// SDK's three schema parses per call, and the upstream's result is forwarded as it came.
		this.guard.onToolCall = (id, params) => {
			const serving = this.serveCall(id, params);
			this.serving.add(serving);
			void serving.finally(() => this.serving.delete(serving));
		};

		// A client that closes its input after its last request (a one-shot pipe) still gets the
		// answers to calls in flight, for up to drainMs; then the session closes.
		const transport = options.transport;
		if ('onInputEnd' in transport) {
			const drainMs = options.drainMs ?? 5000;
			transport.onInputEnd = () => {
				void this.drain(drainMs).then(async () => transport.close());
			};
		}

		this.guard.onCancelled = requestId => {
			if (typeof requestId === 'string' || typeof requestId === 'number') this.inflight.get(requestId)?.abort();
		};

		const onToolsChanged = () => {
			// In search exposure the list is the fixed set of hangar_* tools: upstream changes do not change it.
			if (this.exposure === 'search') return;
			const state = this.guard.machine.state;
			if (state === 'ready' || state === 'initializing') {
				this.server.sendToolListChanged().catch(() => {});
			}
		};

		const listening = () => this.guard.machine.state === 'ready' || this.guard.machine.state === 'initializing';
		const onResourcesChanged = () => {
			if (capabilities.resources !== undefined && listening()) this.server.sendResourceListChanged().catch(() => {});
		};

		const onPromptsChanged = () => {
			if (capabilities.prompts !== undefined && listening()) this.server.sendPromptListChanged().catch(() => {});
		};

		this.supervisor.on('toolsChanged', onToolsChanged);
		this.supervisor.on('resourcesChanged', onResourcesChanged);
		this.supervisor.on('promptsChanged', onPromptsChanged);
		this.unsubscribe = () => {
			this.supervisor.off('toolsChanged', onToolsChanged);
			this.supervisor.off('resourcesChanged', onResourcesChanged);
			this.supervisor.off('promptsChanged', onPromptsChanged);
		};

		this.server.onclose = () => {
			this.console?.close();
			this.closed = true;
			this.client.remove();
			this.unsubscribe();
			this.supervisor.subscriptions.drop(this.subscriber);
			for (const controller of this.inflight.values()) controller.abort();
			this.inflight.clear();
			const asked = [...this.asked.values()];
			this.asked.clear();
			for (const request of asked) request.settle(new Error('the client disconnected before answering'));
			for (const listener of this.closedListeners) listener();
		};
	}

	async start(): Promise<void> {
		await this.server.connect(this.guard);
	}

	/**
	 * The session's first list (tools, prompts or resources) waits, within
	 * hangar.firstListWaitSeconds, for the upstreams with nothing cached to
	 * list theirs; every later list is served at once. One wait per session,
	 * shared by lists sent together.
	 */
	private async firstList(): Promise<void> {
		this.firstListWait ??= this.supervisor.awaitDiscovery(this.supervisor.config.hangar.firstListWaitMs);
		await this.firstListWait;
		this.firstListDone = true;
	}

	onClose(listener: () => void): void {
		this.closedListeners.push(listener);
	}

	/** Sends a notification outside the SDK's list (e.g. wire/protocol.ts's drainingNotification). */
	async notify(method: string, params?: Record<string, unknown>): Promise<void> {
		await this.guard.send({jsonrpc: '2.0', method, ...(params === undefined ? {} : {params})} as JSONRPCMessage).catch(() => {});
	}

	/** Where the client is in the MCP sequence (awaiting_initialize, initializing, ready, closed). */
	get connectionState(): ConnectionState {
		return this.guard.machine.state;
	}

	/** Calls in flight right now. */
	get inFlight(): number {
		return this.serving.size;
	}

	/** A person's command from the local socket: {server, action, via}. */
	private async serveCommand(id: string | number, params: unknown): Promise<void> {
		const server = isPlainObject(params) ? params['server'] : undefined;
		const action = isPlainObject(params) ? params['action'] : undefined;
		const via = isPlainObject(params) && typeof params['via'] === 'string' ? params['via'] : `a person (${this.label})`;
		if (typeof server !== 'string' || !isCommand(action)) {
			await this.guard.send(errorResponse(id, JsonRpcCode.InvalidParams, `Invalid params for "${commandMethod}": needs {"server": string, "action": ${commands.join(' | ')}}`));
			return;
		}

		const message = await this.supervisor.command(server, action, via);
		await this.guard.send({jsonrpc: '2.0', id, result: {message}} as JSONRPCMessage);
	}

	/** The config's state, after a reload when asked: {reload?: boolean, via?: string}. */
	private async serveConfig(id: string | number, params: unknown): Promise<void> {
		const reload = isPlainObject(params) && params['reload'] === true;
		const via = isPlainObject(params) && typeof params['via'] === 'string' ? params['via'] : `a person (${this.label})`;
		const record = reload ? await this.supervisor.reload(via) : undefined;
		const view = configView(this.supervisor, {check: true});
		const answer: ConfigAnswer = {config: view, reload: record === undefined ? null : view.reloads.at(-1) ?? null};
		await this.guard.send({jsonrpc: '2.0', id, result: answer} as JSONRPCMessage);
	}

	/** Resolves at `log`'s next line, a reload (which may replace the upstream and its log), the session's close, or after logWaitMs. */
	private async nextLine(log: LogBuffer): Promise<void> {
		await new Promise<void>(resolve => {
			const finish = (): void => {
				clearTimeout(timer);
				off();
				this.supervisor.off('reload', finish);
				this.closedListeners = this.closedListeners.filter(listener => listener !== finish);
				resolve();
			};

			const timer = setTimeout(finish, logWaitMs);
			const off = log.onLine(finish);
			this.supervisor.on('reload', finish);
			this.closedListeners.push(finish);
		});
	}

	/** An upstream's log lines from `after` on, waiting for the next one when asked and there is none yet. */
	private async serveLogs(id: string | number, params: unknown): Promise<void> {
		const server = isPlainObject(params) ? params['server'] : undefined;
		if (typeof server !== 'string') {
			await this.guard.send(errorResponse(id, JsonRpcCode.InvalidParams, `Invalid params for "${logsMethod}": needs {"server": string, "after"?: number, "wait"?: boolean}`));
			return;
		}

		const after = isPlainObject(params) && typeof params['after'] === 'number' ? params['after'] : 0;
		const wait = isPlainObject(params) && params['wait'] === true;
		let log = this.supervisor.upstream(server).log;
		const end = (): number => log.droppedLines + log.size;
		if (wait && after === end()) {
			await this.nextLine(log);
			if (this.closed) return;
			log = this.supervisor.upstream(server).log;
		}

		// Numbering went backwards: the upstream was replaced, so its buffer began again.
		const from = after > end() ? log.droppedLines : Math.max(after, log.droppedLines);
		const lines = log.tail(end() - from);
		const page: LogPage = {
			server,
			lines: lines.map((line, index) => ({n: from + index, at: new Date(line.at).toISOString(), source: line.source, text: line.text})),
			next: from + lines.length,
			gap: from > after || after > end(),
		};
		await this.guard.send({jsonrpc: '2.0', id, result: page} as JSONRPCMessage);
	}

	/** The calls log after `after`, waiting for the next call when asked and there is none yet. */
	private async serveCalls(id: string | number, params: unknown): Promise<void> {
		const after = isPlainObject(params) && typeof params['after'] === 'number' ? params['after'] : 0;
		const wait = isPlainObject(params) && params['wait'] === true;
		const log = this.supervisor.calls;
		if (wait && log.lastSeq <= after) {
			await new Promise<void>(resolve => {
				const finish = (): void => {
					clearTimeout(timer);
					off();
					this.closedListeners = this.closedListeners.filter(listener => listener !== finish);
					resolve();
				};

				const timer = setTimeout(finish, logWaitMs);
				const off = log.onRecord(finish);
				this.closedListeners.push(finish);
			});
			if (this.closed) return;
		}

		const calls = log.after(after);
		const page: CallsPage = {calls, next: calls.at(-1)?.seq ?? Math.max(after, log.lastSeq), gap: calls.length > 0 && calls[0]!.seq > after + 1 && after > 0};
		await this.guard.send({jsonrpc: '2.0', id, result: page} as unknown as JSONRPCMessage);
	}

	/** A console's read (see console.ts): the snapshot for its focus, and the next change notification armed. */
	private async serveConsole(id: string | number, params: unknown): Promise<void> {
		try {
			const parsed = parseConsoleParams(params);
			if (this.console === undefined) {
				this.console = new ConsoleChannel(this.supervisor, () => void this.notify(consoleChangedNotification));
				this.client.markConsole();
			}

			await this.guard.send({jsonrpc: '2.0', id, result: this.console.read(parsed)} as unknown as JSONRPCMessage);
		} catch (error) {
			const rpc = toRpcError(error, consoleMethod);
			await this.guard.send(errorResponse(id, rpc.code, rpc.message, rpc.data));
		}
	}

	async close(): Promise<void> {
		await this.server.close();
	}

	/** The hangar.managementTools setting for this session (people are not narrowed by it). */
	private get managementSetting(): ManagementToolsSetting {
		return this.person ? 'all' : this.supervisor.config.hangar.managementTools;
	}

	/**
	 * tools/list's result and its JSON, built again only when the exposed set
	 * or the management tools this session gets changed (the router keeps the
	 * same array until its set changes). With many upstreams the list is
	 * hundreds of KB: building and serializing it was most of hangar's time
	 * per tools/list. Undefined when it takes more than one page.
	 */
	private toolsList(): {result: {tools: Tool[]}; json: string} | undefined {
		const exposed = this.exposure === 'search' ? undefined : this.supervisor.tools();
		const setting = this.managementSetting;
		const cached = this.toolsListCache;
		if (cached === undefined || cached.exposed !== exposed || cached.setting !== setting) {
			const tools = this.listTools();
			const result = tools.length > pageSize ? undefined : {tools};
			this.toolsListCache = {exposed, setting, whole: result === undefined ? undefined : {result, json: JSON.stringify(result)}};
		}

		return this.toolsListCache!.whole;
	}

	private toolsListCache: {exposed: readonly unknown[] | undefined; setting: ManagementToolsSetting; whole: {result: {tools: Tool[]}; json: string} | undefined} | undefined;

	private listTools(): Tool[] {
		const management = managementToolsFor(this.managementSetting);
		if (this.exposure === 'search') return [...management];
		// Predefined tools may omit inputSchema; the protocol requires one.
		const tools: Tool[] = this.supervisor
			.tools()
			.map(tool => ({...tool.definition, name: tool.name, inputSchema: tool.definition.inputSchema ?? {type: 'object'}}) as Tool);
		tools.push(...management);
		return tools;
	}

	/** Who is asking, for transition reasons: the client's name from initialize. */
	private get via(): string {
		const client = this.server.getClientVersion();
		return client === undefined ? `an MCP client (${this.label})` : `MCP client "${client.name}"`;
	}

	/** Resolves when every call in flight has been answered, or after `timeoutMs`. */
	async drain(timeoutMs: number): Promise<void> {
		if (this.serving.size === 0) return;
		await settleWithin(Promise.allSettled([...this.serving]), timeoutMs);
	}

	/** Answers one tools/call with exactly one response, or none when the client cancelled it. */
	private async serveCall(id: string | number, params: CallParams): Promise<void> {
		if (this.inflight.has(id)) {
			await this.guard.send(
				errorResponse(id, JsonRpcCode.InvalidRequest, `Invalid Request: request id ${JSON.stringify(id)} is already in use by a call in flight`),
			);
			return;
		}

		const controller = new AbortController();
		this.inflight.set(id, controller);
		this.client.called(params.name);
		try {
			if (isManagementTool(params.name) && !managementToolAllowed(params.name, this.managementSetting)) {
				throw new JsonRpcError(JsonRpcCode.InvalidParams, managementToolRefusal(params.name, this.managementSetting), {
					error: 'ManagementToolDisabled',
					tool: params.name,
					setting: 'managementTools',
					value: this.managementSetting,
				});
			}

			if (params.name === 'hangar_list') {
				await this.serveStatus(id, params);
				return;
			}

			const result =
				isManagementTool(params.name) && params.name !== 'hangar_call'
					? await this.serveManagement(params)
					: await this.callTool(id, params, controller.signal);
			if (!controller.signal.aborted) await this.guard.send({jsonrpc: '2.0', id, result} as JSONRPCMessage);
		} catch (error) {
			if (controller.signal.aborted) return; // Cancelled: the protocol says no response.
			const rpc = toRpcError(error);
			await this.guard.send(errorResponse(id, rpc.code, rpc.message, rpc.data));
		} finally {
			this.inflight.delete(id);
		}
	}

	/**
	 * hangar_list, serialized once: the JSON is built a single time and spliced
	 * into the response as both structuredContent and its text form, instead
	 * of stringifying a large object twice (a page of 50 entries is ~50 KB
	 * with both forms; all 200 at once ~200 KB).
	 */
	private async serveStatus(id: string | number, params: CallParams): Promise<void> {
		const args = checkArguments('hangar_list', params.arguments);
		const json = JSON.stringify(statusJson(this.supervisor, args));
		await this.guard.sendSerialized(`{"jsonrpc":"2.0","id":${JSON.stringify(id)},"result":{"content":[{"type":"text","text":${JSON.stringify(json)}}],"structuredContent":${json}}}\n`);
	}

	/** A management tool other than hangar_list and hangar_call: its JSON as structuredContent and text. */
	private async serveManagement(params: CallParams): Promise<CallToolResult> {
		try {
			const args = checkArguments(params.name, params.arguments);
			const json = await runManagementTool(this.supervisor, params.name, args, this.via);
			return {content: [{type: 'text', text: JSON.stringify(json)}], structuredContent: json as Record<string, unknown>};
		} catch (error) {
			// Refusals and bad arguments are answered as they are (serveCall); anything else is a bug in hangar.
			if (!(error instanceof ManagementParamsError || error instanceof HangarError)) this.logger.error(`unexpected error in ${params.name}: ${errorMessage(error)}`);
			throw toRpcError(error, params.name, this.audience);
		}
	}

	/** Routes one call to its upstream (a `<server>__<tool>` name, or hangar_call's server and tool) and calls it. */
	private async callTool(id: string | number, params: CallParams, signal: AbortSignal): Promise<CallToolResult> {
		const budget = this.callDeadline === undefined ? undefined : new CallBudget(this.callDeadline);
		const correlationId = this.correlationIdOf?.(id);
		const router = this.supervisor.router;
		let route;
		if (params.name === 'hangar_call') {
			const args = checkArguments('hangar_call', params.arguments);
			route = router.routeServerTool(args['server'] as string, args['tool'] as string, args['arguments'] as Record<string, unknown> | undefined);
		} else {
			route = await router.routeTool(params.name, params.arguments, signal, budget);
		}

		// While it is in flight, requests the upstream sends its client come to this session.
		const ended = this.client.callBegan(route.server, id);

		// Most calls carry no _meta: no copy for them on the hot path. The progress token is replaced upstream.
		const progressToken = params._meta?.['progressToken'];
		let meta: Record<string, unknown> | undefined;
		if (params._meta !== undefined) {
			const {progressToken: _replaced, ...rest} = params._meta;
			meta = rest;
		}

		try {
			const result = await this.supervisor.call(route.server, route.tool, route.arguments, {
				signal,
				meta,
				correlationId,
				budget,
				client: this.client.name ?? this.client.label,
				caller: {client: this.client, requestId: id},
				onProgress:
					typeof progressToken === 'string' || typeof progressToken === 'number'
						? (update: ProgressUpdate) => {
								if (signal.aborted) return;
								const notification = {
									jsonrpc: '2.0',
									method: 'notifications/progress',
									params: {
										progressToken,
										progress: update.progress,
										...(update.total === undefined ? {} : {total: update.total}),
										...(update.message === undefined ? {} : {message: update.message}),
									},
								};
								// relatedRequestId: over HTTP it goes on the call's own response stream.
								this.guard.send(notification as JSONRPCMessage, {relatedRequestId: id}).catch(() => {});
							}
						: undefined,
			}, this.client);
			// resource_link and embedded resource items: their URIs are remembered for reading and, where another upstream owns one, rewritten.
			router.exposeContent(route.server, result.content);
			return result;
		} catch (error) {
			if (!(error instanceof HangarError || error instanceof JsonRpcError)) this.logger.error(`unexpected error in tools/call ${params.name}: ${errorMessage(error)}`, {correlationId});
			throw toRpcError(error, `upstream "${route.server}": tools/call "${route.tool}"`, this.audience);
		} finally {
			ended();
		}
	}

	// ---------------------------------------------------------------------
	// What upstreams send this client

	/**
	 * Takes what belongs to hangar's own requests (answers and progress) and
	 * the roots' list_changed from the client's traffic; notes the client's
	 * activity for routing.
	 */
	private fromClient(message: JSONRPCMessage): boolean {
		this.client.touch();
		const record = message as {id?: unknown; method?: unknown; params?: Record<string, unknown>};
		if (record.method === undefined) {
			if (typeof record.id !== 'string' || !record.id.startsWith(askedPrefix)) return false;
			const asked = this.asked.get(record.id);
			this.asked.delete(record.id);
			asked?.settle(message as Parameters<Asked['settle']>[0]);
			return true;
		}

		if (record.method === 'notifications/progress') {
			const token = record.params?.['progressToken'];
			if (typeof token !== 'string' || !token.startsWith(askedPrefix)) return false;
			const {progressToken: _token, ...progress} = record.params!;
			this.asked.get(token)?.onProgress?.(progress);
			return true;
		}

		if (record.method === 'notifications/roots/list_changed' && this.guard.machine.state === 'ready') this.supervisor.clients.rootsChanged(this.client);
		return false;
	}

	/** This session as the engine reaches it. */
	private peer(canSendUnrelated: (() => boolean) | undefined): ClientPeer {
		return {
			request: async (method, params, options) => this.ask(method, params, options),
			canReceiveUnrelated: () => this.guard.machine.state === 'ready' && (canSendUnrelated?.() ?? true),
			log: params => {
				if (this.guard.machine.state !== 'ready') return;
				this.guard.send({jsonrpc: '2.0', method: 'notifications/message', params} as JSONRPCMessage).catch(() => {});
			},
			notify: (method, params) => {
				if (this.guard.machine.state !== 'ready') return;
				this.guard.send({jsonrpc: '2.0', method, ...(params === undefined ? {} : {params})} as JSONRPCMessage).catch(() => {});
			},
		};
	}

	/**
	 * Sends an upstream's request to the client under an id of hangar's and
	 * resolves with the client's result. The upstream's progress token, if
	 * any, is replaced by that id (the client's progress comes back here);
	 * aborting `signal` (the upstream cancelled) sends notifications/cancelled
	 * to the client. Hangar sets no deadline of its own: the upstream decides
	 * how long it waits, and cancels.
	 */
	private async ask(
		method: RelayedMethod,
		params: Record<string, unknown> | undefined,
		options: {signal: AbortSignal; relatedRequestId: string | number | undefined; onProgress?: ((params: Record<string, unknown>) => void) | undefined},
	): Promise<Record<string, unknown>> {
		const id = `${askedPrefix}${this.askedNonce}-${++this.nextAsked}`;
		const meta = params?.['_meta'];
		const outgoing = isPlainObject(meta) && meta['progressToken'] !== undefined ? {...params, _meta: {...meta, progressToken: id}} : params;
		const sendOptions = options.relatedRequestId === undefined ? undefined : {relatedRequestId: options.relatedRequestId};
		return new Promise<Record<string, unknown>>((resolve, reject) => {
			const onAbort = () => {
				if (!this.asked.delete(id)) return;
				this.guard.send({jsonrpc: '2.0', method: 'notifications/cancelled', params: {requestId: id, reason: 'the upstream cancelled its request'}} as JSONRPCMessage, sendOptions).catch(() => {});
				reject(new Error('cancelled by the upstream'));
			};

			this.asked.set(id, {
				onProgress: options.onProgress,
				settle: message => {
					options.signal.removeEventListener('abort', onAbort);
					if (message instanceof Error) {
						reject(new HangarError({code: 'NoClientAnswer', operation: method, message: `${message.message} (${this.via})`, hint: 'The upstream may send it again; another client can answer it then.'}));
					} else if (message.error !== undefined) {
						const {code, message: text, data} = message.error;
						reject(new JsonRpcError(typeof code === 'number' ? code : JsonRpcCode.InternalError, typeof text === 'string' ? text : 'the client answered with an error', data));
					} else if (isPlainObject(message.result)) {
						resolve(message.result);
					} else {
						reject(new JsonRpcError(JsonRpcCode.InternalError, `the client answered ${method} with a result that is not an object`));
					}
				},
			});
			if (options.signal.aborted) {
				onAbort();
				return;
			}

			options.signal.addEventListener('abort', onAbort, {once: true});
			this.guard.send({jsonrpc: '2.0', id, method, ...(outgoing === undefined ? {} : {params: outgoing})} as JSONRPCMessage, sendOptions).catch(() => {});
		});
	}
}
