/**
 * The wire protocol of `mcp-hangar --stdio`, byte for byte: the built binary
 * runs as a real subprocess, the test writes raw lines to its stdin and reads
 * newline-delimited JSON from its stdout. No SDK client sits in between, so
 * malformed input reaches hangar exactly as written and every byte hangar
 * writes is seen.
 */
import fs from 'node:fs';
import path from 'node:path';
import {spawn, type ChildProcessWithoutNullStreams} from 'node:child_process';
import {randomUUID} from 'node:crypto';
import {afterEach, describe, expect, it} from 'vitest';
import {cliPath, everything, fastHangar, fixture, processesWithTag, tempDir, waitFor, writeConfig, type ServerEntry} from '../support/hangar.js';

type Id = string | number | null;

type RpcMessage = {
	jsonrpc?: unknown;
	id?: Id;
	method?: string;
	params?: Record<string, unknown>;
	result?: Record<string, any>;
	error?: {code: number; message: string; data?: any};
};

type Exit = {code: number | null; signal: NodeJS.Signals | null};

const protocolVersion = '2025-06-18';

function isResponse(message: RpcMessage): boolean {
	return 'result' in message || 'error' in message;
}

/** `mcp-hangar --stdio` as a subprocess, spoken to in raw lines. */
class RawHangar {
	readonly tag = randomUUID();
	readonly child: ChildProcessWithoutNullStreams;
	/** Every line hangar wrote to stdout, as written. */
	readonly lines: string[] = [];
	/** The lines that parsed as JSON, in order. */
	readonly messages: RpcMessage[] = [];
	readonly exited: Promise<Exit>;
	private exit: Exit | undefined;
	private stdoutRest = '';
	private stderrText = '';
	private readonly listeners = new Set<() => void>();
	/** Ids for request(); far from the small ids tests choose themselves. */
	private nextId = 100_000;

	constructor(readonly configFile: string) {
		this.child = spawn(process.execPath, [cliPath, '--stdio', '--standalone', '--config', configFile], {
			env: {...process.env, HANGAR_TEST_TAG: this.tag},
			stdio: ['pipe', 'pipe', 'pipe'],
		});
		this.child.stdout.setEncoding('utf8');
		this.child.stdout.on('data', (chunk: string) => this.onStdout(chunk));
		this.child.stderr.setEncoding('utf8');
		this.child.stderr.on('data', (chunk: string) => {
			this.stderrText += chunk;
		});
		// Writing after hangar died must fail the test through its assertions, not crash the worker.
		this.child.stdin.on('error', () => {});
		this.exited = new Promise(resolve => {
			this.child.once('exit', (code, signal) => {
				this.exit = {code, signal};
				this.notify();
				resolve(this.exit);
			});
		});
	}

	get stderr(): string {
		return this.stderrText;
	}

	/** Hangar's own log from info up: `--stdio` writes it to hangar.log in the state dir. */
	get log(): string {
		const file = path.join(path.dirname(this.configFile), 'state', 'hangar.log');
		return fs.existsSync(file) ? fs.readFileSync(file, 'utf8') : '';
	}

	get hasExited(): boolean {
		return this.exit !== undefined;
	}

	/** Writes `text` followed by a newline, as one write. */
	writeLine(text: string): void {
		this.child.stdin.write(`${text}\n`);
	}

	send(message: Record<string, unknown>): void {
		this.writeLine(JSON.stringify(message));
	}

	/** Responses (result or error) whose id is `id`. */
	responsesTo(id: Id): RpcMessage[] {
		return this.messages.filter(message => isResponse(message) && message.id === id);
	}

	/** Resolves with the first message at index `from` or later that matches; rejects if hangar exits first. */
	async waitForMessage(predicate: (message: RpcMessage) => boolean, what: string, from = 0, timeoutMs = 30_000): Promise<RpcMessage> {
		return new Promise((resolve, reject) => {
			let checked = from;
			const check = () => {
				for (; checked < this.messages.length; checked++) {
					const message = this.messages[checked]!;
					if (predicate(message)) {
						done();
						resolve(message);
						return;
					}
				}

				if (this.exit !== undefined) {
					done();
					reject(new Error(`hangar exited (${JSON.stringify(this.exit)}) before ${what}; stderr:\n${this.stderrText.slice(-3000)}`));
				}
			};

			const timer = setTimeout(() => {
				done();
				reject(new Error(`timed out waiting for ${what}; stdout so far:\n${this.lines.slice(-20).join('\n')}\nstderr:\n${this.stderrText.slice(-3000)}`));
			}, timeoutMs);
			const done = () => {
				clearTimeout(timer);
				this.listeners.delete(check);
			};

			this.listeners.add(check);
			check();
		});
	}

