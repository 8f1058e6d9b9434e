/**
 * Several clients on one upstream, through the built binary with real SDK
 * clients: a request an upstream sends its client (sampling, elicitation,
 * roots) reaches only the client whose call caused it, in every instance
 * mode, over `--stdio` bridges attached to `mcp-hangar serve` and over
 * `serve --http`; where hangar cannot tell whose it is, the upstream gets
 * an error that says why. The probe upstream (`source/demo/probe-server.ts`)
 * asks during calls, outside calls and at start-up, and reports the
 * capabilities it was told on the wire.
 */
import {spawn, type ChildProcess} from 'node:child_process';
import path from 'node:path';
import {Client} from '@modelcontextprotocol/sdk/client/index.js';
import {CreateMessageRequestSchema, ElicitRequestSchema, ListRootsRequestSchema, type CallToolResult} from '@modelcontextprotocol/sdk/types.js';
import {afterEach, describe, expect, it} from 'vitest';
import {cliPath, closeHangars, fastHangar, openHangar, root, statusOf, tempDir, waitFor, writeConfig, type ServerEntry} from '../support/hangar.js';
import {rawSession, stopRawSessions} from '../support/raw-session.js';
import {connectHttp, serveHttp, stopHttpHangars} from '../support/http-hangar.js';
import {startDaemon, stopDaemons} from '../support/serve.js';

const probePath = path.join(root, 'dist', 'demo', 'probe-server.js');
const httpClients: Client[] = [];
const probes: ChildProcess[] = [];

afterEach(async () => {
	for (const child of probes.splice(0)) child.kill('SIGKILL');
	stopRawSessions();
	await closeHangars();
	await Promise.all(httpClients.splice(0).map(async client => client.close()));
	await stopHttpHangars();
	await stopDaemons('SIGKILL');
});

function probe(extra: ServerEntry = {}, args: string[] = []): ServerEntry {
	return {command: process.execPath, args: [probePath, ...args], ...extra};
}

const allCapabilities = {sampling: {}, elicitation: {}, roots: {listChanged: true}};

/** An SDK client that answers every request with its own name, and counts what it was asked. */
function namedClient(name: string, capabilities: Record<string, unknown> = allCapabilities) {
	const client = new Client({name, version: '1.0.0'}, {capabilities});
	const asked: string[] = [];
	if ('sampling' in capabilities) {
		client.setRequestHandler(CreateMessageRequestSchema, () => {
			asked.push('sampling');
			return {role: 'assistant', content: {type: 'text', text: name}, model: name};
		});
	}

	if ('elicitation' in capabilities) {
		client.setRequestHandler(ElicitRequestSchema, () => {
			asked.push('elicitation');
			return {action: 'accept', content: {name}};
		});
	}

	if ('roots' in capabilities) {
		client.setRequestHandler(ListRootsRequestSchema, () => {
			asked.push('roots');
			return {roots: [{uri: `file:///work/${name}`, name}]};
		});
	}

	return {name, client, asked};
}

type Named = ReturnType<typeof namedClient>;

function structured(result: unknown): Record<string, unknown> {
	return (result as CallToolResult).structuredContent!;
}

/** Who answered an `ask`: the client's name, or "refused: <message>". */
function answeredBy(answer: Record<string, unknown>): string {
	const result = answer['result'] as Record<string, unknown> | undefined;
	if (result === undefined) return `refused: ${String((answer['error'] as {message?: unknown}).message)}`;
	if (typeof result['model'] === 'string') return result['model'];
	if (Array.isArray(result['roots'])) return String((result['roots'][0] as {name: string}).name);
	return String((result['content'] as {name: string}).name);
}

/**
 * Every client calls `ask` at once, `rounds` times; returns, per round, who
 * answered each client's request. Crossing is what this must never show.
 */
async function concurrentRounds(clients: Named[], tool: string, rounds: number): Promise<Array<Record<string, string>>> {
	const seen: Array<Record<string, string>> = [];
	const kinds = ['sampling', 'elicitation', 'roots'] as const;
	for (let round = 0; round < rounds; round++) {
		const kind = kinds[round % kinds.length]!;
		const answers = await Promise.all(clients.map(async ({name, client}) => structured(await client.callTool({name: tool, arguments: {kind, tag: `${name}-${round}`}}))));
		const row: Record<string, string> = {};
		for (const [index, {name}] of clients.entries()) {
			expect(answers[index]!['tag']).toBe(`${name}-${round}`);
			row[name] = answeredBy(answers[index]!);
		}

		seen.push(row);
	}

	return seen;
}

