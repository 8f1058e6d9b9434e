/**
 * Two minimal MCP upstreams that tell a test what hangar sent them with a
 * call: a stdio one (a Node script, newline-delimited JSON-RPC) whose one
 * tool answers with the `_meta` it received, and a Streamable HTTP one (a
 * loopback server answering in plain JSON) that keeps each request's
 * headers. The stdio one also has a tool that answers a result marked
 * isError and one that fails with a JSON-RPC error of the caller's words.
 * Nothing else: what tracing tests need to see, and no more.
 */
import fs from 'node:fs';
import http from 'node:http';
import type net from 'node:net';
import path from 'node:path';

const stdioScript = `
const tools = [
	{name: 'meta', description: 'Answers with the _meta it received', inputSchema: {type: 'object'}},
	{name: 'tool-error', description: 'Answers with a result marked isError', inputSchema: {type: 'object'}},
	{name: 'fail', description: 'Answers with a JSON-RPC error whose message is its argument "message"', inputSchema: {type: 'object'}},
];
let buffer = '';
process.stdin.on('data', chunk => {
	buffer += chunk;
	for (let at = buffer.indexOf('\\n'); at >= 0; at = buffer.indexOf('\\n')) {
		const line = buffer.slice(0, at);
		buffer = buffer.slice(at + 1);
		if (line.trim() === '') continue;
		const message = JSON.parse(line);
		if (message.id === undefined) continue;
		const answer = result => process.stdout.write(JSON.stringify({jsonrpc: '2.0', id: message.id, result}) + '\\n');
		if (message.method === 'initialize') answer({protocolVersion: message.params.protocolVersion, capabilities: {tools: {}}, serverInfo: {name: 'meta-echo', version: '1.0.0'}});
		else if (message.method === 'tools/list') answer({tools});
		else if (message.method === 'tools/call' && message.params.name === 'tool-error') answer({content: [{type: 'text', text: 'it did not work'}], isError: true});
		else if (message.method === 'tools/call' && message.params.name === 'fail') process.stdout.write(JSON.stringify({jsonrpc: '2.0', id: message.id, error: {code: -32000, message: String(message.params.arguments?.message)}}) + '\\n');
		else if (message.method === 'tools/call') answer({content: [{type: 'text', text: JSON.stringify(message.params._meta ?? null)}]});
		else if (message.method === 'ping') answer({});
		else process.stdout.write(JSON.stringify({jsonrpc: '2.0', id: message.id, error: {code: -32601, message: 'Method not found'}}) + '\\n');
	}
});
process.stdin.on('end', () => process.exit(0));
`;

/** A server entry for the stdio upstream (its script written to `dir`). */
export function metaEchoServer(dir: string): Record<string, unknown> {
	const file = path.join(dir, 'meta-echo-server.cjs');
	fs.writeFileSync(file, stdioScript);
	return {command: process.execPath, args: [file]};
}

export type HeaderRecordingServer = {url: string; calls: Array<{headers: http.IncomingHttpHeaders; body: Record<string, unknown>}>; close: () => Promise<void>};

/** The Streamable HTTP upstream on loopback: every tools/call's headers and body are kept in `calls`. */
export async function headerRecordingServer(): Promise<HeaderRecordingServer> {
	const calls: HeaderRecordingServer['calls'] = [];
	const server = http.createServer((req, res) => {
		if (req.method !== 'POST') {
			res.writeHead(405).end();
			return;
		}

		let text = '';
		req.on('data', chunk => {
			text += chunk;
		});
		req.on('end', () => {
			const message = JSON.parse(text) as {id?: number | string; method: string; params?: Record<string, unknown>};
			if (message.id === undefined) {
				res.writeHead(202).end();
				return;
			}

			const answer = (result: unknown): void => {
				res.writeHead(200, {'Content-Type': 'application/json', 'Mcp-Session-Id': 'session-1'}).end(JSON.stringify({jsonrpc: '2.0', id: message.id, result}));
			};

			if (message.method === 'initialize') answer({protocolVersion: message.params?.['protocolVersion'], capabilities: {tools: {}}, serverInfo: {name: 'headers', version: '1.0.0'}});
			else if (message.method === 'tools/list') answer({tools: [{name: 'meta', inputSchema: {type: 'object'}}]});
			else if (message.method === 'tools/call') {
				calls.push({headers: req.headers, body: message as Record<string, unknown>});
				answer({content: [{type: 'text', text: 'ok'}]});
			} else answer({});
		});
	});
	await new Promise<void>(resolve => server.listen(0, '127.0.0.1', resolve));
	const {port} = server.address() as net.AddressInfo;
	return {
		url: `http://127.0.0.1:${port}/mcp`,
		calls,
		close: async () => {
			server.closeAllConnections();
			await new Promise(resolve => server.close(resolve));
		},
	};
}
