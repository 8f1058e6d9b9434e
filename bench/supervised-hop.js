/**
 * The minimal hop (bench/hop.js) plus the least a supervisor must add to
 * every call, written as plainly as possible: the floor of "the hop's work
 * plus what hangar must add" (issue 28) that `--stdio --standalone` is
 * compared with.
 *
 *   node bench/supervised-hop.js [--listen SOCKET] AUDIT_FILE PREFIX COMMAND [ARGS...]
 *
 * With `--listen SOCKET` the client side is the first connection to a Unix
 * socket, as with bench/hop.js: behind bench/socket-hop.js, the floor of a
 * bridge in front of a daemon that supervises (the default `--stdio`'s
 * shape with the least its two processes can do).
 *
 * Per tools/call, beyond the hop's split, JSON.parse, id rewrite,
 * JSON.stringify and write:
 *   - routing: the exposed name `PREFIX__tool` is looked up and rewritten to
 *     the upstream's `tool` (anything else is refused, as hangar refuses an
 *     unknown tool);
 *   - a deadline: one timer per call, cleared by the answer, that answers
 *     the client with an error and forgets the call when it fires;
 *   - cancellation: the client's id is kept with the hop's, so a
 *     notifications/cancelled can be rewritten and forwarded;
 *   - outcome: whether the answer is an error or has `isError`, read from
 *     the parsed answer;
 *   - metrics and history: a counter, a latency sum and a bounded ring of
 *     the last 200 calls (tool, time, duration, outcome);
 *   - an audit trail: one JSON line per call (time, client, upstream, tool,
 *     duration, outcome, the arguments' size), batched and appended to
 *     AUDIT_FILE at most every 100 ms.
 * What hangar does beyond this (per-client instances and their capability
 * profiles, the breaker, progress relay, tasks, masking secrets in the
 * history, the era of each side, the management tools, live status for the
 * TUI) is not here.
 */
import {spawn} from 'node:child_process';
import fs from 'node:fs';
import {serveClient} from './lib/hop-client.js';
import {lines} from './lib/json-lines.js';

const argv = process.argv.slice(2);
const listenAt = argv[0] === '--listen' ? argv[1] : undefined;
const [auditFile, prefix, command, ...args] = listenAt === undefined ? argv : argv.slice(2);
if (command === undefined) {
	process.stderr.write('usage: node bench/supervised-hop.js [--listen SOCKET] AUDIT_FILE PREFIX COMMAND [ARGS...]\n');
	process.exit(2);
}

const deadlineMs = 60_000;
const child = spawn(command, args, {stdio: ['pipe', 'pipe', 'inherit']});
const pending = new Map();
const byClientId = new Map();
const history = [];
const metrics = {calls: 0, errors: 0, totalMs: 0};
const audit = fs.openSync(auditFile, 'a', 0o600);
let auditLines = [];
let auditTimer;
let nextId = 1;

/** Where answers go: stdout, or the socket's connection with --listen. */
let clientOutput = process.stdout;
const toClient = message => clientOutput.write(`${JSON.stringify(message)}\n`);

function record(call, outcome) {
	const ms = performance.now() - call.began;
	metrics.calls += 1;
	metrics.totalMs += ms;
	if (outcome !== 'ok') metrics.errors += 1;
	history.push({tool: call.tool, at: Date.now(), ms, outcome});
	if (history.length > 200) history.shift();
	auditLines.push(`${JSON.stringify({kind: 'call', time: new Date().toISOString(), client: 'bench', upstream: prefix, tool: call.tool, ms: Math.round(ms * 1000) / 1000, outcome, argsBytes: call.argsBytes})}\n`);
	auditTimer ??= setTimeout(() => {
		auditTimer = undefined;
		fs.writeSync(audit, auditLines.join(''));
		auditLines = [];
	}, 100);
}

function serve(input, output) {
	clientOutput = output;
	// Client -> upstream.
	lines(input, line => {
		const message = JSON.parse(line);
		if (message.method === 'notifications/cancelled') {
			const id = byClientId.get(message.params?.requestId);
			if (id === undefined) return;
			message.params.requestId = id;
		} else if (typeof message.method === 'string' && message.id !== undefined) {
			const id = nextId++;
			const call = {clientId: message.id, began: performance.now(), tool: undefined, argsBytes: 0, timer: undefined};
			if (message.method === 'tools/call') {
				const name = message.params?.name;
				if (typeof name !== 'string' || !name.startsWith(`${prefix}__`)) {
					toClient({jsonrpc: '2.0', id: message.id, error: {code: -32602, message: `unknown tool ${name}`}});
					return;
				}

				call.tool = name.slice(prefix.length + 2);
				message.params.name = call.tool;
				call.argsBytes = Buffer.byteLength(JSON.stringify(message.params.arguments ?? {}));
				call.timer = setTimeout(() => {
					pending.delete(id);
					byClientId.delete(call.clientId);
					record(call, 'timeout');
					toClient({jsonrpc: '2.0', id: call.clientId, error: {code: -32001, message: `tools/call "${call.tool}" timed out`}});
				}, deadlineMs);
			}

			pending.set(id, call);
			byClientId.set(message.id, id);
			message.id = id;
		}

		child.stdin.write(`${JSON.stringify(message)}\n`);
	});

	// Upstream -> client.
	lines(child.stdout, line => {
		const message = JSON.parse(line);
		const call = message.method === undefined && typeof message.id === 'number' ? pending.get(message.id) : undefined;
		if (call !== undefined) {
			pending.delete(message.id);
			byClientId.delete(call.clientId);
			message.id = call.clientId;
			if (call.tool !== undefined) {
				clearTimeout(call.timer);
				record(call, message.error !== undefined ? 'error' : message.result?.isError === true ? 'tool-error' : 'ok');
			}
		}

		toClient(message);
	});

	input.on('end', () => child.stdin.end());
	output.on('error', () => process.exit(0));
}

child.on('exit', code => process.exit(code ?? 1));
child.stdin.on('error', () => {});
serveClient(listenAt, serve);
