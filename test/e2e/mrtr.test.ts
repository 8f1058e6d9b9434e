/**
 * A modern (2026-07-28) client and a legacy upstream that asks its client
 * something mid-call (the fixture's `ask`: sampling, elicitation, roots):
 * hangar holds the upstream's request, answers the client's call with
 * `input_required` and a requestState of its own, and on the client's retry
 * answers the held request and returns the upstream's result. Real v2 SDK
 * clients pinned to 2026-07-28 (they fulfil input_required with their
 * handlers), and raw requests for the refusals, on `--stdio` and `serve --http`.
 */
import {Client as ModernClient} from '@modelcontextprotocol/client';
import {StdioClientTransport as ModernStdio} from '@modelcontextprotocol/client/stdio';
import {StreamableHTTPClientTransport as ModernHttp} from '@modelcontextprotocol/client';
import {afterEach, describe, expect, it, vi} from 'vitest';
import {cliPath, closeHangars, everything, fastHangar, fixture, spawnEnv, tempDir, writeConfig} from '../support/hangar.js';
import {post, serveHttp, stopHttpHangars} from '../support/http-hangar.js';
import {rawSession, stopRawSessions, type RawMessage} from '../support/raw-session.js';

const modern = '2026-07-28';
const meta = (capabilities: Record<string, unknown>, name = 'raw') => ({
	'io.modelcontextprotocol/protocolVersion': modern,
	'io.modelcontextprotocol/clientCapabilities': capabilities,
	'io.modelcontextprotocol/clientInfo': {name, version: '1'},
});

type Answer = {result?: Record<string, unknown>; error?: {code: number; message: string}};

/** The fixture's `ask` result: what the upstream got from its client. */
function asked(result: {content?: unknown}): Answer {
	return JSON.parse((result.content as Array<{text: string}>)[0]!.text) as Answer;
}

/** A v2 client pinned to 2026-07-28 that answers elicitation, sampling and roots with its handlers. */
function answeringClient(): ModernClient {
	const client = new ModernClient({name: 'mrtr-test', version: '1.0.0'}, {versionNegotiation: {mode: {pin: modern}}, capabilities: {sampling: {}, elicitation: {}, roots: {}}});
	client.setRequestHandler('elicitation/create', async request => ({action: 'accept', content: {name: `Ada (asked: ${request.params.message})`}}));
	client.setRequestHandler('sampling/createMessage', async () => ({role: 'assistant', content: {type: 'text', text: 'hello from the model'}, model: 'test-model'}));
	client.setRequestHandler('roots/list', async () => ({roots: [{uri: 'file:///work/modern', name: 'modern'}]}));
	return client;
}

afterEach(async () => {
	stopRawSessions();
	await closeHangars();
	await stopHttpHangars();
});

