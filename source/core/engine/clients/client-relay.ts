/**
 * The engine's side of what upstreams send their client. A request an
 * upstream makes of its client (sampling, elicitation, roots, or any other)
 * reaches only the client whose request caused it, and its answer returns
 * only there; where hangar cannot tell whose it is, the upstream gets an
 * error that says why, never another client's answer.
 *
 * - `SessionRelay`: the client side of a per-client instance. It has one
 *   client, so every request goes to that session and nowhere else, and it
 *   is told exactly the capabilities that client declared.
 * - `SharedRelay`: the client side of an instance every client shares. A
 *   request belongs to a client when that client's calls are the only ones
 *   in flight on the instance (`CallersInFlight`); outside any call, or
 *   with calls of several clients in flight, it is refused. With
 *   "instances": "auto" the first such request teaches the supervisor that
 *   the upstream is client-scoped (`instance-mode.ts`): from then on each
 *   client session gets its own instance.
 *
 * Log messages go to the sessions that asked for them (a per-client
 * instance's to its own session only).
 */
import type {HangarError} from '../../base/errors.js';
import type {Logger} from '../../base/logger.js';
import {
	isLoggingLevel,
	relayedRequests,
	severity,
	type ClientCapability,
	type ClientSide,
	type LoggingLevel,
	type RelayOptions,
	type RelayedMethod,
} from '../../link/client-side.js';
import type {ClientRecord, ClientRegistry} from './clients.js';
import type {Caller, CallersInFlight} from './calls-in-flight.js';
import type {InstancesSetting} from './instance-mode.js';
import {clientUnknown, noClientAnswer} from '../refusals.js';

/** A session's name in log lines and errors: `MCP client "cursor" (socket#3)`. */
function describeClient(record: ClientRecord): string {
	return record.name === null ? `the client of session ${record.label}` : `MCP client "${record.name}" (${record.label})`;
}

/** Sends an upstream's log message to one session, when its level admits it; `logger` names the upstream. */
function logTo(record: ClientRecord, server: string, params: Record<string, unknown>, level: LoggingLevel): void {
	if (record.peer === undefined || record.logLevel === undefined || severity(level) < severity(record.logLevel)) return;
	const own = params['logger'];
	record.peer.log({...params, logger: typeof own === 'string' && own !== '' ? `${server}/${own}` : server});
}

/** What a shared instance's relay needs of its upstream, read when a request arrives. */
export type SharedHost = {
	/** The config's "instances". */
	readonly setting: InstancesSetting;
	/** Whether the upstream already runs per client (an "auto" one that learned it, or "per-client": this is its template). */
	runsPerClient(): boolean;
	/** The calls in flight on this instance, by caller. */
	readonly callers: CallersInFlight;
	/** The upstream sent a client-scoped request: an "auto" one runs per client from now on. */
	clientScoped(method: RelayedMethod): void;
};

/**
 * What a shared instance is told its client can do: only what hangar can
 * honour for whichever client it would ask. Form elicitation and plain
 * sampling reach the caller when it declared them. Roots never: one client's
 * roots would scope the instance for all of them. An "auto" upstream is told
 * roots too, so that an upstream that scopes itself by roots asks at once and
 * is moved to per-client instances before it serves anyone. Tasks: sampling
 * and elicitation may come as tasks (a client without `tasks` answers them
 * as plain requests, as the protocol says), and the upstream's tasks/*
 * about them go to the caller like the request did.
 */
const sharedTasks = {list: {}, cancel: {}, requests: {sampling: {createMessage: {}}, elicitation: {create: {}}}};
const sharedCapabilities: Record<'auto' | 'shared', Record<string, unknown>> = {
	auto: {sampling: {}, elicitation: {}, roots: {listChanged: true}, tasks: sharedTasks},
	shared: {sampling: {}, elicitation: {}, tasks: sharedTasks},
};

export class SharedRelay implements ClientSide {
	constructor(
		private readonly clients: ClientRegistry,
		private readonly host: SharedHost,
		private readonly logger: Logger,
	) {}

	get capabilities(): Record<string, unknown> {
		// A per-client template runs only to learn its tools: it is told what "auto" is told, so it lists what a capable client sees.
		return this.host.setting === 'shared' ? sharedCapabilities.shared : sharedCapabilities.auto;
	}

	async request(server: string, method: RelayedMethod, params: Record<string, unknown> | undefined, options: RelayOptions): Promise<Record<string, unknown>> {
		const host = this.host;
		const capability = relayedRequests[method];
		const wasShared = !host.runsPerClient();
		if (host.setting === 'auto') host.clientScoped(method);
		const learned = host.setting === 'auto' && wasShared;
		const cause = this.causeOf(server, options);
		if ('why' in cause) {
			const hint =
				host.setting === 'shared'
					? `Set "instances": "auto" or "per-client" for "${server}" in the config, so each client session gets its own instance and every request it sends has one client.`
					: learned
						? `"${server}" runs one instance per client session from now on ("instances": "auto" learned it from this request); retry the call that caused it.`
						: `Each client session gets its own instance of "${server}": a request it sends from there reaches its own client.`;
			throw this.refuse(server, method, cause.why, hint);
		}

		const {client} = cause.caller;
		if (method === 'roots/list' && host.setting === 'shared') {
			throw this.refuse(server, method, `it runs one instance for every client ("instances": "shared"), and one client's roots would scope it for all of them`, `Set "instances": "auto" or "per-client" for "${server}" in the config, so each client session's instance gets that client's roots.`);
		}

		if (client.peer === undefined) throw this.unable(server, method, capability, `${describeClient(client)}, whose call it belongs to, has disconnected`);
		if (!client.capabilities.has(capability)) throw this.unable(server, method, capability, `${describeClient(client)}, whose call it belongs to, did not declare the "${capability}" capability`);
		this.logger.debug(`relaying ${method} from upstream "${server}" to ${describeClient(client)}, for its call ${JSON.stringify(cause.caller.requestId)}`);
		return client.peer.request(method, params, {signal: options.signal, relatedRequestId: cause.caller.requestId, onProgress: options.onProgress});
	}

