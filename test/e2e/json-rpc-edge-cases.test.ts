/**
 * One JSON-RPC rule on every transport: the edge-case table
 * (test/support/json-rpc-edge-cases.ts) sent to a ready session of the built
 * binary over `--stdio` (a supervisor of its own), over `--stdio` bridged to
 * a running `serve`, and over `serve --http`, each answer read as raw text so
 * an id is compared exactly as written. Then what the table cannot say, on
 * each of them: a request that reuses the id of one in flight.
 */
import {spawn, type ChildProcessWithoutNullStreams} from 'node:child_process';
import {randomUUID} from 'node:crypto';
import {afterEach, describe, expect, it} from 'vitest';
import {latestProtocolVersion} from '../../source/core/wire/protocol.js';
import {cliPath, fastHangar, fixture, processesWithTag, tempDir, waitFor, writeConfig} from '../support/hangar.js';
import {post, serveHttp, stopHttpHangars} from '../support/http-hangar.js';
import {edgeCases, type EdgeCaseAnswer} from '../support/json-rpc-edge-cases.js';
import {spawnServe} from '../support/serve.js';

/** What came back for one line: the answer as the table writes it, or what else arrived. */
type Observed = EdgeCaseAnswer | {unexpected: string};

/** The id of a response as written, read with nothing of hangar's: its two layouts, id first (hangar, SDK errors) or last (SDK results). */
function writtenId(line: string): string | undefined {
	const value = '(-?[0-9][0-9.eE+-]*|"(?:[^"\\\\]|\\\\.)*"|null)';
	return new RegExp(`^\\{"jsonrpc":"2\\.0","id":${value}[,}]`).exec(line)?.[1] ?? new RegExp(`,"id":${value}\\}$`).exec(line)?.[1];
}

function isResponse(line: string): boolean {
	const message = JSON.parse(line) as Record<string, unknown>;
	return 'result' in message || 'error' in message;
}

/** A response line as the table writes answers. */
function answerOf(line: string): Observed {
	const message = JSON.parse(line) as {result?: unknown; error?: {code: number}};
	const id = writtenId(line);
	if (id === undefined) return {unexpected: line};
	return message.error === undefined ? {result: true, id} : {error: message.error.code, id};
}

/** What the table expects, with each line's reason so a failure names the case. */
const expected = edgeCases.map(({why, answer}) => ({why, answer}));

const initialize = JSON.stringify({
	jsonrpc: '2.0',
	id: 'init',
	method: 'initialize',
	params: {protocolVersion: latestProtocolVersion, capabilities: {}, clientInfo: {name: 'edge-cases', version: '1'}},
});
const initialized = '{"jsonrpc":"2.0","method":"notifications/initialized"}';
const sleepCall = (id: string, ms: number) => JSON.stringify({jsonrpc: '2.0', id, method: 'tools/call', params: {name: 'fx__sleep', arguments: {ms}}});
const cancel = (id: string): string => JSON.stringify({jsonrpc: '2.0', method: 'notifications/cancelled', params: {requestId: id, reason: 'test'}});

/** `mcp-hangar --stdio` spoken to in raw lines, keeping every line it writes as written. */
class StdioPeer {
	readonly tag = randomUUID();
	readonly child: ChildProcessWithoutNullStreams;
	readonly lines: string[] = [];
	private rest = '';
	private stderrText = '';
	private sentinels = 0;

	constructor(config: string) {
		this.child = spawn(process.execPath, [cliPath, '--stdio', '--config', config, '--log-level', 'info'], {env: {...process.env, HANGAR_TEST_TAG: this.tag}, stdio: ['pipe', 'pipe', 'pipe']});
		this.child.stdout.setEncoding('utf8');
		this.child.stdout.on('data', (chunk: string) => {
			const parts = (this.rest + chunk).split('\n');
			this.rest = parts.pop()!;
			this.lines.push(...parts);
		});
		this.child.stderr.setEncoding('utf8');
		this.child.stderr.on('data', (chunk: string) => {
			this.stderrText += chunk;
		});
		this.child.stdin.on('error', () => {});
	}

	get stderr(): string {
		return this.stderrText;
	}

	write(line: string): void {
		this.child.stdin.write(`${line}\n`);
	}

	/** The index of the first response line with `id` (as written) at or after `from`. */
	async responseTo(id: string, from = 0): Promise<number> {
		return waitFor(() => {
			const index = this.lines.findIndex((line, at) => at >= from && isResponse(line) && writtenId(line) === id);
			return index === -1 ? undefined : index;
		}, `the response to ${id}; stderr:\n${this.stderrText.slice(-2000)}`);
	}