describe('2026-07-28 clients answer a legacy upstream\'s requests through input_required', () => {
	it('--stdio: a pinned v2 client\'s handlers answer the upstream\'s elicitation, sampling and roots, and each call returns the upstream\'s result', async () => {
		const dir = tempDir();
		const config = writeConfig(dir, {fx: fixture('normal', ['--client-features'], {namespace: false})}, fastHangar);
		const client = answeringClient();
		await client.connect(new ModernStdio({command: process.execPath, args: [cliPath, '--stdio', '--config', config, '--standalone'], env: spawnEnv(), stderr: 'pipe'}));
		try {
			const elicited = asked(await client.callTool({name: 'ask', arguments: {kind: 'elicitation'}}));
			expect(elicited).toEqual({result: {action: 'accept', content: {name: 'Ada (asked: What is your name?)'}}});
			const sampled = asked(await client.callTool({name: 'ask', arguments: {kind: 'sampling'}}));
			expect(sampled.result).toMatchObject({role: 'assistant', content: {type: 'text', text: 'hello from the model'}});
			const roots = asked(await client.callTool({name: 'ask', arguments: {kind: 'roots'}}));
			expect(roots).toEqual({result: {roots: [{uri: 'file:///work/modern', name: 'modern'}]}});
			// A call that asks nothing is answered at once, as before.
			expect((await client.callTool({name: 'echo', arguments: {message: 'plain'}})).content).toEqual([{type: 'text', text: 'plain'}]);
		} finally {
			await client.close();
		}
	});

	it('--stdio: server-everything\'s elicitation and sampling tools reach a pinned v2 client\'s handlers', async () => {
		const dir = tempDir();
		const config = writeConfig(dir, {every: everything({namespace: false})}, fastHangar);
		const client = answeringClient();
		client.setRequestHandler('elicitation/create', async () => ({action: 'decline'}));
		await client.connect(new ModernStdio({command: process.execPath, args: [cliPath, '--stdio', '--config', config, '--standalone'], env: spawnEnv(), stderr: 'pipe'}));
		try {
			const elicited = await client.callTool({name: 'trigger-elicitation-request', arguments: {}});
			expect(JSON.stringify(elicited.content)).toContain('decline');
			// The upstream now runs one instance per client ("instances": "auto" learned it), told what this client declares.
			const sampled = await client.callTool({name: 'trigger-sampling-request', arguments: {prompt: 'Say hi', maxTokens: 10}});
			expect(JSON.stringify(sampled.content)).toContain('hello from the model');
		} finally {
			await client.close();
		}
	});

	it('serve --http: a pinned v2 client\'s handlers answer the upstream\'s elicitation, sampling and roots across POSTs, on a shared and then a per-client instance', async () => {
		const dir = tempDir();
		// "auto": the first request it sends makes it run per client, and each modern HTTP request is a client of its own.
		const hangar = await serveHttp(writeConfig(dir, {fx: fixture('normal', ['--client-features'], {namespace: false})}, fastHangar));
		const client = answeringClient();
		await client.connect(new ModernHttp(new URL(hangar.url)));
		try {
			expect(asked(await client.callTool({name: 'ask', arguments: {kind: 'elicitation'}}))).toEqual({result: {action: 'accept', content: {name: 'Ada (asked: What is your name?)'}}});
			expect(asked(await client.callTool({name: 'ask', arguments: {kind: 'sampling'}})).result).toMatchObject({content: {text: 'hello from the model'}});
			expect(asked(await client.callTool({name: 'ask', arguments: {kind: 'roots'}}))).toEqual({result: {roots: [{uri: 'file:///work/modern', name: 'modern'}]}});
		} finally {
			await client.close();
		}
	});

	it('asks a modern client only what its request\'s _meta declares: otherwise the upstream is refused in words for that era', async () => {
		const dir = tempDir();
		const hangar = await serveHttp(writeConfig(dir, {fx: fixture('normal', ['--client-features'], {namespace: false, instances: 'shared'})}, fastHangar));
		const response = await callHttp(hangar.url, 1, {kind: 'sampling'}, meta({elicitation: {}}));
		const answer = asked(response.result as {content: unknown});
		expect(response.result?.['resultType']).toBe('complete');
		expect(answer.error?.message).toContain('did not declare "sampling" in the clientCapabilities of its request\'s _meta');
	});

	it('serve --http: a tampered, replayed or another client\'s requestState is refused; the real one is answered once', async () => {
		const dir = tempDir();
		const hangar = await serveHttp(writeConfig(dir, {fx: fixture('normal', ['--client-features'], {namespace: false, instances: 'shared'})}, fastHangar));
		const first = await callHttp(hangar.url, 1, {kind: 'elicitation'}, meta({elicitation: {}}));
		const {requestState, inputRequests} = first.result as {requestState: string; inputRequests: Record<string, {method: string; params: {message: string}}>};
		expect(first.result?.['resultType']).toBe('input_required');
		const [key, request] = Object.entries(inputRequests)[0]!;
		expect(request.method).toBe('elicitation/create');
		expect(request.params.message).toBe('What is your name?');
		const responses = {[key]: {action: 'accept', content: {name: 'Grace'}}};

		const tampered = `${requestState.slice(0, -2)}${requestState.endsWith('AA') ? 'BB' : 'AA'}`;
		expect((await callHttp(hangar.url, 2, {kind: 'elicitation'}, meta({elicitation: {}}), {requestState: tampered, inputResponses: responses})).error?.message).toContain('failed its integrity check');
		const stranger = await callHttp(hangar.url, 3, {kind: 'elicitation'}, meta({elicitation: {}}, 'someone-else'), {requestState, inputResponses: responses});
		expect(stranger.error).toMatchObject({code: -32_602});
		expect(stranger.error?.message).toContain('issued to another client');

		const retried = await callHttp(hangar.url, 4, {kind: 'elicitation'}, meta({elicitation: {}}), {requestState, inputResponses: responses});
		expect(retried.result?.['resultType']).toBe('complete');
		expect(asked(retried.result as {content: unknown})).toEqual({result: {action: 'accept', content: {name: 'Grace'}}});
		const replayed = await callHttp(hangar.url, 5, {kind: 'elicitation'}, meta({elicitation: {}}), {requestState, inputResponses: responses});
		expect(replayed.error?.message).toContain('already used');
	});

	it('serve --http: a client that never retries has its held request freed with an error naming hangar, and the state then reads as expired', async () => {
		const dir = tempDir();
		const hangar = await serveHttp(writeConfig(dir, {fx: fixture('normal', ['--client-features'], {namespace: false, instances: 'shared'})}, {...fastHangar, inputRequiredSeconds: 0.5}));
		const first = await callHttp(hangar.url, 1, {kind: 'elicitation'}, meta({elicitation: {}}));
		const {requestState} = first.result as {requestState: string};
		// The upstream's own record of what its client answered: hangar's error, once the state expired.
		await vi.waitFor(
			async () => {
				const answers = await callHttp(hangar.url, 2, {}, meta({}), {}, 'answers');
				expect(JSON.stringify(answers.result)).toContain('the client did not answer in time');
			},
			{timeout: 15_000, interval: 100},
		);
		const late = await callHttp(hangar.url, 3, {kind: 'elicitation'}, meta({elicitation: {}}), {requestState, inputResponses: {}});
		expect(late.error?.message).toContain('expired');
	});

	it('--stdio: tampered, replayed and expired states are refused on the same connection; the real one continues the call', async () => {
		const dir = tempDir();
		// A state expires this long after it was minted, and calls 2 to 4 below must come back within it: three round
		// trips, which took over 0.5 s on a loaded machine (the real state then read as expired). Only the last part
		// waits for an expiry, once.
		const config = writeConfig(dir, {fx: fixture('normal', ['--client-features'], {namespace: false})}, {...fastHangar, inputRequiredSeconds: 3});
		const {request, received} = await rawSession([cliPath, '--stdio', '--config', config, '--standalone']);
		const call = async (id: number, args: Record<string, unknown>, extra: Record<string, unknown> = {}, name = 'ask'): Promise<RawMessage> =>
			request(id, 'tools/call', {name, arguments: args, _meta: meta({elicitation: {}}), ...extra});
		const first = await call(1, {kind: 'elicitation'});
		const {requestState, inputRequests} = first.result as {requestState: string; inputRequests: Record<string, unknown>};
		expect(first.result?.['resultType']).toBe('input_required');
		// Nothing was sent to the client as a request of its own.
		expect(received.filter(message => message.method === 'elicitation/create')).toEqual([]);
		const key = Object.keys(inputRequests)[0]!;
		const responses = {[key]: {action: 'decline'}};
		// Its first character changed (a random state starts with "x" one time in 64: then "y").
		const tampered = `${requestState.startsWith('x') ? 'y' : 'x'}${requestState.slice(1)}`;
		expect((await call(2, {kind: 'elicitation'}, {requestState: tampered, inputResponses: responses})).error?.code).toBe(-32_602);
		const retried = await call(3, {kind: 'elicitation'}, {requestState, inputResponses: responses});
		expect(JSON.parse((retried.result as {content: Array<{text: string}>}).content[0]!.text)).toEqual({result: {action: 'decline'}});
		expect((await call(4, {kind: 'elicitation'}, {requestState, inputResponses: responses})).error?.message).toContain('already used');

		// A second call left unanswered: freed when its state expires.
		const second = await call(5, {kind: 'elicitation'});
		const stale = (second.result as {requestState: string}).requestState;
		await vi.waitFor(
			async () => {
				const answers = await call(6, {}, {}, 'answers');
				expect(JSON.stringify(answers.result)).toContain('the client did not answer in time');
			},
			{timeout: 15_000, interval: 100},
		);
		expect((await call(7, {kind: 'elicitation'}, {requestState: stale, inputResponses: responses})).error?.message).toContain('expired');
	});
});

let raw = 0;

/** One modern tools/call over HTTP, with its headers, answered with one JSON body. */
async function callHttp(url: string, id: number, args: Record<string, unknown>, envelope: Record<string, unknown>, extra: Record<string, unknown> = {}, name = 'ask'): Promise<{result?: Record<string, unknown>; error?: {code: number; message: string}}> {
	raw += 1;
	const response = await post(url, JSON.stringify({jsonrpc: '2.0', id: id * 1000 + raw, method: 'tools/call', params: {name, arguments: args, _meta: envelope, ...extra}}), {
		'MCP-Protocol-Version': modern,
		'Mcp-Method': 'tools/call',
		'Mcp-Name': name,
		Accept: 'application/json',
	});
	return (await response.json()) as {result?: Record<string, unknown>; error?: {code: number; message: string}};
}
