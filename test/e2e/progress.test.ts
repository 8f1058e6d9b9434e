/**
 * Progress on the wire: every progress notification an upstream sends
 * before its result reaches the client, in order, before that result, over
 * `--stdio` and `serve --http`. Read raw (lines on stdout, events of the
 * call's SSE stream): the SDK client itself can drop a progress
 * notification that arrives in the same read as the result, so it cannot be
 * the judge. The fixture's progress-burst writes all of a call's progress
 * and its result in one write, the hardest case; server-everything's
 * trigger-long-running-operation is the real upstream.
 */
import {spawn, type ChildProcess} from 'node:child_process';
import readline from 'node:readline';
import {afterEach, describe, expect, it} from 'vitest';
import {cliPath, everything, fastHangar, fixture, fixturePath, tempDir, waitFor, writeConfig} from '../support/hangar.js';
import {serveHttp, stopHttpHangars} from '../support/http-hangar.js';
import {rawSession, stopRawSessions, type RawMessage} from '../support/raw-session.js';

const children: ChildProcess[] = [];

afterEach(async () => {
	for (const child of children.splice(0)) child.kill();
	stopRawSessions();
	await stopHttpHangars();
});

type Message = {id?: string | number; method?: string; params?: Record<string, unknown>; result?: Record<string, unknown>; error?: unknown};

/** One call's messages as they arrived: its progress values, then "result" (or "error"), and anything after. */
type Trace = Array<number | 'result' | 'error'>;

const calls = 100;
const steps = 4;
const concurrency = 10;

/** The tools that report four steps of progress, on the two upstreams. */
const workloads = {
	fixture: {server: 'fx', entry: fixture('normal', ['--client-features'], {lazy: false}), tool: 'fx__progress-burst', arguments: {steps}},
	// One shared instance, as the direct server is one: under the default "auto", server-everything (which asks for roots at start-up) would run per client session, and a cold instance's start adds hangar's own progress notes.
	everything: {server: 'everything', entry: everything({lazy: false, instances: 'shared'}), tool: 'everything__trigger-long-running-operation', arguments: {duration: 0.02, steps}},
} as const;

/** Runs `count` calls, `concurrency` at a time. */
async function inBatches(count: number, run: (index: number) => Promise<void>): Promise<void> {
	let next = 0;
	await Promise.all(
		Array.from({length: concurrency}, async () => {
			while (next < count) await run(next++);
		}),
	);
}

function expectEveryStepBeforeItsResult(traces: Trace[]): void {
	const complete = traces.filter(trace => JSON.stringify(trace) === JSON.stringify([1, 2, 3, 4, 'result'])).length;
	expect(traces.filter(trace => JSON.stringify(trace) !== JSON.stringify([1, 2, 3, 4, 'result']))).toEqual([]);
	expect(complete).toBe(calls);
}

/** `mcp-hangar --stdio --standalone`, driven line by line. */
async function rawStdio(config: string) {
	const child = spawn(process.execPath, [cliPath, '--stdio', '--standalone', '--config', config], {stdio: ['pipe', 'pipe', 'ignore']});
	children.push(child);
	const waiting = new Map<string | number, (message: Message) => void>();
	const traces = new Map<string, Trace>();
	readline.createInterface({input: child.stdout!}).on('line', line => {
		const message = JSON.parse(line) as Message;
		if (message.method === 'notifications/progress') {
			traces.get(String(message.params!['progressToken']))?.push(message.params!['progress'] as number);
		} else if (message.id !== undefined && message.method === undefined) {
			traces.get(`p${message.id}`)?.push('error' in message ? 'error' : 'result');
			waiting.get(message.id)?.(message);
		}
	});
	const request = async (id: string | number, method: string, params: Record<string, unknown>) =>
		new Promise<Message>(resolve => {
			waiting.set(id, resolve);
			child.stdin!.write(`${JSON.stringify({jsonrpc: '2.0', id, method, params})}\n`);
		});
	await request('init', 'initialize', {protocolVersion: '2025-06-18', capabilities: {}, clientInfo: {name: 'raw', version: '1'}});
	child.stdin!.write('{"jsonrpc":"2.0","method":"notifications/initialized"}\n');
	return {request, traces};
}

/** A raw Streamable HTTP session: each call's SSE stream read to its end. */
async function rawHttp(url: string) {
	const headers = {'Content-Type': 'application/json', Accept: 'application/json, text/event-stream'};
	const init = await fetch(url, {method: 'POST', headers, body: JSON.stringify({jsonrpc: '2.0', id: 0, method: 'initialize', params: {protocolVersion: '2025-06-18', capabilities: {}, clientInfo: {name: 'raw', version: '1'}}})});
	await init.text();
	const session = {...headers, 'Mcp-Session-Id': init.headers.get('mcp-session-id')!, 'Mcp-Protocol-Version': '2025-06-18'};
	await (await fetch(url, {method: 'POST', headers: session, body: '{"jsonrpc":"2.0","method":"notifications/initialized"}'})).text();
	return async (id: number, tool: string, args: Record<string, unknown>): Promise<Trace> => {
		const response = await fetch(url, {method: 'POST', headers: session, body: JSON.stringify({jsonrpc: '2.0', id, method: 'tools/call', params: {name: tool, arguments: args, _meta: {progressToken: `p${id}`}}})});
		expect(response.headers.get('content-type')).toContain('text/event-stream');
		const trace: Trace = [];
		for (const line of (await response.text()).split('\n')) {
			if (!line.startsWith('data:')) continue;
			const message = JSON.parse(line.slice(5)) as Message;
			if (message.method === 'notifications/progress' && message.params!['progressToken'] === `p${id}`) trace.push(message.params!['progress'] as number);
			else if (message.id === id) trace.push('error' in message ? 'error' : 'result');
		}

		return trace;
	};
}

