/**
 * The transport to a remote upstream: Streamable HTTP, falling back to SSE
 * when its config says "auto", with the URL's credentials sent as HTTP
 * Basic auth. An upstream whose config sets no Authorization header gets
 * hangar's own OAuth access token when it has signed in (oauth-bearer.ts);
 * one that answers 401 without a sign-in needs one, and no other transport
 * is tried. An upstream that answers 404 (or a 400 naming the session) to
 * hangar's session lost it: the connection is closed, so the upstream
 * restarts with a new session. One of the few modules that import the MCP
 * SDK.
 */
import {SSEClientTransport, StreamableHTTPClientTransport, type Client, type Transport} from '@modelcontextprotocol/client';
import {withTraceHeaders} from './trace-headers.js';
import {maskText} from '../base/secret-mask.js';
import type {ServerConfig} from '../config/read-config.js';
import {defaults} from '../config/config-schema.js';
import type {LogBuffer} from './log-buffer.js';
import type {StreamOrigins} from './stream-origins.js';
import {OAuthBearer, signInNeededIn} from './oauth-bearer.js';
import {boundedFetch} from './bounded-fetch.js';
import {HttpWitness} from './http-witness.js';

/** Connect without the SDK's own request timeout: hangar's start timeout (an abort signal) applies. */
export const NO_SDK_TIMEOUT = 2_147_000_000;

/** Connects `client` to the remote upstream of `config`, trying each transport its config allows. */
export async function connectRemote(
	config: ServerConfig,
	client: Client,
	log: LogBuffer,
	signal: AbortSignal,
	origins: StreamOrigins,
	onSignInNeeded: (reason: string) => void = () => {},
): Promise<Transport> {
	if (config.launch.kind !== 'remote') throw new Error('not a remote server');
	const url = new URL(config.launch.url);
	const headers = {...config.launch.headers};
	if (url.username !== '' || url.password !== '') {
		// fetch refuses a URL with credentials (and names the URL in its error): send them as HTTP Basic
		// auth, as a browser or curl would, unless the config sets its own Authorization header.
		const hasAuthorization = Object.keys(headers).some(name => name.toLowerCase() === 'authorization');
		if (!hasAuthorization) {
			headers['Authorization'] = `Basic ${Buffer.from(`${decodeURIComponent(url.username)}:${decodeURIComponent(url.password)}`).toString('base64')}`;
		}

		url.username = '';
		url.password = '';
	}

	const requestInit: RequestInit = {headers};
	// A configured Authorization header is the person's choice of credentials; otherwise hangar's own sign-in (if any) is used.
	const configuredAuthorization = Object.keys(headers).some(name => name.toLowerCase() === 'authorization');
	const bearer = configuredAuthorization || config.launch.auth === undefined ? undefined : new OAuthBearer(config.name, config.launch.url, config.launch.auth, log, onSignInNeeded, headers);
	const withAuth = (base: typeof fetch): typeof fetch => (bearer === undefined ? base : bearer.wrap(base));
	// hangar.maxUpstreamMessageBytes, per message, as for a stdio upstream's lines (bounded-fetch.ts).
	const witness = new HttpWitness();
	const bounded = boundedFetch(witness.wrap(fetch, url), config.name, config.maxUpstreamMessageBytes ?? defaults.maxUpstreamMessageBytes, log);
	const order = config.launch.transport === 'auto' ? (['streamable-http', 'sse'] as const) : [config.launch.transport];
	const failures: string[] = [];
	let answered = false;
	for (const kind of order) {
		signal.throwIfAborted();
		witness.watch(kind);
		// A request's trace context in _meta goes in its HTTP headers too (trace-headers.ts).
		const lost = (): void => {
			log.push('hangar', 'the upstream no longer knows hangar\'s session (HTTP 404, or 400 naming the session: it restarted, or ended the session): closing the connection, to start a new session');
			void transport.close();
		};

		const transport: Transport =
			kind === 'sse'
				? new SSEClientTransport(url, {requestInit, fetch: withAuth(withTraceHeaders(bounded))})
				: new StreamableHTTPClientTransport(url, {requestInit, fetch: withAuth(origins.wrap(withTraceHeaders(sessionWatch(bounded, lost))))});
		try {
			await client.connect(transport, {signal, timeout: NO_SDK_TIMEOUT});
			witness.stop();
			log.push('hangar', `connected to ${url.origin} over ${kind}`);
			return transport;
		} catch (error) {
			await transport.close().catch(() => {});
			// Another transport would meet the same 401: the upstream needs a sign-in, not a fallback.
			const signIn = signInNeededIn(error) ?? bearer?.lastNeeded;
			if (signIn !== undefined) throw signIn;
			witness.stop();
			// What the HTTP layer saw says more than the SDK's codes (ERA_NEGOTIATION_FAILED, CLIENT_HTTP_NOT_IMPLEMENTED).
			const reason = witness.said ?? networkReason(error);
			answered ||= witness.answered;
			// Both transports meeting the same failure (a refused connection, a blocked port) say it once.
			const same = failures.length === 1 && failures[0]!.endsWith(`: ${reason}`);
			if (same) failures[0] = `${failures[0]!.slice(0, failures[0]!.length - reason.length - 2)} and ${kind}: ${reason}`;
			else failures.push(`${kind}: ${reason}`);
			log.push('hangar', `connecting over ${kind} failed: ${reason}`);
		}
	}

	const opening = answered ? `no MCP session could be opened at ${maskText(config.launch.url)}` : `cannot connect to ${maskText(config.launch.url)}`;
	throw new Error(`${opening} (${failures.join('; ')})`);
}

/**
 * `base`, calling `lost` when a request of hangar's session (one with an
 * Mcp-Session-Id) is answered HTTP 404: the server no longer knows the
 * session, and the Streamable HTTP transport says the client must start a
 * new one. Closing the connection does: the upstream is restarted by the
 * usual policy, with a new `initialize`. Servers built on the SDK's example
 * (server-everything among them) answer an unknown session with 400 "No
 * valid session ID provided" instead: a 400 whose body says the session
 * is unknown counts too. The DELETE that ends a session (hangar's own close)
 * is not watched.
 */
function sessionWatch(base: typeof fetch, lost: () => void): typeof fetch {
	return async (input, init) => {
		const response = await base(input, init);
		if ((response.status !== 404 && response.status !== 400) || init?.method === 'DELETE' || !new Headers(init?.headers).has('mcp-session-id')) return response;
		if (response.status === 404 || unknownSession(await response.clone().text().catch(() => ''))) lost();
		return response;
	};
}

/** A 400 body that says the session is not known ("No valid session ID provided", "Session not found", "invalid or expired session"). */
function unknownSession(body: string): boolean {
	return /session/i.test(body) && /\b(no valid|invalid|unknown|not found|expired|terminated)\b/i.test(body);
}

/** The most specific reason in an error chain (fetch hides ECONNREFUSED in `cause`). */
function networkReason(error: unknown): string {
	const parts: string[] = [];
	let current: unknown = error;
	for (let depth = 0; current !== undefined && current !== null && depth < 4; depth++) {
		const record = current as {message?: unknown; code?: unknown; cause?: unknown};
		if (typeof record.code === 'string') parts.push(record.code);
		else if (typeof record.message === 'string' && record.message !== '') parts.push(record.message);
		current = record.cause;
	}

	return parts.length > 0 ? parts.join(': ') : String(error);
}
