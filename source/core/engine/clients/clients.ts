/**
 * The MCP clients connected to this hangar: one record per gateway session
 * (the `--stdio` client of an embedded hangar, each connection on the local
 * socket, each HTTP session). Sessions add themselves when they open, name
 * the client once `initialize` arrives, count calls, and remove themselves
 * when they close. The TUI's header and clients view read `list()`.
 *
 * It also holds what relaying an upstream's traffic to clients needs to
 * know of each session (see `client-relay.ts`): the capabilities its client
 * declared, its calls in flight by upstream, when it was last heard from,
 * the log level it asked for, and the `ClientPeer` that reaches it.
 *
 * A console (a terminal UI attached to this supervisor over the local
 * socket) is a client too, so a supervisor that waits for its last client
 * does not leave under it, but it is marked: it is a person watching, not an
 * MCP client, and the views count and list it apart.
 */
import {EventEmitter} from 'node:events';
import {severity, type ClientCapability, type LoggingLevel, type RelayedMethod} from '../../link/client-side.js';

export type ClientTransport = 'stdio' | 'socket' | 'http';

/**
 * An HTTP session with no request for this long and no GET stream open is
 * idle: a client that exits without DELETE leaves its session behind until
 * the session expires (hangar.httpSessionIdleMinutes), and it should not
 * read as attached meanwhile. Idle sessions are marked in the clients view
 * and not counted as attached when quitting asks. Any request makes it
 * active again.
 */
export const httpIdleAfterMs = 60_000;

export type ClientView = {
	id: number;
	transport: ClientTransport;
	/** The session's label in hangar's log ("stdio", "socket#3", an HTTP session id). */
	label: string;
	/** clientInfo from initialize; null until it arrives. */
	name: string | null;
	version: string | null;
	/** The protocol version it speaks: the one its initialize negotiated, or a 2026-07-28 client's revision; null until initialize. */
	protocolVersion: string | null;
	connectedAt: number;
	calls: number;
	lastCallAt: number | null;
	/** The tool name of the last call, as the client sent it. */
	lastTool: string | null;
	/** A hangar console (an attached terminal UI), not an MCP client (absent: an MCP client). */
	console?: boolean;
	/** A 2026-07-28 client's identity (its requests, on whichever connections: gateway/modern-clients.ts); absent otherwise. */
	modern?: boolean;
	/** When it last sent anything, in ms since the epoch. */
	lastSeenAt: number;
	/** An HTTP session silent for `httpIdleAfterMs` with no stream open (absent: not idle). */
	idle?: boolean;
};

/** How the engine reaches one client: a session registers itself as this. */
export type ClientPeer = {
	/**
	 * Sends a request to the client and resolves with its result; rejects with
	 * a JsonRpcError when it answers with an error, or a HangarError when
	 * the session closes first. Aborting `signal` cancels it at the client.
	 * `relatedRequestId`: the client's call this request belongs to (over
	 * HTTP it then travels on that call's response stream).
	 */
	request(
		method: RelayedMethod,
		params: Record<string, unknown> | undefined,
		options: {signal: AbortSignal; relatedRequestId: string | number | undefined; onProgress?: ((params: Record<string, unknown>) => void) | undefined},
	): Promise<Record<string, unknown>>;
	/** Whether a request that belongs to none of its calls can reach the client now (an HTTP client needs its GET stream open). */
	canReceiveUnrelated(): boolean;
	/**
	 * Sends `notifications/message` with these params, logged by upstream
	 * `server` (a modern client gets it on its requests in flight to that
	 * upstream). `requestId`: the client's call it belongs to, the only one
	 * it is tied to then.
	 */
	log(params: Record<string, unknown>, server?: string, requestId?: string | number): void;
	/** Sends a notification that completes a relayed request (URL elicitation's `notifications/elicitation/complete`). */
	notify(method: string, params: Record<string, unknown> | undefined): void;
};

/**
 * A call hangar holds for a modern (2026-07-28) client, which cannot be sent
 * requests: an upstream's request made during it is held and asked of the
 * client in the call's `input_required` answer (gateway/held-inputs.ts).
 */
export type HeldCallPeer = {
	/** What the client declared in the `_meta` of its latest request for this call: only those are asked of it. */
	readonly capabilities: Readonly<Record<string, unknown>>;
	/** Who asks, for refusals ("the 2026-07-28 client \"x\" (stdio)"). */
	readonly who: string;
	/** The id of the client's request waiting on this call now (its first, or a retry), if one is. */
	readonly roundId: string | number | undefined;
	/**
	 * The task it collects questions for, when it is a modern client's 2025 task
	 * (gateway/task-inputs.ts): the id hangar handed out and the instance that
	 * runs it. An upstream's request naming that task in its `related-task`
	 * `_meta` belongs to it, whatever else is in flight.
	 */
	readonly task?: {readonly id: string; readonly instance: string} | undefined;
	/** Holds the upstream's request until the client answers it on its retry; rejects when it does not in time. */
	ask(server: string, method: RelayedMethod, params: Record<string, unknown> | undefined, signal: AbortSignal, key?: string): Promise<Record<string, unknown>>;
};

