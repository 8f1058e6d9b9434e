/**
 * The engine's side of what upstreams send their client: hangar stands in
 * for one client to many upstreams, so each request an upstream makes of
 * its client (sampling, elicitation, roots) is handed to one of hangar's
 * client sessions, and each log message to the sessions that asked for it.
 * Which session answers is `ClientRegistry.answererFor`'s rule; how the
 * request reaches the client is the session's business (`ClientPeer`).
 */
import type {HangarError} from '../base/errors.js';
import type {Logger} from '../base/logger.js';
import {
	isLoggingLevel,
	relayedRequests,
	severity,
	type ClientCapability,
	type ClientSide,
	type LoggingLevel,
	type RelayOptions,
	type RelayedMethod,
} from '../upstream/client-side.js';
import type {ClientRegistry} from './clients.js';
import {noClientAnswer} from './refusals.js';

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
