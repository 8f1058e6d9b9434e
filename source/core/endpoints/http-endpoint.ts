/**
 * The HTTP endpoint (`mcp-hangar serve --http`, `tui --http`): the same
 * gateway as `--stdio` and the local socket, served at `/mcp` by the
 * Streamable HTTP transport of http-session.ts. A modern (2026-07-28)
 * request, which carries its version and capabilities in its `_meta`, needs
 * no session and is served on its own (http-modern.ts). Each MCP session (opened by `initialize`,
 * named by its Mcp-Session-Id) is one GatewaySession with its own protocol
 * state machine; `hangar/command` is never served here.
 *
 * Around the transport it adds what a network endpoint needs:
 * - a bearer token (from --token-file or MCP_HANGAR_TOKEN), compared in
 *   constant time; listening beyond loopback without one is refused, and on
 *   loopback the Host header must name loopback (DNS rebinding);
 * - on every address, a browser's Origin must be allowed
 *   (hangar.httpAllowedOrigins, or a loopback page on a loopback endpoint),
 *   and an allowed page gets CORS (http-cors.ts);
 * - its own reading of the body, by the JSON-RPC rule every endpoint uses
 *   (message-classifier.ts), so malformed input gets a 400 whose JSON-RPC
 *   error says what was wrong (with the id as received), and a 413 past
 *   hangar.maxMessageBytes; a request that reuses the id of one still in
 *   flight in its session gets a 400 too; a batch is read member by member
 *   for a session that negotiated 2025-03-26, the one version with batches;
 * - X-Correlation-ID on every response (the client's, or a new one), in the
 *   request's log line and in the log lines of the upstream call it made;
 * - a server-side deadline per call (hangar.httpCallTimeoutSeconds), shorter
 *   than the usual client timeout;
 * - sessions with no request open for hangar.httpSessionIdleSeconds closed,
 *   and at most maxHttpSessions kept (http-session-cap.ts);
 * - unauthenticated `/healthz` and `/readyz` that reveal nothing else;
 * - Prometheus metrics at `/metrics`, behind the same token and Host/Origin
 *   checks as `/mcp` (metrics-endpoint.ts).
 */
import {createHash, randomUUID, timingSafeEqual} from 'node:crypto';
import {once} from 'node:events';
import fs from 'node:fs';
import http from 'node:http';
import net from 'node:net';
import {hostIsLoopback, isLoopbackHost} from './loopback-host.js';
import {ErrorCode, JsonRpcCode, errorMessage} from '../base/errors.js';
import {sequenceError} from '../gateway/connection-state.js';
import {GatewaySession, invalidInitialize} from '../gateway/session.js';
import {checkJsonRpcBody, checkJsonRpcMessage, isProblem, type CheckedMessage, type MessageProblem} from '../wire/message-classifier.js';
import {numbersRead, parseExact} from '../base/exact-json.js';
import type {Logger} from '../base/logger.js';
import {maskSecrets, maskedJson} from '../base/secret-mask.js';
import type {Supervisor} from '../engine/supervisor.js';
import {metricsOf, metricsPath, serveMetrics} from './metrics-endpoint.js';
import {metaWithTraceHeaders} from '../link/trace-headers.js';
import {refusedMediaType, sendJson, sendProblem, sendRpcError, type RequestRecord} from './http-replies.js';
import {HttpSessionTransport} from './http-session.js';
import {ModernEndpoint, modernHeaderRefusal} from './http-modern.js';
import {isModernVersion, requestEra} from '../gateway/protocol-era.js';
import {resumeBudget} from './sse-event-log.js';
import {makeRoomForSession} from './http-session-cap.js';
import {allowOrigin, answeredPreflight} from './http-cors.js';

export const mcpPath = '/mcp';

/** Where and how to listen, as the CLI resolved it. */
export type HttpListenOptions = {
	host: string;
	port: number;
	/** The bearer token clients must send; undefined: none (loopback only). */
	token: string | undefined;
	/** Where the token came from, for the log ("--token-file PATH", "MCP_HANGAR_TOKEN"). */
	tokenSource?: string | undefined;
};

