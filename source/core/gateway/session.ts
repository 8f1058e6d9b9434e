/**
 * One client's MCP session with hangar: a request pipeline (pipeline.ts) on
 * a transport, and the method table it serves. The same class serves
 * `--stdio`, local socket clients and HTTP sessions; the local socket
 * endpoint adds hangar's own methods (admin-methods.ts). It reads the
 * supervisor's state and sends it calls, and it is the `ClientPeer` through
 * which upstreams reach this client: their requests for sampling,
 * elicitation and roots, and their log messages at the level this client
 * set.
 *
 * Who serves what:
 *
 * | method | handler |
 * | --- | --- |
 * | initialize, ping, logging/setLevel (legacy requests) | here |
 * | server/discover (modern requests) | here |
 * | subscriptions/listen (modern requests) | listen.ts |
 * | tools/list, tools/call | tool-requests.ts |
 * | resources/*, prompts/*, completion/complete | catalog-requests.ts (with their capability) |
 * | tasks/get, tasks/result, tasks/list, tasks/cancel | task-requests.ts (with `tasks`) |
 * | hangar/* (local socket only) | admin-methods.ts |
 * | notifications/initialized, notifications/cancelled | pipeline.ts |
 * | notifications/roots/list_changed, notifications/progress, responses | here |
 */
import {aggregatedHint} from './cache-hints.js';
import {InitializeRequestSchema, SetLevelRequestSchema} from '@modelcontextprotocol/core';
import type {ClientPeer, ClientRecord, ClientTransport} from '../engine/clients/clients.js';
import type {CallDeadline} from '../engine/request-context.js';
import {relayedRequests} from '../link/client-side.js';
import {isPlainObject} from '../wire/message-classifier.js';
import {cliClientName, implementationInfo, latestProtocolVersion, modernProtocolVersions, supportedProtocolVersions} from '../wire/protocol.js';
import {serverInfoKey} from './protocol-era.js';
import type {Logger} from '../base/logger.js';
import type {ManagementToolsSetting} from './management-tools.js';
import type {ListMeta, ServedCapabilities, Supervisor} from '../engine/supervisor.js';
import type {Subscriber} from '../engine/routing/subscriptions.js';
import {advertised, catalogHandlers, catalogMethods} from './catalog-requests.js';
import {ClientRequests} from './client-requests.js';
import {heldInputsOf, inputRequiredMethods} from './held-inputs.js';
import type {ConnectionState} from './connection-state.js';
import {Pipeline, type PipelineOptions, type RequestHandler, type SessionTransport} from './pipeline.js';
import {ModernClients} from './modern-clients.js';
import {listenHandler} from './listen.js';
import {checkParams, paramsProblem} from './request-params.js';
import {taskHandlers} from './task-requests.js';
import {modernCapabilities, modernTaskHandlers} from './modern-tasks.js';
import {taskInputsOf} from './task-inputs.js';
import {toolHandlers} from './tool-requests.js';
import {sessionInstructions} from './instructions.js';

export type {SessionTransport} from './pipeline.js';
export type {CallsPage, ConfigAnswer, LogPage} from './admin-methods.js';

/** Why an `initialize` request's params are invalid, or undefined when they are fine (the HTTP endpoint checks before it opens a session). */
export function invalidInitialize(params: unknown): string | undefined {
	return paramsProblem(InitializeRequestSchema, 'initialize', params);
}

export type GatewaySessionOptions = {
	supervisor: Supervisor;
	transport: SessionTransport;
	/** When the client closes its input, how long calls in flight may take to be answered before the session closes. */
	drainMs?: number;
	logger: Logger;
	/** A label for logs ("stdio", a socket peer, an HTTP session id). */
	label: string;
	/** How the client is connected, for the clients view. */
	kind: ClientTransport;
	/**
	 * A deadline for every request, from its arrival to its answer, used
	 * where shorter than the upstream's callTimeoutSeconds (HTTP sessions:
	 * hangar.httpCallTimeoutSeconds, below the usual client timeout).
	 */
	callDeadline?: CallDeadline;
	/**
	 * Binds each modern request to its client's identity (modern-clients.ts).
	 * Unset: the session keeps its own, keyed by this connection, and drops
	 * them when it closes (stdio, the local socket).
	 */
	modernClient?: PipelineOptions['modernClient'];
	/** The record to serve as (a modern HTTP request's identity, which outlives this one-request session); unset: a record of its own. */
	client?: ClientRecord;
	/** Aborted when the endpoint shuts down: open `subscriptions/listen` requests are then answered (ended gracefully). */
	ending?: AbortSignal;
};