	async initialize(): Promise<void> {
		this.write(initialize);
		await this.responseTo('"init"');
		this.write(initialized);
	}

	/**
	 * Sends `line`, then a ping; lines are handled in order, so every answer to
	 * `line` comes before the ping's. Resolves with those answers.
	 */
	async answersTo(line: string): Promise<string[]> {
		const from = this.lines.length;
		this.write(line);
		const sentinel = `"sentinel-${++this.sentinels}"`;
		this.write(`{"jsonrpc":"2.0","id":${sentinel},"method":"ping"}`);
		const end = await this.responseTo(sentinel, from);
		return this.lines.slice(from, end).filter(isResponse);
	}

	async dispose(): Promise<void> {
		this.child.stdin.end();
		const exited = new Promise(resolve => {
			this.child.once('exit', resolve);
		});
		if (this.child.exitCode === null && this.child.signalCode === null) {
			const timer = setTimeout(() => this.child.kill('SIGKILL'), 15_000);
			await exited;
			clearTimeout(timer);
		}

		for (const pid of processesWithTag(this.tag)) {
			try {
				process.kill(pid, 'SIGKILL');
			} catch {}
		}
	}
}

/** One session of `serve --http`, spoken to in raw POSTs. */
class HttpPeer {
	private session = '';

	constructor(private readonly url: string) {}

	async initialize(): Promise<void> {
		const opened = await post(this.url, initialize);
		expect(opened.status).toBe(200);
		await opened.text();
		this.session = opened.headers.get('mcp-session-id')!;
		expect((await this.post(initialized)).status).toBe(202);
	}

	async post(body: string): Promise<Response> {
		return post(this.url, body, {'Mcp-Session-Id': this.session, 'Mcp-Protocol-Version': latestProtocolVersion});
	}

	/** The HTTP status and the JSON-RPC messages of the answer, as written (a JSON body, or an event stream's data lines). */
	static async read(response: Response): Promise<{status: number; lines: string[]}> {
		const text = await response.text();
		if (response.status === 202) return {status: 202, lines: text === '' ? [] : [text]};
		const lines = (response.headers.get('content-type') ?? '').includes('text/event-stream')
			? text.split('\n').filter(line => line.startsWith('data: ') && line !== 'data: ').map(line => line.slice('data: '.length))
			: [text];
		return {status: response.status, lines};
	}
}

const started: Array<{dispose: () => Promise<void>}> = [];
afterEach(async () => {
	await Promise.all(started.splice(0).map(async peer => peer.dispose()));
	await stopHttpHangars();
});

function fxConfig(): string {
	return writeConfig(tempDir('hangar-edge-'), {fx: fixture('normal')}, fastHangar);
}

async function stdioPeer(config: string): Promise<StdioPeer> {
	const peer = new StdioPeer(config);
	started.push(peer);
	await peer.initialize();
	return peer;
}

/** `--stdio` attached to a running `serve` of the same config: the bridge. */
async function bridgedPeer(): Promise<StdioPeer> {
	const config = fxConfig();
	const {served} = await spawnServe(['serve', '--config', config], {listening: log => /serving \d+ upstreams? to MCP clients on/.test(log) || undefined});
	started.push({dispose: async () => void (await served.stop())});
	const peer = await stdioPeer(config);
	expect(peer.stderr).toContain('attached to the supervisor');
	return peer;
}

async function httpPeer(): Promise<HttpPeer> {
	const hangar = await serveHttp(fxConfig());
	const peer = new HttpPeer(hangar.url);
	await peer.initialize();
	return peer;
}

/** Every line of the table through a stdio peer; one observed answer per line, and nothing answered twice. */
async function observeStdio(peer: StdioPeer): Promise<Array<{why: string; answer: Observed}>> {
	const observed: Array<{why: string; answer: Observed}> = [];
	for (const {why, line} of edgeCases) {
		const answers = await peer.answersTo(line);
		observed.push({why, answer: answers.length === 0 ? 'none' : answers.length === 1 ? answerOf(answers[0]!) : {unexpected: answers.join('\n')}});
	}

	return observed;
}

