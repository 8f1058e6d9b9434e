/**
 * Stateful Streamable HTTP sessions for the demo servers, on node:http and
 * the v2 SDK's web-standard transport (`WebStandardStreamableHTTPServerTransport`
 * speaks Request and Response; `webRequest` and `sendWebResponse` convert, in
 * a dozen lines instead of @modelcontextprotocol/node and its Hono adapter).
 * `serveSessions` serves /mcp on 127.0.0.1 with DNS-rebinding protection and
 * hands each new session's transport to `open`, which connects it (an SDK
 * `Server`, or a relay to a stdio process in the tests).
 */
import {randomUUID} from 'node:crypto';
import http from 'node:http';
import {ProtocolErrorCode, WebStandardStreamableHTTPServerTransport, isInitializeRequest} from '@modelcontextprotocol/server';

const mcpPath = '/mcp';
const loopbackNames = new Set(['127.0.0.1', 'localhost', '[::1]']);
const maxBodyBytes = 4 * 1024 * 1024;

/** `req` as a web Request (its body read and parsed by the caller, if any), aborted when the connection closes. */
export function webRequest(req: http.IncomingMessage, res: http.ServerResponse): Request {
	const headers = new Headers();
	for (const [name, value] of Object.entries(req.headers)) {
		for (const one of Array.isArray(value) ? value : value === undefined ? [] : [value]) headers.append(name, one);
	}

	const closed = new AbortController();
	res.on('close', () => closed.abort());
	return new Request(new URL(req.url ?? '/', `http://${req.headers.host ?? 'localhost'}`), {method: req.method ?? 'GET', headers, signal: closed.signal});
}

/** Writes `response` to `res`, streaming its body (an SSE stream stays open until either side ends it). */
export async function sendWebResponse(res: http.ServerResponse, response: Response): Promise<void> {
	res.writeHead(response.status, Object.fromEntries(response.headers));
	if (response.body === null) {
		res.end();
		return;
	}

	res.flushHeaders();
	const reader = response.body.getReader();
	res.on('close', () => {
		reader.cancel().catch(() => {});
	});
	try {
		for (let chunk = await reader.read(); !chunk.done; chunk = await reader.read()) res.write(chunk.value);
	} catch {
		// The client went away mid-stream.
	}

	res.end();
}

/** Refuses, with a reason, a request whose Host or Origin is not this loopback address (DNS rebinding). */
function rebindingProblem(req: http.IncomingMessage, port: number): string | undefined {
	const allowed = (host: string) => {
		const at = host.lastIndexOf(':');
		return at > 0 && loopbackNames.has(host.slice(0, at).toLowerCase()) && host.slice(at + 1) === String(port);
	};

	const host = req.headers.host ?? '';
	if (!allowed(host)) return `Host header ${JSON.stringify(host)} is not this server's loopback address (127.0.0.1:${port} or localhost:${port}): refused as possible DNS rebinding.`;
	const origin = req.headers.origin;
	if (origin !== undefined) {
		let originHost = '';
		try {
			const url = new URL(origin);
			originHost = url.protocol === 'http:' ? url.host : '';
		} catch {}

		if (!allowed(originHost)) return `Origin header ${JSON.stringify(origin)} is not this server's loopback origin (http://127.0.0.1:${port}): refused as possible DNS rebinding.`;
	}

	return undefined;
}

function sendJsonRpcError(res: http.ServerResponse, status: number, code: number, message: string): void {
	res.writeHead(status, {'Content-Type': 'application/json'}).end(JSON.stringify({jsonrpc: '2.0', error: {code, message}, id: null}));
}

async function readJsonBody(req: http.IncomingMessage): Promise<{body: unknown} | {problem: string; status: number}> {
	const chunks: Buffer[] = [];
	let size = 0;
	for await (const chunk of req as AsyncIterable<Buffer>) {
		size += chunk.length;
		if (size > maxBodyBytes) return {problem: `The request body is larger than ${maxBodyBytes} bytes.`, status: 413};
		chunks.push(chunk);
	}

	try {
		return {body: JSON.parse(Buffer.concat(chunks).toString('utf8')) as unknown};
	} catch (error) {
		return {problem: `The request body is not JSON: ${error instanceof Error ? error.message : String(error)}`, status: 400};
	}
}

