/**
 * What upstreams send their client, through the built binary: sampling,
 * elicitation and roots requests answered by real SDK clients over
 * `--stdio` (embedded and attached to `mcp-hangar serve`) and `serve
 * --http`, compared with the same client talking to server-everything
 * directly; routing between two attached clients; the error an upstream
 * gets when no client can answer; cancellation; logging per session.
 */
import {Client} from '@modelcontextprotocol/sdk/client/index.js';
import {StdioClientTransport} from '@modelcontextprotocol/sdk/client/stdio.js';
import {
	CreateMessageRequestSchema,
	ElicitRequestSchema,
	ListRootsRequestSchema,
	LoggingMessageNotificationSchema,
	type CallToolResult,
	type ElicitRequest,
	type ElicitResult,
	type LoggingMessageNotification,
} from '@modelcontextprotocol/sdk/types.js';
import type {RequestHandlerExtra} from '@modelcontextprotocol/sdk/shared/protocol.js';
import {afterEach, describe, expect, it} from 'vitest';
import {closeHangars, everything, everythingPath, fastHangar, fixture, openHangar, statusOf, tempDir, waitFor, writeConfig, type ServerEntry} from '../support/hangar.js';
import {connectHttp, serveHttp, stopHttpHangars} from '../support/http-hangar.js';
import {startDaemon, stopDaemons} from '../support/serve.js';

const direct: Client[] = [];

afterEach(async () => {
	await closeHangars();
	await stopHttpHangars();
	await Promise.all(direct.splice(0).map(async client => client.close()));
	await stopDaemons('SIGKILL');
});

type Extra = RequestHandlerExtra<never, never>;

/** An SDK client that declares sampling, elicitation and roots and answers them as `name`, recording what it was asked. */
function capableClient(name: string, options: {elicit?: (request: ElicitRequest, extra: Extra) => Promise<ElicitResult>} = {}) {
	const client = new Client({name, version: '1.0.0'}, {capabilities: {sampling: {}, elicitation: {}, roots: {listChanged: true}}});
	const asked: string[] = [];
	const logs: Array<LoggingMessageNotification['params']> = [];
	client.setRequestHandler(CreateMessageRequestSchema, async (request, extra) => {
		asked.push('sampling');
		const token = request.params._meta?.progressToken;
		if (token !== undefined) await extra.sendNotification({method: 'notifications/progress', params: {progressToken: token, progress: 1, total: 2, message: 'thinking'}});
		const content = request.params.messages[0]?.content;
		const first = Array.isArray(content) ? content[0] : content;
		return {role: 'assistant', content: {type: 'text', text: `${name} read: ${first?.type === 'text' ? first.text : '?'}`}, model: `${name}-model`, stopReason: 'endTurn'};
	});
	client.setRequestHandler(ElicitRequestSchema, async (request, extra) => {
		asked.push('elicitation');
		return options.elicit?.(request, extra as Extra) ?? {action: 'accept', content: {name, check: true}};
	});
	client.setRequestHandler(ListRootsRequestSchema, () => {
		asked.push('roots');
		return {roots: [{uri: `file:///work/${name}`, name: `${name}'s project`}]};
	});
	client.setNotificationHandler(LoggingMessageNotificationSchema, notification => {
		logs.push(notification.params);
	});
	return {client, asked, logs};
}

function texts(result: unknown): string {
	return (result as CallToolResult).content.map(part => (part.type === 'text' ? part.text : `[${part.type}]`)).join('\n');
}

function structured(result: unknown): Record<string, unknown> {
	return (result as CallToolResult).structuredContent!;
}

const everythingTrio = ['trigger-sampling-request', 'trigger-elicitation-request', 'get-roots-list'];

