/**
 * A test upstream that breaks its link to hangar while it keeps running: a
 * minimal MCP server on stdio (initialize, ping, tools/list, tools/call)
 * whose tools do what a wedged server does to its pipes.
 *
 * - `echo`: answers `{message}` back (a working call, to see a restart worked).
 * - `close-stdout`: closes its stdout and keeps running (never answers).
 * - `close-stdin`: closes its stdin and keeps running (never answers).
 * - `stop`: stops itself with SIGSTOP before answering.
 * - `pid`: answers its pid.
 *
 * It never exits on its own (stdin EOF included), so only hangar's stop ends it.
 */
import fs from 'node:fs';

const tools = [
	{name: 'echo', description: 'Echo the message back.', inputSchema: {type: 'object', properties: {message: {type: 'string'}}}},
	{name: 'close-stdout', description: 'Close stdout and keep running.', inputSchema: {type: 'object'}},
	{name: 'close-stdin', description: 'Close stdin and keep running.', inputSchema: {type: 'object'}},
	{name: 'stop', description: 'Stop this process with SIGSTOP.', inputSchema: {type: 'object'}},
	{name: 'pid', description: "Answer this process's pid.", inputSchema: {type: 'object'}},
];

type Request = {id?: string | number; method?: string; params?: {name?: string; arguments?: {message?: string}; protocolVersion?: string}};

function send(message: object): void {
	process.stdout.write(`${JSON.stringify({jsonrpc: '2.0', ...message})}\n`);
}

const text = (value: string) => ({content: [{type: 'text', text: value}]});

function call(id: string | number, name: string | undefined, args: {message?: string} = {}): void {
	switch (name) {
		case 'echo':
			send({id, result: text(args.message ?? '')});
			return;
		case 'pid':
			send({id, result: text(String(process.pid))});
			return;
		case 'close-stdout':
			fs.closeSync(1);
			return;
		case 'close-stdin':
			process.stdin.destroy();
			fs.closeSync(0);
			return;
		case 'stop':
			process.kill(process.pid, 'SIGSTOP');
			send({id, result: text('resumed')});
			return;
		default:
			send({id, error: {code: -32602, message: `unknown tool ${name ?? ''}`}});
	}
}

function handle(request: Request): void {
	const {id, method, params} = request;
	if (id === undefined || method === undefined) return;
	if (method === 'initialize') {
		send({id, result: {protocolVersion: params?.protocolVersion ?? '2025-06-18', capabilities: {tools: {}}, serverInfo: {name: 'broken-pipe-server', version: '1.0.0'}}});
	} else if (method === 'ping') {
		send({id, result: {}});
	} else if (method === 'tools/list') {
		send({id, result: {tools}});
	} else if (method === 'tools/call') {
		call(id, params?.name, params?.arguments);
	} else {
		send({id, error: {code: -32601, message: `method not found: ${method}`}});
	}
}

let pending = '';
process.stdin.setEncoding('utf8');
process.stdin.on('data', (chunk: string) => {
	pending += chunk;
	for (let newline = pending.indexOf('\n'); newline !== -1; newline = pending.indexOf('\n')) {
		const line = pending.slice(0, newline);
		pending = pending.slice(newline + 1);
		try {
			handle(JSON.parse(line) as Request);
		} catch {}
	}
});
process.stdin.on('error', () => {});
process.stdout.on('error', () => {});
// Keeps running whatever happens to its pipes.
setInterval(() => {}, 1 << 30);