/** The `--http` flags cannot work as given; the CLI prints the message and exits 2. */
export class HttpSetupError extends Error {
	override name = 'HttpSetupError';
}

export const minTokenLength = 16;


/**
 * Resolves the `--http` flags: the port, the token (`--token-file` wins over
 * MCP_HANGAR_TOKEN), and the refusal to listen beyond loopback without one.
 */
export function resolveHttpOptions(flags: {host?: string | undefined; port?: number | undefined; tokenFile?: string | undefined}, env: NodeJS.ProcessEnv): HttpListenOptions {
	const host = flags.host ?? '127.0.0.1';
	const port = flags.port ?? 8080;
	if (host.trim() === '') throw new HttpSetupError('--host needs an address or name to listen on, e.g. --host 127.0.0.1');
	if (!Number.isInteger(port) || port < 0 || port > 65_535) throw new HttpSetupError(`--port must be a whole number from 0 to 65535 (0: any free port), got ${port}`);
	let token: string | undefined;
	let tokenSource: string | undefined;
	if (flags.tokenFile !== undefined) {
		tokenSource = `--token-file ${flags.tokenFile}`;
		try {
			token = fs.readFileSync(flags.tokenFile, 'utf8').trim();
		} catch (error) {
			const code = (error as NodeJS.ErrnoException).code;
			throw new HttpSetupError(`cannot read the token file ${flags.tokenFile} (${code === 'ENOENT' ? 'no such file' : (code ?? errorMessage(error))}); write the token to it, e.g. openssl rand -hex 32 > ${flags.tokenFile}`);
		}

		if (token === '') throw new HttpSetupError(`the token file ${flags.tokenFile} is empty; write the token to it, e.g. openssl rand -hex 32 > ${flags.tokenFile}`);
	} else if (env['MCP_HANGAR_TOKEN'] !== undefined && env['MCP_HANGAR_TOKEN'] !== '') {
		token = env['MCP_HANGAR_TOKEN'].trim();
		tokenSource = 'MCP_HANGAR_TOKEN';
	}

	if (token !== undefined && (token.length < minTokenLength || /\s/.test(token))) {
		throw new HttpSetupError(
			`the token from ${tokenSource} must be at least ${minTokenLength} characters without spaces (got ${token.length}); generate one with: openssl rand -hex 32`,
		);
	}

	if (token === undefined && !isLoopbackHost(host)) {
		throw new HttpSetupError(
			`refusing to serve MCP over HTTP on ${host} without a token: anyone who can reach that address could call every upstream's tools. ` +
				'Set MCP_HANGAR_TOKEN or pass --token-file FILE, or listen on loopback only (--host 127.0.0.1)',
		);
	}

	return {host, port, token, tokenSource};
}

/** The client's X-Correlation-ID when it is a sane token, else a new one. */
function correlationIdOf(header: string | string[] | undefined): string {
	if (typeof header === 'string' && /^[\w.:@/+=-]{1,128}$/.test(header)) return header;
	return randomUUID();
}

/**
 * A body over the limit is still read, and thrown away, up to this many
 * bytes and for this long: a client that is still sending when the server
 * answers and closes gets EPIPE or a reset instead of the 413. Past either,
 * the answer goes out and the connection is closed anyway.
 */
export const drainLimits = {bytes: (limit: number) => Math.max(4 * limit, 16 * 1024 * 1024), ms: 10_000};

type Body = {text: string} | {tooLarge: true; bytes: number; drained: boolean};