describe('the JSON-RPC edge cases', () => {
	it('get the answers of the table over --stdio', async () => {
		const peer = await stdioPeer(fxConfig());
		expect(await observeStdio(peer)).toEqual(expected);
	});

	it('get the same answers over --stdio bridged to a running serve', async () => {
		const peer = await bridgedPeer();
		expect(await observeStdio(peer)).toEqual(expected);
	});

	it('get the same answers over serve --http; a POST the table does not answer gets 202, or 400 with id null', async () => {
		const peer = await httpPeer();
		const observed: Array<{why: string; answer: Observed}> = [];
		for (const {why, line} of edgeCases) {
			const {status, lines} = await HttpPeer.read(await peer.post(line));
			const refusedPost = status === 400 && lines.length === 1 && writtenId(lines[0]!) === 'null' && isResponse(lines[0]!);
			let answer: Observed;
			if (status === 202 && lines.length === 0) answer = 'none';
			else if (lines.length !== 1) answer = {unexpected: `${status}: ${lines.join('\n')}`};
			else answer = answerOf(lines[0]!);
			// A POST carrying a notification or a response must get an HTTP answer; a 400 with id null is not a JSON-RPC one.
			if (refusedPost && edgeCases.find(edge => edge.why === why)!.answer === 'none') answer = 'none';
			observed.push({why, answer});
		}

		expect(observed).toEqual(expected);
	});
});

/** A request that reuses the id of one in flight, over a stdio peer. */
async function expectInFlightRuleOverStdio(peer: StdioPeer): Promise<void> {
	const from = peer.lines.length;
	peer.write(sleepCall('busy', 1500));
	peer.write('{"jsonrpc":"2.0","id":"busy","method":"ping"}');
	const refused = await peer.responseTo('"busy"', from);
	expect(JSON.parse(peer.lines[refused]!)).toMatchObject({id: 'busy', error: {code: -32_600, message: expect.stringContaining('already in use by a request in flight') as string}});
	// The call still gets its own answer; once answered, its id is no longer in flight.
	const answered = await peer.responseTo('"busy"', refused + 1);
	expect(JSON.parse(peer.lines[answered]!)).toMatchObject({id: 'busy', result: {content: [{type: 'text'}]}});
	expect(await peer.answersTo('{"jsonrpc":"2.0","id":"busy","method":"ping"}')).toEqual(['{"result":{},"jsonrpc":"2.0","id":"busy"}']);
	expect(peer.lines.slice(from).filter(line => isResponse(line) && writtenId(line) === '"busy"')).toHaveLength(3);
}

describe('a request that reuses the id of one in flight', () => {
	it('is refused with -32600 over --stdio, and the request in flight still gets its one answer', async () => {
		await expectInFlightRuleOverStdio(await stdioPeer(fxConfig()));
	});

	it('is refused the same way over --stdio bridged to a running serve', async () => {
		await expectInFlightRuleOverStdio(await bridgedPeer());
	});

	it('is refused the same way over serve --http, with 400', async () => {
		const peer = await httpPeer();
		const call = await peer.post(sleepCall('busy', 1500));
		expect(call.status).toBe(200);
		const refused = await HttpPeer.read(await peer.post('{"jsonrpc":"2.0","id":"busy","method":"ping"}'));
		expect(refused.status).toBe(400);
		expect(JSON.parse(refused.lines[0]!)).toMatchObject({id: 'busy', error: {code: -32_600, message: expect.stringContaining('already in use by a request in flight') as string}});
		const answered = await HttpPeer.read(call);
		expect(answered.lines.map(line => JSON.parse(line) as unknown)).toEqual([expect.objectContaining({id: 'busy', result: expect.objectContaining({content: [expect.objectContaining({type: 'text'})]}) as unknown})]);
		expect((await HttpPeer.read(await peer.post('{"jsonrpc":"2.0","id":"busy","method":"ping"}'))).lines).toEqual(['{"result":{},"jsonrpc":"2.0","id":"busy"}']);
	});
});

describe('the --stdio bridge', () => {
	it('owes nothing for a call its client cancelled: on stdin EOF it exits without answering it', async () => {
		const peer = await bridgedPeer();
		peer.write(sleepCall('cancelled', 30_000));
		peer.write(cancel('cancelled'));
		// Handled in order: once the ping is answered, the call was sent and cancelled.
		expect(await peer.answersTo('{"jsonrpc":"2.0","id":"after","method":"ping"}')).toEqual(['{"result":{},"jsonrpc":"2.0","id":"after"}']);
		const exited = new Promise<number | null>(resolve => {
			peer.child.once('exit', code => resolve(code));
		});
		peer.child.stdin.end();
		expect(await exited).toBe(0);
		expect(peer.lines.filter(line => writtenId(line) === '"cancelled"')).toEqual([]);
	});
});
