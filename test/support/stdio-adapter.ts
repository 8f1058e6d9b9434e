/**
 * An HTTP front for `mcp-hangar --stdio`, so the conformance suite (which
 * speaks only Streamable HTTP) can be run against hangar's stdio endpoint:
 * each HTTP session spawns `mcp-hangar --stdio --config FILE` (a bridge to
 * the supervisor already running that config) and relays JSON-RPC both ways.
 * What the process sends goes on the event stream of the request it belongs
 * to, as an SDK server ties what a handler sends to its request: an answer
 * on its request's stream, progress on the stream of the request that gave
 * its token, anything else (log messages, sampling and elicitation requests)
 * on the stream of the newest request in flight, if any. The next session's
 * process is started ahead, so a session does not wait for Node to start.
 *
 * A 2026-07-28 request (a POST without Mcp-Session-Id that is not
 * initialize) goes to one `--stdio` process that carries every such
 * request, as one stdio client would (sessionlessRelay below).
 */
import {spawn, type ChildProcessByStdio} from 'node:child_process';
import type http from 'node:http';
import type {Readable, Writable} from 'node:stream';
import {ReadBuffer, serializeMessage, type JSONRPCMessage, type WebStandardStreamableHTTPServerTransport} from '@modelcontextprotocol/server';
import {serveSessions} from '../../source/demo/web-http.js';
import {cliPath, spawnEnv} from './hangar.js';

type Id = string | number;

type Bridge = ChildProcessByStdio<Writable, Readable, null>;

const serving: Array<() => Promise<void>> = [];

/** Serves `mcp-hangar --stdio --config configFile` (each process tagged `tag`) over Streamable HTTP on loopback; resolves with its URL. */
export async function serveStdioOverHttp(configFile: string, tag: string): Promise<string> {
	const start = (): Bridge => spawn(process.execPath, [cliPath, '--stdio', '--config', configFile], {env: spawnEnv({HANGAR_TEST_TAG: tag}), stdio: ['pipe', 'pipe', 'ignore']});
	let next = start();
	const sessionless = sessionlessRelay(start);
	const {url, close} = await serveSessions(
		0,
		async transport => {
			const child = next;
			next = start();
			await relay(transport, child);
		},
		'stdio-adapter',
		sessionless.serve,
	);
	serving.push(async () => {
		next.stdin.end();
		sessionless.end();
		await close();
	});
	return url;
}

const subscriptionIdKey = 'io.modelcontextprotocol/subscriptionId';

type Sessionless = {clientId: Id; method: string; res: http.ServerResponse; acceptsStream: boolean; streaming: boolean; token: unknown; subscription?: unknown};

/**
 * 2026-07-28 requests over one `--stdio` process, started on the first:
 * each request goes in under an id of the adapter's own and its answer
 * comes back under the client's, as JSON (HTTP 404 for -32601, as hangar's
 * HTTP endpoint answers a method this era does not have) or, once a
 * notification for it comes first and the client accepts one, on an SSE
 * stream that ends with the answer. Progress goes to the request whose
 * token it carries; a subscription's notifications to the
 * `subscriptions/listen` that was acknowledged with its id; anything else to
 * the newest request in flight that is not a listen. A request the client
 * abandons is cancelled. HTTP-only rules (the Mcp-* headers) are not
 * checked here: the stdio endpoint never sees them.
 */
