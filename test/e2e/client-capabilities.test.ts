/**
 * Each client gets exactly its own protocol through hangar, compared with a
 * direct connection to the same upstream, with real SDK clients and real
 * upstreams: the tools server-everything lists depend on its client's
 * capabilities, its URL elicitation (request path and error -32042), the
 * probe's URL elicitation with its completion notification, and sampling
 * with tools (an SDK upstream refuses it unless its client declared
 * `sampling.tools`). Two clients with different capabilities on one
 * supervisor at once each get their own, and nothing crosses.
 */
import path from 'node:path';
import {Client} from '@modelcontextprotocol/sdk/client/index.js';
import {StdioClientTransport} from '@modelcontextprotocol/sdk/client/stdio.js';
import {CreateMessageRequestSchema, ElicitRequestSchema, ElicitationCompleteNotificationSchema, ListRootsRequestSchema, type CallToolResult, type Tool} from '@modelcontextprotocol/sdk/types.js';
import {afterEach, describe, expect, it} from 'vitest';
import {closeHangars, everything, fastHangar, openHangar, root, spawnEnv, statusOf, tempDir, waitFor, writeConfig, type ServerEntry} from '../support/hangar.js';
import {startDaemon, stopDaemons} from '../support/serve.js';

const probePath = path.join(root, 'dist', 'demo', 'probe-server.js');
const direct: Client[] = [];

afterEach(async () => {
	await closeHangars();
	await Promise.all(direct.splice(0).map(async client => client.close()));
	await stopDaemons('SIGKILL');
});

/** Everything a client can declare that these upstreams look at. */
const capable = {sampling: {tools: {}}, elicitation: {form: {}, url: {}}, roots: {listChanged: true}};

/** A client that answers what it declared, and keeps what it was asked and told. */
function testClient(name: string, capabilities: Record<string, unknown>) {
	const client = new Client({name, version: '1.0.0'}, {capabilities});
	const elicited: unknown[] = [];
	const sampled: unknown[] = [];
	const completed: unknown[] = [];
	let rootsAsked: () => void = () => {};
	/** Resolves when the client is first asked for its roots. */
	const askedForRoots = new Promise<void>(resolve => {
		rootsAsked = resolve;
	});
	if ('elicitation' in capabilities) {
		client.setRequestHandler(ElicitRequestSchema, request => {
			elicited.push(request.params);
			return {action: 'accept'};
		});
		client.setNotificationHandler(ElicitationCompleteNotificationSchema, notification => {
			completed.push(notification.params);
		});
	}

	if ('sampling' in capabilities) {
		client.setRequestHandler(CreateMessageRequestSchema, request => {
			sampled.push(request.params);
			// The first round offers a tool: use it; the second carries its result: answer in text.
			const last = request.params.messages.at(-1)!;
			const content = Array.isArray(last.content) ? last.content : [last.content];
			if (request.params.tools !== undefined && !content.some(block => block.type === 'tool_result')) {
				return {role: 'assistant', model: name, stopReason: 'toolUse', content: [{type: 'tool_use', id: `${name}-use-1`, name: 'lookup', input: {word: 'hangar'}}]};
			}

			return {role: 'assistant', model: name, stopReason: 'endTurn', content: {type: 'text', text: `${name} read ${JSON.stringify(content)}`}};
		});
	}

	if ('roots' in capabilities) {
		client.setRequestHandler(ListRootsRequestSchema, () => {
			rootsAsked();
			return {roots: [{uri: `file:///work/${name}`, name}]};
		});
	}

	return {name, client, elicited, sampled, completed, askedForRoots};
}

type TestClient = ReturnType<typeof testClient>;

/** The same client connected straight to the upstream, no hangar between. */
async function connectDirect(entry: ServerEntry, named: TestClient): Promise<TestClient> {
	const transport = new StdioClientTransport({command: entry['command'] as string, args: entry['args'] as string[], env: spawnEnv(), stderr: 'ignore'});
	await named.client.connect(transport);
	direct.push(named.client);
	return named;
}

/** A client through a `--stdio` bridge to the config's supervisor. */
async function throughHangar(file: string, named: TestClient): Promise<TestClient> {
	await openHangar(file, {client: named.client, shared: true});
	return named;
}

function byName(tools: Tool[]): Tool[] {
	return [...tools].sort((a, b) => a.name.localeCompare(b.name));
}