/** A call in flight from a session (over HTTP, a per-client instance's request to its client travels on that call's stream). */
type CallInFlight = {server: string; requestId: string | number; order: number};

/** The MCP clients among `clients`, consoles left out. */
export function mcpClients<T extends Pick<ClientView, 'console'>>(clients: readonly T[]): T[] {
	return clients.filter(client => client.console !== true);
}

export class ClientRecord {
	name: string | null = null;
	version: string | null = null;
	/**
	 * See ClientView.protocolVersion: the version its initialize negotiated (what its per-client
	 * instances are asked for), or 2026-07-28 for a client of that revision.
	 */
	protocolVersion: string | null = null;
	calls = 0;
	lastCallAt: number | null = null;
	lastTool: string | null = null;
	console = false;
	readonly connectedAt = Date.now();
	/** The relayed-request capabilities its client declared at initialize. */
	capabilities: ReadonlySet<ClientCapability> = new Set();
	/** Its client's `capabilities` from initialize, as declared: what its per-client instances are told. */
	declaredCapabilities: Readonly<Record<string, unknown>> = {};
	/** Its client's `clientInfo` from initialize, as sent: what its per-client instances are told of who connects. */
	clientInfo: Readonly<Record<string, unknown>> | undefined;
	/** Orders sessions by their last message (a counter: two in the same millisecond still differ). */
	activity = 0;
	/** When it last sent anything (ms since the epoch). */
	lastSeenAt = Date.now();
	/** The level its client asked for with logging/setLevel; undefined: it gets no log messages. */
	logLevel: LoggingLevel | undefined;
	/** How to reach it; unset until the session is ready to relay. */
	peer: ClientPeer | undefined;
	/** It speaks 2026-07-28 (a modern identity, gateway/modern-clients.ts): a dual-era upstream serves it from its era twin. */
	modern = false;
	/**
	 * Set on a stdio or socket connection that carried a 2026-07-28 request:
	 * whether an identity of its is kept now. Each request is served as its
	 * client's identity (a record of its own, listed), so the connection is
	 * no client of its own meanwhile, unless it initializes (a 2025 session
	 * on it); once its identities went idle, it is listed again.
	 */
	carriesModern: (() => boolean) | undefined;
	/** Its modern calls held for input, by the request id they run under upstream (see HeldCallPeer); they outlive a one-request HTTP session. */
	readonly heldCalls = new Map<string | number, HeldCallPeer>();
	private readonly inFlight: CallInFlight[] = [];

	constructor(
		readonly id: number,
		readonly transport: ClientTransport,
		readonly label: string,
		private readonly registry: ClientRegistry,
	) {}

	identify(name: string, version: string): void {
		this.name = name;
		this.version = version;
		this.registry.membershipChanged();
	}

	/** A tools/call of `tool` arrived (`at`: when, ms since the epoch; its request's record has it). */
	called(tool: string, at = Date.now()): void {
		this.calls += 1;
		this.lastCallAt = at;
		this.lastTool = tool;
		this.registry.changed();
	}

	/** The session turned out to be a console (it asked for a console snapshot). */
	markConsole(): void {
		if (this.console) return;
		this.console = true;
		this.registry.changed();
	}

	remove(): void {
		this.registry.remove(this);
	}

	/** The capabilities its client declared (from initialize's `capabilities`): the relayed kinds, and the whole object. */
	declare(capabilities: Iterable<ClientCapability>, declared: Readonly<Record<string, unknown>> = {}): void {
		this.capabilities = new Set(capabilities);
		this.declaredCapabilities = declared;
	}

	/** Whether it is shown and counted as a client: not a connection that only carries 2026-07-28 clients' requests. */
	get listed(): boolean {
		return this.name !== null || this.carriesModern?.() !== true;
	}

	/** Something arrived from the client (`at`: when, ms since the epoch). On the hot path: no event. */
	touch(at = Date.now()): void {
		this.activity = this.registry.tick();
		this.lastSeenAt = at;
	}

	/** An HTTP session that has gone quiet (see `httpIdleAfterMs`). */
	idleAt(now: number): boolean {
		return this.transport === 'http' && now - this.lastSeenAt >= httpIdleAfterMs && this.peer?.canReceiveUnrelated() !== true;
	}

	setLogLevel(level: LoggingLevel): void {
		this.logLevel = level;
		this.registry.levelChanged();
		this.registry.emit('sessionLogLevel', this);
	}

