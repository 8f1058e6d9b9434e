/**
 * Who a modern (2026-07-28) request comes from. Such a request has no
 * session, yet per-client upstreams ("instances": "per-client", or "auto"
 * once learned) and whatever hangar keeps per client (its log level, an
 * MRTR requestState) need a client to belong to. A modern client's
 * identity is derived once, here (`modernClientKey`), from what identifies
 * it on its endpoint (the stdio or socket connection; on HTTP the TCP
 * connection and the bearer token it showed) plus the clientInfo and
 * capabilities it declares on the request. Two clients that would have two
 * sessions as legacy clients (two connections) never share an identity; one
 * client's repeated requests on its connection share one, and with it one
 * instance of each per-client upstream.
 *
 * Each identity is a `ClientRecord` in the supervisor's list of clients, so
 * the engine treats it as it treats a session: its per-client instances are
 * started for it, and they stop when it goes. It goes when it has had no
 * request in flight for `idleMs`, when its connection closes, or when more
 * than `maxIdentities` are kept (the least recently used idle one first):
 * memory stays bounded whatever clients send.
 *
 * It also carries the per-request log level (`io.modelcontextprotocol/logLevel`
 * in `_meta`, replacing logging/setLevel): the identity's record asks the
 * upstreams for the most verbose level of its requests in flight, and an
 * upstream's `notifications/message` goes to each of its requests in flight
 * whose level admits it, tied to that request (on HTTP, its own stream).
 */
import {createHash} from 'node:crypto';
import {JsonRpcCode, JsonRpcError} from '../base/errors.js';
import type {ClientPeer, ClientRecord, ClientRegistry, ClientTransport} from '../engine/clients/clients.js';
import {canonicalJson} from '../engine/upstream/pins.js';
import {isLoggingLevel, severity, type LoggingLevel} from '../link/client-side.js';
import type {ModernRequest} from './protocol-era.js';

/**
 * The identity of the client that sent modern request `request` on
 * `connection` (an opaque key naming the connection, and on HTTP the token
 * shown): the one function every part that keeps something per modern
 * client uses (per-client instances, log levels, requestState binding).
 */
export function modernClientKey(connection: string, request: Pick<ModernRequest, 'clientInfo' | 'capabilities'>): string {
	const info = request.clientInfo === undefined ? null : [request.clientInfo.name, request.clientInfo.version];
	return createHash('sha256').update(canonicalJson([connection, info, request.capabilities])).digest('base64url').slice(0, 32);
}

/** A request in flight of a modern client, as its identity reaches it. */
type ModernCall = {level: LoggingLevel | undefined; notify: (method: string, params: Record<string, unknown>) => void};

type Identity = {
	key: string;
	connection: string;
	record: ClientRecord;
	calls: Set<ModernCall>;
	idleTimer: NodeJS.Timeout | undefined;
};

/** A modern request bound to its client: the record its context names, and the function that ends the binding. */
export type BoundRequest = {client: ClientRecord; key: string; end: () => void};

export type ModernClientsOptions = {
	clients: ClientRegistry;
	kind: ClientTransport;
	/** How long an identity with no request in flight is kept (default: five minutes). */
	idleMs?: number;
	/** The most identities kept at once (default 256); past it the least recently used idle one goes. */
	maxIdentities?: number;
	/**
	 * Runs `then` once `record` holds no call for a legacy upstream's question
	 * (held-inputs.ts `whenReleased`): an identity that goes keeps its record,
	 * and the per-client instances its held calls run on, until then.
	 */
	release?: (record: ClientRecord, then: () => void) => void;
};

export class ModernClients {
	private readonly identities = new Map<string, Identity>();
	private readonly idleMs: number;
	private readonly maxIdentities: number;
	private labels = 0;

	constructor(private readonly options: ModernClientsOptions) {
		this.idleMs = options.idleMs ?? 5 * 60_000;
		this.maxIdentities = options.maxIdentities ?? 256;
	}

	/** Identities kept now. */
	get size(): number {
		return this.identities.size;
	}

