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
 * Every event carries an id and goes into the session's resume window
 * (sse-event-log.ts); a 2025-11-25 session's streams open with a priming
 * event (an id, `retry`, empty data). A stream whose connection breaks after
 * an id went out is not given up: its requests go on, their events kept in
 * the window, until a GET with Last-Event-ID takes the stream over (MCP
 * 2025-11-25, "Resumability and Redelivery"). A session that negotiated
 * 2025-03-26 may send a batch, answered on one stream.
 *
 * The body has already been read and checked by the endpoint (one JSON-RPC
 * message, or each member of a batch, by message-classifier.ts); this module checks the headers a
 * transport checks (Accept, Content-Type, Mcp-Session-Id,
 * MCP-Protocol-Version), and keeps what the endpoint's log needs: the
 * correlation id of each request in flight and the outcome of its answer.
 */
import type http from 'node:http';
import type {JSONRPCMessage, MessageExtraInfo, TransportSendOptions} from '@modelcontextprotocol/server';
import {errorMessage} from '../base/errors.js';
import type {Logger} from '../base/logger.js';
import {maskedJson} from '../base/secret-mask.js';
import type {SessionTransport} from '../gateway/session.js';
import {answerIdText, duplicateIdProblem, errorLine, isProblem, peekMessage, type CheckedMessage, type MessageProblem} from '../wire/message-classifier.js';
import {isDroppable, logDrops} from '../wire/line-transport.js';
import {batchVersion, modernProtocolVersions, supportedProtocolVersions} from '../wire/protocol.js';
import {maxQueuedBytes} from '../wire/write-coalescer.js';
import {event, refuse, sendProblem, sseHeaders, type RequestRecord} from './http-replies.js';
import {SseEventLog, resumeBudget, resumeWindow, retryMs, type ResumeBudget} from './sse-event-log.js';
import {parseExact, parseExactMessage} from '../base/exact-json.js';

/** A comment line on every open event stream this often, so proxies and clients do not take a quiet stream for a dead one (the SDK's interval). */
export const keepAliveMs = 15_000;

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

/**
 * One event stream of the session, or a request's response that may become
 * one: the GET stream (number 0), or a POST's response (one request, or the
 * requests of one batch). Its connection may break and be resumed (see
 * sse-event-log.ts): `res` is then undefined until a GET with Last-Event-ID
 * takes it up again, and its events wait in the session's resume window.
 */
type Stream = {
	number: number;
	record: RequestRecord;
	res: http.ServerResponse | undefined;
	/** Its headers went out as an event stream (else it can still be one JSON body). */
	streaming: boolean;
	/** An event with an id went out on it: the client can resume it. */
	resumable: boolean;
	/** Requests on it still awaiting their answer. */
	waiting: number;
	/** When its request arrived (performance.now()). */
	since: number;
};

/**
 * The first protocol version whose clients take an event with empty data
 * (the priming event); older SDK clients fail on it, as the SDK's own server
 * transport knows.
 */
const primingSince = '2025-11-25';