/** No round shows a client's request answered by another client. */
function expectNoCrossing(seen: Array<Record<string, string>>): void {
	for (const row of seen) {
		for (const [caller, by] of Object.entries(row)) {
			if (!by.startsWith('refused: ')) expect(by).toBe(caller);
		}
	}
}

async function attach(file: string, names: string[], capabilities: Record<string, unknown> = allCapabilities): Promise<Named[]> {
	const clients = names.map(name => namedClient(name, capabilities));
	for (const named of clients) await openHangar(file, {client: named.client, shared: true});
	return clients;
}

describe('"instances": "auto" (the default), three clients on --stdio bridges', () => {
	it('learns from the first request that the upstream is client-scoped, then runs one instance per client; 50 concurrent rounds, no request crosses clients', async () => {
		const file = writeConfig(tempDir(), {probe: probe()}, fastHangar);
		await startDaemon(file);
		const clients = await attach(file, ['ada', 'bob', 'cy']);
		const seen = await concurrentRounds(clients, 'probe__ask', 50);
		expectNoCrossing(seen);
		// Once learned, every request reaches its caller: only the round that taught the verdict may be refused.
		const refusedAfterFirst = seen.slice(1).flatMap(row => Object.values(row)).filter(by => by.startsWith('refused'));
		expect(refusedAfterFirst).toEqual([]);
		for (const refusal of Object.values(seen[0]!).filter(by => by.startsWith('refused'))) {
			// The request that taught the verdict says to retry; others already on the shared instance say where requests go now.
			expect(refusal).toMatch(/hangar cannot tell which client it belongs to: calls of [23] clients .* are in flight on its shared instance.*("probe" runs one instance per client session from now on|Each client session gets its own instance of "probe")/);
		}

		const entry = await statusOf(clients[0]!.client, 'probe');
		expect(entry.instanceMode).toEqual({setting: 'auto', runs: 'per-client', learned: {at: expect.any(String) as unknown, method: expect.stringMatching(/^(sampling\/createMessage|elicitation\/create|roots\/list)$/) as unknown}, limit: 32});
		expect(entry.instances?.map(instance => instance.client).sort()).toEqual(['socket#1 ("ada")', 'socket#2 ("bob")', 'socket#3 ("cy")'].sort());
	});

	it('answers a request at start-up or outside any call with an error that says why, and learns from it', async () => {
		const file = writeConfig(tempDir(), {probe: probe({lazy: false}, ['--ask-at-start', 'roots'])}, fastHangar);
		await startDaemon(file);
		const [ada] = await attach(file, ['ada']);
		// The template started at launch (lazy: false) and asked for roots with no call in flight: refused, and learned.
		await waitFor(async () => (await statusOf(ada!.client, 'probe')).instanceMode?.runs === 'per-client', 'the verdict to be learned at start-up');
		// Its own instance asks at its start too: that instance has one client, so the answer is ada's.
		const outside = await waitFor(async () => {
			const {outside: list} = structured(await ada!.client.callTool({name: 'probe__outside', arguments: {}})) as {outside: Array<Record<string, unknown>>};
			return list.length > 0 ? list : undefined;
		}, 'the instance\'s start-up request to be answered');
		expect(outside).toEqual([{kind: 'roots', at: 'start-up', result: {roots: [{uri: 'file:///work/ada', name: 'ada'}]}}]);
		expect(ada!.asked).toEqual(['roots']);
	});
});

