/**
 * What an upstream connection needs from hangar's client side, in plain
 * types: the requests an upstream may send its client (sampling, elicitation,
 * roots) are answered by whichever client session hangar picks, the
 * upstream's log messages go to the sessions that asked for them, and the
 * clients' wishes (the log level, a change of roots) reach every upstream.
 * The engine implements it (`engine/clients/client-relay.ts`); the connection only
 * asks, so neither side knows the other's internals and the engine never
 * touches the SDK.
 */

/**
 * The server→client requests hangar relays, and the client capability each
 * needs. The tasks methods are an upstream asking about a task its client
 * runs for it (a task-augmented sampling or elicitation request: the
 * client's CreateTaskResult, then the upstream polls): they go where the
 * request that created the task went, under the same rules.
 */
export const relayedRequests = {
	'sampling/createMessage': 'sampling',
	'elicitation/create': 'elicitation',
	'roots/list': 'roots',
	'tasks/get': 'tasks',
	'tasks/result': 'tasks',
	'tasks/list': 'tasks',
	'tasks/cancel': 'tasks',
} as const;

export type RelayedMethod = keyof typeof relayedRequests;

/** A client capability that lets a client answer one kind of relayed request. */
export type ClientCapability = (typeof relayedRequests)[RelayedMethod];

export function isRelayedMethod(method: string): method is RelayedMethod {
	return Object.hasOwn(relayedRequests, method);
}

/**
 * What one relayed request needs of its client, beyond the capability of
 * its kind: sampling that offers the model tools needs `sampling.tools`;
 * elicitation needs its mode, `elicitation.form` (the default mode) or
 * `elicitation.url`. A client that declared `elicitation: {}` supports form
 * only, as the 2025-11-25 spec reads an empty object.
 */
export type NeededCapability = {capability: ClientCapability; feature: 'tools' | 'form' | 'url' | undefined};

export function neededCapability(method: RelayedMethod, params: Readonly<Record<string, unknown>> | undefined): NeededCapability {
	const capability = relayedRequests[method];
	if (method === 'sampling/createMessage') return {capability, feature: params?.['tools'] !== undefined || params?.['toolChoice'] !== undefined ? 'tools' : undefined};
	if (method === 'elicitation/create') return {capability, feature: params?.['mode'] === 'url' ? 'url' : 'form'};
	return {capability, feature: undefined};
}

/** Whether capabilities as a client declared them at initialize cover what a request needs. */
export function declares(declared: Readonly<Record<string, unknown>>, need: NeededCapability): boolean {
	const own = declared[need.capability];
	if (own === null || typeof own !== 'object') return false;
	if (need.feature === undefined) return true;
	const features = own as Record<string, unknown>;
	// `elicitation: {}` is form-only (the spec's reading of an empty object, kept for clients from before modes).
	if (need.capability === 'elicitation' && need.feature === 'form' && Object.keys(features).length === 0) return true;
	const feature = features[need.feature];
	return feature !== null && typeof feature === 'object';
}

/** "sampling.tools", "elicitation.url", or the capability alone: for messages. */
export function describeNeed(need: NeededCapability): string {
	return need.feature === undefined ? need.capability : `${need.capability}.${need.feature}`;
}

/** MCP's log levels, from the most verbose to the least (RFC 5424 severities). */
export const loggingLevels = ['debug', 'info', 'notice', 'warning', 'error', 'critical', 'alert', 'emergency'] as const;

export type LoggingLevel = (typeof loggingLevels)[number];

export function isLoggingLevel(value: unknown): value is LoggingLevel {
	return typeof value === 'string' && (loggingLevels as readonly string[]).includes(value);
}

/** Lower is more verbose. */
export function severity(level: LoggingLevel): number {
	return loggingLevels.indexOf(level);
}

export type RelayOptions = {
	/** Aborted when the upstream cancels its request (or its connection closes). */
	signal: AbortSignal;
	/** Called with each progress notification's params (without the token) the client sends about the request. */
	onProgress?: ((params: Record<string, unknown>) => void) | undefined;
	/**
	 * What the upstream's transport says the request belongs to: a call hangar
	 * sent (`caller`: that call's, as the engine gave it), or nothing but the
	 * upstream itself (its own event stream). Undefined: the transport says
	 * nothing (stdio).
	 */
	origin?: {kind: 'call'; caller: unknown} | {kind: 'outside'} | undefined;
	/** A modern upstream's own key for this input request (link/input-rounds.ts): a 2026-07-28 client is asked under it, as it would be directly. */
	inputKey?: string | undefined;
	/**
	 * How many requests hangar sent the upstream on its own are in flight as
	 * the request arrives (initialize, list reads; pings and logging/setLevel are not counted):
	 * no client caused them, so a message that came while one ran may be
	 * that request's, not a client's).
	 */
	hangarRequests?: number | undefined;
};

export type ClientSide = {
	/**
	 * The client capabilities the upstream is told at `initialize` (the
	 * `capabilities` of its Client): read once per connection, when it opens.
	 */
	readonly capabilities: Record<string, unknown>;
	/**
	 * The `clientInfo` the upstream is told at `initialize`, when the
	 * connection is one client's own (a per-client instance: its client's, as
	 * it would be directly); absent or undefined: hangar's own.
	 */
	readonly clientInfo?: Readonly<Record<string, unknown>> | undefined;
	/**
	 * The 2025 protocol version the upstream is asked for at `initialize`,
	 * when the connection is one client's own (a per-client instance: the
	 * version its client negotiated with hangar, as it would ask directly);
	 * absent or undefined: hangar's latest.
	 */
	readonly protocolVersion?: string | undefined;
	/**
	 * The capabilities a modern upstream is told in the `_meta` of one call's
	 * requests, when they are the calling client's own rather than
	 * `capabilities` (an era twin's: each 2026-07-28 client declares its own,
	 * as it would to the upstream directly); absent or undefined: `capabilities`.
	 */
	capabilitiesOf?(caller: unknown): Record<string, unknown> | undefined;
	/**
	 * Relays a request of upstream `server` to a client that can answer it;
	 * resolves with the client's result. Rejects with a JsonRpcError when the
	 * client answered with an error (it goes back to the upstream as it came),
	 * or a HangarError when no client could be asked or the one asked went
	 * away.
	 */
	request(server: string, method: RelayedMethod, params: Record<string, unknown> | undefined, options: RelayOptions): Promise<Record<string, unknown>>;
	/**
	 * A notification that completes a relayed request (`notifications/elicitation/complete`
	 * of URL elicitation), for the client that got the request; absent: dropped.
	 */
	notify?(method: string, params: Record<string, unknown> | undefined): void;
	/**
	 * An upstream's `notifications/message` params, for the sessions whose
	 * level admits it; with `caller` (the call whose stream carried it, as
	 * the engine gave it), for that call's client only. `hangarRequests`: as
	 * in `RelayOptions`, when it arrived.
	 */
	log(server: string, params: Record<string, unknown>, caller?: unknown, hangarRequests?: number): void;
	/** The most verbose level any session asked for with `logging/setLevel`; undefined while none did. */
	readonly logLevel: LoggingLevel | undefined;
	/** Tells `listener` about changes of `logLevel`; returns the unsubscribe. */
	onLogLevel(listener: (level: LoggingLevel | undefined) => void): () => void;
	/** Tells `listener` when a client sent `notifications/roots/list_changed`; returns the unsubscribe. */
	onRootsChanged(listener: () => void): () => void;
};