/** Reads the body up to `limit` bytes; past it, reads and discards the rest (see drainLimits) and says so. */
async function readBody(req: http.IncomingMessage, limit: number): Promise<Body> {
	const declared = Number(req.headers['content-length'] ?? 0);
	const cap = drainLimits.bytes(limit);
	if (declared > cap) return {tooLarge: true, bytes: declared, drained: false};
	return new Promise(resolve => {
		const chunks: Buffer[] = [];
		let size = 0;
		let drainTimer: NodeJS.Timeout | undefined;
		const finish = (body: Body) => {
			clearTimeout(drainTimer);
			req.off('data', onData);
			req.off('end', onEnd);
			req.off('error', onEnd);
			resolve(body);
		};

		const onData = (chunk: Buffer) => {
			size += chunk.length;
			if (size <= limit) {
				chunks.push(chunk);
				return;
			}

			if (drainTimer === undefined) {
				chunks.length = 0;
				// A body that never ends while it is drained is answered anyway.
				drainTimer = setTimeout(() => finish({tooLarge: true, bytes: size, drained: false}), drainLimits.ms);
			}

			if (size > cap) finish({tooLarge: true, bytes: size, drained: false});
		};

		const onEnd = () => finish(size > limit ? {tooLarge: true, bytes: size, drained: true} : {text: Buffer.concat(chunks).toString('utf8')});
		req.on('data', onData);
		req.on('end', onEnd);
		req.on('error', onEnd);
	});
}

type HttpSession = {
	id: string;
	label: string;
	transport: HttpSessionTransport;
	gateway: GatewaySession;
	/** HTTP requests of this session open right now (a call's response stream, a GET stream). */
	open: number;
	/** When its last request closed (performance.now()). */
	quietSince: number;
	/** Armed while the session has no request open; it checks `quietSince` when it fires, so a request costs no timer of its own. */
	idleTimer: NodeJS.Timeout | undefined;
};

export type HttpEndpointOptions = HttpListenOptions & {
	supervisor: Supervisor;
	logger: Logger;
	/** How long a closing endpoint waits for calls in flight (default 5 s). */
	drainMs?: number;
};

export class HttpEndpoint {
	private readonly sessions = new Map<string, HttpSession>();
	private readonly logger: Logger;
	private readonly tokenHash: Buffer | undefined;
	private readonly secrets: string[];
	private sessionNumber = 0;
	/** What all sessions keep together for Last-Event-ID (resumeWindow.totalBytes). */
	private readonly resumeBudget = resumeBudget();
	private closing: Promise<void> | undefined;
	/** Modern (sessionless) requests: their clients' identities, open listens and calls (http-modern.ts). */
	private readonly modern: ModernEndpoint;

	private constructor(
		private readonly server: http.Server,
		/** The URL clients connect to, e.g. http://127.0.0.1:8080/mcp. */
		readonly url: string,
		private readonly options: HttpEndpointOptions,
	) {
		this.logger = options.logger.child('http');
		this.tokenHash = options.token === undefined ? undefined : createHash('sha256').update(options.token).digest();
		this.secrets = options.token === undefined ? [] : [options.token];
		this.modern = new ModernEndpoint(server, options);
		server.on('request', (req: http.IncomingMessage, res: http.ServerResponse) => {
			this.serve(req, res).catch((error: unknown) => {
				this.logger.error(`internal error serving ${req.method ?? '?'} ${req.url ?? '?'}: ${errorMessage(error)}`);
				sendRpcError(res, 500, JsonRpcCode.InternalError, 'Internal error in hangar\'s HTTP endpoint; the details are in hangar\'s log');
			});
		});
	}

	/** Listens on host:port; rejects with a message that says what to do when it cannot. */
	static async listen(options: HttpEndpointOptions): Promise<HttpEndpoint> {
		const server = http.createServer();
		const {host, port} = options;
		try {
			server.listen(port, host);
			await once(server, 'listening');
		} catch (error) {
			const code = (error as NodeJS.ErrnoException).code;
			const what =
				code === 'EADDRINUSE'
					? 'the port is in use by another process; pick another with --port'
					: code === 'EACCES'
						? 'permission denied (ports below 1024 need privileges); pick a port above 1024 with --port'
						: code === 'EADDRNOTAVAIL' || code === 'ENOTFOUND'
							? 'no network interface of this machine has that address; check --host'
							: errorMessage(error);
			throw new Error(`cannot serve MCP over HTTP on ${host}:${port}: ${what}`);
		}

		const address = server.address() as net.AddressInfo;
		const shown = net.isIPv6(address.address) ? `[${address.address}]` : address.address;
		const endpoint = new HttpEndpoint(server, `http://${shown}:${address.port}${mcpPath}`, options);
		server.on('error', error => endpoint.logger.error(`HTTP endpoint ${endpoint.url}: ${error.message}`));
		const auth = options.token === undefined ? 'no token (loopback only)' : `bearer token from ${options.tokenSource ?? 'the CLI'}`;
		endpoint.logger.info(`serving MCP over HTTP at ${endpoint.url} (${auth})`);
		return endpoint;
	}

