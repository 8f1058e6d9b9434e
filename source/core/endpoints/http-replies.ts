/**
 * The HTTP endpoint's replies that are not MCP answers (an HTTP status with
 * a JSON body: refusals, probes, problems with a body), the record each
 * request's log line is written from, and the few HTTP and SSE forms the
 * transport writes. Shared by http-endpoint.ts and the
 * session transport in http-session.ts.
 */
import type http from 'node:http';
import {answerIdText, errorLine, type MessageProblem} from '../wire/message-classifier.js';

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
export function refuse(res: http.ServerResponse, status: number, code: number, message: string, record: RequestRecord): void {
	record.rpcError = code;
	sendRpcError(res, status, code, message);
}


export const sseHeaders = {
	'Content-Type': 'text/event-stream',
	'Cache-Control': 'no-cache, no-transform',
	Connection: 'keep-alive',
	'X-Accel-Buffering': 'no',
} as const;

/** One SSE event carrying one JSON-RPC message's JSON, less its id line (the resume window adds that). */
export function event(json: string): string {
	return `event: message\ndata: ${json}\n\n`;
}

/**
 * Refuses a POST whose media type is not application/json with 415, before its
 * body is read, as the SDK's Streamable HTTP servers do (v1's transport and
 * v2's createMcpHandler, for both protocol generations); true when refused.
 */
export function refusedMediaType(req: http.IncomingMessage, res: http.ServerResponse, record: RequestRecord): boolean {
	if (isJsonContentType(req.headers['content-type'])) return false;
	refuse(res, 415, -32_000, 'Unsupported Media Type: Content-Type must be application/json', record);
	return true;
}

function isJsonContentType(header: string | undefined): boolean {
	if (header === 'application/json') return true;
	return (header?.split(';', 1)[0] ?? '').trim().toLowerCase() === 'application/json';
}
