/**
 * The engine's side of what upstreams send their client: hangar stands in
 * for one client to many upstreams, so each request an upstream makes of
 * its client (sampling, elicitation, roots) is handed to one of hangar's
 * client sessions, and each log message to the sessions that asked for it.
 * Which session answers is `ClientRegistry.answererFor`'s rule; how the
 * request reaches the client is the session's business (`ClientPeer`).
 * An instance of a per-client server has one client only: `SessionRelay`
 * sends its requests and log messages to its own session and nowhere else,
 * and passes it only that session's level and roots changes.
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
import {noClientAnswer} from '../refusals.js';

export class ClientRelay implements ClientSide {
	constructor(
		private readonly clients: ClientRegistry,
		private readonly logger: Logger,
	) {}

	async request(server: string, method: RelayedMethod, params: Record<string, unknown> | undefined, options: RelayOptions): Promise<Record<string, unknown>> {
		const capability = relayedRequests[method];
		const answerer = this.clients.answererFor(server, capability);
		if (answerer === undefined) throw this.noAnswerer(server, method, capability);
		const {record, relatedRequestId} = answerer;
		const who = `${record.name === null ? 'a client' : `MCP client "${record.name}"`} (${record.label})`;
		this.logger.debug(`relaying ${method} from upstream "${server}" to ${who}${relatedRequestId === undefined ? '' : `, for its call ${JSON.stringify(relatedRequestId)}`}`);
		return record.peer.request(method, params, {signal: options.signal, relatedRequestId, onProgress: options.onProgress});
	}

	/**
	 * Sends the message to every session whose level admits it, with `logger`
	 * naming the upstream: "<server>", or "<server>/<its own logger>".
	 */
	log(server: string, params: Record<string, unknown>): void {
		const level = params['level'];
		if (!isLoggingLevel(level)) return;
		let message: Record<string, unknown> | undefined;
		for (const record of this.clients.sessions()) {
			if (record.peer === undefined || record.logLevel === undefined || severity(level) < severity(record.logLevel)) continue;
			const own = params['logger'];
			message ??= {...params, logger: typeof own === 'string' && own !== '' ? `${server}/${own}` : server};
			record.peer.log(message);
		}
	}

	get logLevel(): LoggingLevel | undefined {
		return this.clients.logLevel;
	}

	onLogLevel(listener: (level: LoggingLevel | undefined) => void): () => void {
		this.clients.on('logLevel', listener);
		return () => this.clients.off('logLevel', listener);
	}

	onRootsChanged(listener: () => void): () => void {
		this.clients.on('rootsChanged', listener);
		return () => this.clients.off('rootsChanged', listener);
	}

	/** Why nobody can answer, in words that say what would make it work. */
	private noAnswerer(server: string, method: RelayedMethod, capability: ClientCapability): HangarError {
		const sessions = [...this.clients.sessions()];
		const capable = sessions.filter(record => record.capabilities.has(capability));
		const names = (records: typeof sessions) => records.map(record => (record.name === null ? record.label : `"${record.name}"`)).join(', ');
		let why: string;
		if (sessions.length === 0) why = 'no MCP client is connected to hangar';
		else if (capable.length === 0) why = `none of the connected clients (${names(sessions)}) declared the "${capability}" capability`;
		else why = `the clients that declared "${capability}" (${names(capable)}) cannot take a request now: none has a call to "${server}" in flight, and an HTTP client needs its GET event stream open for requests outside a call`;
		this.logger.info(`upstream "${server}" sent ${method}, answered with an error: ${why}`);
		return noClientAnswer(server, method, capability, why, {clients: sessions.length, capableClients: capable.length});
	}
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
		const {record} = this;
		if (!isLoggingLevel(level) || record.peer === undefined || record.logLevel === undefined || severity(level) < severity(record.logLevel)) return;
		const own = params['logger'];
		record.peer.log({...params, logger: typeof own === 'string' && own !== '' ? `${server}/${own}` : server});
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