/** Calls server-everything's sampling, elicitation and roots tools (named with `prefix`) once they are listed; their texts. */
async function callTrio(client: Client, prefix: string): Promise<string[]> {
	await waitFor(async () => {
		const names = new Set((await client.listTools()).tools.map(tool => tool.name));
		return everythingTrio.every(name => names.has(`${prefix}${name}`));
	}, `${prefix}* to list ${everythingTrio.join(', ')}`);
	return [
		texts(await client.callTool({name: `${prefix}trigger-sampling-request`, arguments: {prompt: 'name three rivers', maxTokens: 30}})),
		texts(await client.callTool({name: `${prefix}trigger-elicitation-request`, arguments: {}})),
		texts(await client.callTool({name: `${prefix}get-roots-list`, arguments: {}})),
	];
}

/** The same client, talking to server-everything itself. */
async function directTrio(): Promise<string[]> {
	const {client} = capableClient('ada');
	direct.push(client);
	await client.connect(new StdioClientTransport({command: process.execPath, args: [everythingPath, 'stdio'], stderr: 'pipe'}));
	return callTrio(client, '');
}

function config(servers: Record<string, ServerEntry>, hangar: Record<string, unknown> = {}): string {
	return writeConfig(tempDir(), servers, {...fastHangar, ...hangar});
}

describe('server-everything\'s sampling, elicitation and roots tools through hangar', () => {
	it('work over --stdio and give the same results as direct', async () => {
		const expected = await directTrio();
		expect(expected[0]).toContain('ada read: Resource trigger-sampling-request context: name three rivers');
		expect(expected[2]).toContain('file:///work/ada');
		const {client, asked} = capableClient('ada');
		await openHangar(config({everything: everything()}), {client});
		expect(await callTrio(client, 'everything__')).toEqual(expected);
		expect(asked).toEqual(expect.arrayContaining(['sampling', 'elicitation', 'roots']));
	});

	it('work over --stdio attached to mcp-hangar serve and give the same results as direct', async () => {
		const expected = await directTrio();
		const file = config({everything: everything()});
		const daemon = await startDaemon(file);
		const {client} = capableClient('ada');
		const hangar = await openHangar(file, {client, shared: true, args: ['--log-level', 'info']});
		expect(hangar.stderr()).toContain(`(pid ${daemon.pid}, mcp-hangar serve)`);
		expect(await callTrio(client, 'everything__')).toEqual(expected);
	});

	it('work over serve --http and give the same results as direct', async () => {
		const expected = await directTrio();
		const hangar = await serveHttp(config({everything: everything()}));
		const {client} = capableClient('ada');
		await connectHttp(hangar.url, {client});
		direct.push(client);
		expect(await callTrio(client, 'everything__')).toEqual(expected);
	});
});