	private async serve(req: http.IncomingMessage, res: http.ServerResponse): Promise<void> {
		const began = performance.now();
		const path = (req.url ?? '/').split('?')[0]!;
		const record: RequestRecord = {correlationId: correlationIdOf(req.headers['x-correlation-id']), method: req.method ?? '?', path};
		res.setHeader('X-Correlation-ID', record.correlationId);
		res.on('close', () => this.logRequest(record, res, performance.now() - began));
		if (path === '/healthz' || path === '/readyz') {
			this.serveProbe(req, res, path);
			return;
		}

		if (path === metricsPath) {
			if (this.checkOrigin(req, res) && !answeredPreflight(req, res, 'GET') && this.checkToken(req, res)) await serveMetrics(await metricsOf(this.options.supervisor), req, res);
			return;
		}

		if (path !== mcpPath) {
			sendJson(res, 404, {error: 'not_found', message: `Not found. MCP is served at ${mcpPath}.`});
			return;
		}

		if (!this.checkOrigin(req, res) || answeredPreflight(req, res, 'GET, POST, DELETE') || !this.checkToken(req, res)) return;
		if (this.closing !== undefined) {
			sendRpcError(res, 503, ErrorCode.ShuttingDown, 'hangar is shutting down and accepts no new requests; retry once it is running again', null, {Connection: 'close'});
			return;
		}

		await this.serveMcp(req, res, record);
	}

	/** Liveness and readiness: a status word, nothing else. */
	private serveProbe(req: http.IncomingMessage, res: http.ServerResponse, path: string): void {
		if (req.method !== 'GET' && req.method !== 'HEAD') {
			sendJson(res, 405, {error: 'method_not_allowed', message: `${path} answers GET only.`}, {Allow: 'GET, HEAD'});
			return;
		}

		if (path === '/healthz') sendJson(res, 200, {status: 'ok'});
		else if (this.closing === undefined) sendJson(res, 200, {status: 'ready'});
		else sendJson(res, 503, {status: 'shutting down'});
	}

	/**
	 * DNS rebinding and cross-site requests: on loopback, Host must name
	 * loopback (a page whose name resolves to 127.0.0.1 is refused); on any
	 * address, a request with an Origin header (a browser's) is refused unless
	 * that origin is in hangar.httpAllowedOrigins or, on a loopback endpoint,
	 * is a loopback page. Requests without Origin (non-browser clients) pass.
	 */
	private checkOrigin(req: http.IncomingMessage, res: http.ServerResponse): boolean {
		const loopback = isLoopbackHost(this.options.host);
		const host = req.headers.host;
		if (loopback && !hostIsLoopback(host)) {
			sendJson(res, 403, {
				error: 'forbidden_host',
				message: `Host header ${JSON.stringify(host ?? '')} is not a loopback name: this endpoint listens on loopback and accepts only localhost, 127.0.0.1 and [::1] (DNS rebinding protection).`,
			});
			return false;
		}

		const origin = req.headers.origin;
		if (origin === undefined) return true;
		let url: URL | undefined;
		try {
			url = new URL(origin);
		} catch {}

		const allowed = this.options.supervisor.config.hangar.httpAllowedOrigins;
		if (url !== undefined && (allowed.includes(url.origin) || (loopback && isLoopbackHost(url.hostname)))) return allowOrigin(res, origin);
		sendJson(res, 403, {
			error: 'forbidden_origin',
			message: `Origin ${JSON.stringify(origin)} is not allowed: web pages may call this endpoint only from ${loopback ? 'loopback origins or ' : ''}the origins in hangar.httpAllowedOrigins (${allowed.length === 0 ? 'none set' : allowed.join(', ')}). Add the page's origin there to allow it.`,
		});
		return false;
	}

