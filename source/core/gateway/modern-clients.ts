/**
 * Who a modern (2026-07-28) request comes from. Such a request has no
 * session and no client instance id: each one carries its clientInfo and
 * capabilities in `_meta`. Yet per-client upstreams ("instances":
 * "per-client", or "auto" once learned) and whatever hangar keeps per client
 * (its log level, an MRTR requestState) need a client to belong to. A modern
 * client's identity is derived once, here (`modernClientKey`), from what the
 * client shows on its endpoint plus the clientInfo and capabilities it
 * declares on the request:
 *
 * - on stdio and the local socket, the connection (one connection is one
 *   client, as a 2025 session is);
 * - over HTTP, what the client shows on every request: the bearer token (or
 *   its absence) and the peer address. Not the TCP connection: a real client
 *   pools connections and any request may come on any of them (the SDK's
 *   `subscriptions/listen` holds one open, so its other requests come on
 *   others). Two copies of the same client software, with the same token,
 *   from the same address, are one identity: they are indistinguishable, as
 *   they would be to a stateless upstream directly.
 *
 * One identity's requests share one instance of each per-client upstream.
 * Two clients that differ in token, address, clientInfo or capabilities
 * (or, on stdio, connection) never share an identity.
 *
 * Each identity is a `ClientRecord` in the supervisor's list of clients, so
 * the engine treats it as it treats a session: its per-client instances are
 * started for it, and they stop when it goes. It goes when it has had no
 * request in flight for `idleMs` (over HTTP no connection of its ends it:
 * it may come back on a new one), when its endpoint closes (its stdio or
 * socket connection), or when more than `maxIdentities` are kept (the
 * least recently used idle one first): memory stays bounded whatever
 * clients send.
 *
 * An identity may have several requests in flight at once (over HTTP, on
 * several connections). What is routed to "the call that caused it" is
 * bound to that request, never merely to the identity: an upstream's
 * question goes into the `input_required` answer of the held call it came
 * during (held-inputs.ts; the relays refuse it when an identity has several
 * calls in flight on the instance and nothing says which one asked), a
 * listen's notifications go on the listen's own stream, and log messages go
 * only to requests in flight to the upstream that logged (only to the
 * request whose call it came with, when the upstream's stream says so).
 *
 * It also carries the per-request log level (`io.modelcontextprotocol/logLevel`
 * in `_meta`, replacing logging/setLevel): the identity's record asks the
 * upstreams for the most verbose level any of its requests carried (kept,
 * as a 2025 session's setLevel is, until the identity goes), and an
 * upstream's `notifications/message` goes to each of its requests in flight
 * to that upstream whose level admits it, tied to that request (on HTTP,
 * its own stream).
 */
import {createHash} from 'node:crypto';
import {JsonRpcCode, JsonRpcError} from '../base/errors.js';
import type {ClientPeer, ClientRecord, ClientRegistry, ClientTransport} from '../engine/clients/clients.js';
import {canonicalJson} from '../base/canonical-json.js';
import {isLoggingLevel, severity, type LoggingLevel} from '../link/client-side.js';
import type {ModernRequest} from './protocol-era.js';

/**
 * The identity of the client that sent modern request `request` from
 * `shown` (an opaque key for what the endpoint sees of the client: the
 * stdio or socket connection; over HTTP the token and peer address): the
 * one function every part that keeps something per modern client uses
 * (per-client instances, log levels, requestState binding).
 */
export function modernClientKey(shown: string, request: Pick<ModernRequest, 'clientInfo' | 'capabilities'>): string {
	const info = request.clientInfo === undefined ? null : [request.clientInfo.name, request.clientInfo.version];
	return createHash('sha256').update(canonicalJson([shown, info, request.capabilities])).digest('base64url').slice(0, 32);
}

/** The identity key of the record a modern client's requests are served as, made here; undefined for any other record. */
const keys = new WeakMap<ClientRecord, string>();