describe('a request an upstream sends right after its answer', () => {
	it('belongs to no call, even when the answer and the request come in one read: refused, though the caller could answer', async () => {
		const upstream = {command: process.execPath, args: [path.join(root, 'test', 'fixtures', 'answer-then-ask.mjs')], instances: 'shared' as const};
		const file = writeConfig(tempDir(), {ask: upstream}, fastHangar);
		await startDaemon(file);
		const [ada] = await attach(file, ['ada']);
		for (let round = 0; round < 20; round++) {
			await ada!.client.callTool({name: 'ask__answer-then-ask', arguments: {}});
			const outcome = await waitFor(async () => (structured(await ada!.client.callTool({name: 'ask__outcome', arguments: {}}))['outcome'] as {error?: {message: string}} | null) ?? undefined, 'the request after the answer to be answered');
			expect(outcome.error?.message).toContain('no client has a call to "ask" in flight, so no client caused it');
		}

		expect(ada!.asked).toEqual([]);
	});
});

describe('"instances": "shared", two clients', () => {
	it('over --stdio bridges: relays a request to the only client with a call in flight, refuses one it cannot place; 50 concurrent rounds, none crosses', async () => {
		const file = writeConfig(tempDir(), {probe: probe({instances: 'shared'})}, fastHangar);
		const daemon = await startDaemon(file, {args: ['--log-level', 'info']});
		const [ada, bob] = await attach(file, ['ada', 'bob']);
		// Alone in flight: it is ada's.
		expect(answeredBy(structured(await ada!.client.callTool({name: 'probe__ask', arguments: {kind: 'sampling'}})))).toBe('ada');
		expectNoCrossing(await concurrentRounds([ada!, bob!], 'probe__ask', 50));
		// Roots are never answered on an instance every client shares.
		expect(answeredBy(structured(await bob!.client.callTool({name: 'probe__ask', arguments: {kind: 'roots'}})))).toContain('one client\'s roots would scope it for all of them');
		// Outside any call: refused, though both clients could answer. No call is made until hangar has answered it
		// (its log says so): a call in flight when it came would make it that call's client's, as the rule says.
		await ada!.client.callTool({name: 'probe__outside-now', arguments: {kind: 'sampling'}});
		await waitFor(() => (daemon.stderr().includes('"probe" sent sampling/createMessage, answered with an error: hangar cannot tell which client it belongs to: no client') ? true : undefined), 'hangar to answer the outside request');
		const outside = await waitFor(async () => {
			const {outside: list} = structured(await bob!.client.callTool({name: 'probe__outside', arguments: {}})) as {outside: Array<{error?: {message: string}}>};
			return list[0];
		}, 'the outside request to be answered');
		expect(outside.error?.message).toContain('no client has a call to "probe" in flight, so no client caused it');
		expect((await statusOf(ada!.client, 'probe')).instanceMode).toEqual({setting: 'shared', runs: 'shared', learned: null});
	});

	it('over serve --http: 50 concurrent rounds of two HTTP clients, none crosses', async () => {
		const file = writeConfig(tempDir(), {probe: probe({instances: 'shared'})}, fastHangar);
		const hangar = await serveHttp(file);
		const clients = [namedClient('ada'), namedClient('bob')];
		for (const {client} of clients) {
			await connectHttp(hangar.url, {client});
			httpClients.push(client);
		}

		expectNoCrossing(await concurrentRounds(clients, 'probe__ask', 50));
	});
});

describe('a Streamable HTTP upstream, "instances": "shared"', () => {
	it('ties each request to the call whose stream carried it: two clients calling at once are each answered by themselves, 30 rounds', async () => {
		const upstream = spawn(process.execPath, [probePath, '--http', '0'], {stdio: ['ignore', 'ignore', 'pipe']});
		probes.push(upstream);
		let log = '';
		upstream.stderr.on('data', (chunk: Buffer) => {
			log += chunk.toString();
		});
		const url = await waitFor(() => /probe listening on (\S+)/.exec(log)?.[1], 'the HTTP probe to listen');
		const file = writeConfig(tempDir(), {probe: {url, instances: 'shared'}}, fastHangar);
		await startDaemon(file);
		const clients = await attach(file, ['ada', 'bob']);
		const seen = await concurrentRounds(clients, 'probe__ask', 30);
		// No guessing needed: the transport says which call each request belongs to, so none is refused (roots aside: never on a shared instance).
		expect(seen.flatMap(row => Object.entries(row).filter(([caller, by]) => by !== caller && !by.includes('one client\'s roots would scope it')))).toEqual([]);
	});
});

