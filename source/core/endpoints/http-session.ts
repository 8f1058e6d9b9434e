/**
 * One MCP session's Streamable HTTP transport, written on node:http.
 *
 * It speaks the transport of the MCP specification (2025-03-26 and later)
 * as the SDK's StreamableHTTPServerTransport does, with the same status
 * codes and error texts, minus the layer that costs most of a call: the SDK
 * transport turns every Node request and response into web-standard
 * `Request`/`Response` objects and streams (through @hono/node-server) and
 * checks each message with zod again. Here a POST carrying a request is
 * answered straight on the Node response: a quick answer with nothing before
 * it as one `application/json` body, anything else as an SSE stream that
 * ends with the answer (see answerHoldMs).
 * Notifications and server-to-client requests that belong to the request go
 * down its stream first, in order; messages that belong to no request go to
 * the session's GET stream, or nowhere when it has none (as in the SDK).
 *
 * The body has already been read and checked by the endpoint (one JSON-RPC
 * message, by message-classifier.ts); this module checks the headers a
 * transport checks (Accept, Content-Type, Mcp-Session-Id,
 * MCP-Protocol-Version), and keeps what the endpoint's log needs: the
 * correlation id of each request in flight and the outcome of its answer.
 */
import type http from 'node:http';
import type {TransportSendOptions} from '@modelcontextprotocol/sdk/shared/transport.js';
import {SUPPORTED_PROTOCOL_VERSIONS, type JSONRPCMessage, type MessageExtraInfo} from '@modelcontextprotocol/sdk/types.js';
import {errorMessage} from '../base/errors.js';
import type {Logger} from '../base/logger.js';
import {maskedJson} from '../base/secret-mask.js';
import type {SessionTransport} from '../gateway/session.js';
import {answerIdText, duplicateIdProblem, errorLine, peekMessage, type CheckedMessage, type MessageProblem} from '../wire/message-classifier.js';
import {isDroppable, logDrops} from '../wire/line-transport.js';
import {maxQueuedBytes} from '../wire/write-coalescer.js';

/** What one HTTP request's log line says; filled in as the request is served. */
export type RequestRecord = {
	correlationId: string;
	method: string;
	path: string;
	/** The JSON-RPC method (or "response") of a POST body. */
	rpc?: string | undefined;
	/** tools/call: the tool's name as the client sent it. */
	tool?: string | undefined;
	session?: string | undefined;
	/** The code of the JSON-RPC error the request was answered with. */
	rpcError?: number | undefined;
	/** tools/call answered with isError: true. */
	isError?: boolean | undefined;
};

/** A comment line on every open event stream this often, so proxies and clients do not take a quiet stream for a dead one (the SDK's interval). */
export const keepAliveMs = 15_000;

const sseHeaders = {
	'Content-Type': 'text/event-stream',
	'Cache-Control': 'no-cache, no-transform',
	Connection: 'keep-alive',
	'X-Accel-Buffering': 'no',
} as const;

/**
 * How long a request's answer may take and still go out as one
 * `application/json` body. A request answered that soon, with nothing sent
 * before its answer (most calls), gets the answer as JSON: one write, and a
 * client that parses JSON rather than an event stream. Anything that comes
 * first (progress, a log line, a request to the client), or this much time
 * passing, makes it an SSE stream, whose headers go out at once, so a client
 * or proxy that waits for the headers is not kept waiting for a long call.
 * Both forms are the specification's, and a client must take either.
 */
export const answerHoldMs = 20;

/** A request awaiting its answer: the response it is written to, whether that is an event stream yet, and since when it waits (performance.now()). */
type Pending = {record: RequestRecord; res: http.ServerResponse; streaming: boolean; since: number};

/** The replies of the endpoint and the transport that are not MCP answers: an HTTP status with a JSON body. */
export function sendJson(res: http.ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}): void {
	if (res.headersSent) {
		res.end();
		return;
	}

	res.writeHead(status, {'Content-Type': 'application/json', ...headers});
	res.end(JSON.stringify(body));
}