export class GatewaySession {
	readonly supervisor: Supervisor;
	readonly logger: Logger;
	readonly label: string;
	/** This session in the supervisor's list of clients: every request's context names it. */
	readonly client: ClientRecord;
	readonly exposure: 'direct' | 'search';
	private readonly pipeline: Pipeline;
	private readonly asks: ClientRequests;
	private readonly closedListeners = new Set<() => void>();
	/** A person's session (the CLI; see personMethod): hangar.managementTools does not apply to it. */
	private person = false;
	private isClosed = false;
	/** The first list's wait for launch discovery (see firstList). */
	private firstListWait: Promise<void> | undefined;
	/** Whether that wait is over: then tools/list may answer from its cache at once. */
	firstListDone = false;

	constructor(options: GatewaySessionOptions) {
		const {supervisor, transport} = options;
		this.supervisor = supervisor;
		this.logger = options.logger;
		this.label = options.label;
		this.exposure = supervisor.config.hangar.exposure;
		const ownRecord = options.client === undefined;
		this.client = options.client ?? supervisor.clients.add(options.kind, options.label);
		const held = heldInputsOf(supervisor);
		const modernClients = options.modernClient === undefined ? new ModernClients({clients: supervisor.clients, kind: options.kind, release: (record, then) => held.whenReleased(record, then)}) : undefined;
		const connection = `session ${this.client.id}`;
		const modernClient =
			options.modernClient ??
			((modern, notify, id) => {
				// The connection carries this client's requests; the client is its identity's record, listed in its place.
				if (this.client.carriesModern === undefined) {
					this.client.carriesModern = () => modernClients!.size > 0;
					this.client.protocolVersion ??= modern.revision;
				}

				return modernClients!.begin(connection, modern, notify, id);
			});
		this.pipeline = new Pipeline({transport, subject: options.label, logger: options.logger, client: this.client, deadline: options.callDeadline, modernClient, cacheHints: method => aggregatedHint(supervisor, method)});
		this.asks = new ClientRequests((message, sendOptions) => void this.pipeline.send(message, sendOptions).catch(() => {}), () => this.via);
		if (ownRecord) this.client.peer = this.peer(transport.canSendUnrelated?.bind(transport));
		// What hangar advertises is known from memory now (cached for cold upstreams).
		const capabilities = supervisor.capabilities();
		this.installProtocol(capabilities, options.kind);
		this.installModern(advertised(capabilities), options.ending);
		const tools = toolHandlers(this);
		this.handle('tools/list', tools.list);
		this.handle('tools/call', tools.call);
		const subscriber: Subscriber = {notify: (uri, meta) => this.notifyReady('notifications/resources/updated', meta === undefined ? {uri} : {uri, _meta: meta}), client: this.client};
		for (const [method, handler] of Object.entries(catalogHandlers({supervisor, capabilities, subscriber, beforeList: async () => this.firstList()}))) this.handle(method, handler);
		for (const [method, handler] of Object.entries(taskHandlers(supervisor, capabilities))) this.handle(method, handler);
		// A modern request's tasks are the 2026-07-28 tasks extension, translated to the upstreams' 2025 tasks.
		const modernTasks = modernTaskHandlers(supervisor, tools.call, this);
		for (const [method, handler] of Object.entries(modernTasks)) this.pipeline.handleModern(method, handler);
		// A modern request of these may be answered with input_required when a legacy upstream asks its client mid-call.
		for (const method of inputRequiredMethods) {
			const handler = modernTasks[method] ?? this.pipeline.handlerOf(method);
			if (handler !== undefined) this.pipeline.handleModern(method, held.wrap(handler, this));
		}

		// A client that closes its input after its last request (a one-shot pipe) still gets the
		// answers to calls in flight, for up to drainMs; then the session closes.
		if ('onInputEnd' in transport) {
			const drainMs = options.drainMs ?? 5000;
			transport.onInputEnd = () => {
				// A client whose input ended answers nothing: what an upstream asks it fails now, not when the drain ends.
				this.asks.closeAll('the client closed its connection before answering');
				void this.drain(drainMs).then(async () => transport.close());
			};
		}

		// From its initialize's result on: a list that changes while initialize waits for the first starts is listed in full after it.
		const listening = () => this.pipeline.machine.state === 'ready' || (this.pipeline.machine.state === 'initializing' && this.pipeline.initializeAnswered);
		const changed = (method: string, served: boolean | (() => boolean)) => (meta?: ListMeta) => {
			if ((typeof served === 'boolean' ? served : served()) && listening()) this.pipeline.notify(method, meta === undefined ? undefined : {_meta: meta});
		};

		// In search exposure the list is the fixed set of hangar_* tools: upstream changes do not change it.
		const onTools = changed('notifications/tools/list_changed', this.exposure === 'direct');
		// While served: a first run's initialize may find them not offered after all (initializeCapabilities).
		const onResources = changed('notifications/resources/list_changed', () => this.pipeline.handlerOf('resources/list') !== undefined);
		const onPrompts = changed('notifications/prompts/list_changed', () => this.pipeline.handlerOf('prompts/list') !== undefined);
		// A per-client server's list as this session sees it (its own instance listed it).
		const onClientTools = (id: number, meta?: ListMeta): void => {
			if (id === this.client.id) onTools(meta);
		};

		supervisor.on('toolsChanged', onTools);
		supervisor.on('clientToolsChanged', onClientTools);
		supervisor.on('resourcesChanged', onResources);
		supervisor.on('promptsChanged', onPrompts);
		this.pipeline.onClose = () => {
			this.isClosed = true;
			// A modern HTTP request's session closes with its answer; a call it left held keeps its record (and the per-client instance it runs on) until it ends.
			if (ownRecord) held.whenReleased(this.client, () => this.client.remove());
			modernClients?.close();
			supervisor.off('toolsChanged', onTools);
			supervisor.off('clientToolsChanged', onClientTools);
			supervisor.off('resourcesChanged', onResources);
			supervisor.off('promptsChanged', onPrompts);
			supervisor.subscriptions.drop(subscriber);
			this.asks.closeAll();
			// A connection is its client: its held calls end with it (an HTTP request's session is not: the retry comes on another).
			if (options.kind !== 'http') {
				held.dropScope(this, 'the client disconnected before answering');
				taskInputsOf(supervisor).dropScope(this, 'the client disconnected before answering');
			}
			for (const listener of [...this.closedListeners]) listener();
		};
	}