	/** The call the request belongs to, or why hangar cannot tell. */
	private causeOf(server: string, options: RelayOptions): {caller: Caller} | {why: string} {
		if (options.origin?.kind === 'outside') return {why: `it came outside any call (on the upstream's own event stream), so no client caused it`};
		if (options.origin?.kind === 'call') {
			const caller = options.origin.caller as Caller | undefined;
			return caller === undefined ? {why: 'it belongs to a call hangar made itself, not a client'} : {caller};
		}

		const sessions = this.host.callers.sessions();
		if (sessions.length === 0) return {why: `no client has a call to "${server}" in flight, so no client caused it`};
		if (sessions.length > 1) {
			return {why: `calls of ${sessions.length} clients (${sessions.map(describeClient).join(', ')}) are in flight on its shared instance, and nothing in the request says which one it belongs to`};
		}

		return {caller: this.host.callers.latestOf(sessions[0]!)!};
	}

	/**
	 * Sends the message to every session whose level admits it, with `logger`
	 * naming the upstream: "<server>", or "<server>/<its own logger>".
	 */
	log(server: string, params: Record<string, unknown>): void {
		const level = params['level'];
		if (!isLoggingLevel(level)) return;
		for (const record of this.clients.sessions()) logTo(record, server, params, level);
	}

	get logLevel(): LoggingLevel | undefined {
		return this.clients.logLevel;
	}

	onLogLevel(listener: (level: LoggingLevel | undefined) => void): () => void {
		this.clients.on('logLevel', listener);
		return () => this.clients.off('logLevel', listener);
	}

	/** A shared instance is told no roots (see `sharedCapabilities`): a client's roots changing is not its business. */
	onRootsChanged(_listener: () => void): () => void {
		return () => {};
	}

	private refuse(server: string, method: RelayedMethod, why: string, hint: string): HangarError {
		this.logger.info(`upstream "${server}" sent ${method}, answered with an error: hangar cannot tell which client it belongs to: ${why}`);
		return clientUnknown(server, method, why, hint, {clients: [...this.clients.sessions()].length, instances: this.host.setting});
	}

	private unable(server: string, method: RelayedMethod, capability: ClientCapability, why: string): HangarError {
		this.logger.info(`upstream "${server}" sent ${method}, answered with an error: ${why}`);
		return noClientAnswer(server, method, capability, why, {clients: [...this.clients.sessions()].length});
	}
}

/** What a per-client instance is told its client can do: exactly what that client declared at initialize (`tasks` included: its tasks/* requests are relayed). */
export function sessionCapabilities(declared: Readonly<Record<string, unknown>>): Record<string, unknown> {
	return {...declared};
}

/** The client side of one per-client instance: its own session, nobody else. */
export class SessionRelay implements ClientSide {
	constructor(
		private readonly clients: ClientRegistry,
		private readonly record: ClientRecord,
		/** The instance's name, for messages (`<server>#<n>`). */
		private readonly instance: string,
		private readonly logger: Logger,
	) {}

	get capabilities(): Record<string, unknown> {
		return sessionCapabilities(this.record.declaredCapabilities);
	}

	async request(server: string, method: RelayedMethod, params: Record<string, unknown> | undefined, options: RelayOptions): Promise<Record<string, unknown>> {
		const capability = relayedRequests[method];
		const {record} = this;
		const who = record.name === null ? `its client (${record.label})` : `its client "${record.name}" (${record.label})`;
		if (record.peer === undefined) throw this.refuse(method, capability, `${who} has disconnected`);
		if (!record.capabilities.has(capability)) throw this.refuse(method, capability, `${who} did not declare the "${capability}" capability`);
		// The session's call in flight to this server, if any: over HTTP the request then travels on that call's stream.
		const relatedRequestId = record.callTo(server)?.requestId;
		this.logger.debug(`relaying ${method} from per-client instance "${this.instance}" to ${who}`);
		return record.peer.request(method, params, {signal: options.signal, relatedRequestId, onProgress: options.onProgress});
	}

	log(server: string, params: Record<string, unknown>): void {
		const level = params['level'];
		if (isLoggingLevel(level)) logTo(this.record, server, params, level);
	}

	notify(method: string, params: Record<string, unknown> | undefined): void {
		this.record.peer?.notify(method, params);
	}

	get logLevel(): LoggingLevel | undefined {
		return this.record.logLevel;
	}

	onLogLevel(listener: (level: LoggingLevel | undefined) => void): () => void {
		const onSession = (record: ClientRecord): void => {
			if (record === this.record) listener(record.logLevel);
		};

		this.clients.on('sessionLogLevel', onSession);
		return () => this.clients.off('sessionLogLevel', onSession);
	}

	onRootsChanged(listener: () => void): () => void {
		const onRoots = (record: ClientRecord | undefined): void => {
			if (record === undefined || record === this.record) listener();
		};

		this.clients.on('rootsChanged', onRoots);
		return () => this.clients.off('rootsChanged', onRoots);
	}

	private refuse(method: RelayedMethod, capability: ClientCapability, why: string): HangarError {
		this.logger.info(`per-client instance "${this.instance}" sent ${method}, answered with an error: ${why}`);
		return noClientAnswer(this.instance, method, capability, why, {clients: 1, capableClients: this.record.capabilities.has(capability) ? 1 : 0});
	}
}