	/** 401 with a JSON body that says whether the token was missing or wrong, and nothing else. */
	private checkToken(req: http.IncomingMessage, res: http.ServerResponse): boolean {
		if (this.tokenHash === undefined) return true;
		const header = req.headers.authorization;
		const bearer = header === undefined ? undefined : /^Bearer[ \t]+(\S+)[ \t]*$/i.exec(header)?.[1];
		if (bearer === undefined) {
			sendJson(
				res,
				401,
				{error: 'missing_token', message: header === undefined ? 'No bearer token: send the header "Authorization: Bearer <token>".' : 'The Authorization header is not a bearer token: send "Authorization: Bearer <token>".'},
				{'WWW-Authenticate': 'Bearer'},
			);
			return false;
		}

		// Hashing first makes both sides the same length, so the comparison leaks neither content nor length.
		if (!timingSafeEqual(createHash('sha256').update(bearer).digest(), this.tokenHash)) {
			sendJson(res, 401, {error: 'invalid_token', message: 'The bearer token is not valid.'}, {'WWW-Authenticate': 'Bearer error="invalid_token"'});
			return false;
		}

		return true;
	}

	private async serveMcp(req: http.IncomingMessage, res: http.ServerResponse, record: RequestRecord): Promise<void> {
		const method = req.method ?? '';
		if (method !== 'POST' && method !== 'GET' && method !== 'DELETE') {
			sendRpcError(res, 405, -32_000, `Method not allowed: ${mcpPath} answers POST (messages), GET (the session's event stream) and DELETE (end the session)`, null, {Allow: 'GET, POST, DELETE'});
			return;
		}

		let body: unknown;
		let message: CheckedMessage | undefined;
		let batch: Array<CheckedMessage | MessageProblem> | undefined;
		if (method === 'POST') {
			if (refusedMediaType(req, res, record)) return;
			const limit = this.options.supervisor.config.hangar.maxMessageBytes;
			const read = await readBody(req, limit);
			if ('tooLarge' in read) {
				sendRpcError(res, 413, ErrorCode.MessageTooLarge, `Message too large: the limit is ${limit} bytes (hangar.maxMessageBytes)`, null, {Connection: 'close'});
				return;
			}

			const {text} = read;
			batch = this.batchOf(text, req.headers['mcp-session-id']);
			if (batch?.length === 0) {
				sendRpcError(res, 400, JsonRpcCode.InvalidRequest, 'Invalid Request: the batch is empty; send at least one message');
				return;
			}

			if (batch !== undefined) {
				record.rpc = `batch of ${batch.length}`;
				if (this.logger.enabled('debug')) this.logger.debug('request body', {correlationId: record.correlationId, body: maskSecrets(text.slice(0, 2000), this.secrets)});
			} else {
				const checked = checkJsonRpcBody(text);
				if (isProblem(checked)) {
					if (this.logger.enabled('debug')) this.logger.debug('refused body', {correlationId: record.correlationId, body: maskSecrets(text.slice(0, 2000), this.secrets)});
					sendProblem(res, checked);
					return;
				}

				// W3C trace headers reach the upstream (and hangar's spans) through the request's _meta.
				if (checked.kind === 'request' && metaWithTraceHeaders(checked.value, req.headers)) checked.params = checked.value['params'] as Record<string, unknown>;
				message = checked;
				body = checked.value;
				record.rpc = checked.kind === 'response' ? 'response' : checked.method;
				if (checked.method === 'tools/call' && typeof checked.params?.['name'] === 'string') record.tool = checked.params['name'];
				if (this.logger.enabled('debug')) this.logger.debug('request body', {correlationId: record.correlationId, body: maskedJson(body, this.secrets)});
			}
		}

		// A modern (2026-07-28) request is served on its own, with or without a session: the era is read per request.
		if (message?.kind === 'request') {
			const misread = modernHeaderRefusal(message.method!, message.params, req.headers['mcp-protocol-version'], req.headers['mcp-session-id'] !== undefined);
			if (misread !== undefined) {
				record.rpcError = misread.code;
				sendJson(res, 400, {jsonrpc: '2.0', id: message.id ?? null, error: misread});
				return;
			}

			const era = requestEra(message.id!, message.method!, message.params);
			if (era.era === 'refused') {
				record.rpcError = era.code;
				sendJson(res, era.httpStatus, {jsonrpc: '2.0', id: message.id, error: {code: era.code, message: era.message, ...(era.data === undefined ? {} : {data: era.data})}});
				return;
			}

			if (era.era === 'modern') {
				await this.modern.serve(req, res, record, message as CheckedMessage & {id: string | number; method: string}, era.request);
				return;
			}
		}

		const sessionId = req.headers['mcp-session-id'];
		if (typeof sessionId === 'string') {
			const session = this.sessions.get(sessionId);
			if (session === undefined) {
				sendRpcError(
					res,
					404,
					-32_001,
					`Session not found: session ${sessionId} ended (idle longer than hangar.httpSessionIdleSeconds, deleted, or hangar restarted). Send "initialize" without an Mcp-Session-Id header to open a new one.`,
					message?.id ?? null,
				);
				return;
			}

			if (message?.kind === 'request' && message.method === 'initialize') {
				// The transport would refuse it before the session's guard sees it, with id null.
				const refused = sequenceError(session.gateway.connectionState, message.method);
				if (refused !== undefined) {
					record.session = session.label;
					record.rpcError = refused.code;
					sendJson(res, 400, {jsonrpc: '2.0', id: message.id, error: refused});
					return;
				}
			}

			await this.handleInSession(session, req, res, record, message, batch);
			return;
		}

		// A 2026-07-28 client's notification (the v2 SDK's cancel of a listen) has no session to go to: accepted, as that era's servers do.
		if (message?.kind === 'notification' && isModernVersion(String(req.headers['mcp-protocol-version'] ?? '').trim())) {
			res.writeHead(202).end();
			return;
		}

		if (message?.method !== 'initialize') {
			const refusal = 'Bad Request: no Mcp-Session-Id header. Open a session with "initialize" first, then send the Mcp-Session-Id header it returns with every request.';
			return sendRpcError(res, 400, -32_000, refusal, message?.id ?? null);
		}

		// Checked before a session is opened: a malformed initialize opens none.
		const invalid = invalidInitialize((body as {params?: unknown}).params);
		if (invalid !== undefined) {
			sendRpcError(res, 400, JsonRpcCode.InvalidParams, invalid, message.id ?? null);
			return;
		}

		const full = makeRoomForSession(this.sessions, this.logger);
		if (full !== undefined) return sendRpcError(res, 503, -32_000, full, message.id ?? null);
		const session = await this.openSession();
		await this.handleInSession(session, req, res, record, message);
		// Refused before initialize was read (e.g. a wrong Accept header): no session came of it.
		if (session.transport.sessionId === undefined) await session.gateway.close();
	}