	/**
	 * What initialize answers with. On a first run (an upstream whose
	 * capabilities were never known is starting), it waits for those starts
	 * as the first tools/list does, within hangar.firstListWaitSeconds (the
	 * same wait, shared), so `tasks` and `resources.subscribe`, offered only
	 * where an upstream is known to have them, are offered from the first
	 * session on; the tasks methods are served from then on too.
	 */
	private async initializeCapabilities(atStart: ServedCapabilities): Promise<Record<string, unknown>> {
		if (!this.capabilitiesUnknown()) return {...advertised(atStart), logging: {}};
		await this.firstList();
		const now = this.supervisor.capabilities();
		if (atStart.tasks === undefined && now.tasks !== undefined) {
			for (const [method, handler] of Object.entries(taskHandlers(this.supervisor, now))) this.handle(method, handler);
		}

		// Offered at start for upstreams not known yet, and not after all: not served either, so the session gets "Method not found" for them, as from its upstreams directly.
		for (const [capability, methods] of Object.entries(catalogMethods)) {
			if (now[capability as keyof typeof catalogMethods] === undefined) for (const method of methods) this.pipeline.unhandle(method);
		}

		return {...advertised(now), logging: {}};
	}

	/** Whether an upstream whose capabilities were never known is starting (a first run). */
	private capabilitiesUnknown(): boolean {
		return [...this.supervisor.upstreams.values()].some(upstream => upstream.discovering && upstream.capabilities === undefined);
	}