export function sendRpcError(res: http.ServerResponse, status: number, code: number, message: string, id: string | number | null = null, headers?: Record<string, string>): void {
	sendJson(res, status, {jsonrpc: '2.0', id, error: {code, message}}, headers);
}

/** A 400 whose body is the JSON-RPC error for `problem`, its id as received (null for a notification's or a response's problem). */
export function sendProblem(res: http.ServerResponse, problem: MessageProblem): void {
	if (res.headersSent) {
		res.end();
		return;
	}

	res.writeHead(400, {'Content-Type': 'application/json'});
	res.end(errorLine(problem.silent === true ? 'null' : answerIdText(problem), problem.code, problem.message));
}

/** A transport-level refusal, as the SDK's transport words it (id null), counted in the request's log line. */
function refuse(res: http.ServerResponse, status: number, code: number, message: string, record: RequestRecord): void {
	record.rpcError = code;
	sendRpcError(res, status, code, message);
}

/** One SSE event carrying one JSON-RPC message's JSON. */
function event(json: string): string {
	return `event: message\ndata: ${json}\n\n`;
}

function isJsonContentType(header: string | undefined): boolean {
	if (header === 'application/json') return true;
	return (header?.split(';', 1)[0] ?? '').trim().toLowerCase() === 'application/json';
}

export class HttpSessionTransport implements SessionTransport {
	onclose?: () => void;
	onerror?: (error: Error) => void;
	onmessage?: (message: JSONRPCMessage, extra?: MessageExtraInfo) => void;
	/** Set when the session's initialize is taken; undefined until then. */
	sessionId: string | undefined;
	/** Requests awaiting their answer, by JSON-RPC id. */
	private readonly pending = new Map<string | number, Pending>();
	/** The session's GET stream, the only way to the client outside its calls. */
	private standalone: http.ServerResponse | undefined;
	private keepAlive: NodeJS.Timeout | undefined;
	/** One timer for the session's held answers (see answerHoldMs), armed while any request waits unstreamed: none per request. */
	private holdTimer: NodeJS.Timeout | undefined;
	private droppedNotifications = 0;
	private closed = false;

	constructor(
		/** The id this session gets when its initialize is taken. */
		private readonly id: string,
		private readonly logger: Logger,
		private readonly secrets: readonly string[],
	) {}

	async start(): Promise<void> {}

	correlationIdOf(id: string | number): string | undefined {
		return this.pending.get(id)?.record.correlationId;
	}

	/** A request or notification outside any call reaches the client only on its GET stream; without one it is dropped. */
	canSendUnrelated(): boolean {
		return this.standalone !== undefined;
	}

	/** Serves one HTTP request of this session; `message` is the checked POST body. */
	async handle(req: http.IncomingMessage, res: http.ServerResponse, record: RequestRecord, message?: CheckedMessage): Promise<void> {
		if (this.closed) {
			refuse(res, 404, -32_001, 'Session not found', record);
			return;
		}

		if (req.method === 'GET') this.openEventStream(req, res, record);
		else if (req.method === 'DELETE') {
			if (!this.checkSession(req, res, record)) return;
			res.writeHead(200).end();
			await this.close();
		} else if (message !== undefined) this.post(req, res, record, message);
	}