	/**
	 * Binds modern request `request` on `connection` to its client's identity
	 * (made on first use) for as long as it is in flight; `notify` sends a
	 * notification tied to the request.
	 */
	begin(connection: string, request: ModernRequest, notify: (method: string, params: Record<string, unknown>) => void): BoundRequest {
		const key = modernClientKey(connection, request);
		let identity = this.identities.get(key);
		if (identity === undefined) identity = this.create(key, connection, request);
		else {
			// Most recently used last: the eviction order.
			this.identities.delete(key);
			this.identities.set(key, identity);
		}

		clearTimeout(identity.idleTimer);
		identity.idleTimer = undefined;
		const call: ModernCall = {level: isLoggingLevel(request.logLevel) ? request.logLevel : undefined, notify};
		identity.calls.add(call);
		// The upstreams are asked for the most verbose level of the identity's requests in flight.
		if (call.level !== undefined && (identity.record.logLevel === undefined || severity(call.level) < severity(identity.record.logLevel))) identity.record.setLogLevel(call.level);
		const held = identity;
		let ended = false;
		return {
			client: identity.record,
			key,
			end: () => {
				if (ended) return;
				ended = true;
				held.calls.delete(call);
				if (held.calls.size === 0 && this.identities.get(key) === held) this.armIdle(held);
			},
		};
	}

	/** The connection closed: its identities go, and their per-client instances stop, as a closed session's do. */
	dropConnection(connection: string): void {
		for (const identity of [...this.identities.values()]) if (identity.connection === connection) this.drop(identity);
	}

	/** Every identity goes (the endpoint closes). */
	close(): void {
		for (const identity of [...this.identities.values()]) this.drop(identity);
	}

	private create(key: string, connection: string, request: ModernRequest): Identity {
		const record = this.options.clients.add(this.options.kind, `${this.options.kind} ${request.revision} client #${++this.labels}`);
		if (request.clientInfo !== undefined) record.identify(request.clientInfo.name, request.clientInfo.version);
		// What its per-client instances are told it declared. Requests to it travel by input_required, not as requests.
		record.declaredCapabilities = request.capabilities;
		const identity: Identity = {key, connection, record, calls: new Set(), idleTimer: undefined};
		record.peer = this.peer(identity);
		this.identities.set(key, identity);
		this.evictPastLimit();
		return identity;
	}

	/** Past the limit, the least recently used identities with no request in flight go. */
	private evictPastLimit(): void {
		if (this.identities.size <= this.maxIdentities) return;
		for (const identity of this.identities.values()) {
			if (this.identities.size <= this.maxIdentities) return;
			if (identity.calls.size === 0 && identity.record.heldCalls.size === 0) this.drop(identity);
		}
	}

	private armIdle(identity: Identity): void {
		identity.idleTimer = setTimeout(() => this.drop(identity), this.idleMs);
		identity.idleTimer.unref();
	}

	private drop(identity: Identity): void {
		if (this.identities.get(identity.key) !== identity) return;
		clearTimeout(identity.idleTimer);
		this.identities.delete(identity.key);
		const release = this.options.release ?? ((_record, then) => then());
		release(identity.record, () => identity.record.remove());
	}

	/** How the engine reaches a modern client: log messages to its requests in flight, at each one's level. */
	private peer(identity: Identity): ClientPeer {
		return {
			request: async method => {
				throw new JsonRpcError(
					JsonRpcCode.MethodNotFound,
					`${method} cannot be sent to a 2026-07-28 client as a request: that generation has no server-to-client requests (they travel as input_required answers to the call that caused them)`,
				);
			},
			canReceiveUnrelated: () => false,
			log: params => {
				const level = params['level'];
				if (!isLoggingLevel(level)) return;
				for (const call of identity.calls) if (call.level !== undefined && severity(level) >= severity(call.level)) call.notify('notifications/message', params);
			},
			notify: (method, params) => {
				for (const call of identity.calls) call.notify(method, params ?? {});
			},
		};
	}
}