	/** initialize, ping, logging/setLevel, and what the client sends that is not a request. */
	private installProtocol(atStart: ServedCapabilities, kind: ClientTransport): void {
		this.handle('initialize', async (_context, raw) => {
			const params = checkParams(InitializeRequestSchema, 'initialize', raw);
			this.client.identify(String(params.clientInfo.name), String(params.clientInfo.version));
			this.pipeline.audience = kind === 'socket' && params.clientInfo.name === cliClientName ? 'cli' : 'mcp';
			// A person's command (`logs -f`, `status`) is no MCP client: counted as one, it made shutdown and the TUI's q ask about it.
			if (this.pipeline.audience === 'cli') this.client.markConsole();
			const declared = Object.values(relayedRequests).filter(capability => isPlainObject(params.capabilities?.[capability]));
			// As the client declared them: its own instances of per-client servers are told exactly these (as sent, not as
			// the SDK's schema reads them: it turns an empty `elicitation` into `{form: {}}`).
			const sent = isPlainObject(raw) ? raw['capabilities'] : undefined;
			const declaredCapabilities: Record<string, unknown> = isPlainObject(sent) ? sent : isPlainObject(params.capabilities) ? params.capabilities : {};
			// Known from now on (a tools/list may come before initialized, and lists what a client like it sees);
			// requests are relayed to it only once it has initialized (the relayed kinds, below).
			this.client.declaredCapabilities = declaredCapabilities;
			this.client.clientInfo = isPlainObject(raw) && isPlainObject(raw['clientInfo']) ? raw['clientInfo'] : undefined;
			// Upstreams' requests reach the client only once it has finished initializing, as the protocol says.
			this.pipeline.on('notifications/initialized', () => this.client.declare(declared, declaredCapabilities));
			const requested = params.protocolVersion;
			// Hangar's own list (wire/protocol.ts), not the SDK's: it negotiates only the versions it serves.
			const protocolVersion = (supportedProtocolVersions as readonly string[]).includes(requested) ? requested : latestProtocolVersion;
			this.client.protocolVersion = protocolVersion;
			const capabilities = await this.initializeCapabilities(atStart);
			// Hangar's own, for its naming mode, then each upstream's, attributed (instructions.ts).
			return {protocolVersion, capabilities, serverInfo: implementationInfo, instructions: sessionInstructions(this.supervisor.config, this.supervisor.store)};
		});
		this.handle('ping', () => ({}));
		// The level is this session's; hangar asks the upstreams for the most verbose one.
		this.handle('logging/setLevel', (context, raw) => {
			this.client.setLogLevel(checkParams(SetLevelRequestSchema, context.method, raw).level);
			return {};
		});
		this.pipeline.on('notifications/roots/list_changed', () => {
			if (this.pipeline.machine.state === 'ready') this.supervisor.clients.rootsChanged(this.client);
		});
		this.pipeline.on('notifications/progress', params => this.asks.progress(params));
		this.pipeline.onResponse = message => this.asks.answered(message);
	}

	/**
	 * What a modern (2026-07-28) request is served besides the shared table:
	 * `server/discover`, hangar's versions of both generations, what it serves
	 * per request (changes through subscriptions/listen, listen.ts; the log
	 * level per request, modern-clients.ts), who it is.
	 */
	private installModern(advertised: Record<string, unknown>, ending: AbortSignal | undefined): void {
		const capabilities: Record<string, unknown> = {...advertised, logging: {}};
		// In search exposure the tool list is the fixed hangar_* set: it never changes.
		const toolsCanChange = this.exposure === 'direct';
		if (!toolsCanChange && isPlainObject(advertised['tools'])) {
			const {listChanged: _listChanged, ...rest} = advertised['tools'];
			capabilities['tools'] = rest;
		}

		this.pipeline.handleModern('subscriptions/listen', listenHandler({supervisor: this.supervisor, capabilities, toolsCanChange, ending, notify: (method, params, id) => this.pipeline.notify(method, params, id)}));
		this.pipeline.handleModern('server/discover', async () => {
			// On a first run, waits as initialize does, so the tasks extension is offered once an upstream is known to run tasks.
			if (this.capabilitiesUnknown()) await this.firstList();
			return {
				supportedVersions: [...modernProtocolVersions, ...supportedProtocolVersions],
				capabilities: modernCapabilities(capabilities, this.supervisor.capabilities().tasks),
				instructions: sessionInstructions(this.supervisor.config, this.supervisor.store),
				_meta: {[serverInfoKey]: implementationInfo},
			};
		});
	}