describe('progress notifications on the wire', () => {
	for (const [name, workload] of Object.entries(workloads)) {
		it(`reach a --stdio client before their result, all ${steps} of each of ${calls} calls, in order (${name})`, async () => {
			const config = writeConfig(tempDir(), {[workload.server]: workload.entry}, fastHangar);
			const {request, traces} = await rawStdio(config);
			// Listed once started; server-everything's own tools are known after its first list.
			await waitFor(async () => JSON.stringify((await request(`list-${Date.now()}`, 'tools/list', {})).result).includes(workload.tool), `${workload.tool} to be listed`);
			await inBatches(calls, async index => {
				traces.set(`p${index}`, []);
				const answer = await request(index, 'tools/call', {name: workload.tool, arguments: workload.arguments, _meta: {progressToken: `p${index}`}});
				expect(answer.error).toBeUndefined();
			});
			expectEveryStepBeforeItsResult([...traces.values()]);
		});

		it(`reach an HTTP client on the call's own stream before its result, all ${steps} of each of ${calls} calls, in order (${name})`, async () => {
			const hangar = await serveHttp(writeConfig(tempDir(), {[workload.server]: workload.entry}, fastHangar));
			const call = await rawHttp(hangar.url);
			// The first calls may find the upstream still starting: wait until one runs without startup notes.
			await waitFor(async () => JSON.stringify(await call(-1, workload.tool, workload.arguments)) === JSON.stringify([1, 2, 3, 4, 'result']), 'a warm call');
			const traces: Trace[] = [];
			await inBatches(calls, async index => {
				traces.push(await call(index, workload.tool, workload.arguments));
			});
			expectEveryStepBeforeItsResult(traces);
		});
	}
});

/** The progress notifications `session` got under `token` before the answer to `id`. */
function progressBefore(session: {received: RawMessage[]}, token: string, id: string): RawMessage[] {
	const answer = session.received.findIndex(message => message.id === id && message.method === undefined);
	return session.received.slice(0, answer).filter(message => message.method === 'notifications/progress' && message.params!['progressToken'] === token);
}

describe('progress on requests other than tools/call', () => {
	const fixtureArgs = ['--resources-count', '2', '--prompts-count', '1'];

	it('reaches the client on resources/read and prompts/get as it does directly, _meta included (and on resources/updated), under the client\'s own token', async () => {
		const direct = await rawSession([fixturePath, '--mode', 'normal', ...fixtureArgs]);
		const config = writeConfig(tempDir(), {fx: fixture('normal', fixtureArgs)}, fastHangar);
		const hangar = await rawSession([cliPath, '--stdio', '--standalone', '--config', config]);
		// Started first: a start the request waits for adds hangar's own progress notes before the upstream's.
		expect((await hangar.request('warm', 'resources/read', {uri: 'fixture://item/0'})).result).toBeDefined();
		const requests: Array<[string, string, Record<string, unknown>, Record<string, unknown>]> = [
			['read', 'resources/read', {uri: 'fixture://item/1'}, {uri: 'fixture://item/1'}],
			['prompt', 'prompts/get', {name: 'prompt_0'}, {name: 'fx__prompt_0'}],
		];
		for (const [id, method, directParams, hangarParams] of requests) {
			const token = `token-${id}`;
			const directAnswer = await direct.request(id, method, {...directParams, _meta: {progressToken: token}});
			const hangarAnswer = await hangar.request(id, method, {...hangarParams, _meta: {progressToken: token}});
			expect(hangarAnswer.error, method).toBeUndefined();
			expect(hangarAnswer.result, method).toEqual(directAnswer.result);
			const seen = progressBefore(direct, token, id).map(message => message.params);
			expect(seen, method).toEqual([1, 2].map(step => ({progressToken: token, progress: step, total: 2, message: `${method} step ${step}`, _meta: {'fixture/step': step}})));
			expect(progressBefore(hangar, token, id).map(message => message.params), method).toEqual(seen);
		}

		// A resources/updated the upstream sends a subscriber keeps its _meta.
		await direct.request('sub', 'resources/subscribe', {uri: 'fixture://item/1'});
		await hangar.request('sub', 'resources/subscribe', {uri: 'fixture://item/1'});
		const updated = (session: typeof direct) => session.received.filter(message => message.method === 'notifications/resources/updated').map(message => message.params);
		await waitFor(() => updated(hangar).length > 0 && updated(direct).length > 0, 'resources/updated, direct and through hangar');
		expect(updated(direct)).toEqual([{uri: 'fixture://item/1', _meta: {'fixture/why': 'subscribed'}}]);
		expect(updated(hangar)).toEqual(updated(direct));

		// Nothing else carried progress: no token but the client's own reached it.
		const tokens = new Set(hangar.received.filter(message => message.method === 'notifications/progress').map(message => message.params!['progressToken']));
		expect([...tokens].sort()).toEqual(['token-prompt', 'token-read']);
	});
});