describe('routing an upstream\'s requests between clients', () => {
	it('sends a request to the attached client whose call caused it, not the one active since, and a roots change only to that client\'s own instance', async () => {
		const file = config({fx: fixture('normal', ['--client-features'])});
		await startDaemon(file);
		const a = capableClient('a');
		const b = capableClient('b');
		await openHangar(file, {client: a.client, shared: true});
		await openHangar(file, {client: b.client, shared: true});

		for (const kind of ['elicitation', 'sampling'] as const) {
			const call = a.client.callTool({name: 'fx__ask', arguments: {kind}});
			// b's hangar_list makes it the most recently active client while a's call is in flight.
			await statusOf(b.client, 'fx');
			const answer = structured(await call);
			expect(JSON.stringify(answer['result'])).toContain(kind === 'elicitation' ? '"name":"a"' : 'a read: Say hello to the fixture.');
		}

		expect(a.asked).toEqual(['elicitation', 'sampling']);
		expect(b.asked).toEqual([]);
		// "auto" learned from the first request: each client now has an instance of its own.
		expect((await statusOf(b.client, 'fx')).instanceMode).toMatchObject({setting: 'auto', runs: 'per-client', learned: {method: 'elicitation/create'}});

		// The fixture asks for roots after each roots/list_changed, outside any call: b's instance asks b.
		await b.client.callTool({name: 'fx__roots-seen', arguments: {}});
		await b.client.sendRootsListChanged();
		const seenByB = await waitFor(async () => {
			const seen = structured(await b.client.callTool({name: 'fx__roots-seen', arguments: {}}));
			return seen['changes'] === 1 && JSON.stringify(seen['roots']).includes('file:///work/b') ? seen : undefined;
		}, 'the fixture to fetch b\'s roots');
		expect(seenByB['roots']).toEqual([{uri: 'file:///work/b', name: 'b\'s project'}]);
		await a.client.sendRootsListChanged();
		await waitFor(async () => JSON.stringify(structured(await a.client.callTool({name: 'fx__roots-seen', arguments: {}}))['roots']).includes('file:///work/a'), 'the fixture to fetch a\'s roots');
		expect(b.asked).toEqual(['roots']);
		expect(a.asked).toEqual(['elicitation', 'sampling', 'roots']);
	});

	it('answers the upstream with NoClientAnswer, naming the capability, when no client can answer', async () => {
		const hangar = await openHangar(config({fx: fixture('normal', ['--client-features'])}));
		const answer = structured(await hangar.client.callTool({name: 'fx__ask', arguments: {kind: 'elicitation'}}));
		expect(answer['error']).toEqual({
			code: -32_013,
			message:
				'upstream "fx": elicitation/create failed: hangar relays it to one of its clients, but MCP client "hangar-test" (stdio), whose call it belongs to, did not declare the "elicitation" capability. ' +
				'Call this server\'s tools from an MCP client that supports elicitation (asking its user for input).',
			data: expect.objectContaining({error: 'NoClientAnswer', upstream: 'fx', operation: 'elicitation/create', capability: 'elicitation'}) as unknown,
		});
	});

	it('declares sampling (with tools), elicitation (form and URL), roots and tasks of those to a shared upstream, and logging to clients', async () => {
		const {client} = capableClient('ada');
		await openHangar(config({fx: fixture('normal', ['--client-features'])}), {client});
		// On a first run the upstream's own capabilities are not known yet, so resources, prompts and completions may be offered too.
		expect(client.getServerCapabilities()).toMatchObject({tools: {listChanged: true}, logging: {}});
		const declared = structured(await client.callTool({name: 'fx__client-capabilities', arguments: {}}));
		const tasks = {list: {}, cancel: {}, requests: {sampling: {createMessage: {}}, elicitation: {create: {}}}};
		expect(declared).toEqual({capabilities: {sampling: {tools: {}}, elicitation: {form: {}, url: {}}, roots: {listChanged: true}, tasks}});
	});
});

describe('a client answering an upstream\'s request', () => {
	it('completes an elicitation answered after the call\'s callTimeoutSeconds, and relays the client\'s progress', async () => {
		const {client} = capableClient('ada', {
			elicit: async () => {
				// A person takes longer than the call's whole deadline to answer.
				await new Promise(resolve => setTimeout(resolve, 2500));
				return {action: 'accept', content: {name: 'Ada, eventually'}};
			},
		});
		await openHangar(config({fx: fixture('normal', ['--client-features'], {callTimeoutSeconds: 1})}), {client});
		const answer = structured(await client.callTool({name: 'fx__ask', arguments: {kind: 'elicitation'}}));
		expect(answer).toEqual({result: {action: 'accept', content: {name: 'Ada, eventually'}}});

		const sampled = structured(await client.callTool({name: 'fx__ask', arguments: {kind: 'sampling', progress: true}}));
		expect(sampled['progress']).toEqual([{progress: 1, total: 2, message: 'thinking'}]);
	});

	it('completes an elicitation answered after httpCallTimeoutSeconds over HTTP', async () => {
		const hangar = await serveHttp(config({fx: fixture('normal', ['--client-features'])}, {httpCallTimeoutSeconds: 1}));
		const {client} = capableClient('ada', {
			elicit: async () => {
				await new Promise(resolve => setTimeout(resolve, 2500));
				return {action: 'decline'};
			},
		});
		await connectHttp(hangar.url, {client});
		direct.push(client);
		expect(structured(await client.callTool({name: 'fx__ask', arguments: {kind: 'elicitation'}}))).toEqual({result: {action: 'decline'}});
	});

	it('cancels the request at the client when the client cancels the call that caused it', async () => {
		let cancelled: () => void = () => {};
		const sawCancel = new Promise<void>(resolve => {
			cancelled = resolve;
		});
		let asked: () => void = () => {};
		const sawRequest = new Promise<void>(resolve => {
			asked = resolve;
		});
		const {client} = capableClient('ada', {
			elicit: async (_request, extra) =>
				new Promise<ElicitResult>(() => {
					asked();
					extra.signal.addEventListener('abort', () => cancelled(), {once: true});
				}),
		});
		await openHangar(config({fx: fixture('normal', ['--client-features'])}), {client});
		const controller = new AbortController();
		const call = client.callTool({name: 'fx__ask', arguments: {kind: 'elicitation'}}, undefined, {signal: controller.signal}).catch((error: unknown) => error);
		await sawRequest;
		controller.abort();
		await call;
		await sawCancel;
	});
});

