/**
 * The minimal forwarding hop: the floor any stdio MCP proxy can reach.
 *
 *   node bench/hop.js COMMAND [ARGS...]
 *   node bench/hop.js --listen SOCKET COMMAND [ARGS...]
 *
 * It spawns COMMAND, and forwards newline-delimited JSON-RPC both ways. Each
 * request from the client gets a fresh id of the hop's own (a proxy in front
 * of several clients or upstreams has to do this), and the upstream's answer
 * gets the client's id back. Everything else passes through as is. Per message
 * it does what any proxy must: split lines, JSON.parse, rewrite the id,
 * JSON.stringify, write. No validation, no routing, no state beyond the id map.
 *
 * With `--listen SOCKET` the client side is the first connection to a Unix
 * socket instead of stdin and stdout, and it prints `listening` once the
 * socket accepts. With bench/socket-hop.js in front (a bare node process
 * piping its stdio to that socket), that is the floor of any two-process
 * path, a bridge before a daemon, such as hangar's default `--stdio`.
 */
import {spawn} from 'node:child_process';
import {serveClient} from './lib/hop-client.js';
import {lines} from './lib/json-lines.js';

const argv = process.argv.slice(2);
const listenAt = argv[0] === '--listen' ? argv[1] : undefined;
const [command, ...args] = listenAt === undefined ? argv : argv.slice(2);
if (command === undefined) {
	process.stderr.write('usage: node bench/hop.js [--listen SOCKET] COMMAND [ARGS...]\n');
	process.exit(2);
}

const child = spawn(command, args, {stdio: ['pipe', 'pipe', 'inherit']});
const pending = new Map();
let nextId = 1;

function serve(input, output) {
	// Client -> upstream: requests get the hop's own id.
	lines(input, line => {
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

		output.write(`${JSON.stringify(message)}\n`);
	});

	input.on('end', () => child.stdin.end());
	output.on('error', () => process.exit(0));
}

child.on('exit', code => process.exit(code ?? 1));
child.stdin.on('error', () => {});
serveClient(listenAt, serve);