describe('"instances": "per-client"', () => {
	it('over serve --http, three clients: 50 concurrent rounds, every request answered by its own caller', async () => {
		const file = writeConfig(tempDir(), {probe: probe({instances: 'per-client'})}, fastHangar);
		const hangar = await serveHttp(file);
		const clients = [namedClient('ada'), namedClient('bob'), namedClient('cy')];
		for (const {client} of clients) {
			await connectHttp(hangar.url, {client});
			httpClients.push(client);
		}

		const seen = await concurrentRounds(clients, 'probe__ask', 50);
		expect(seen.flatMap(row => Object.entries(row).filter(([caller, by]) => by !== caller))).toEqual([]);
	});

	it('tells each instance exactly what its client declared, on the wire', async () => {
		const file = writeConfig(tempDir(), {probe: probe({instances: 'per-client'})}, fastHangar);
		await startDaemon(file);
		const rich = {sampling: {tools: {}}, elicitation: {form: {}, url: {}}, roots: {listChanged: true}, experimental: {probe: {on: true}}};
		const [ada] = await attach(file, ['ada'], rich);
		const [bare] = await attach(file, ['bare'], {});
		// The spec reads an empty elicitation object as form-only; the client sent it empty, and so is its instance told.
		const plain = {sampling: {}, elicitation: {}};
		const [old] = await attach(file, ['old'], plain);
		expect(structured(await ada!.client.callTool({name: 'probe__client-capabilities', arguments: {}}))['capabilities']).toEqual(rich);
		expect(structured(await bare!.client.callTool({name: 'probe__client-capabilities', arguments: {}}))['capabilities']).toEqual({});
		expect(structured(await old!.client.callTool({name: 'probe__client-capabilities', arguments: {}}))['capabilities']).toEqual(plain);
		expect(answeredBy(structured(await old!.client.callTool({name: 'probe__ask', arguments: {kind: 'elicitation'}})))).toBe('old');
		// And who connects: each instance is told its own client's clientInfo, as it would be directly.
		expect(structured(await ada!.client.callTool({name: 'probe__client-capabilities', arguments: {}}))['clientInfo']).toEqual({name: 'ada', version: '1.0.0'});
		expect(structured(await bare!.client.callTool({name: 'probe__client-capabilities', arguments: {}}))['clientInfo']).toEqual({name: 'bare', version: '1.0.0'});
	});

	it('asks each instance for the protocol version its client negotiated, as the client would directly', async () => {
		const file = writeConfig(tempDir(), {probe: probe({instances: 'per-client'})}, fastHangar);
		await startDaemon(file);
		const told: Record<string, unknown> = {};
		await Promise.all(['2024-11-05', '2025-03-26', '2025-06-18', '2025-11-25'].map(async protocolVersion => {
			const session = await rawSession([cliPath, '--stdio', '--config', file], {protocolVersion, clientInfo: {name: `v${protocolVersion}`, version: '1'}});
			expect(session.initialized.result?.['protocolVersion']).toBe(protocolVersion);
			const answer = await session.request(2, 'tools/call', {name: 'probe__client-capabilities', arguments: {}});
			told[protocolVersion] = (answer.result?.['structuredContent'] as Record<string, unknown>)['protocolVersion'];
		}));
		expect(told).toEqual({'2024-11-05': '2024-11-05', '2025-03-26': '2025-03-26', '2025-06-18': '2025-06-18', '2025-11-25': '2025-11-25'});
	});
});

describe('identity', () => {
	it('passes each upstream\'s instructions and serverInfo to clients, attributed, under hangar\'s own worded for the naming mode', async () => {
		const file = writeConfig(tempDir(), {probe: probe({namespace: false})}, fastHangar);
		await startDaemon(file);
		const [first] = await attach(file, ['first'], {});
		// Its first start: what it said of itself at initialize is kept.
		await first!.client.callTool({name: 'pid', arguments: {}});
		const [second] = await attach(file, ['second'], {});
		const instructions = second!.client.getInstructions() ?? '';
		expect(instructions).toContain('Tools keep their upstream\'s own names.');
		expect(instructions).not.toContain('<server>__<tool>');
		expect(instructions).toContain('## Upstream "probe" (probe 1.0.0); its tools keep their own names\n\nProbe: call ask to make me ask you something.');
	});
});