describe('logging', () => {
	it('sends a shared upstream\'s messages during a call to that call\'s client only, at its own level, asks the upstream for the most verbose, and names the upstream as logger', async () => {
		const file = config({fx: fixture('normal', ['--client-features'], {lazy: false})});
		await startDaemon(file);
		const quiet = capableClient('quiet');
		const verbose = capableClient('verbose');
		const silent = capableClient('silent');
		for (const {client} of [quiet, verbose, silent]) await openHangar(file, {client, shared: true, args: ['--log-level', 'info']});
		await quiet.client.setLoggingLevel('warning');
		await verbose.client.setLoggingLevel('debug');
		await waitFor(async () => structured(await silent.client.callTool({name: 'fx__logging-level', arguments: {}}))['level'] === 'debug', 'the upstream to be asked for debug');

		// Over stdio nothing in a message names its call: with quiet's the only call in flight, its messages are quiet's.
		await quiet.client.callTool({name: 'fx__log', arguments: {}});
		await waitFor(() => quiet.logs.length === 5, 'five messages for quiet');
		expect(quiet.logs).toEqual(['warning', 'error', 'critical', 'alert', 'emergency'].map(level => ({level, logger: 'fx/fixture', data: `message at ${level}`})));
		await verbose.client.callTool({name: 'fx__log', arguments: {}});
		await waitFor(() => verbose.logs.length === 8, 'eight messages for verbose');
		expect(verbose.logs.map(log => log.level)).toEqual(['debug', 'info', 'notice', 'warning', 'error', 'critical', 'alert', 'emergency']);
		await verbose.client.callTool({name: 'fx__log', arguments: {levels: ['alert'], logger: ''}});
		await waitFor(() => verbose.logs.length === 9, 'the message without a logger');
		expect(verbose.logs[8]).toEqual({level: 'alert', logger: 'fx', data: 'message at alert'});
		// A session that set no level gets none, even of its own calls; and none of another session's reached quiet.
		await silent.client.callTool({name: 'fx__log', arguments: {}});
		expect(silent.logs).toEqual([]);
		expect(quiet.logs).toHaveLength(5);
	});

	it('relays server-everything\'s simulated log messages to a session that set a level', async () => {
		const {client, logs} = capableClient('ada');
		await openHangar(config({everything: everything()}), {client});
		await client.setLoggingLevel('debug');
		await waitFor(async () => (await client.listTools()).tools.some(tool => tool.name === 'everything__toggle-simulated-logging'), 'the logging tool');
		await client.callTool({name: 'everything__toggle-simulated-logging', arguments: {}});
		const simulated = await waitFor(() => logs.find(log => String(log.data).includes('-level message') || String(log.data).includes('level-message')), 'a simulated log message');
		expect(simulated.logger).toBe('everything');
		for (const log of logs) expect(log.logger === 'everything' || String(log.logger).startsWith('everything/')).toBe(true);
		await client.callTool({name: 'everything__toggle-simulated-logging', arguments: {}});
	});
});
