/**
 * Modern (2026-07-28) requests on the HTTP endpoint: stateless, one POST per
 * request, no `initialize` and no Mcp-Session-Id. Each request is served by
 * a GatewaySession of its own over a one-request transport, so it goes
 * through the same pipeline and method table as every other request (one
 * RequestContext, one answer), and nothing it does reaches another client.
 * The `MCP-Protocol-Version`, `Mcp-Method` and `Mcp-Name`
 * headers must mirror the body (HTTP 400, -32020, when they do not).
 *
 * The request is served as its client's identity (gateway/modern-clients.ts:
 * the bearer token and peer address it shows, plus the clientInfo and
 * capabilities it declares; not its TCP connection, as a client pools
 * those), which outlives the request, so a per-client upstream runs
 * one instance for the client, not one per request. Progress and log
 * messages at the request's level go on the request's own SSE stream, and
 * a `subscriptions/listen` is answered with an SSE stream that stays open
 * (gateway/listen.ts). An upstream's question during a call is held and
 * answered through `input_required` (gateway/held-inputs.ts); an identity
 * that goes keeps its record until its held calls end.
 */
import {createHash} from 'node:crypto';
import type http from 'node:http';
import type {JSONRPCMessage} from '@modelcontextprotocol/server';
import type {Logger} from '../base/logger.js';
import type {Supervisor} from '../engine/supervisor.js';
import {JsonRpcCode} from '../base/errors.js';
import {clientCapabilitiesKey, headerProblem, isModernVersion, modernErrorCode, protocolVersionKey, unsupportedVersion, type ModernRequest} from '../gateway/protocol-era.js';
import {modernProtocolVersions} from '../wire/protocol.js';
import {isPlainObject} from '../wire/message-classifier.js';
import {GatewaySession, type SessionTransport} from '../gateway/session.js';
import {ModernClients} from '../gateway/modern-clients.js';
import {heldInputsOf} from '../gateway/held-inputs.js';
import {settleWithin} from '../base/settle.js';
import type {CheckedMessage} from '../wire/message-classifier.js';
import {event, sendJson, sendRpcError, sseHeaders, type RequestRecord} from './http-replies.js';

/**
 * A transport that carries one request in and its one answer out: a JSON
 * body, or, once a notification tied to the request comes first (progress)
 * and the client accepts one, an SSE stream that ends with the answer.
 */
class OneRequestTransport implements SessionTransport {
	onmessage?: (message: JSONRPCMessage) => void;
	onclose?: () => void;
	onerror?: (error: Error) => void;
	private closed = false;
	private streaming = false;

	constructor(
		private readonly res: http.ServerResponse,
		private readonly id: string | number,
		private readonly correlationId: string,
		private readonly acceptsStream: boolean,
	) {}

	async start(): Promise<void> {}

	/** The request's notifications (on a stream) and its answer; requests to the client have no way to it in this era and are not sent. */
	async send(message: JSONRPCMessage, options?: {relatedRequestId?: string | number}): Promise<void> {
		if (this.closed) return;
		const record = message as {id?: unknown; method?: unknown; result?: unknown; error?: unknown};
		const isAnswer = record.id === this.id && ('result' in record || 'error' in record);
		if (!isAnswer) {
			if (record.id !== undefined || options?.relatedRequestId !== this.id || !this.acceptsStream) return;
			if (!this.streaming) {
				this.streaming = true;
				this.res.writeHead(200, sseHeaders);
			}

			this.res.write(event(JSON.stringify(message)));
			return;
		}

		if (this.streaming) this.res.end(event(JSON.stringify(message)));
		// A method this era does not have (or no server has) is HTTP 404, and the era's own request errors 400 (a modern upstream's too), as 2026-07-28 asks.
		else sendJson(this.res, httpStatusOf((message as {error?: {code?: unknown}}).error?.code), message);
		await this.close();
	}

	correlationIdOf(): string {
		return this.correlationId;
	}

	/** No message belonging to no request can reach a stateless client. */
	canSendUnrelated(): boolean {
		return false;
	}

	async close(): Promise<void> {
		if (this.closed) return;
		this.closed = true;
		this.onclose?.();
	}
}

/**
 * What the `MCP-Protocol-Version` header says against the body, before the
 * body's own era is read: a header that disagrees with the body's envelope
 * is a header mismatch (-32020), and a request without a session whose
 * header names a modern version but whose body carries no envelope is
 * missing its `_meta` (-32602), or, for a version hangar does not speak,
 * refused with the versions it does (-32022). All are HTTP 400; undefined:
 * go on.
 */
export function modernHeaderRefusal(method: string, params: Record<string, unknown> | undefined, versionHeader: string | string[] | undefined, hasSession: boolean): {code: number; message: string; data?: unknown} | undefined {
	if (typeof versionHeader !== 'string') return undefined;
	const header = versionHeader.trim();
	const meta = params?.['_meta'];
	const claimed = isPlainObject(meta) ? meta[protocolVersionKey] : undefined;
	if (typeof claimed === 'string' && claimed !== header && (isModernVersion(claimed) || isModernVersion(header))) {
		return {code: modernErrorCode.headerMismatch, message: `Header mismatch: the MCP-Protocol-Version header says ${header} but the body's _meta names ${claimed}`};
	}

	if (claimed === undefined && !hasSession && isModernVersion(header) && method !== 'initialize') {
		// A revision hangar does not speak (a later one): say which it does, as for one the envelope names.
		if (!(modernProtocolVersions as readonly string[]).includes(header)) return unsupportedVersion(header);
		return {code: JsonRpcCode.InvalidParams, message: `Invalid params: a ${header} request carries its protocol version and client capabilities in params._meta ("${protocolVersionKey}", "${clientCapabilitiesKey}"); this one has none`};
	}

	return undefined;
}

