/**
 * Audit of the held inputs (MRTR) a 2026-07-28 client gets for a legacy
 * upstream's question, as a hostile or buggy client would use them: raw
 * JSON-RPC over `serve --http`, real fixture upstream. What is checked is
 * what the upstream and the client see.
 */
import {spawn, type ChildProcess} from 'node:child_process';
import readline from 'node:readline';
import {afterEach, describe, expect, it, vi} from 'vitest';
import {cliPath, fastHangar, fixture, spawnEnv, tempDir, writeConfig} from '../support/hangar.js';
import {post, serveHttp, stopHttpHangars} from '../support/http-hangar.js';

const modern = '2026-07-28';
const envelope = (name: string) => ({
	'io.modelcontextprotocol/protocolVersion': modern,
	'io.modelcontextprotocol/clientCapabilities': {elicitation: {}},
	'io.modelcontextprotocol/clientInfo': {name, version: '1'},
});

type Answer = {result?: Record<string, unknown>; error?: {code: number; message: string}};

let id = 0;

/** One modern request with its mirrored headers, answered with one JSON body. */
async function modernRequest(url: string, method: string, params: Record<string, unknown>): Promise<Answer> {
	const name = typeof params['name'] === 'string' ? params['name'] : typeof params['uri'] === 'string' ? params['uri'] : undefined;
	const response = await post(url, JSON.stringify({jsonrpc: '2.0', id: ++id, method, params}), {
		'MCP-Protocol-Version': modern,
		'Mcp-Method': method,
		...(name === undefined ? {} : {'Mcp-Name': name}),
		Accept: 'application/json',
	});
	return (await response.json()) as Answer;
}

const bridges: ChildProcess[] = [];

/** A `--stdio` client of the supervisor `config` runs (its socket): a request function on its own connection. */
function attach(config: string): {request: (id: number, method: string, params: Record<string, unknown>) => Promise<Answer>; end: () => void} {
	const child = spawn(process.execPath, [cliPath, '--stdio', '--config', config], {env: spawnEnv(), stdio: ['pipe', 'pipe', 'ignore']});
	bridges.push(child);
	const waiting = new Map<number, (answer: Answer) => void>();
	readline.createInterface({input: child.stdout!}).on('line', line => {
		const message = JSON.parse(line) as Answer & {id?: number; method?: string};
		if (message.id !== undefined && message.method === undefined) waiting.get(message.id)?.(message);
	});
	const request = async (id: number, method: string, params: Record<string, unknown>) =>
		new Promise<Answer>(resolve => {
			waiting.set(id, resolve);
			child.stdin!.write(`${JSON.stringify({jsonrpc: '2.0', id, method, params})}\n`);
		});
	return {request, end: () => child.stdin!.end()};
}

afterEach(async () => {
	for (const child of bridges.splice(0)) child.kill();
	await stopHttpHangars();
});

/** A 2026-07-28 client (`label`) of serve --http whose tools/call of ask is held for an elicitation: its state and the answer to it. */
async function heldElicitation(label: string) {
	const hangar = await serveHttp(writeConfig(tempDir(), {fx: fixture('normal', ['--client-features', '--resources-count', '2'], {namespace: false, instances: 'shared'})}, fastHangar));
	const meta = envelope(label);
	const first = await modernRequest(hangar.url, 'tools/call', {name: 'ask', arguments: {kind: 'elicitation'}, _meta: meta});
	expect(first.result?.['resultType']).toBe('input_required');
	const {requestState, inputRequests} = first.result as {requestState: string; inputRequests: Record<string, unknown>};
	const responses = {[Object.keys(inputRequests)[0]!]: {action: 'accept', content: {name: 'Ada'}}};
	return {hangar, meta, requestState, responses};
}

/** The retry the state was given for (tools/call of ask) still answers the upstream: the refusal before it used nothing up. */
async function expectRightRetryAnswers(url: string, meta: Record<string, unknown>, requestState: string, responses: Record<string, unknown>): Promise<void> {
	const right = await modernRequest(url, 'tools/call', {name: 'ask', arguments: {kind: 'elicitation'}, requestState, inputResponses: responses, _meta: meta});
	expect(right.error).toBeUndefined();
	expect(right.result?.['resultType']).toBe('complete');
	expect(JSON.stringify(right.result)).toContain('Ada');
}

