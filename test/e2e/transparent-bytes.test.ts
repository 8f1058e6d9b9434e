/**
 * What a client and an upstream read through hangar, byte for byte, on
 * `--stdio --standalone`, the default `--stdio` bridge to a shared daemon,
 * and Streamable HTTP (docs/protocol.md, "What passes through exactly"):
 *
 * - numbers JSON.parse would change (9007199254740993, 1234567890123456789,
 *   1e400) in a client's tool arguments, an input schema of tools/list, an
 *   error's data, a log message's data, and a tool result whose resource
 *   link hangar rewrites (and so parses and writes again);
 * - a tools/call's params members hangar does not read;
 * - an upstream's progress note with a member of its own, in its order;
 * - a client's cancellation reason, and its cancelled id free again at once;
 * - an unknown tool's error with `"namespace": false`.
 */
import {spawn, type ChildProcess} from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import readline from 'node:readline';
import {afterEach, describe, expect, it} from 'vitest';
import {cliPath, root, spawnEnv, tempDir, waitFor, writeConfig} from '../support/hangar.js';
import {serveHttp, stopHttpHangars} from '../support/http-hangar.js';
import {startDaemon, stopDaemons} from '../support/serve.js';

const exactUpstream = path.join(root, 'test', 'fixtures', 'exact-upstream.mjs');
const children: ChildProcess[] = [];

afterEach(async () => {
	for (const child of children.splice(0)) child.kill();
	await stopHttpHangars();
	await stopDaemons();
});

/** A config of two fixture servers, both `"namespace": false`: `a` serves the tools, `b` lists the resource `a`'s link points at. */
function setUp() {
	const dir = tempDir();
	const logA = path.join(dir, 'a.log');
	const logB = path.join(dir, 'b.log');
	const config = writeConfig(
		dir,
		{
			a: {command: process.execPath, args: [exactUpstream, logA, '--links', 'exact://shared'], namespace: false},
			b: {command: process.execPath, args: [exactUpstream, logB, '--owns', 'exact://shared'], namespace: false},
		},
		{managementTools: 'none', firstListWaitSeconds: 10},
	);
	return {config, upstreamLines: () => (fs.existsSync(logA) ? fs.readFileSync(logA, 'utf8') : '')};
}

/** A client that writes lines and reads the lines it gets, as they came. */
type Wire = {
	send(lines: string[]): Promise<void>;
	/** The first line received since the start that `test` matches. */
	line(test: (line: string) => boolean, what: string): Promise<string>;
};

function stdioWire(args: string[]): Wire {
	const child = spawn(process.execPath, [cliPath, ...args], {stdio: ['pipe', 'pipe', 'ignore'], env: spawnEnv()});
	children.push(child);
	const lines: string[] = [];
	readline.createInterface({input: child.stdout!, crlfDelay: Number.POSITIVE_INFINITY}).on('line', line => lines.push(line));
	return {
		// One write: a cancel and the request after it arrive together.
		send: async sent => void child.stdin!.write(sent.map(line => `${line}\n`).join('')),
		line: async (test, what) => waitFor(() => lines.find(test), what),
	};
}

async function httpWire(config: string): Promise<Wire> {
	const served = await serveHttp(config);
	const lines: string[] = [];
	let session: string | undefined;
	const post = async (body: string) => {
		const response = await fetch(served.url, {
			method: 'POST',
			headers: {'Content-Type': 'application/json', Accept: 'application/json, text/event-stream', ...(session === undefined ? {} : {'Mcp-Session-Id': session, 'MCP-Protocol-Version': '2025-06-18'})},
			body,
		});
		session ??= response.headers.get('mcp-session-id') ?? undefined;
		const text = await response.text();
		if ((response.headers.get('content-type') ?? '').includes('application/json')) lines.push(text);
		else for (const line of text.split('\n')) if (line.startsWith('data: {')) lines.push(line.slice(6));
	};

	/** The session's own stream (GET), where what belongs to no request goes: log messages. */
	const listen = async () => {
		const response = await fetch(served.url, {headers: {Accept: 'text/event-stream', 'Mcp-Session-Id': session!, 'MCP-Protocol-Version': '2025-06-18'}});
		const decoder = new TextDecoder();
		let buffer = '';
		for await (const chunk of response.body!) {
			buffer += decoder.decode(chunk as Uint8Array, {stream: true});
			const parts = buffer.split('\n');
			buffer = parts.pop()!;
			for (const line of parts) if (line.startsWith('data: {')) lines.push(line.slice(6));
		}
	};

	let listening = false;
	return {
		// One POST after another, each without waiting for its answer's stream to end (a request may hang until cancelled).
		async send(sent) {
			for (const line of sent) {
				const done = post(line);
				// The first POST opens the session: the rest need its id.
				if (session === undefined) await done;
				else void done.catch(() => {});
			}

			if (!listening && sent[0]?.includes('notifications/initialized') === true) {
				listening = true;
				void listen().catch(() => {});
			}
		},
		line: async (test, what) => waitFor(() => lines.find(test), what),
	};
}