	/** A call of this session to `server` began; the returned function ends it. */
	callBegan(server: string, requestId: string | number): () => void {
		const call: CallInFlight = {server, requestId, order: this.registry.tick()};
		this.inFlight.push(call);
		return () => {
			const index = this.inFlight.indexOf(call);
			if (index !== -1) this.inFlight.splice(index, 1);
		};
	}

	/** The request ids of its calls in flight to `server`, oldest first. */
	requestsTo(server: string): Array<string | number> {
		return this.inFlight.filter(call => call.server === server).map(call => call.requestId);
	}

	/** Its most recent call in flight to `server`, if any. */
	callTo(server: string): CallInFlight | undefined {
		for (let index = this.inFlight.length - 1; index >= 0; index--) {
			if (this.inFlight[index]!.server === server) return this.inFlight[index];
		}

		return undefined;
	}

	view(now = Date.now()): ClientView {
		return {
			id: this.id,
			transport: this.transport,
			label: this.label,
			name: this.name,
			version: this.version,
			protocolVersion: this.protocolVersion,
			connectedAt: this.connectedAt,
			calls: this.calls,
			lastCallAt: this.lastCallAt,
			lastTool: this.lastTool,
			lastSeenAt: this.lastSeenAt,
			...(this.console ? {console: true} : {}),
			...(this.modern ? {modern: true} : {}),
			...(this.idleAt(now) ? {idle: true} : {}),
		};
	}
}

export class ClientRegistry extends EventEmitter<{
	changed: [];
	/** The most verbose level any session asked for changed. */
	logLevel: [LoggingLevel | undefined];
	/** One session's own level changed (per-client instances follow their session's). */
	sessionLogLevel: [ClientRecord];
	/** A session's client sent roots/list_changed. */
	rootsChanged: [ClientRecord | undefined];
	/** A session closed: what was kept for it alone (its per-client instances) goes. */
	removed: [ClientRecord];
}> {
	private readonly records = new Map<number, ClientRecord>();
	private nextId = 1;
	private ticks = 0;
	private level: LoggingLevel | undefined;
	private memberships = 0;

	add(transport: ClientTransport, label: string): ClientRecord {
		const record = new ClientRecord(this.nextId++, transport, label, this);
		this.records.set(record.id, record);
		this.membershipChanged();
		return record;
	}

	remove(record: ClientRecord): void {
		if (!this.records.delete(record.id)) return;
		record.peer = undefined;
		this.membershipChanged();
		if (record.logLevel !== undefined) this.levelChanged();
		this.emit('removed', record);
	}

	/** Whether the session is still connected. */
	has(record: ClientRecord): boolean {
		return this.records.get(record.id) === record;
	}

	/** The sessions connected now, oldest first. */
	sessions(): IterableIterator<ClientRecord> {
		return this.records.values();
	}

	/** The most verbose level any session asked for; undefined while none did. */
	get logLevel(): LoggingLevel | undefined {
		return this.level;
	}

	/** A client's roots changed: every running upstream is told (a per-client instance only by its own session). */
	rootsChanged(record?: ClientRecord): void {
		this.emit('rootsChanged', record);
	}

	/** @internal A monotonic counter that orders activity and calls. */
	tick(): number {
		this.ticks += 1;
		return this.ticks;
	}

	/** @internal Recomputes the most verbose level and announces a change. */
	levelChanged(): void {
		let level: LoggingLevel | undefined;
		for (const record of this.records.values()) {
			if (record.logLevel !== undefined && (level === undefined || severity(record.logLevel) < severity(level))) level = record.logLevel;
		}

		if (level === this.level) return;
		this.level = level;
		this.emit('logLevel', level);
	}

	/** Every client, consoles included (a supervisor waiting for its last client counts these). */
	get size(): number {
		return this.records.size;
	}

	/** MCP clients only, idle HTTP sessions left out: the ones a quit would cut off from their tools. */
	get mcpSize(): number {
		const now = Date.now();
		let n = 0;
		for (const record of this.records.values()) if (!record.console && record.listed && !record.idleAt(now)) n += 1;
		return n;
	}

	/** Oldest connection first; a connection that only carries modern clients' requests is left out (their identities are listed). */
	list(): ClientView[] {
		const now = Date.now();
		const views: ClientView[] = [];
		for (const record of this.records.values()) if (record.listed) views.push(record.view(now));
		return views;
	}

	/** @internal Records call this when they change. */
	changed(): void {
		this.emit('changed');
	}

	/**
	 * Counts the changes to who is connected (a session came, went, or said
	 * who it is), not its calls: whoever cares only about those (the daemon's
	 * linger) skips the `changed` of every call by it.
	 */
	get membership(): number {
		return this.memberships;
	}

	/** @internal A session came, went or identified itself. */
	membershipChanged(): void {
		this.memberships += 1;
		this.changed();
	}
}