/** A call's outcome as data: its result, or its error's code, message and data. */
async function outcome(client: Client, name: string, args: Record<string, unknown>): Promise<unknown> {
	try {
		return await client.callTool({name, arguments: args});
	} catch (error) {
		const {code, message, data} = error as {code?: unknown; message: string; data?: unknown};
		return {error: {code, message, data}};
	}
}

function structured(result: unknown): Record<string, unknown> {
	return (result as CallToolResult).structuredContent!;
}

const probeEntry: ServerEntry = {command: process.execPath, args: [probePath]};

describe('server-everything: what each client sees equals what it sees directly', () => {
	it('two clients at once, one declaring nothing and one declaring everything, each list exactly the tools server-everything lists them directly ("per-client")', async () => {
		const file = writeConfig(tempDir(), {everything: everything({namespace: false, instances: 'per-client'})}, {...fastHangar, managementTools: 'none'});
		await startDaemon(file);
		const [bare, rich] = await Promise.all([throughHangar(file, testClient('bare', {})), throughHangar(file, testClient('rich', capable))]);
		const [bareDirect, richDirect] = await Promise.all([connectDirect(everything(), testClient('bare', {})), connectDirect(everything(), testClient('rich', capable))]);
		const [bareTools, richTools, bareDirectTools, richDirectTools] = await Promise.all([bare, rich, bareDirect, richDirect].map(async ({client}) => (await client.listTools()).tools));
		expect(byName(bareTools!)).toEqual(byName(bareDirectTools!));
		expect(byName(richTools!)).toEqual(byName(richDirectTools!));
		// The point of it: they differ (server-everything hides its roots, sampling and elicitation tools from a bare client).
		expect(richTools!.length).toBeGreaterThan(bareTools!.length);
		expect(bareTools!.map(tool => tool.name)).not.toContain('trigger-url-elicitation');
		expect(richTools!.map(tool => tool.name)).toContain('trigger-url-elicitation');
	});

	it('with "auto" (the default), once it has asked for roots, each client lists what it lists directly', async () => {
		// hangar_list is kept (read-only) to read the verdict; the lists are compared without hangar's own tools.
		const file = writeConfig(tempDir(), {everything: everything({namespace: false})}, {...fastHangar, managementTools: 'read-only'});
		await startDaemon(file);
		const rich = await throughHangar(file, testClient('rich', capable));
		await waitFor(async () => (await statusOf(rich.client, 'everything')).instanceMode?.runs === 'per-client', 'server-everything to be learned per-client (it asks for roots 350 ms after initialized)');
		const bare = await throughHangar(file, testClient('bare', {}));
		const bareDirect = await connectDirect(everything(), testClient('bare', {}));
		const richDirect = await connectDirect(everything(), testClient('rich', capable));
		const upstreamTools = async (client: Client) => byName((await client.listTools()).tools.filter(tool => !tool.name.startsWith('hangar_')));
		expect(await upstreamTools(bare.client)).toEqual(await upstreamTools(bareDirect.client));
		expect(await upstreamTools(rich.client)).toEqual(await upstreamTools(richDirect.client));
	});

	it('URL elicitation: the request path and error -32042 give what they give directly, and a client without URL elicitation gets what it gets directly', async () => {
		const file = writeConfig(tempDir(), {everything: everything({namespace: false, instances: 'per-client'})}, {...fastHangar, managementTools: 'none'});
		await startDaemon(file);
		const [rich, bare] = await Promise.all([throughHangar(file, testClient('rich', capable)), throughHangar(file, testClient('bare', {elicitation: {}}))]);
		const [richDirect, bareDirect] = await Promise.all([connectDirect(everything(), testClient('rich', capable)), connectDirect(everything(), testClient('bare', {elicitation: {}}))]);
		const args = {url: 'https://example.com/consent', elicitationId: 'consent-1', message: 'Open it.'};
		const viaHangar = await outcome(rich.client, 'trigger-url-elicitation', args);
		const directly = await outcome(richDirect.client, 'trigger-url-elicitation', args);
		expect(viaHangar).toEqual(directly);
		expect(rich.elicited).toEqual(richDirect.elicited);
		expect(rich.elicited).toEqual([{mode: 'url', url: args.url, message: args.message, elicitationId: 'consent-1'}]);

		// The error path: -32042 with its data as the upstream sent it (its elicitationId is random: compared by shape).
		const errorArgs = {url: 'https://example.com/other', errorPath: true};
		const anyId = (value: unknown) => JSON.parse(JSON.stringify(value).replaceAll(/"elicitationId":"[^"]+"/g, '"elicitationId":"<id>"')) as unknown;
		const errorViaHangar = await outcome(rich.client, 'trigger-url-elicitation', errorArgs);
		expect(errorViaHangar).toMatchObject({error: {code: -32_042, data: {elicitations: [{mode: 'url', url: 'https://modelcontextprotocol.io', elicitationId: expect.any(String) as unknown}]}}});
		// Its code and data are the upstream's, untouched; its message names the upstream first, as every upstream error through hangar does.
		const errorDirectly = (await outcome(richDirect.client, 'trigger-url-elicitation', errorArgs)) as {error: {code: number; message: string; data: unknown}};
		const {error} = errorViaHangar as {error: {code: number; message: string; data: unknown}};
		expect(anyId({code: error.code, data: error.data})).toEqual(anyId({code: errorDirectly.error.code, data: errorDirectly.error.data}));
		expect(error.message).toContain('This request requires browser-based authorization.');

		// A form-only client is not shown the tool, and calling it anyway fails as it does directly.
		expect((await bare.client.listTools()).tools.map(tool => tool.name)).not.toContain('trigger-url-elicitation');
		const bareViaHangar = (await outcome(bare.client, 'trigger-url-elicitation', args)) as {error?: {code: unknown; message: string}; isError?: boolean};
		const bareDirectly = (await outcome(bareDirect.client, 'trigger-url-elicitation', args)) as {error?: {code: unknown; message: string}; isError?: boolean};
		expect(bareViaHangar).toEqual(bareDirectly);
		expect(bare.elicited).toEqual([]);
	});
});

describe('the probe (an SDK upstream): URL elicitation\'s completion and sampling with tools', () => {
	for (const instances of ['per-client', 'shared'] as const) {
		it(`routes notifications/elicitation/complete to the client that got the elicitation, only that one ("${instances}")`, async () => {
			const file = writeConfig(tempDir(), {probe: {...probeEntry, instances}}, fastHangar);
			await startDaemon(file);
			const [ada, bob] = await Promise.all([throughHangar(file, testClient('ada', capable)), throughHangar(file, testClient('bob', capable))]);
			const ask = async (named: TestClient) => structured(await named.client.callTool({name: 'probe__ask-url', arguments: {elicitationId: `for-${named.name}`, url: `https://example.com/${named.name}`}}));
			// A shared instance cannot tell two clients' concurrent calls apart over stdio: one after the other there.
			const answers = instances === 'shared' ? [await ask(ada), await ask(bob)] : await Promise.all([ask(ada), ask(bob)]);
			expect(answers).toEqual([{result: {action: 'accept'}}, {result: {action: 'accept'}}]);
			await waitFor(() => ada.completed.length > 0 && bob.completed.length > 0, 'both completions');
			expect(ada.completed).toEqual([{elicitationId: 'for-ada'}]);
			expect(bob.completed).toEqual([{elicitationId: 'for-bob'}]);
			expect(ada.elicited).toEqual([{mode: 'url', elicitationId: 'for-ada', url: 'https://example.com/ada', message: 'Open the link to go on.'}]);

			// Directly, the same.
			const carol = await connectDirect(probeEntry, testClient('carol', capable));
			expect(structured(await carol.client.callTool({name: 'ask-url', arguments: {elicitationId: 'for-carol', url: 'https://example.com/carol'}}))).toEqual({result: {action: 'accept'}});
			await waitFor(() => carol.completed.length > 0, 'the direct completion');
			expect(carol.completed).toEqual([{elicitationId: 'for-carol'}]);
		});
	}

	it('sampling with tools: tools, toolChoice, tool_use and tool_result pass unchanged both ways; a client without sampling.tools is refused as directly ("per-client")', async () => {
		const file = writeConfig(tempDir(), {probe: {...probeEntry, instances: 'per-client'}}, fastHangar);
		await startDaemon(file);
		const [ada, plain] = await Promise.all([throughHangar(file, testClient('ada', capable)), throughHangar(file, testClient('plain', {sampling: {}}))]);
		const [adaDirect, plainDirect] = await Promise.all([connectDirect(probeEntry, testClient('ada', capable)), connectDirect(probeEntry, testClient('plain', {sampling: {}}))]);
		const call = async (named: TestClient, name: string) => structured(await named.client.callTool({name, arguments: {tag: named.name}}));
		const [viaHangar, plainViaHangar] = await Promise.all([call(ada, 'probe__sample-with-tools'), call(plain, 'probe__sample-with-tools')]);
		const directly = await call(adaDirect, 'sample-with-tools');
		expect(viaHangar).toEqual(directly);
		expect(ada.sampled).toEqual(adaDirect.sampled);
		expect(ada.sampled).toHaveLength(2);
		expect(ada.sampled[0]).toMatchObject({tools: [{name: 'lookup'}], toolChoice: {mode: 'auto'}});
		expect(viaHangar['second']).toMatchObject({content: {type: 'text', text: expect.stringContaining('tool_result') as unknown}});
		// Its own instance was told exactly its capabilities, so the SDK refuses as it does directly.
		expect(plainViaHangar).toEqual(await call(plainDirect, 'sample-with-tools'));
		expect(plainViaHangar['error']).toMatchObject({message: 'Client does not support sampling tools capability.'});
		expect(plain.sampled).toEqual([]);
	});

	it('a shared instance is told sampling.tools and elicitation form and URL, and asks each only of a caller that declared it', async () => {
		const file = writeConfig(tempDir(), {probe: {...probeEntry, instances: 'shared'}}, fastHangar);
		await startDaemon(file);
		const plain = await throughHangar(file, testClient('plain', {sampling: {}, elicitation: {}}));
		expect(structured(await plain.client.callTool({name: 'probe__client-capabilities', arguments: {}}))['capabilities']).toEqual({
			sampling: {tools: {}},
			elicitation: {form: {}, url: {}},
			tasks: {list: {}, cancel: {}, requests: {sampling: {createMessage: {}}, elicitation: {create: {}}}},
		});
		const refused = structured(await plain.client.callTool({name: 'probe__sample-with-tools', arguments: {tag: 'plain'}}));
		expect(refused['error']).toMatchObject({code: -32_013, message: expect.stringContaining('did not declare "sampling.tools"') as unknown});
		const url = structured(await plain.client.callTool({name: 'probe__ask-url', arguments: {elicitationId: 'x', url: 'https://example.com/x'}}));
		expect(url['error']).toMatchObject({code: -32_013, message: expect.stringContaining('did not declare "elicitation.url"') as unknown});
		expect([...plain.sampled, ...plain.elicited, ...plain.completed]).toEqual([]);
	});
});

describe('roots at an instance\'s start', () => {
	it('waits for the roots/list an upstream sends on its own a while after initialized, once it has learned that it does, so its first call already has the client\'s roots', async () => {
		const dir = tempDir();
		// The wait for the start-up request is capped at pingTimeoutSeconds: room for a loaded machine.
		const file = writeConfig(dir, {probe: {command: process.execPath, args: [probePath, '--ask-at-start', 'roots', '--ask-delay', '500'], instances: 'per-client'}}, {...fastHangar, pingTimeoutSeconds: 10});
		const first = await startDaemon(file);
		// First run: hangar does not know yet that it asks; it learns it when the request comes, 500 ms after initialized.
		const ada = await throughHangar(file, testClient('ada', {roots: {}}));
		await ada.client.callTool({name: 'probe__pid', arguments: {}});
		// Hangar learns that it asks at start only from a request that arrives with no call in flight: no call
		// is made until the request has reached the client (polling with calls could overlap it under load).
		await ada.askedForRoots;
		await waitFor(async () => {
			const {outside} = structured(await ada.client.callTool({name: 'probe__outside', arguments: {}})) as {outside: unknown[]};
			return outside.length > 0;
		}, 'the start-up request to be answered');
		await closeHangars();
		// A graceful stop writes the state file.
		await first.stop('SIGTERM');

		// Warm: the instance's start waits for that request, so the first call finds it answered.
		await startDaemon(file);
		const bob = await throughHangar(file, testClient('bob', {roots: {}}));
		const {outside} = structured(await bob.client.callTool({name: 'probe__outside', arguments: {}})) as {outside: unknown[]};
		expect(outside).toEqual([{kind: 'roots', at: 'start-up', result: {roots: [{uri: 'file:///work/bob', name: 'bob'}]}}]);
	});
});