	async responseTo(id: Id, timeoutMs?: number): Promise<RpcMessage> {
		return this.waitForMessage(message => isResponse(message) && message.id === id, `the response to id ${JSON.stringify(id)}`, 0, timeoutMs);
	}

	/** The next error response with id null written after `from` messages. */
	async nextNullIdError(from: number): Promise<RpcMessage> {
		return this.waitForMessage(message => 'error' in message && message.id === null, 'an error with id null', from);
	}

	/** Sends a request with a fresh id and resolves with its response. */
	async request(method: string, params?: Record<string, unknown>): Promise<RpcMessage> {
		const id = this.nextId++;
		this.send({jsonrpc: '2.0', id, method, ...(params === undefined ? {} : {params})});
		return this.responseTo(id);
	}

	/** initialize, then notifications/initialized. */
	async initialize(): Promise<RpcMessage> {
		const response = await this.request('initialize', {
			protocolVersion,
			capabilities: {},
			clientInfo: {name: 'raw-protocol-test', version: '1.0.0'},
		});
		expect(response.error).toBeUndefined();
		this.send({jsonrpc: '2.0', method: 'notifications/initialized'});
		return response;
	}

	/** Waits until tools/list contains every name in `names`. */
	async waitForTools(...names: string[]): Promise<void> {
		await waitFor(
			async () => {
				const response = await this.request('tools/list');
				const listed = new Set((response.result?.['tools'] as Array<{name: string}> | undefined)?.map(tool => tool.name));
				return names.every(name => listed.has(name));
			},
			`tools/list to contain ${names.join(', ')}`,
			45_000,
			100,
		);
	}

	/** Ends stdin: the client hung up. */
	closeStdin(): void {
		this.child.stdin.end();
	}

	/** Stops hangar and everything it spawned, however the test ended. */
	async dispose(): Promise<void> {
		if (this.exit === undefined) {
			this.closeStdin();
			const timeout = new Promise<'timeout'>(resolve => {
				setTimeout(() => resolve('timeout'), 15_000).unref();
			});
			if ((await Promise.race([this.exited, timeout])) === 'timeout') {
				this.child.kill('SIGKILL');
				await this.exited;
			}
		}

		// Anything still carrying this test's tag was started by it: hangar's upstreams.
		for (const pid of processesWithTag(this.tag)) {
			try {
				process.kill(pid, 'SIGKILL');
			} catch {}
		}
	}

	private onStdout(chunk: string): void {
		const parts = (this.stdoutRest + chunk).split('\n');
		this.stdoutRest = parts.pop()!;
		for (const line of parts) {
			this.lines.push(line);
			try {
				this.messages.push(JSON.parse(line) as RpcMessage);
			} catch {
				// Kept in `lines`; expectOnlyJsonRpc reports it.
			}
		}

		this.notify();
	}

	private notify(): void {
		for (const listener of [...this.listeners]) listener();
	}
}

/** Every line hangar wrote to stdout is a JSON-RPC 2.0 object, and nothing is left unterminated. */
function expectOnlyJsonRpc(hangar: RawHangar): void {
	for (const line of hangar.lines) {
		let value: unknown;
		expect(() => {
			value = JSON.parse(line);
		}, `stdout line is not JSON: ${line.slice(0, 200)}`).not.toThrow();
		expect(value, `stdout line is not a JSON-RPC object: ${line.slice(0, 200)}`).toBeTypeOf('object');
		expect(Array.isArray(value)).toBe(false);
		expect((value as RpcMessage).jsonrpc, line.slice(0, 200)).toBe('2.0');
	}
}

function expectError(message: RpcMessage, code: number, id: Id): NonNullable<RpcMessage['error']> {
	expect(message.id).toBe(id);
	expect(message.result).toBeUndefined();
	expect(message.error, JSON.stringify(message)).toBeDefined();
	expect(message.error!.code, JSON.stringify(message)).toBe(code);
	expect(message.error!.message).toBeTypeOf('string');
	return message.error!;
}