export class HttpSessionTransport implements SessionTransport {
	onclose?: () => void;
	onerror?: (error: Error) => void;
	onmessage?: (message: JSONRPCMessage, extra?: MessageExtraInfo) => void;
	/** Set when the session's initialize is taken; undefined until then. */
	sessionId: string | undefined;
	/** The protocol version the session's initialize answer named; undefined until then. */
	protocolVersion: string | undefined;
	/** Requests awaiting their answer, by JSON-RPC id, with the stream each is answered on. */
	private readonly pending = new Map<string | number, Stream>();
	/** Streams that may still carry events, by number (the GET stream is not among them). */
	private readonly streams = new Map<number, Stream>();
	/** The session's GET stream, the only way to the client outside its calls. */
	private standalone: http.ServerResponse | undefined;
	/** The events sent lately, for clients that resume a broken stream. */
	private readonly events: SseEventLog;
	private streamNumber = 0;
	private initializeId: string | number | undefined;
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
		/** The bytes of event text the endpoint's sessions may keep together for resuming. */
		budget: ResumeBudget = resumeBudget(),
	) {
		this.events = new SseEventLog(resumeWindow, budget);
	}

	async start(): Promise<void> {}

	correlationIdOf(id: string | number): string | undefined {
		return this.pending.get(id)?.record.correlationId;
	}

	/** A request or notification outside any call reaches the client only on its GET stream; without one it is dropped. */
	canSendUnrelated(): boolean {
		return this.standalone !== undefined;
	}

	/** Whether this session takes JSON-RPC batches: only when it negotiated the one version that has them. */
	get takesBatches(): boolean {
		return this.protocolVersion === batchVersion;
	}

	/** Serves one HTTP request of this session; `message` is the checked POST body, `batch` the checked members of a batch body. */
	async handle(req: http.IncomingMessage, res: http.ServerResponse, record: RequestRecord, message?: CheckedMessage, batch?: Array<CheckedMessage | MessageProblem>): Promise<void> {
		if (this.closed) {
			refuse(res, 404, -32_001, 'Session not found', record);
			return;
		}

		if (req.method === 'GET') this.openEventStream(req, res, record);
		else if (req.method === 'DELETE') {
			if (!this.checkSession(req, res, record)) return;
			res.writeHead(200).end();
			await this.close();
		} else if (batch !== undefined) this.postBatch(req, res, record, batch);
		else if (message !== undefined) this.post(req, res, record, message);
	}

	/** The Accept check of a POST (its media type was checked before its body was read: refusedMediaType); false when it was refused. */
	private checkPost(req: http.IncomingMessage, res: http.ServerResponse, record: RequestRecord): boolean {
		const accept = req.headers.accept;
		if (!accept?.includes('application/json') || !accept.includes('text/event-stream')) {
			refuse(res, 406, -32_000, 'Not Acceptable: Client must accept both application/json and text/event-stream', record);
			return false;
		}

		return true;
	}

	private newStream(record: RequestRecord, res: http.ServerResponse): Stream {
		const stream: Stream = {number: ++this.streamNumber, record, res, streaming: false, resumable: false, waiting: 0, since: performance.now()};
		res.on('close', () => this.disconnected(stream, res));
		return stream;
	}

	private post(req: http.IncomingMessage, res: http.ServerResponse, record: RequestRecord, message: CheckedMessage): void {
		if (!this.checkPost(req, res, record)) return;
		if (message.kind === 'request' && message.method === 'initialize') {
			if (this.sessionId !== undefined) {
				refuse(res, 400, -32_600, 'Invalid Request: Server already initialized', record);
				return;
			}

			this.sessionId = this.id;
			this.initializeId = message.id;
		} else if (!this.checkSession(req, res, record)) return;

		if (message.kind !== 'request') {
			this.takeNonRequest(message);
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

		const stream = this.newStream(record, res);
		this.holdTimer ??= setTimeout(() => this.endHolds(), answerHoldMs);
		this.await(id, stream);
		this.startKeepAlive();
		this.onmessage?.(message.value as JSONRPCMessage);
	}

	/**
	 * A batch body (protocol 2025-03-26 only; the endpoint refuses it for any
	 * other session). Its notifications and responses are taken as if sent one
	 * by one; its requests are answered on one event stream, one event per
	 * answer, which ends with the last one. A member that is not a valid
	 * request gets its error on that stream; with no request in it the batch
	 * is taken with 202.
	 */
	private postBatch(req: http.IncomingMessage, res: http.ServerResponse, record: RequestRecord, members: Array<CheckedMessage | MessageProblem>): void {
		if (!this.checkPost(req, res, record) || !this.checkSession(req, res, record)) return;
		const errors: string[] = [];
		const requests: CheckedMessage[] = [];
		const ids = new Set<string | number>();
		for (const member of members) {
			if (isProblem(member)) {
				if (member.silent !== true) errors.push(errorLine(answerIdText(member), member.code, member.message));
			} else if (member.kind !== 'request') this.takeNonRequest(member);
			else if (member.method === 'initialize') errors.push(errorLine(JSON.stringify(member.id), -32_600, 'Invalid Request: initialize must not be part of a JSON-RPC batch'));
			else if (this.pending.has(member.id!) || ids.has(member.id!)) {
				const problem = duplicateIdProblem(member.id!);
				errors.push(errorLine(answerIdText(problem), problem.code, problem.message));
			} else {
				ids.add(member.id!);
				requests.push(member);
			}
		}

		if (errors.length === 0 && requests.length === 0) {
			res.writeHead(202).end();
			return;
		}

		const stream = this.newStream(record, res);
		this.stream(stream);
		for (const error of errors) this.write(stream, error.endsWith('\n') ? error.slice(0, -1) : error);
		for (const request of requests) this.await(request.id!, stream);
		if (stream.waiting === 0) {
			this.finish(stream);
			return;
		}

		this.startKeepAlive();
		for (const request of requests) this.onmessage?.(request.value as JSONRPCMessage);
	}

	/** A notification or a response from the client; a cancellation also ends its request's wait. */
	private takeNonRequest(message: CheckedMessage): void {
		if (message.method === 'notifications/cancelled') {
			// A cancelled request is never answered: its id is free again, and its stream ends once nothing else waits on it.
			const target = message.params?.['requestId'];
			const stream = typeof target === 'string' || typeof target === 'number' ? this.pending.get(target) : undefined;
			if (stream !== undefined) this.settle(target as string | number, stream);
		}

		this.onmessage?.(message.value as JSONRPCMessage);
	}

	private await(id: string | number, stream: Stream): void {
		this.pending.set(id, stream);
		stream.waiting += 1;
		this.streams.set(stream.number, stream);
	}

	/** Request `id` on `stream` needs nothing more; the stream ends when nothing waits on it. */
	private settle(id: string | number, stream: Stream): void {
		this.pending.delete(id);
		stream.waiting -= 1;
		if (stream.waiting === 0) this.finish(stream);
	}

	/** No event follows on `stream`: its response ends, and its events stay replayable while in the window. */
	private finish(stream: Stream): void {
		this.streams.delete(stream.number);
		this.events.finish(stream.number);
		if (stream.res !== undefined) {
			this.stream(stream);
			stream.res.end();
		}

		this.stopKeepAliveIfQuiet();
	}

	/**
	 * A stream's connection closed. One the client can resume (an event id
	 * went out on it) waits for the resume, its events kept in the window;
	 * any other is given up: its answers can no longer be delivered.
	 */
	private disconnected(stream: Stream, res: http.ServerResponse): void {
		if (stream.res !== res) return;
		stream.res = undefined;
		if (!this.streams.has(stream.number)) return;
		if (!stream.resumable || this.closed) {
			for (const [id, waiting] of this.pending) if (waiting === stream) this.pending.delete(id);
			stream.waiting = 0;
			this.streams.delete(stream.number);
			this.events.finish(stream.number);
		}

		this.stopKeepAliveIfQuiet();
	}

	private openEventStream(req: http.IncomingMessage, res: http.ServerResponse, record: RequestRecord): void {
		if (!req.headers.accept?.includes('text/event-stream')) {
			refuse(res, 406, -32_000, 'Not Acceptable: Client must accept text/event-stream', record);
			return;
		}

		if (!this.checkSession(req, res, record)) return;
		const lastEventId = req.headers['last-event-id'];
		if (typeof lastEventId === 'string' && lastEventId !== '') {
			this.resume(res, record, lastEventId);
			return;
		}

		if (this.standalone !== undefined) {
			refuse(res, 409, -32_000, 'Conflict: Only one SSE stream is allowed per session', record);
			return;
		}

		res.writeHead(200, {...sseHeaders, 'mcp-session-id': this.sessionId!});
		if (this.primes()) res.write(this.primingEvent(0));
		// The client waits for the headers before it counts the stream as open.
		res.flushHeaders();
		this.attachStandalone(res);
	}

	private attachStandalone(res: http.ServerResponse): void {
		this.standalone = res;
		res.on('close', () => {
			if (this.standalone === res) this.standalone = undefined;
			this.stopKeepAliveIfQuiet();
		});
		this.startKeepAlive();
	}

	/**
	 * A GET with Last-Event-ID: the events of the stream the id names that
	 * came after it, then, while that stream is still open, what follows. A
	 * finished stream with nothing left to replay gets 204 (no content: the
	 * client stops reconnecting); an id that is unknown or whose events left
	 * the window gets 400 saying so, and nothing is replayed.
	 */
	private resume(res: http.ServerResponse, record: RequestRecord, lastEventId: string): void {
		const replay = this.events.after(lastEventId);
		if ('problem' in replay) {
			refuse(res, 400, -32_000, `Bad Request: ${replay.problem}`, record);
			return;
		}

		const number = SseEventLog.streamOf(lastEventId)!.stream;
		const live = number === 0 ? undefined : this.streams.get(number);
		if (number !== 0 && live === undefined && replay.texts.length === 0) {
			res.writeHead(204, {'mcp-session-id': this.sessionId!}).end();
			return;
		}

		res.writeHead(200, {...sseHeaders, 'mcp-session-id': this.sessionId!});
		for (const text of replay.texts) res.write(text);
		if (number === 0) {
			// A resumed GET stream takes over from the one it replaces.
			const previous = this.standalone;
			this.attachStandalone(res);
			previous?.end();
			res.flushHeaders();
			return;
		}

		if (live === undefined) {
			res.end();
			return;
		}

		const previous = live.res;
		live.res = res;
		live.streaming = true;
		res.on('close', () => this.disconnected(live, res));
		previous?.end();
		res.flushHeaders();
		this.startKeepAlive();
	}

	/** Whether streams of this session open with a priming event (an id, a retry time, empty data). */
	private primes(): boolean {
		return this.protocolVersion !== undefined && this.protocolVersion >= primingSince;
	}

	private primingEvent(stream: number): string {
		return `id: ${this.events.append(stream, '')}\nretry: ${retryMs}\ndata: \n\n`;
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
		if (typeof version === 'string' && !(supportedProtocolVersions as readonly string[]).includes(version)) {
			// A 2026-07-28 request is sessionless: hangar speaks that version, but not in a session.
			const modern = (modernProtocolVersions as readonly string[]).includes(version)
				? `; ${version} requests carry their protocol version and client capabilities in params._meta and need no Mcp-Session-Id`
				: '';
			refuse(res, 400, -32_000, `Bad Request: Unsupported protocol version for a session: ${version} (a session speaks the versions of initialize: ${supportedProtocolVersions.join(', ')})${modern}`, record);
			return false;
		}

		return true;
	}

	async send(message: JSONRPCMessage, options?: TransportSendOptions): Promise<void> {
		const answer = message as {id?: string | number; result?: {isError?: unknown; protocolVersion?: unknown}; error?: {code?: number}};
		const isAnswer = answer.id !== undefined && ('result' in answer || 'error' in answer);
		const requestId = isAnswer ? answer.id : options?.relatedRequestId;
		if (requestId === undefined) {
			const stream = this.standalone;
			if (stream === undefined || this.overflowing(stream, message)) return;
			const text = event(JSON.stringify(message));
			stream.write(`id: ${this.events.append(0, text)}\n${text}`);
			return;
		}

		const stream = this.pending.get(requestId);
		if (stream === undefined) {
			// The client closed the request before this: nothing can carry it any more.
			this.logger.debug(`a message for request ${String(requestId)} could not be delivered: its HTTP request is closed`);
			return;
		}

		if (!isAnswer) {
			if (stream.res !== undefined && this.overflowing(stream.res, message)) return;
			this.write(stream, JSON.stringify(message));
			return;
		}

		if (requestId === this.initializeId && typeof answer.result?.protocolVersion === 'string') this.protocolVersion = answer.result.protocolVersion;
		stream.record.rpcError = answer.error?.code;
		if (answer.result?.isError === true) stream.record.isError = true;
		this.answer(requestId, stream, JSON.stringify(message));
	}

	/** Writes one message as an event of `stream` (making it an event stream first), with an id, into the resume window too. */
	private write(stream: Stream, json: string): void {
		this.stream(stream);
		const text = event(json);
		const id = this.events.append(stream.number, text);
		stream.resumable = true;
		stream.res?.write(`id: ${id}\n${text}`);
	}

	/** Requests held for answerHoldMs without their answer become event streams, their headers sent now. */
	private endHolds(): void {
		this.holdTimer = undefined;
		const now = performance.now();
		let next = Number.POSITIVE_INFINITY;
		// initialize is answered as JSON (it may wait, on a first run, for the upstreams' first start: session.ts); nothing precedes its answer.
		const initialize = this.initializeId === undefined ? undefined : this.pending.get(this.initializeId);
		for (const stream of this.streams.values()) {
			if (stream.streaming || stream.res === undefined || stream.res.writableEnded || stream === initialize) continue;
			const left = stream.since + answerHoldMs - now;
			if (left <= 0) {
				this.stream(stream);
				stream.res.flushHeaders();
			} else next = Math.min(next, left);
		}

		if (next !== Number.POSITIVE_INFINITY) this.holdTimer = setTimeout(() => this.endHolds(), next);
	}

	/** Makes a request's response an event stream (its headers are sent with what is written next), primed for resumption where the client takes that. */
	private stream(stream: Stream): void {
		if (stream.streaming || stream.res === undefined) return;
		stream.streaming = true;
		stream.res.writeHead(200, this.sessionId === undefined ? sseHeaders : {...sseHeaders, 'mcp-session-id': this.sessionId});
		if (this.primes()) {
			stream.res.write(this.primingEvent(stream.number));
			stream.resumable = true;
		}
	}

	/**
	 * An answer hangar serialized itself (tools/list, hangar_list: hundreds
	 * of KB with many upstreams), written as it is rather than parsed and
	 * serialized again. Anything but a hangar-written answer takes `send`.
	 */
	async sendSerialized(line: string): Promise<void> {
		const shape = peekMessage(line);
		const stream = shape?.response === true && shape.id !== undefined ? this.pending.get(shape.id) : undefined;
		if (stream === undefined || shape?.error === true || shape!.id === this.initializeId) {
			await this.send(parseExactMessage(line) as JSONRPCMessage);
			return;
		}

		this.answer(shape!.id!, stream, line.endsWith('\n') ? line.slice(0, -1) : line);
	}

	/** Answers request `id`: an event of its stream (the last one, if nothing else waits on it), or one JSON body with its length (no chunked encoding). */
	private answer(id: string | number, stream: Stream, json: string): void {
		if (this.logger.enabled('debug')) this.logger.debug('response body', {correlationId: stream.record.correlationId, body: maskedJson(parseExact(json), this.secrets)});
		try {
			if (stream.streaming || stream.res === undefined) {
				this.write(stream, json);
				this.settle(id, stream);
				return;
			}

			this.pending.delete(id);
			this.streams.delete(stream.number);
			const headers: Record<string, string | number> = {'Content-Type': 'application/json', 'Content-Length': Buffer.byteLength(json)};
			if (this.sessionId !== undefined) headers['mcp-session-id'] = this.sessionId;
			stream.res.writeHead(200, headers);
			stream.res.end(json);
			this.stopKeepAliveIfQuiet();
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
			for (const stream of this.streams.values()) {
				if (stream.res === undefined) continue;
				this.stream(stream);
				stream.res.write(': keepalive\n\n');
			}
		}, keepAliveMs);
		this.keepAlive.unref();
	}

	private stopKeepAliveIfQuiet(): void {
		if (this.standalone !== undefined) return;
		for (const stream of this.streams.values()) if (stream.res !== undefined) return;
		clearInterval(this.keepAlive);
		this.keepAlive = undefined;
	}

	async close(): Promise<void> {
		if (this.closed) return;
		this.closed = true;
		clearTimeout(this.holdTimer);
		clearInterval(this.keepAlive);
		this.keepAlive = undefined;
		for (const stream of this.streams.values()) {
			if (stream.res === undefined) continue;
			this.stream(stream);
			stream.res.end();
		}

		this.streams.clear();
		this.pending.clear();
		this.events.clear();
		this.standalone?.end();
		this.standalone = undefined;
		this.onclose?.();
	}
}