	/**
	 * The members of a batch body, each checked as one message, when the
	 * session it names negotiated protocol 2025-03-26 (the one version with
	 * batches); undefined for anything else, which is then read as one message
	 * (and a batch refused as MCP 2025-06-18 and later require).
	 */
	private batchOf(text: string, sessionId: string | string[] | undefined): Array<CheckedMessage | MessageProblem> | undefined {
		if (typeof sessionId !== 'string' || this.sessions.get(sessionId)?.transport.takesBatches !== true) return undefined;
		const json = text.charCodeAt(0) === 0xfe_ff ? text.slice(1) : text;
		if (!json.trimStart().startsWith('[')) return undefined;
		let value: unknown;
		try {
			value = parseExact(json);
		} catch {
			return undefined;
		}

		return Array.isArray(value) ? value.map(member => checkJsonRpcMessage(numbersRead(member))) : undefined;
	}

	private async openSession(): Promise<HttpSession> {
		const {supervisor, logger} = this.options;
		const id = randomUUID();
		const label = `http#${++this.sessionNumber}`;
		const transport = new HttpSessionTransport(id, this.logger, this.secrets, this.resumeBudget);
		const gateway = new GatewaySession({
			supervisor,
			transport,
			logger: logger.child('gateway'),
			label,
			kind: 'http',
			callDeadline: {ms: supervisor.config.hangar.httpCallTimeoutMs, setting: 'httpCallTimeoutSeconds'},
		});
		const session: HttpSession = {id, label, transport, gateway, open: 0, quietSince: performance.now(), idleTimer: undefined};
		this.sessions.set(id, session);
		gateway.onClose(() => {
			clearTimeout(session.idleTimer);
			if (this.sessions.delete(id)) this.logger.info(`${label}: session closed`, {session: id});
		});
		await gateway.start();
		this.logger.info(`${label}: session opened`, {session: id});
		return session;
	}