/** The identity key of `record` when it is a modern client's (see `modernClientKey`). */
export function identityKeyOf(record: ClientRecord): string | undefined {
	return keys.get(record);
}

/** A request in flight of a modern client, as its identity reaches it: its JSON-RPC id, log level, and notifications tied to it. */
type ModernCall = {id: string | number; level: LoggingLevel | undefined; notify: (method: string, params: Record<string, unknown>) => void};

type Identity = {
	key: string;
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
	 * Binds modern request `request`, from a client that shows `shown`, to
	 * its client's identity (made on first use) for as long as it is in
	 * flight; `notify` sends a notification tied to the request (JSON-RPC
	 * id `id`).
	 */
	begin(shown: string, request: ModernRequest, notify: (method: string, params: Record<string, unknown>) => void, id: string | number): BoundRequest {
		const key = modernClientKey(shown, request);
		let identity = this.identities.get(key);
		if (identity === undefined) identity = this.create(key, request);
		else {
			// Most recently used last: the eviction order.
			this.identities.delete(key);
			this.identities.set(key, identity);
		}

		clearTimeout(identity.idleTimer);
		identity.idleTimer = undefined;
		const call: ModernCall = {id, level: isLoggingLevel(request.logLevel) ? request.logLevel : undefined, notify};
		identity.calls.add(call);
		// The upstreams are asked for the most verbose level the identity's requests carried (kept, not lowered per request).
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

	/** Every identity goes (the endpoint closes). */
	close(): void {
		for (const identity of [...this.identities.values()]) this.drop(identity);
	}

	private create(key: string, request: ModernRequest): Identity {
		const record = this.options.clients.add(this.options.kind, `${this.options.kind} ${request.revision} client #${++this.labels}`);
		record.protocolVersion = request.revision;
		if (request.clientInfo !== undefined) record.identify(request.clientInfo.name, request.clientInfo.version);
		// What its per-client instances are told it declared. Requests to it travel by input_required, not as requests.
		record.declaredCapabilities = request.capabilities;
		record.modern = true;
		keys.set(record, key);
		const identity: Identity = {key, record, calls: new Set(), idleTimer: undefined};
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

	/**
	 * The identity's requests in flight that are waiting on upstream
	 * `server`: those with a call to it in flight, directly or through a held
	 * call they are the current round of.
	 */
	private waitingOn(identity: Identity, server: string): Set<string | number> {
		const ids = new Set<string | number>();
		for (const id of identity.record.requestsTo(server)) {
			const held = identity.record.heldCalls.get(id);
			const round = held === undefined ? id : held.roundId;
			if (round !== undefined) ids.add(round);
		}

		return ids;
	}

	/** How the engine reaches a modern client: log messages to its requests in flight to the upstream that logged, at each one's level. */
	private peer(identity: Identity): ClientPeer {
		return {
			request: async method => {
				throw new JsonRpcError(
					JsonRpcCode.MethodNotFound,
					`${method} cannot be sent to a 2026-07-28 client as a request: that generation has no server-to-client requests (they travel as input_required answers to the call that caused them)`,
				);
			},
			canReceiveUnrelated: () => false,
			log: (params, server, requestId) => {
				const level = params['level'];
				if (!isLoggingLevel(level)) return;
				// Tied to the requests that caused it: another of the identity's requests (a listen, a call elsewhere) is not told.
				// With its call known (its stream carried it), that call's request only: the current round of a held call.
				const held = requestId === undefined ? undefined : identity.record.heldCalls.get(requestId);
				const own = held === undefined ? requestId : held.roundId;
				const waiting = requestId !== undefined ? new Set(own === undefined ? [] : [own]) : server === undefined ? undefined : this.waitingOn(identity, server);
				for (const call of identity.calls) {
					if (call.level === undefined || severity(level) < severity(call.level)) continue;
					if (waiting === undefined || waiting.has(call.id)) call.notify('notifications/message', params);
				}
			},
			notify: (method, params) => {
				for (const call of identity.calls) call.notify(method, params ?? {});
			},
		};
	}
}