describe('held inputs against a careless or hostile 2026-07-28 client', () => {
	it('a retry with the state on another method is refused without using the state up: the right retry still answers the upstream', async () => {
		const {hangar, meta, requestState, responses} = await heldElicitation('careless');

		const wrong = await modernRequest(hangar.url, 'resources/read', {uri: 'fixture://item/0', requestState, inputResponses: responses, _meta: meta});
		expect(wrong.error?.code).toBe(-32_602);
		expect(wrong.error?.message).toContain('belongs to a tools/call request');

		// The error told the client to retry the tools/call with this state: that works, and the upstream gets the answer.
		await expectRightRetryAnswers(hangar.url, meta, requestState, responses);
	});

	it('a retry with the state on another tool or resource is refused without using the state up: it never gets the held call\'s result', async () => {
		const {hangar, meta, requestState, responses} = await heldElicitation('mixed-up');

		// The same method, another tool: the client asked for echo, and must not get ask's result as echo's.
		const otherTool = await modernRequest(hangar.url, 'tools/call', {name: 'echo', arguments: {message: 'x'}, requestState, inputResponses: responses, _meta: meta});
		expect(otherTool.error?.code).toBe(-32_602);
		expect(otherTool.error?.message).toContain('belongs to a tools/call request of "ask"');

		await expectRightRetryAnswers(hangar.url, meta, requestState, responses);
	});

	it('a --stdio client that disconnects with a held call: the upstream gets hangar\'s error for its request before its call is cancelled', async () => {
		const dir = tempDir();
		const config = writeConfig(dir, {fx: fixture('normal', ['--client-features'], {namespace: false, instances: 'shared'})}, fastHangar);
		const hangar = await serveHttp(config);
		// A --stdio client attaches to that supervisor (its socket), gets input_required, and goes.
		const leaver = attach(config);
		const first = await leaver.request(1, 'tools/call', {name: 'ask', arguments: {kind: 'elicitation'}, _meta: envelope('leaver')});
		expect(first.result?.['resultType']).toBe('input_required');
		leaver.end();
		// The upstream's own record of what its client answered: hangar's error, which it got while its call still ran.
		await vi.waitFor(
			async () => {
				const answers = await modernRequest(hangar.url, 'tools/call', {name: 'answers', arguments: {}, _meta: envelope('reader')});
				expect(JSON.stringify(answers.result)).toContain('disconnected before answering');
			},
			{timeout: 30_000, interval: 200},
		);
	});

	it('--stdio: another connection with the same clientInfo and capabilities cannot answer with a state given to the first', async () => {
		const dir = tempDir();
		const config = writeConfig(dir, {fx: fixture('normal', ['--client-features'], {namespace: false, instances: 'shared'})}, fastHangar);
		await serveHttp(config);
		const {request: first} = attach(config);
		const {request: second} = attach(config);
		const meta = envelope('same-app');
		const asked = await first(1, 'tools/call', {name: 'ask', arguments: {kind: 'elicitation'}, _meta: meta});
		expect(asked.result?.['resultType']).toBe('input_required');
		const {requestState, inputRequests} = asked.result as {requestState: string; inputRequests: Record<string, unknown>};
		const key = Object.keys(inputRequests)[0]!;
		const stolen = await second(1, 'tools/call', {name: 'ask', arguments: {kind: 'elicitation'}, requestState, inputResponses: {[key]: {action: 'accept', content: {name: 'Mallory'}}}, _meta: meta});
		expect(stolen.error?.message).toContain('issued to another client');
		// The refusal used nothing up: the client it was given to answers.
		const answered = await first(2, 'tools/call', {name: 'ask', arguments: {kind: 'elicitation'}, requestState, inputResponses: {[key]: {action: 'accept', content: {name: 'Ada'}}}, _meta: meta});
		expect(JSON.stringify(answered.result)).toContain('Ada');
	});
});