	private async handleInSession(
		session: HttpSession,
		req: http.IncomingMessage,
		res: http.ServerResponse,
		record: RequestRecord,
		message: CheckedMessage | undefined,
		batch?: Array<CheckedMessage | MessageProblem>,
	): Promise<void> {
		record.session = session.label;
		session.open += 1;
		res.on('close', () => {
			session.open -= 1;
			session.quietSince = performance.now();
			if (session.open === 0 && session.idleTimer === undefined && this.sessions.has(session.id)) this.armIdle(session, this.options.supervisor.config.hangar.httpSessionIdleMs);
		});
		await session.transport.handle(req, res, record, message, batch);
	}

	/** An abandoned session (no request open for httpSessionIdleSeconds) is closed, and its calls cancelled. */
	private armIdle(session: HttpSession, delayMs: number): void {
		session.idleTimer = setTimeout(() => {
			session.idleTimer = undefined;
			if (!this.sessions.has(session.id) || session.open > 0) return;
			const idleMs = this.options.supervisor.config.hangar.httpSessionIdleMs;
			const left = session.quietSince + idleMs - performance.now();
			if (left > 0) {
				this.armIdle(session, left);
				return;
			}

			this.logger.info(`${session.label}: closing the session: no request for ${idleMs / 1000} s (hangar.httpSessionIdleSeconds)`, {session: session.id});
			void session.gateway.close();
		}, delayMs);
		session.idleTimer.unref();
	}

	private logRequest(record: RequestRecord, res: http.ServerResponse, ms: number): void {
		const what = [record.method, record.path, record.rpc, record.tool].filter(part => part !== undefined).join(' ');
		const line = `${what} -> ${res.statusCode} in ${Math.round(ms)} ms${res.writableFinished ? '' : ' (the client closed the request first)'}`;
		const fields = {correlationId: record.correlationId, session: record.session, rpcError: record.rpcError, isError: record.isError};
		// Probes come every few seconds: only at debug level.
		if (record.path === '/healthz' || record.path === '/readyz') this.logger.debug(line, fields);
		else this.logger.info(line, fields);
	}

	/**
	 * Stops accepting connections, answers new requests with 503, lets calls
	 * in flight finish (up to drainMs), then closes every session and
	 * connection. Safe to call more than once.
	 */
	async close(): Promise<void> {
		this.closing ??= (async () => {
			const closed = new Promise<void>(resolve => {
				this.server.close(() => resolve());
			});
			const modern = this.modern.drain(this.options.drainMs ?? 5000);
			const open = [...this.sessions.values()];
			if (open.some(session => session.gateway.inFlight > 0)) this.logger.info(`waiting for the calls in flight of ${open.length} HTTP session${open.length === 1 ? '' : 's'}`);
			await Promise.all([modern, ...open.map(async session => session.gateway.drain(this.options.drainMs ?? 5000))]);
			await Promise.all([...this.sessions.values()].map(async session => session.gateway.close().catch(() => {})));
			this.server.closeAllConnections();
			this.modern.close();
			await closed;
		})();
		return this.closing;
	}
}
