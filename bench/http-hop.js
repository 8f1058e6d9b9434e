/**
 * The minimal HTTP→stdio hop: the floor any proxy that serves MCP over
 * Streamable HTTP in front of a stdio upstream can reach.
 *
 *   node bench/http-hop.js PORT COMMAND [ARGS...]
 *
 * It listens on 127.0.0.1:PORT (0: any free port, printed on stdout as
 * "listening PORT"), spawns COMMAND, and serves POST /mcp: each JSON-RPC
 * request gets an id of the hop's own and is written to the upstream's stdin;
 * the upstream's answer gets the client's id back and is the HTTP response
 * (application/json). Notifications and responses from the client are written
 * on and answered 202. No sessions, no event stream (GET is 405, which the SDK
 * client accepts), no validation: per message it does what any HTTP proxy
 * must (read the body, JSON.parse, rewrite the id, JSON.stringify, write both
 * ways). What the upstream sends outside an answer is dropped.
 */
import {spawn} from 'node:child_process';
import http from 'node:http';
import {lines} from './lib/json-lines.js';

const [portText, command, ...args] = process.argv.slice(2);
if (command === undefined) {
	process.stderr.write('usage: node bench/http-hop.js PORT COMMAND [ARGS...]\n');
	process.exit(2);
}

const child = spawn(command, args, {stdio: ['pipe', 'pipe', 'inherit']});
const pending = new Map();
let nextId = 1;

lines(child.stdout, line => answer(line));

function answer(line) {
	const message = JSON.parse(line);
	if (message.method !== undefined || !pending.has(message.id)) return;
	const {res, id} = pending.get(message.id);
	pending.delete(message.id);
	message.id = id;
	const body = JSON.stringify(message);
	res.writeHead(200, {'Content-Type': 'application/json', 'Content-Length': Buffer.byteLength(body)});
	res.end(body);
}

const server = http.createServer((req, res) => {
	if (req.method !== 'POST') {
		res.writeHead(405, {Allow: 'POST'}).end();
		return;
	}

	const chunks = [];
	req.on('data', chunk => chunks.push(chunk));
	req.on('end', () => {
		const message = JSON.parse(Buffer.concat(chunks).toString('utf8'));
		if (typeof message.method === 'string' && message.id !== undefined) {
			const id = nextId++;
			pending.set(id, {res, id: message.id});
			message.id = id;
		} else {
			res.writeHead(202).end();
		}

		child.stdin.write(`${JSON.stringify(message)}\n`);
	});
});

server.listen(Number(portText), '127.0.0.1', () => {
	process.stdout.write(`listening ${server.address().port}\n`);
});

child.on('exit', code => process.exit(code ?? 1));
child.stdin.on('error', () => {});
for (const signal of ['SIGINT', 'SIGTERM']) process.on(signal, () => child.kill('SIGTERM'));
