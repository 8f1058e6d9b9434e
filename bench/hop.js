/**
 * The minimal forwarding hop: the floor any stdio MCP proxy can reach.
 *
 *   node bench/hop.js COMMAND [ARGS...]
 *
 * It spawns COMMAND, and forwards newline-delimited JSON-RPC both ways. Each
 * request from the client gets a fresh id of the hop's own (a proxy in front
 * of several clients or upstreams has to do this), and the upstream's answer
 * gets the client's id back. Everything else passes through as is. Per message
 * it does what any proxy must: split lines, JSON.parse, rewrite the id,
 * JSON.stringify, write. No validation, no routing, no state beyond the id map.
 */
import {spawn} from 'node:child_process';

const [command, ...args] = process.argv.slice(2);
if (command === undefined) {
	process.stderr.write('usage: node bench/hop.js COMMAND [ARGS...]\n');
	process.exit(2);
}

const child = spawn(command, args, {stdio: ['pipe', 'pipe', 'inherit']});
const pending = new Map();
let nextId = 1;

function lines(stream, onLine) {
	let rest = '';
	stream.setEncoding('utf8');
	stream.on('data', chunk => {
		let text = rest + chunk;
		let newline = text.indexOf('\n');
		while (newline !== -1) {
			const line = text.slice(0, newline);
			if (line.length > 0) onLine(line);
			text = text.slice(newline + 1);
			newline = text.indexOf('\n');
		}

		rest = text;
	});
}

// Client -> upstream: requests get the hop's own id.
lines(process.stdin, line => {
	const message = JSON.parse(line);
	if (typeof message.method === 'string' && message.id !== undefined) {
		const id = nextId++;
		pending.set(id, message.id);
		message.id = id;
	}

	child.stdin.write(`${JSON.stringify(message)}\n`);
});

// Upstream -> client: answers get the client's id back.
lines(child.stdout, line => {
	const message = JSON.parse(line);
	if (message.method === undefined && typeof message.id === 'number' && pending.has(message.id)) {
		const id = message.id;
		message.id = pending.get(id);
		pending.delete(id);
	}

	process.stdout.write(`${JSON.stringify(message)}\n`);
});

process.stdin.on('end', () => child.stdin.end());
child.on('exit', code => process.exit(code ?? 1));
child.stdin.on('error', () => {});
process.stdout.on('error', () => process.exit(0));