const request = (id: string | number, method: string, params: string) => `{"jsonrpc":"2.0","id":${JSON.stringify(id)},"method":"${method}","params":${params}}`;
const answerTo = (id: string | number) => (line: string) => line.includes(`"id":${JSON.stringify(id)}`) && !line.includes('"method"');

async function checkWire(wire: Wire, upstreamLines: () => string): Promise<void> {
	await wire.send([request('init', 'initialize', '{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"bytes","version":"1"}}')]);
	await wire.line(answerTo('init'), 'the initialize answer');
	await wire.send(['{"jsonrpc":"2.0","method":"notifications/initialized"}', request('level', 'logging/setLevel', '{"level":"debug"}'), request('list', 'tools/list', '{}')]);
	await wire.line(answerTo('level'), 'the logging/setLevel answer');

	// tools/list: the schema's numbers as the upstream wrote them (1e400 was null: an invalid schema).
	const list = await wire.line(answerTo('list'), 'the tools/list answer');
	expect.soft(list).toContain('{"name":"schema","inputSchema":{"type":"object","properties":{"n":{"type":"number","maximum":1e400,"default":9007199254740993}}},"_meta":{"big":12345678901234567890}}');

	// Warm: hangar's own startup note would come before the upstream's progress.
	await wire.send([request('warm', 'tools/call', '{"name":"nums","arguments":{}}')]);
	await wire.line(answerTo('warm'), 'the warm-up call');

	// A client's arguments and its params members hangar does not read reach the upstream as written.
	await wire.send([request('args', 'tools/call', '{"name":"nums","arguments":{"n":9007199254740993,"m":1234567890123456789,"x":1e400},"_meta":{"progressToken":"tok"},"extraParam":"custom"}')]);
	await wire.line(answerTo('args'), 'the answer to the call with arguments');
	expect.soft(upstreamLines()).toContain('"arguments":{"n":9007199254740993,"m":1234567890123456789,"x":1e400}');
	expect.soft(upstreamLines()).toContain('"extraParam":"custom"');
	// Its progress keeps its own member and order; only the token is the client's.
	expect.soft(await wire.line(line => line.includes('notifications/progress'), 'the upstream\'s progress')).toBe('{"jsonrpc":"2.0","method":"notifications/progress","params":{"extra":"keep","progressToken":"tok","progress":1,"total":2}}');
	expect.soft(await wire.line(line => line.includes('notifications/message'), 'the upstream\'s log message')).toContain('"data":{"big":9007199254740993,"huge":1e400}');

	// An error's data, and a result whose link hangar rewrites (so it parses it and writes it again).
	await wire.send([request('err', 'tools/call', '{"name":"err","arguments":{}}'), request('link', 'tools/call', '{"name":"link","arguments":{}}')]);
	expect.soft(await wire.line(answerTo('err'), 'the error')).toContain('"data":{"big":9007199254740993,"huge":1e400}');
	const link = await wire.line(answerTo('link'), 'the result with a link');
	expect.soft(link).not.toContain('"uri":"exact://shared"');
	expect.soft(link).toContain('"structuredContent":{"big":9007199254740993,"huge":1e400,"int64":1234567890123456789}');

	// The client's cancellation reaches the upstream with its reason, and its id is free again at once.
	await wire.send([request(77, 'tools/call', '{"name":"hang","arguments":{}}')]);
	await waitFor(() => upstreamLines().includes('"name":"hang"') || undefined, 'the upstream to get the call that hangs');
	await wire.send(['{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":77,"reason":"user gave up"}}', request(77, 'tools/call', '{"name":"nums","arguments":{}}')]);
	expect.soft(await wire.line(answerTo(77), 'the answer to the reused id')).toMatch(/^\{"jsonrpc":"2\.0","id":77,"result":\{"content":\[\{"type":"text","text":"n"\}\]/);
	await waitFor(() => /"method":"notifications\/cancelled","params":\{"requestId":"h\d+","reason":"user gave up"\}/.test(upstreamLines()) || undefined, 'the upstream to get the client\'s reason');

	// An unknown tool with "namespace": false: no "<server>__<tool>" rule, no unrelated matches.
	await wire.send([request('nope', 'tools/call', '{"name":"nope","arguments":{}}')]);
	const unknown = await wire.line(answerTo('nope'), 'the unknown tool\'s error');
	expect.soft(unknown).toContain('Unknown tool \\"nope\\". Tool names are the tools\' own');
	expect.soft(unknown).toContain('"closest":[]');
}

describe('through hangar, byte for byte', () => {
	it('--stdio --standalone', async () => {
		const {config, upstreamLines} = setUp();
		await checkWire(stdioWire(['--stdio', '--standalone', '--config', config]), upstreamLines);
	});

	it('--stdio, the bridge to a shared daemon', async () => {
		const {config, upstreamLines} = setUp();
		await startDaemon(config);
		await checkWire(stdioWire(['--stdio', '--config', config]), upstreamLines);
	});

	it('Streamable HTTP', async () => {
		const {config, upstreamLines} = setUp();
		await checkWire(await httpWire(config), upstreamLines);
	});
});