/**
 * Serves stateful Streamable HTTP sessions at /mcp on 127.0.0.1:`port` (0:
 * any free port); each initialize without a session opens one, whose
 * transport `open` connects. Resolves once listening with the URL and a
 * `close` that ends every session and the server; `name` labels failures on
 * stderr.
 */
export async function serveSessions(
	port: number,
	open: (transport: WebStandardStreamableHTTPServerTransport) => Promise<void>,
	name: string,
	/** A POST without Mcp-Session-Id that is not initialize (a 2026-07-28 request): answered here when given, else refused with HTTP 400. */
	sessionless?: (body: unknown, req: http.IncomingMessage, res: http.ServerResponse) => Promise<void>,
): Promise<{url: string; close: () => Promise<void>}> {
	const sessions = new Map<string, WebStandardStreamableHTTPServerTransport>();
	let boundPort = port;

	const handle = async (req: http.IncomingMessage, res: http.ServerResponse) => {
		const problem = rebindingProblem(req, boundPort);
		if (problem !== undefined) return sendJsonRpcError(res, 403, ProtocolErrorCode.InvalidRequest, problem);
		if (new URL(req.url ?? '/', 'http://localhost').pathname !== mcpPath) return sendJsonRpcError(res, 404, ProtocolErrorCode.InvalidRequest, `Nothing is served at ${req.url}; MCP is at ${mcpPath}.`);

		const sessionId = req.headers['mcp-session-id'];
		if (typeof sessionId === 'string') {
			const transport = sessions.get(sessionId);
			if (transport === undefined) return sendJsonRpcError(res, 404, ProtocolErrorCode.InvalidRequest, `Unknown or closed session ${sessionId}: start a new one with initialize.`);
			if (req.method !== 'POST') return sendWebResponse(res, await transport.handleRequest(webRequest(req, res)));
			const read = await readJsonBody(req);
			if ('problem' in read) return sendJsonRpcError(res, read.status, ProtocolErrorCode.ParseError, read.problem);
			return sendWebResponse(res, await transport.handleRequest(webRequest(req, res), {parsedBody: read.body}));
		}

		if (req.method !== 'POST') return sendJsonRpcError(res, 400, ProtocolErrorCode.InvalidRequest, 'This request needs an Mcp-Session-Id header: open a session first with an initialize POST.');
		const read = await readJsonBody(req);
		if ('problem' in read) return sendJsonRpcError(res, read.status, ProtocolErrorCode.ParseError, read.problem);
		if (!isInitializeRequest(read.body) && sessionless !== undefined) return sessionless(read.body, req, res);
		if (!isInitializeRequest(read.body)) return sendJsonRpcError(res, 400, ProtocolErrorCode.InvalidRequest, 'Without an Mcp-Session-Id header only an initialize request is accepted.');

		const transport = new WebStandardStreamableHTTPServerTransport({
			sessionIdGenerator: randomUUID,
			onsessioninitialized: id => {
				sessions.set(id, transport);
			},
		});
		transport.onclose = () => {
			if (transport.sessionId !== undefined) sessions.delete(transport.sessionId);
		};

		await open(transport);
		await sendWebResponse(res, await transport.handleRequest(webRequest(req, res), {parsedBody: read.body}));
	};

	const httpServer = http.createServer((req, res) => {
		handle(req, res).catch((error: unknown) => {
			process.stderr.write(`${name}: ${req.method} ${req.url} failed: ${error instanceof Error ? error.stack : String(error)}\n`);
			if (!res.headersSent) sendJsonRpcError(res, 500, ProtocolErrorCode.InternalError, 'Internal error; see the server log.');
			else res.end();
		});
	});

	await new Promise<void>((resolve, reject) => {
		httpServer.once('error', reject);
		httpServer.listen(port, '127.0.0.1', resolve);
	});
	const address = httpServer.address();
	if (address === null || typeof address === 'string') throw new Error('the HTTP server has no TCP address');
	boundPort = address.port;
	return {
		url: `http://127.0.0.1:${boundPort}${mcpPath}`,
		async close() {
			await Promise.all([...sessions.values()].map(async transport => transport.close().catch(() => {})));
			httpServer.closeAllConnections();
			await new Promise<void>(resolve => httpServer.close(() => resolve()));
		},
	};
}
