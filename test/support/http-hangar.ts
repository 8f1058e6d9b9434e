/**
 * Test support for `mcp-hangar serve --http`: spawns the built CLI on an
 * ephemeral loopback port, reads the URL it serves from its log, and
 * connects the SDK's own Streamable HTTP client to it.
 */
import fs from 'node:fs';
import {Client} from '@modelcontextprotocol/sdk/client/index.js';
import {StreamableHTTPClientTransport} from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import {spawnServe, type Served} from './serve.js';

export type HttpHangar = Served & {
	/** e.g. http://127.0.0.1:41234/mcp */
	url: string;
	/** http://127.0.0.1:41234 */
	origin: string;
};

const running: HttpHangar[] = [];

/** `mcp-hangar serve --http --port 0 --config FILE ...args`, once it listens. */
export async function serveHttp(configFile: string, options: {args?: string[]; env?: Record<string, string>} = {}): Promise<HttpHangar> {
	const logFile = logFileOf(options.args ?? []);
	const {served, ready: url} = await spawnServe(['serve', '--http', '--port', '0', '--config', configFile, ...(options.args ?? [])], {
		env: {MCP_HANGAR_TOKEN: '', ...options.env},
		...(logFile === undefined ? {} : {log: () => readIfThere(logFile)}),
		listening: log => /serving MCP over HTTP at (http:\/\/\S+)/.exec(log)?.[1],
	});
	const handle: HttpHangar = {...served, url, origin: new URL(url).origin};
	running.push(handle);
	return handle;
}

/** Stops every hangar serveHttp started (an afterEach hook). */
export async function stopHttpHangars(): Promise<void> {
	await Promise.all(running.splice(0).map(async handle => handle.stop()));
}

function logFileOf(args: string[]): string | undefined {
	const at = args.indexOf('--log-file');
	return at === -1 ? undefined : args[at + 1];
}

function readIfThere(file: string): string {
	try {
		return fs.readFileSync(file, 'utf8');
	} catch {
		return '';
	}
}

export type HttpClient = {client: Client; transport: StreamableHTTPClientTransport};

/** An SDK client connected over Streamable HTTP, with the token (if any) as a bearer header. */
export async function connectHttp(url: string, options: {token?: string; fetch?: typeof fetch; client?: Client} = {}): Promise<HttpClient> {
	const transport = new StreamableHTTPClientTransport(new URL(url), {
		requestInit: options.token === undefined ? {} : {headers: {Authorization: `Bearer ${options.token}`}},
		...(options.fetch === undefined ? {} : {fetch: options.fetch}),
	});
	const client = options.client ?? new Client({name: 'hangar-http-test', version: '1.0.0'});
	await client.connect(transport);
	return {client, transport};
}

/** A raw POST to the endpoint, for what the SDK client would never send. */
export async function post(url: string, body: string, headers: Record<string, string> = {}): Promise<Response> {
	return fetch(url, {
		method: 'POST',
		headers: {'Content-Type': 'application/json', Accept: 'application/json, text/event-stream', ...headers},
		body,
	});
}

/** The JSON-RPC messages in an SSE response body (or the one JSON body). */
export async function messagesOf(response: Response): Promise<Array<Record<string, unknown>>> {
	const text = await response.text();
	if ((response.headers.get('content-type') ?? '').includes('application/json')) return [JSON.parse(text) as Record<string, unknown>];
	return text
		.split('\n')
		// A priming event (2025-11-25: an id and empty data) carries no message.
		.filter(line => line.startsWith('data: ') && line !== 'data: ')
		.map(line => JSON.parse(line.slice(6)) as Record<string, unknown>);
}

export const initializeBody = JSON.stringify({
	jsonrpc: '2.0',
	id: 1,
	method: 'initialize',
	params: {protocolVersion: '2025-06-18', capabilities: {}, clientInfo: {name: 'raw-http-test', version: '1'}},
});