function header(req: http.IncomingMessage, name: string): string | undefined {
	const value = req.headers[name];
	return Array.isArray(value) ? value.join(', ') : value;
}

let requestNumber = 0;

/**
 * What a modern client shows on every HTTP request besides what it
 * declares: the bearer token it presents (or none) and its peer address.
 * Not its TCP connection: a client pools connections, and each request may
 * come on any of them (gateway/modern-clients.ts).
 */
export function shownOverHttp(req: http.IncomingMessage): string {
	const token = header(req, 'authorization');
	const address = req.socket.remoteAddress ?? 'unknown address';
	return `http from ${address} ${token === undefined ? 'without a token' : `token ${createHash('sha256').update(token).digest('base64url')}`}`;
}

/** How long an idle keep-alive connection stays open (Node's default is 5 s): a client's next request usually reuses it. */
const modernKeepAliveMs = 30_000;

/**
 * The HTTP endpoint's side of modern requests: the identities of their
 * clients, and what a closing endpoint waits for (open listens are answered
 * first, the spec's graceful end; calls in flight finish as sessions' do).
 */
export class ModernEndpoint {
	private readonly identities: ModernClients;
	private readonly open = new Set<Promise<void>>();
	private readonly ending = new AbortController();

	constructor(
		server: http.Server,
		private readonly options: {supervisor: Supervisor; logger: Logger},
	) {
		const held = heldInputsOf(options.supervisor);
		this.identities = new ModernClients({clients: options.supervisor.clients, kind: 'http', idleMs: options.supervisor.config.hangar.httpSessionIdleMs, release: (record, then) => held.whenReleased(record, then)});
		// Keep an idle connection open long enough that a client's next request usually reuses it (fewer handshakes).
		server.keepAliveTimeout = modernKeepAliveMs;
	}

	/** Serves one modern request (its envelope already read as `modern`) and answers it on `res`. */
	async serve(req: http.IncomingMessage, res: http.ServerResponse, record: RequestRecord, message: CheckedMessage & {id: string | number; method: string}, modern: ModernRequest): Promise<void> {
		const answered = new Promise<void>(resolve => res.once('close', resolve));
		this.open.add(answered);
		void answered.then(() => this.open.delete(answered));
		await serveModernRequest({...this.options, identities: this.identities, ending: this.ending.signal}, req, res, record, message, modern);
	}

	/** The endpoint is closing: listens are answered, and modern requests in flight get up to `ms` to finish. */
	async drain(ms: number): Promise<void> {
		this.ending.abort();
		await settleWithin(Promise.all([...this.open]), ms);
	}

	/** Every identity goes, and with it its per-client instances. */
	close(): void {
		this.identities.close();
	}
}

/** Serves one modern request `message` (its envelope already read as `modern`) and answers it on `res`. */
async function serveModernRequest(
	options: {supervisor: Supervisor; logger: Logger; identities: ModernClients; ending: AbortSignal},
	req: http.IncomingMessage,
	res: http.ServerResponse,
	record: RequestRecord,
	message: CheckedMessage & {id: string | number; method: string},
	modern: ModernRequest,
): Promise<void> {
	const problem = headerProblem(message.method, message.params, modern.revision, {
		protocolVersion: header(req, 'mcp-protocol-version'),
		method: header(req, 'mcp-method'),
		name: header(req, 'mcp-name'),
	});
	if (problem !== undefined) {
		record.rpcError = modernErrorCode.headerMismatch;
		sendRpcError(res, 400, modernErrorCode.headerMismatch, `Header mismatch: ${problem}`, message.id);
		return;
	}

	const {supervisor, logger, identities} = options;
	const label = `http ${modern.revision} #${++requestNumber}`;
	record.session = label;
	// A listen is nothing but its stream: it streams whatever Accept says, as the SDK's servers do (its acknowledgement is never dropped).
	const streams = message.method === 'subscriptions/listen' || (header(req, 'accept') ?? '').includes('text/event-stream');
	const transport = new OneRequestTransport(res, message.id, record.correlationId, streams);
	// The request is served as its client's identity, which outlives this one-request session.
	const bound = identities.begin(shownOverHttp(req), modern, (method, params) => void transport.send({jsonrpc: '2.0', method, params} as JSONRPCMessage, {relatedRequestId: message.id}), message.id);
	const gateway = new GatewaySession({
		supervisor,
		transport,
		logger: logger.child('gateway'),
		label,
		kind: 'http',
		callDeadline: {ms: supervisor.config.hangar.httpCallTimeoutMs, setting: 'httpCallTimeoutSeconds'},
		client: bound.client,
		modernClient: () => bound,
		ending: options.ending,
	});
	gateway.onClose(() => bound.end());
	// The client gone before its answer: the request is cancelled with the session.
	res.on('close', () => void gateway.close());
	await gateway.start();
	transport.onmessage?.(message.value as JSONRPCMessage);
}

/** The HTTP status of a 2026-07-28 answer: 404 for -32601, 400 for the era's header, capability and version errors, else 200. */
function httpStatusOf(code: unknown): number {
	if (code === JsonRpcCode.MethodNotFound) return 404;
	return code === modernErrorCode.missingClientCapability || code === modernErrorCode.headerMismatch || code === modernErrorCode.unsupportedProtocolVersion ? 400 : 200;
}