let started: RawHangar[] = [];
afterEach(async () => {
	const all = started;
	started = [];
	await Promise.all(all.map(async hangar => hangar.dispose()));
	for (const hangar of all) expectOnlyJsonRpc(hangar);
});

/** Starts hangar on a temp config with one fixture upstream "fx". */
function startRaw(fx: ServerEntry = fixture('normal', [], {lazy: false}), hangar: Record<string, unknown> = {}): RawHangar {
	const dir = tempDir('hangar-protocol-');
	const raw = new RawHangar(writeConfig(dir, {fx}, {...fastHangar, ...hangar}));
	started.push(raw);
	return raw;
}

describe('mcp-hangar --stdio on the wire', () => {
	it('refuses requests before initialize with -32003 and the state and method, but answers ping', async () => {
		const hangar = startRaw();
		const ping = await hangar.request('ping');
		expect(ping.result).toEqual({});

		for (const [method, params] of [
			['tools/list', undefined],
			['tools/call', {name: 'fx__echo', arguments: {message: 'early'}}],
			['resources/list', undefined],
		] as const) {
			const response = await hangar.request(method, params);
			const error = expectError(response, -32_003, response.id!);
			expect(error.message).toContain(`"${method}" was sent before "initialize"`);
			expect(error.data).toEqual({error: 'ProtocolSequence', state: 'awaiting_initialize', method});
		}

		// notifications/initialized before initialize is ignored (no reply, no state change)...
		hangar.send({jsonrpc: '2.0', method: 'notifications/initialized'});
		expect((await hangar.request('tools/list')).error?.code).toBe(-32_003);
		// ...and the refusals did not spoil the connection: initialize still works, and then so does everything else.
		const init = await hangar.initialize();
		expect(init.result).toMatchObject({protocolVersion, serverInfo: {name: 'mcp-hangar'}, capabilities: {tools: {listChanged: true}}});
		const list = await hangar.request('tools/list');
		expect(list.error).toBeUndefined();
		expect((list.result!['tools'] as Array<{name: string}>).map(tool => tool.name)).toContain('hangar_list');
	});

	it('answers initialize first when a client sends initialize, initialized and a call at once on a first run (no notification before it)', async () => {
		// A fresh state dir: initialize waits for the upstream's start (its capabilities were never known), and the
		// tool list changes during that wait. A pipe (printf … | mcp-hangar --stdio) sends everything in one write.
		const hangar = startRaw(everything({lazy: false}));
		const init = {jsonrpc: '2.0', id: 1, method: 'initialize', params: {protocolVersion, capabilities: {}, clientInfo: {name: 'pipe', version: '1'}}};
		const call = {jsonrpc: '2.0', id: 2, method: 'tools/call', params: {name: 'fx__echo', arguments: {message: 'piped'}}};
		hangar.writeLine([JSON.stringify(init), JSON.stringify({jsonrpc: '2.0', method: 'notifications/initialized'}), JSON.stringify(call)].join('\n'));
		expect((await hangar.responseTo(2, 45_000)).error).toBeUndefined();
		expect(hangar.messages[0], `the first message written: ${JSON.stringify(hangar.messages[0]).slice(0, 200)}`).toMatchObject({id: 1, result: {protocolVersion}});
	});

	it('refuses a second initialize with -32003, before and after notifications/initialized', async () => {
		const hangar = startRaw();
		const init = {protocolVersion, capabilities: {}, clientInfo: {name: 'x', version: '1'}};
		expect((await hangar.request('initialize', init)).error).toBeUndefined();

		const early = await hangar.request('initialize', init);
		expect(expectError(early, -32_003, early.id!).data).toEqual({error: 'ProtocolSequence', state: 'initializing', method: 'initialize'});
		expect(early.error!.message).toContain('"initialize" may be sent only once');

		hangar.send({jsonrpc: '2.0', method: 'notifications/initialized'});
		const late = await hangar.request('initialize', init);
		expect(expectError(late, -32_003, late.id!).data).toEqual({error: 'ProtocolSequence', state: 'ready', method: 'initialize'});
		expect((await hangar.request('ping')).result).toEqual({});
	});

	it('answers an initialize with bad params with -32602 and accepts a corrected one', async () => {
		const hangar = startRaw();
		const bad = await hangar.request('initialize', {});
		expect(expectError(bad, -32_602, bad.id!).message).toContain('Invalid params for "initialize": params.protocolVersion');
		const init = await hangar.request('initialize', {protocolVersion, capabilities: {}, clientInfo: {name: 'x', version: '1'}});
		expect(init.error).toBeUndefined();
		expect(init.result).toMatchObject({serverInfo: {name: 'mcp-hangar'}});
		const list = await hangar.request('tools/list', {cursor: 5});
		expect(expectError(list, -32_602, list.id!).message).toContain('Invalid params for "tools/list": params.cursor');
	});

	it('sends no response to a call the client cancelled, and keeps serving', async () => {
		const hangar = startRaw();
		await hangar.initialize();
		await hangar.waitForTools('fx__sleep');
		hangar.send({jsonrpc: '2.0', id: 'long', method: 'tools/call', params: {name: 'fx__sleep', arguments: {ms: 30_000}}});
		hangar.send({jsonrpc: '2.0', method: 'notifications/cancelled', params: {requestId: 'long', reason: 'test'}});
		// Lines are handled in order: once this call is answered, the cancel was processed long before.
		const after = await hangar.request('tools/call', {name: 'fx__echo', arguments: {message: 'after'}});
		expect(after.result).toMatchObject({content: [{type: 'text', text: 'after'}]});
		expect(hangar.messages.filter(message => message.id === 'long')).toEqual([]);
	});

	it('refuses a second call that reuses the id of a call still in flight', async () => {
		const hangar = startRaw();
		await hangar.initialize();
		await hangar.waitForTools('fx__sleep');
		hangar.send({jsonrpc: '2.0', id: 'dup', method: 'tools/call', params: {name: 'fx__sleep', arguments: {ms: 500}}});
		hangar.send({jsonrpc: '2.0', id: 'dup', method: 'tools/call', params: {name: 'fx__echo', arguments: {message: 'x'}}});
		const first = await hangar.responseTo('dup');
		expect(expectError(first, -32_600, 'dup').message).toContain('already in use');
		await hangar.waitForMessage(message => message.id === 'dup' && 'result' in message, 'the sleep to finish', hangar.messages.indexOf(first) + 1);
		expect(hangar.messages.filter(message => message.id === 'dup')).toHaveLength(2);
	});

	it('answers malformed JSON with -32700 and id null, and keeps serving', async () => {
		const hangar = startRaw();
		await hangar.initialize();
		for (const line of ['this is not json', '{"jsonrpc":"2.0","id":7,"method":"ping"', '{"jsonrpc":"2.0",}', '{\'single\': 1}', '\u0000\u0001']) {
			const from = hangar.messages.length;
			hangar.writeLine(line);
			const error = expectError(await hangar.nextNullIdError(from), -32_700, null);
			expect(error.message).toContain('Parse error');
		}

		expect(hangar.responsesTo(7)).toEqual([]);
		expect((await hangar.request('ping')).result).toEqual({});
	});

	it('ignores blank lines and accepts CRLF line endings', async () => {
		const hangar = startRaw();
		await hangar.initialize();
		const from = hangar.messages.length;
		hangar.child.stdin.write('\n\r\n   \n{"jsonrpc":"2.0","id":"crlf","method":"ping"}\r\n');
		expect((await hangar.responseTo('crlf')).result).toEqual({});
		expect((await hangar.request('ping')).result).toEqual({});
		// Nothing but the two pings was answered.
		expect(hangar.messages.slice(from).filter(isResponse)).toHaveLength(2);
	});

	it('answers JSON that is not JSON-RPC with -32600 or -32602, and keeps serving', async () => {
		const hangar = startRaw();
		await hangar.initialize();
		const cases: Array<{line: string; code: number; id: Id; message: string}> = [
			{line: '{"hello":1}', code: -32_600, id: null, message: '"jsonrpc" must be "2.0"'},
			{line: '[{"jsonrpc":"2.0","id":"in-batch","method":"ping"}]', code: -32_600, id: null, message: 'batches are not supported'},
			{line: '[]', code: -32_600, id: null, message: 'batches are not supported'},
			{line: '"just a string"', code: -32_600, id: null, message: 'expected a JSON-RPC 2.0 message object'},
			{line: '42', code: -32_600, id: null, message: 'expected a JSON-RPC 2.0 message object'},
			{line: 'null', code: -32_600, id: null, message: 'expected a JSON-RPC 2.0 message object'},
			{line: '{"id":"no-version","method":"ping"}', code: -32_600, id: 'no-version', message: '"jsonrpc" must be "2.0"'},
			{line: '{"jsonrpc":"1.0","id":"old-version","method":"ping"}', code: -32_600, id: 'old-version', message: '"jsonrpc" must be "2.0"'},
			{line: '{"jsonrpc":2,"id":"number-version","method":"ping"}', code: -32_600, id: 'number-version', message: '"jsonrpc" must be "2.0"'},
			{line: '{"jsonrpc":"2.0","id":"numeric-method","method":42}', code: -32_600, id: 'numeric-method', message: '"method" must be a non-empty string'},
			{line: '{"jsonrpc":"2.0","id":"null-method","method":null}', code: -32_600, id: 'null-method', message: '"method" must be a non-empty string'},
			{line: '{"jsonrpc":"2.0","id":{"an":"object"},"method":"ping"}', code: -32_600, id: null, message: '"id" must be a string or an integer'},
			{line: '{"jsonrpc":"2.0","id":true,"method":"ping"}', code: -32_600, id: null, message: '"id" must be a string or an integer'},
			{line: '{"jsonrpc":"2.0","id":"array-params","method":"tools/list","params":[1,2]}', code: -32_602, id: 'array-params', message: '"params" of "tools/list" must be an object'},
			{line: '{"jsonrpc":"2.0","id":"string-params","method":"tools/list","params":"x"}', code: -32_602, id: 'string-params', message: '"params" of "tools/list" must be an object'},
			{line: '{"jsonrpc":"2.0","id":"null-params","method":"ping","params":null}', code: -32_602, id: 'null-params', message: '"params" of "ping" must be an object'},
			{line: '{"jsonrpc":"2.0","id":"neither"}', code: -32_600, id: 'neither', message: 'expected a request ("method" and "id"), a notification ("method") or a response'},
		];
		for (const {line, code, id, message} of cases) {
			const from = hangar.messages.length;
			hangar.writeLine(line);
			const response = await hangar.waitForMessage(candidate => 'error' in candidate && candidate.id === id, `the error for ${line}`, from);
			expect(expectError(response, code, id).message, line).toContain(message);
		}

		// The batch's inner request was not served, and each invalid request got exactly one answer.
		expect(hangar.responsesTo('in-batch')).toEqual([]);
		for (const {id} of cases) if (id !== null) expect(hangar.responsesTo(id), String(id)).toHaveLength(1);
		expect((await hangar.request('ping')).result).toEqual({});
	});

	it('never answers a response from the client, even one it cannot match', async () => {
		const hangar = startRaw();
		await hangar.initialize();
		const from = hangar.messages.length;
		hangar.writeLine('{"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"the client could not parse something"}}');
		hangar.writeLine('{"jsonrpc":"2.0","id":"nobody-asked","result":{}}');
		hangar.writeLine('{"jsonrpc":"2.0","id":123456,"error":{"code":-32601,"message":"no such method"}}');
		expect((await hangar.request('ping')).result).toEqual({});
		// Only the ping was answered (a tools/list_changed notification may also arrive).
		expect(hangar.messages.slice(from).filter(isResponse)).toHaveLength(1);
	});

	it('answers an unknown method with -32601', async () => {
		const hangar = startRaw();
		await hangar.initialize();
		for (const method of ['no/such-method', 'tools/frobnicate']) {
			const response = await hangar.request(method);
			expectError(response, -32_601, response.id!);
		}

		expect((await hangar.request('ping')).result).toEqual({});
	});

	it('answers an unknown tool with -32602 naming the tool and the closest matches', async () => {
		const hangar = startRaw();
		await hangar.initialize();
		await hangar.waitForTools('fx__echo', 'fx__add');
		const response = await hangar.request('tools/call', {name: 'fx__ecoh', arguments: {message: 'x'}});
		const error = expectError(response, -32_602, response.id!);
		expect(error.message).toMatch(/^Unknown tool "fx__ecoh"\. Closest matches: fx__echo[,.]/);
		expect(error.message).toContain('tools/list');
		expect(error.data).toMatchObject({error: 'UnknownTool', tool: 'fx__ecoh'});
		expect(error.data.closest[0]).toBe('fx__echo');

		// A name for an upstream that does not exist is refused the same way.
		const elsewhere = await hangar.request('tools/call', {name: 'nosuch__echo', arguments: {}});
		expect(expectError(elsewhere, -32_602, elsewhere.id!).message).toContain('Unknown tool "nosuch__echo"');
		// And the real tool works.
		const echo = await hangar.request('tools/call', {name: 'fx__echo', arguments: {message: 'hello'}});
		expect(echo.result).toMatchObject({content: [{type: 'text', text: 'hello'}]});
	});

	it('refuses an oversized message with -32009 and its id, and keeps serving', async () => {
		const hangar = startRaw(undefined, {maxMessageBytes: 4096});
		await hangar.initialize();
		await hangar.waitForTools('fx__echo');
		const big = JSON.stringify({jsonrpc: '2.0', id: 'big-1', method: 'tools/call', params: {name: 'fx__echo', arguments: {message: 'x'.repeat(100 * 1024)}}});
		expect(big.length).toBeGreaterThan(100 * 1024);
		hangar.writeLine(big);
		const error = expectError(await hangar.responseTo('big-1'), -32_009, 'big-1');
		expect(error.message).toContain(`message of ${big.length} bytes refused: the limit is 4096 bytes (hangar.maxMessageBytes)`);

		// The same with a numeric id, written in small pieces.
		const numeric = JSON.stringify({jsonrpc: '2.0', id: 9001, method: 'tools/call', params: {name: 'fx__echo', arguments: {message: 'y'.repeat(50 * 1024)}}});
		for (let offset = 0; offset < numeric.length; offset += 1000) hangar.child.stdin.write(numeric.slice(offset, offset + 1000));
		hangar.child.stdin.write('\n');
		expectError(await hangar.responseTo(9001), -32_009, 9001);

		// A message just under the limit is served, and so is what follows.
		const fits = await hangar.request('tools/call', {name: 'fx__echo', arguments: {message: 'z'.repeat(3000)}});
		expect(fits.result).toMatchObject({content: [{type: 'text', text: 'z'.repeat(3000)}]});
		expect((await hangar.request('ping')).result).toEqual({});
		expect(hangar.responsesTo('big-1')).toHaveLength(1);
	});

	it('counts the message limit in bytes, not characters', async () => {
		const hangar = startRaw(undefined, {maxMessageBytes: 4096});
		await hangar.initialize();
		await hangar.waitForTools('fx__echo');
		// 2500 characters, 5000 bytes of UTF-8.
		const wide = JSON.stringify({jsonrpc: '2.0', id: 'wide', method: 'tools/call', params: {name: 'fx__echo', arguments: {message: 'é'.repeat(2500)}}});
		expect(wide.length).toBeLessThan(4096);
		hangar.writeLine(wide);
		expect(expectError(await hangar.responseTo('wide'), -32_009, 'wide').message).toContain(`message of ${Buffer.byteLength(wide)} bytes refused`);
		expect((await hangar.request('ping')).result).toEqual({});
	});

	it('takes the id of an oversized message from its top level only, never from inside params', async () => {
		const hangar = startRaw(undefined, {maxMessageBytes: 4096});
		await hangar.initialize();
		// The only "id" in the first bytes belongs to the arguments; the request's own id comes after the payload.
		const from = hangar.messages.length;
		hangar.writeLine(`{"jsonrpc":"2.0","method":"tools/call","params":{"name":"fx__echo","arguments":{"id":"inner","message":"${'x'.repeat(10_000)}"}},"id":"outer"}`);
		expectError(await hangar.waitForMessage(message => message.error?.code === -32_009, 'the -32009 error', from), -32_009, null);
		expect(hangar.responsesTo('inner')).toEqual([]);

		// A top-level id after nested objects, and after a string holding braces and "id", is still found.
		const padding = 'p'.repeat(10_000);
		hangar.writeLine(`{"jsonrpc":"2.0","params":{"arguments":{"id":"nested"}},"id":"after-nesting","method":"tools/call","pad":"${padding}"}`);
		expectError(await hangar.responseTo('after-nesting'), -32_009, 'after-nesting');
		hangar.writeLine(`{"jsonrpc":"2.0","method":"a{\\"id\\":1}[","id":42.5,"pad":"${padding}"}`);
		expectError(await hangar.responseTo(42.5), -32_009, 42.5);
		expect(hangar.responsesTo('nested')).toEqual([]);
		expect(hangar.responsesTo(1)).toEqual([]);
		expect((await hangar.request('ping')).result).toEqual({});
	});

	it('answers every request in a burst of valid and invalid ones exactly once', async () => {
		const hangar = startRaw();
		await hangar.initialize();
		await hangar.waitForTools('fx__echo');
		type Expectation = {code: number} | {result: (result: Record<string, any>) => void};
		const kinds: Array<(id: Id) => {line: string; expect: Expectation}> = [
			id => ({line: JSON.stringify({jsonrpc: '2.0', id, method: 'ping'}), expect: {result: result => expect(result).toEqual({})}}),
			id => ({
				line: JSON.stringify({jsonrpc: '2.0', id, method: 'tools/call', params: {name: 'fx__echo', arguments: {message: `echo ${String(id)}`}}}),
				expect: {result: result => expect(result['content']).toEqual([{type: 'text', text: `echo ${String(id)}`}])},
			}),
			id => ({line: JSON.stringify({jsonrpc: '2.0', id, method: 'tools/list'}), expect: {result: result => expect(result['tools'].length).toBeGreaterThan(1)}}),
			id => ({line: JSON.stringify({jsonrpc: '2.0', id, method: 'tools/call', params: {name: 'fx__nope', arguments: {}}}), expect: {code: -32_602}}),
			id => ({line: JSON.stringify({jsonrpc: '2.0', id, method: 'no/such-method'}), expect: {code: -32_601}}),
			id => ({line: JSON.stringify({jsonrpc: '2.0', id, method: 'tools/call', params: {name: 5}}), expect: {code: -32_602}}),
			id => ({line: JSON.stringify({jsonrpc: '2.0', id, method: 'tools/list', params: [1]}), expect: {code: -32_602}}),
			id => ({line: JSON.stringify({jsonrpc: '1.0', id, method: 'ping'}), expect: {code: -32_600}}),
			id => ({line: JSON.stringify({jsonrpc: '2.0', id, method: 17}), expect: {code: -32_600}}),
			id => ({
				line: JSON.stringify({jsonrpc: '2.0', id, method: 'initialize', params: {protocolVersion, capabilities: {}, clientInfo: {name: 'x', version: '1'}}}),
				expect: {code: -32_003},
			}),
			id => ({
				line: JSON.stringify({jsonrpc: '2.0', id, method: 'tools/call', params: {name: 'hangar_list', arguments: {}}}),
				expect: {result: result => expect(result['structuredContent'].upstreams[0].name).toBe('fx')},
			}),
		];
		const planned = new Map<Id, Expectation>();
		const lines: string[] = [];
		let malformed = 0;
		for (let n = 0; n < 50; n++) {
			const id: Id = n % 2 === 0 ? n : `req-${n}`;
			const {line, expect: expectation} = kinds[n % kinds.length]!(id);
			planned.set(id, expectation);
			lines.push(line);
			if (n % 10 === 5) {
				lines.push('{"this is": not json');
				malformed += 1;
				// A notification: never answered.
				lines.push(JSON.stringify({jsonrpc: '2.0', method: 'notifications/unknown-to-hangar', params: {n}}));
			}
		}

		const from = hangar.messages.length;
		hangar.child.stdin.write(`${lines.join('\n')}\n`);
		await waitFor(() => [...planned.keys()].every(id => hangar.responsesTo(id).length > 0), 'an answer to every request in the burst', 45_000, 50);
		// Anything answered twice would have been written by now; a last ping closes the window.
		expect((await hangar.request('ping')).result).toEqual({});

		for (const [id, expectation] of planned) {
			const responses = hangar.responsesTo(id);
			expect(responses, `answers to ${String(id)}`).toHaveLength(1);
			const [response] = responses;
			if ('code' in expectation) {
				expectError(response!, expectation.code, id);
			} else {
				expect(response!.error, `${String(id)}: ${JSON.stringify(response!.error)}`).toBeUndefined();
				expectation.result(response!.result!);
			}
		}

		const after = hangar.messages.slice(from).filter(isResponse);
		const parseErrors = after.filter(message => message.id === null);
		expect(parseErrors).toHaveLength(malformed);
		for (const error of parseErrors) expect(error.error?.code).toBe(-32_700);
		// Nothing else: the planned ids, the parse errors and the closing ping.
		expect(after).toHaveLength(planned.size + malformed + 1);
		expectOnlyJsonRpc(hangar);
	});

	it('writes only protocol to stdout while the upstream writes garbage to its stdout and floods stderr', async () => {
		const hangar = startRaw(fixture('garbage', [], {lazy: false}));
		await hangar.initialize();
		await hangar.waitForTools('fx__echo', 'fx__stderr');
		const flood = await hangar.request('tools/call', {name: 'fx__stderr', arguments: {lines: 20_000}});
		expect(flood.result).toMatchObject({content: [{type: 'text', text: 'ok'}]});
		for (let n = 0; n < 5; n++) {
			const echo = await hangar.request('tools/call', {name: 'fx__echo', arguments: {message: `through the garbage ${n}`}});
			expect(echo.result).toMatchObject({content: [{type: 'text', text: `through the garbage ${n}`}]});
		}

		const status = await hangar.request('tools/call', {name: 'hangar_list', arguments: {}});
		const fx = (status.result!['structuredContent'] as {upstreams: Array<{name: string; state: string; failures: number}>}).upstreams[0]!;
		expect(fx).toMatchObject({name: 'fx', state: 'ready', failures: 0});

		expectOnlyJsonRpc(hangar);
		const stdout = hangar.lines.join('\n');
		expect(stdout).not.toContain('this is not json');
		expect(stdout).not.toContain('{broken');
		expect(stdout).not.toContain('"hello":1');
		expect(stdout).not.toMatch(/stderr line \d+/);
		// Hangar's own log went to the state dir's hangar.log (stderr only gets warnings and errors).
		expect(hangar.log).toContain('[hangar] serving MCP on stdio');
		expect(hangar.log).toMatch(/\[fx\] starting -> ready/);
	});

	it('answers the calls still in flight when stdin closes, then exits', async () => {
		const hangar = startRaw();
		await hangar.initialize();
		await hangar.waitForTools('fx__sleep');
		hangar.send({jsonrpc: '2.0', id: 'last', method: 'tools/call', params: {name: 'fx__sleep', arguments: {ms: 300}}});
		hangar.closeStdin();
		const last = await hangar.responseTo('last');
		expect(last.result).toMatchObject({content: [{type: 'text', text: 'slept 300'}]});
		expect(await hangar.exited).toEqual({code: 0, signal: null});
		await waitFor(() => processesWithTag(hangar.tag).length === 0, 'every process of this hangar to exit', 20_000);
	});

	it('exits with code 0 when stdin closes and leaves no process behind', async () => {
		const hangar = startRaw();
		await hangar.initialize();
		await hangar.waitForTools('fx__echo');
		const echo = await hangar.request('tools/call', {name: 'fx__echo', arguments: {message: 'before the end'}});
		expect(echo.error).toBeUndefined();
		const tagged = processesWithTag(hangar.tag);
		expect(tagged).toContain(hangar.child.pid);
		expect(tagged.length).toBeGreaterThanOrEqual(2);

		hangar.closeStdin();
		expect(await hangar.exited).toEqual({code: 0, signal: null});
		await waitFor(() => processesWithTag(hangar.tag).length === 0, 'every process of this hangar to exit', 20_000);
		expect(hangar.log).toContain('shutting down: stdin closed');
	});

	it('exits with code 0 when stdin closes before initialize', async () => {
		const hangar = startRaw();
		expect((await hangar.request('ping')).result).toEqual({});
		hangar.closeStdin();
		expect(await hangar.exited).toEqual({code: 0, signal: null});
		await waitFor(() => processesWithTag(hangar.tag).length === 0, 'every process of this hangar to exit', 20_000);
	});
});