	/** Serves `method` with `handler` in this session's table (the local socket endpoint adds hangar's own methods; see admin-methods.ts). */
	handle(method: string, handler: RequestHandler): void {
		this.pipeline.handle(method, handler);
	}

	/** The methods this session serves. */
	get methods(): string[] {
		return this.pipeline.methods;
	}

	async start(): Promise<void> {
		await this.pipeline.start();
	}

	async close(): Promise<void> {
		await this.pipeline.close();
	}

	get closed(): boolean {
		return this.isClosed;
	}

	/**
	 * A session's first tools/list or prompts/list waits (up to
	 * hangar.firstListWaitSeconds) until no upstream is still learning what it
	 * serves for the first time, so a first run does not answer with the
	 * hangar_* tools alone; upstreams slower than that reach the client by
	 * list_changed. Later lists are served at once. One wait per session,
	 * shared by lists sent together.
	 */
	async firstList(): Promise<void> {
		this.firstListWait ??= this.supervisor.awaitDiscovery(this.supervisor.config.hangar.firstListWaitMs);
		await this.firstListWait;
		this.firstListDone = true;
	}

	/** Calls `listener` when the session closes; returns the function that stops listening. */
	onClose(listener: () => void): () => void {
		this.closedListeners.add(listener);
		return () => this.closedListeners.delete(listener);
	}

	/** Sends a notification outside the protocol's own (e.g. wire/protocol.ts's drainingNotification). */
	notify(method: string, params?: Record<string, unknown>): void {
		this.pipeline.notify(method, params);
	}

	/** A notification for a client that finished initializing only. */
	private notifyReady(method: string, params?: Record<string, unknown>, relatedRequestId?: string | number): void {
		if (this.pipeline.machine.state === 'ready') this.pipeline.notify(method, params, relatedRequestId);
	}

	/** The session is a person's (the CLI): management tools are not narrowed by hangar.managementTools. */
	markPerson(): void {
		this.person = true;
	}

	/** The hangar.managementTools setting for this session (people are not narrowed by it). */
	get managementSetting(): ManagementToolsSetting {
		return this.person ? 'all' : this.supervisor.config.hangar.managementTools;
	}

	/** Where the client is in the MCP sequence (awaiting_initialize, initializing, ready, closed). */
	get connectionState(): ConnectionState {
		return this.pipeline.machine.state;
	}

	/** Requests in flight right now. */
	get inFlight(): number {
		return this.pipeline.inFlight;
	}

	/** Who is asking, for transition reasons: the client's name from initialize. */
	get via(): string {
		return this.client.name === null ? `an MCP client (${this.label})` : `MCP client "${this.client.name}"`;
	}

	/** Resolves when every request in flight has been answered, or after `timeoutMs`. */
	async drain(timeoutMs: number): Promise<void> {
		await this.pipeline.drain(timeoutMs);
	}

	/** This session as the engine reaches it. */
	private peer(canSendUnrelated: (() => boolean) | undefined): ClientPeer {
		return {
			request: async (method, params, options) => this.asks.ask(method, params, options),
			canReceiveUnrelated: () => this.pipeline.machine.state === 'ready' && (canSendUnrelated?.() ?? true),
			log: (params, _server, requestId) => this.notifyReady('notifications/message', params, requestId),
			notify: (method, params) => this.notifyReady(method, params),
		};
	}
}
