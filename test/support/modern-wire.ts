/**
 * Raw 2026-07-28 clients for tests of what the v2 client SDK (2.4) does not
 * speak (the tasks extension's `resultType: "task"`): requests written with
 * the `_meta` envelope, over the v2 SDK's stdio transport against
 * `mcp-hangar --stdio`, or over plain HTTP against `serve --http`.
 */
import http from 'node:http';
import {StdioClientTransport} from '@modelcontextprotocol/client/stdio';
import {cliPath, spawnEnv} from './hangar.js';

export const modernRevision = '2026-07-28';
export const tasksExtension = 'io.modelcontextprotocol/tasks';
export const declaringTasks = {extensions: {[tasksExtension]: {}}};

export type ModernAnswer = {id: number; result?: Record<string, unknown>; error?: {code: number; message: string; data?: unknown}};
/** Sends one 2026-07-28 request (the envelope in its `_meta`, `capabilities` as its clientCapabilities) and resolves with the JSON-RPC answer. */
export type ModernSend = (method: string, params: Record<string, unknown>, capabilities?: Record<string, unknown>) => Promise<ModernAnswer>;

let nextId = 1;

function envelope(params: Record<string, unknown>, capabilities: Record<string, unknown>, name: string): Record<string, unknown> {
	return {
		...params,
		_meta: {'io.modelcontextprotocol/protocolVersion': modernRevision, 'io.modelcontextprotocol/clientCapabilities': capabilities, 'io.modelcontextprotocol/clientInfo': {name, version: '1.0.0'}},
	};
}

/** A modern client of `mcp-hangar --stdio --standalone` (or, `attach`, of one attached to a running `serve`); `closers` gets its close, and so does `close`. */
export async function modernStdioClient(config: string, closers: Array<() => Promise<void>>, name = 'stdio-client', attach = false): Promise<ModernSend & {close: () => Promise<void>}> {
	const transport = new StdioClientTransport({command: process.execPath, args: [cliPath, '--stdio', '--config', config, ...(attach ? [] : ['--standalone'])], env: spawnEnv(), stderr: 'pipe'});
	const waiting = new Map<number, (answer: ModernAnswer) => void>();
	transport.onmessage = message => {
		const answer = message as unknown as ModernAnswer;
		if ('id' in answer && waiting.has(answer.id)) waiting.get(answer.id)!(answer);
	};
	await transport.start();
	closers.push(async () => transport.close());
	const send: ModernSend = async (method, params, capabilities = declaringTasks) =>
		new Promise(resolve => {
			const id = nextId++;
			waiting.set(id, resolve);
			void transport.send({jsonrpc: '2.0', id, method, params: envelope(params, capabilities, name)});
		});
	return Object.assign(send, {close: async () => transport.close()});
}

/** A modern client of hangar's HTTP endpoint with connections of its own (its own keep-alive agent), named `name`. */
export function modernHttpClient(url: string, closers: Array<() => Promise<void>>, name = 'http-client'): ModernSend {
	const agent = new http.Agent({keepAlive: true});
	closers.push(async () => agent.destroy());
	return async (method, params, capabilities = declaringTasks) => {
		const id = nextId++;
		const body = JSON.stringify({jsonrpc: '2.0', id, method, params: envelope(params, capabilities, name)});
		const mirrored = typeof params['taskId'] === 'string' ? params['taskId'] : typeof params['name'] === 'string' ? params['name'] : undefined;
		const headers: Record<string, string> = {
			'content-type': 'application/json',
			accept: 'application/json, text/event-stream',
			'mcp-protocol-version': modernRevision,
			'mcp-method': method,
			...(mirrored === undefined ? {} : {'mcp-name': mirrored}),
		};
		const text = await new Promise<string>((resolve, reject) => {
			const request = http.request(url, {method: 'POST', headers, agent}, response => {
				let data = '';
				response.setEncoding('utf8');
				response.on('data', chunk => (data += chunk));
				response.on('end', () => resolve(data));
			});
			request.on('error', reject);
			request.end(body);
		});
		// JSON, or an SSE stream whose data lines carry the answer (and perhaps notifications before it).
		const messages = text.trimStart().startsWith('{') ? [text] : text.split('\n').filter(line => line.startsWith('data:')).map(line => line.slice(5));
		const answer = messages.map(message => JSON.parse(message) as ModernAnswer).find(message => message.id === id);
		if (answer === undefined) throw new Error(`no answer to ${method} in ${text}`);
		return answer;
	};
}