function sessionlessRelay(start: () => Bridge): {serve: (body: unknown, req: http.IncomingMessage, res: http.ServerResponse) => Promise<void>; end: () => void} {
	let child: Bridge | undefined;
	const lines = new ReadBuffer();
	const open = new Map<number, Sessionless>();
	let nextId = 0;

	const write = (request: Sessionless, message: Record<string, unknown>, last: boolean) => {
		if (!request.streaming && !last) {
			if (!request.acceptsStream) return;
			request.streaming = true;
			request.res.writeHead(200, {'Content-Type': 'text/event-stream', 'Cache-Control': 'no-cache'});
		}

		const text = JSON.stringify(message);
		if (request.streaming) {
			request.res.write(`event: message\ndata: ${text}\n\n`);
			if (last) request.res.end();
			return;
		}

		request.res.writeHead((message['error'] as {code?: unknown} | undefined)?.code === -32601 ? 404 : 200, {'Content-Type': 'application/json'});
		request.res.end(text);
	};

	const deliver = (message: JSONRPCMessage) => {
		const record = message as {id?: Id; method?: string; params?: {progressToken?: unknown; _meta?: Record<string, unknown>}};
		if (record.method === undefined && typeof record.id === 'number') {
			const request = open.get(record.id);
			if (request === undefined) return;
			open.delete(record.id);
			write(request, {...message, id: request.clientId}, true);
			return;
		}

		// A 2026-07-28 client takes no requests: hangar asks it through input_required instead.
		if (record.method !== undefined && record.id !== undefined) {
			child?.stdin.write(serializeMessage({jsonrpc: '2.0', id: record.id, error: {code: -32601, message: 'Method not found: a 2026-07-28 client takes no requests'}}));
			return;
		}

		const requests = [...open.values()];
		let target: Sessionless | undefined;
		if (record.method === 'notifications/progress') target = requests.find(request => request.token !== undefined && request.token === record.params?.progressToken);
		else if (record.method === 'notifications/subscriptions/acknowledged') {
			target = requests.findLast(request => request.method === 'subscriptions/listen' && request.subscription === undefined);
			if (target !== undefined) target.subscription = record.params?._meta?.[subscriptionIdKey];
		} else if (record.params?._meta?.[subscriptionIdKey] !== undefined) target = requests.find(request => request.subscription === record.params?._meta?.[subscriptionIdKey]);
		else target = requests.findLast(request => request.method !== 'subscriptions/listen');
		if (target !== undefined) write(target, message as Record<string, unknown>, false);
	};

	const bridge = (): Bridge => {
		if (child !== undefined) return child;
		const started = start();
		started.stdout.on('data', (chunk: Buffer) => {
			lines.append(chunk);
			for (let message = lines.readMessage(); message !== null; message = lines.readMessage()) deliver(message);
		});
		child = started;
		return started;
	};

	return {
		async serve(body, req, res) {
			const record = body as {id?: Id; method?: string; params?: {_meta?: {progressToken?: unknown}; requestId?: unknown}};
			if (typeof record !== 'object' || record === null || Array.isArray(body) || typeof record.method !== 'string') {
				res.writeHead(400, {'Content-Type': 'application/json'}).end(JSON.stringify({jsonrpc: '2.0', id: null, error: {code: -32600, message: 'Invalid Request'}}));
				return;
			}

			if (record.id === undefined) {
				bridge().stdin.write(serializeMessage(body as JSONRPCMessage));
				res.writeHead(202).end();
				return;
			}

			const id = ++nextId;
			const request: Sessionless = {clientId: record.id, method: record.method, res, acceptsStream: (req.headers.accept ?? '').includes('text/event-stream'), streaming: false, token: record.params?._meta?.progressToken};
			open.set(id, request);
			res.on('close', () => {
				if (!open.delete(id)) return;
				child?.stdin.write(serializeMessage({jsonrpc: '2.0', method: 'notifications/cancelled', params: {requestId: id, reason: 'the HTTP client closed the request'}}));
			});
			bridge().stdin.write(serializeMessage({...(body as JSONRPCMessage), id} as JSONRPCMessage));
		},
		end() {
			child?.stdin.end();
		},
	};
}

/** Ends every adapter's sessions (so their `--stdio` processes see stdin end) and stops serving (an afterEach hook). */
export async function stopStdioAdapters(): Promise<void> {
	await Promise.all(serving.splice(0).map(async close => close()));
}

async function relay(transport: WebStandardStreamableHTTPServerTransport, child: Bridge): Promise<void> {
	const lines = new ReadBuffer();
	const inFlight: Id[] = [];
	const byToken = new Map<unknown, Id>();
	const settle = (id: Id) => {
		const at = inFlight.indexOf(id);
		if (at !== -1) inFlight.splice(at, 1);
		for (const [token, owner] of byToken) if (owner === id) byToken.delete(token);
	};

	const deliver = (message: JSONRPCMessage) => {
		const record = message as {id?: Id; method?: string; params?: {progressToken?: unknown}};
		let related: Id | undefined;
		if (record.method === undefined && record.id !== undefined) {
			related = record.id;
			settle(record.id);
		} else {
			related = (record.method === 'notifications/progress' ? byToken.get(record.params?.progressToken) : undefined) ?? inFlight.at(-1);
		}

		transport.send(message, related === undefined ? undefined : {relatedRequestId: related}).catch(() => {});
	};

	child.stdout.on('data', (chunk: Buffer) => {
		lines.append(chunk);
		for (let message = lines.readMessage(); message !== null; message = lines.readMessage()) deliver(message);
	});
	child.on('exit', () => {
		transport.close().catch(() => {});
	});
	transport.onmessage = message => {
		const record = message as {id?: Id; method?: string; params?: {_meta?: {progressToken?: unknown}}};
		if (record.method !== undefined && record.id !== undefined) {
			inFlight.push(record.id);
			const token = record.params?._meta?.progressToken;
			if (token !== undefined) byToken.set(token, record.id);
		}

		child.stdin.write(serializeMessage(message));
	};
	const forget = transport.onclose;
	transport.onclose = () => {
		forget?.();
		child.stdin.end();
	};
	await transport.start();
}