	private post(req: http.IncomingMessage, res: http.ServerResponse, record: RequestRecord, message: CheckedMessage): void {
		const accept = req.headers.accept;
		if (!accept?.includes('application/json') || !accept.includes('text/event-stream')) {
			refuse(res, 406, -32_000, 'Not Acceptable: Client must accept both application/json and text/event-stream', record);
			return;
		}

		if (!isJsonContentType(req.headers['content-type'])) {
			refuse(res, 415, -32_000, 'Unsupported Media Type: Content-Type must be application/json', record);
			return;
		}

		if (message.kind === 'request' && message.method === 'initialize') {
			if (this.sessionId !== undefined) {
				refuse(res, 400, -32_600, 'Invalid Request: Server already initialized', record);
				return;
			}

			this.sessionId = this.id;
		} else if (!this.checkSession(req, res, record)) return;

		const value = message.value as JSONRPCMessage;
		if (message.kind !== 'request') {
			if (message.method === 'notifications/cancelled') {
				// A cancelled request is never answered: its id is free again, and its stream ends.
				const target = message.params?.['requestId'];
				const cancelled = typeof target === 'string' || typeof target === 'number' ? this.pending.get(target) : undefined;
				if (cancelled !== undefined) {
					this.pending.delete(target as string | number);
					this.stream(cancelled);
					cancelled.res.end();
				}
			}

			this.onmessage?.(value);
			res.writeHead(202).end();
			return;
		}

		const id = message.id!;
		if (this.pending.has(id)) {
			// Both answers would go down one stream, and the first caller would wait for ever.
			const problem = duplicateIdProblem(id);
			record.rpcError = problem.code;
			sendProblem(res, problem);
			return;
		}

		const entry: Pending = {record, res, streaming: false, since: performance.now()};
		this.holdTimer ??= setTimeout(() => this.endHolds(), answerHoldMs);
		this.pending.set(id, entry);
		res.on('close', () => {
			// An answer that can no longer be delivered (the client went away) is not waited for.
			if (this.pending.get(id) === entry) this.pending.delete(id);
			this.stopKeepAliveIfQuiet();
		});
		this.startKeepAlive();
		this.onmessage?.(value);
	}

	private openEventStream(req: http.IncomingMessage, res: http.ServerResponse, record: RequestRecord): void {
		if (!req.headers.accept?.includes('text/event-stream')) {
			refuse(res, 406, -32_000, 'Not Acceptable: Client must accept text/event-stream', record);
			return;
		}

		if (!this.checkSession(req, res, record)) return;
		if (this.standalone !== undefined) {
			refuse(res, 409, -32_000, 'Conflict: Only one SSE stream is allowed per session', record);
			return;
		}

		res.writeHead(200, {...sseHeaders, 'mcp-session-id': this.sessionId!});
		// The client waits for the headers before it counts the stream as open.
		res.flushHeaders();
		this.standalone = res;
		res.on('close', () => {
			if (this.standalone === res) this.standalone = undefined;
			this.stopKeepAliveIfQuiet();
		});
		this.startKeepAlive();
	}

	/** The checks of a request after initialize: the session is open, named by the header, and speaks a known protocol version. */
	private checkSession(req: http.IncomingMessage, res: http.ServerResponse, record: RequestRecord): boolean {
		if (this.sessionId === undefined) {
			refuse(res, 400, -32_000, 'Bad Request: Server not initialized', record);
			return false;
		}

		const header = req.headers['mcp-session-id'];
		if (header === undefined) {
			refuse(res, 400, -32_000, 'Bad Request: Mcp-Session-Id header is required', record);
			return false;
		}

		if (header !== this.sessionId) {
			refuse(res, 404, -32_001, 'Session not found', record);
			return false;
		}

		const version = req.headers['mcp-protocol-version'];
		if (typeof version === 'string' && !SUPPORTED_PROTOCOL_VERSIONS.includes(version)) {
			refuse(res, 400, -32_000, `Bad Request: Unsupported protocol version: ${version} (supported versions: ${SUPPORTED_PROTOCOL_VERSIONS.join(', ')})`, record);
			return false;
		}

		return true;
	}

	async send(message: JSONRPCMessage, options?: TransportSendOptions): Promise<void> {
		const answer = message as {id?: string | number; result?: {isError?: unknown}; error?: {code?: number}};
		const isAnswer = answer.id !== undefined && ('result' in answer || 'error' in answer);
		const requestId = isAnswer ? answer.id : options?.relatedRequestId;
		if (requestId === undefined) {
			const stream = this.standalone;
			if (stream === undefined || this.overflowing(stream, message)) return;
			stream.write(event(JSON.stringify(message)));
			return;
		}

		const entry = this.pending.get(requestId);
		if (entry === undefined) {
			// The client closed the request before this: nothing can carry it any more.
			this.logger.debug(`a message for request ${String(requestId)} could not be delivered: its HTTP request is closed`);
			return;
		}

		if (!isAnswer) {
			if (this.overflowing(entry.res, message)) return;
			this.stream(entry);
			entry.res.write(event(JSON.stringify(message)));
			return;
		}

		this.pending.delete(requestId);
		entry.record.rpcError = answer.error?.code;
		if (answer.result?.isError === true) entry.record.isError = true;
		this.answer(entry, JSON.stringify(message));
	}

