/**
 * Modern (2026-07-28) requests on the HTTP endpoint: stateless, one POST per
 * request, no `initialize` and no Mcp-Session-Id. Each request is served by
 * a GatewaySession of its own over a one-request transport, so it goes
 * through the same pipeline and method table as every other request (one
 * RequestContext, one answer), and nothing it does outlives it or reaches
 * another client. The `MCP-Protocol-Version`, `Mcp-Method` and `Mcp-Name`
 * headers must mirror the body (HTTP 400, -32020, when they do not).
 *
 * Not yet: progress and log notifications on the request's own SSE stream
 * (the answer is one JSON body), `subscriptions/listen`, and `input_required`
 * for an upstream's requests (issue 31).
 */
import type http from 'node:http';
import type {JSONRPCMessage} from '@modelcontextprotocol/server';
import type {Logger} from '../base/logger.js';
import type {Supervisor} from '../engine/supervisor.js';
import {headerProblem, modernErrorCode, type ModernRequest} from '../gateway/protocol-era.js';
import {GatewaySession, type SessionTransport} from '../gateway/session.js';
import type {CheckedMessage} from '../wire/message-classifier.js';
import {sendJson, sendRpcError, type RequestRecord} from './http-replies.js';

/** A transport that carries one request in and its one answer out, as a JSON body. */
class OneRequestTransport implements SessionTransport {
	onmessage?: (message: JSONRPCMessage) => void;
	onclose?: () => void;
	onerror?: (error: Error) => void;
	private closed = false;

	constructor(
		private readonly res: http.ServerResponse,
		private readonly id: string | number,
		private readonly correlationId: string,
	) {}

	async start(): Promise<void> {}

	/** Only the request's answer goes out; what would need a stream (progress, logs, requests to the client) has none yet and is dropped. */
	async send(message: JSONRPCMessage): Promise<void> {
		const record = message as {id?: unknown; result?: unknown; error?: unknown};
		if (this.closed || record.id !== this.id || !('result' in record || 'error' in record)) return;
		sendJson(this.res, 200, message);
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

function header(req: http.IncomingMessage, name: string): string | undefined {
	const value = req.headers[name];
	return Array.isArray(value) ? value.join(', ') : value;
}

let requestNumber = 0;

/** Serves one modern request `message` (its envelope already read as `modern`) and answers it on `res`. */
export async function serveModernRequest(
	options: {supervisor: Supervisor; logger: Logger},
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

	const {supervisor, logger} = options;
	const label = `http ${modern.revision} #${++requestNumber}`;
	record.session = label;
	const transport = new OneRequestTransport(res, message.id, record.correlationId);
	const gateway = new GatewaySession({
		supervisor,
		transport,
		logger: logger.child('gateway'),
		label,
		kind: 'http',
		callDeadline: {ms: supervisor.config.hangar.httpCallTimeoutMs, setting: 'httpCallTimeoutSeconds'},
	});
	if (modern.clientInfo !== undefined) gateway.client.identify(modern.clientInfo.name, modern.clientInfo.version);
	// The client gone before its answer: the request is cancelled with the session.
	res.on('close', () => void gateway.close());
	await gateway.start();
	transport.onmessage?.(message.value as JSONRPCMessage);
}