	/** Requests held for answerHoldMs without their answer become event streams, their headers sent now. */
	private endHolds(): void {
		this.holdTimer = undefined;
		const now = performance.now();
		let next = Number.POSITIVE_INFINITY;
		for (const entry of this.pending.values()) {
			if (entry.streaming || entry.res.writableEnded) continue;
			const left = entry.since + answerHoldMs - now;
			if (left <= 0) {
				this.stream(entry);
				entry.res.flushHeaders();
			} else next = Math.min(next, left);
		}

		if (next !== Number.POSITIVE_INFINITY) this.holdTimer = setTimeout(() => this.endHolds(), next);
	}

	/** Makes a request's response an event stream (its headers are sent with what is written next). */
	private stream(entry: Pending): void {
		if (entry.streaming) return;
		entry.streaming = true;
		entry.res.writeHead(200, this.sessionId === undefined ? sseHeaders : {...sseHeaders, 'mcp-session-id': this.sessionId});
	}

	/**
	 * An answer hangar serialized itself (tools/list, hangar_list: hundreds
	 * of KB with many upstreams), written as it is rather than parsed and
	 * serialized again. Anything but a hangar-written answer takes `send`.
	 */
	async sendSerialized(line: string): Promise<void> {
		const shape = peekMessage(line);
		const entry = shape?.response === true && shape.id !== undefined ? this.pending.get(shape.id) : undefined;
		if (entry === undefined || shape?.error === true) {
			await this.send(JSON.parse(line) as JSONRPCMessage);
			return;
		}

		this.pending.delete(shape!.id!);
		this.answer(entry, line.endsWith('\n') ? line.slice(0, -1) : line);
	}

	/** Ends a request's response with its answer: the last event of its stream, or one JSON body with its length (no chunked encoding). */
	private answer(entry: Pending, json: string): void {
		if (this.logger.enabled('debug')) this.logger.debug('response body', {correlationId: entry.record.correlationId, body: maskedJson(JSON.parse(json), this.secrets)});
		try {
			if (entry.streaming) {
				entry.res.end(event(json));
				return;
			}

			const headers: Record<string, string | number> = {'Content-Type': 'application/json', 'Content-Length': Buffer.byteLength(json)};
			if (this.sessionId !== undefined) headers['mcp-session-id'] = this.sessionId;
			entry.res.writeHead(200, headers);
			entry.res.end(json);
		} catch (error) {
			this.logger.debug(`an answer could not be delivered: ${errorMessage(error)}`);
		}
	}

	/** A client that does not read its event stream: progress and log lines are dropped, not queued without bound. */
	private overflowing(stream: http.ServerResponse, message: JSONRPCMessage): boolean {
		if (stream.writableLength <= maxQueuedBytes || !isDroppable(message)) return false;
		this.droppedNotifications += 1;
		logDrops(this.logger, 'an HTTP client')(this.droppedNotifications);
		return true;
	}

	private startKeepAlive(): void {
		if (this.keepAlive !== undefined) return;
		this.keepAlive = setInterval(() => {
			this.standalone?.write(': keepalive\n\n');
			for (const entry of this.pending.values()) {
				this.stream(entry);
				entry.res.write(': keepalive\n\n');
			}
		}, keepAliveMs);
		this.keepAlive.unref();
	}

	private stopKeepAliveIfQuiet(): void {
		if (this.standalone !== undefined || this.pending.size > 0) return;
		clearInterval(this.keepAlive);
		this.keepAlive = undefined;
	}

	async close(): Promise<void> {
		if (this.closed) return;
		this.closed = true;
		clearTimeout(this.holdTimer);
		clearInterval(this.keepAlive);
		this.keepAlive = undefined;
		for (const entry of this.pending.values()) {
			this.stream(entry);
			entry.res.end();
		}
		this.pending.clear();
		this.standalone?.end();
		this.standalone = undefined;
		this.onclose?.();
	}
}
