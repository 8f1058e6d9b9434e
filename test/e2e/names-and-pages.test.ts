/**
 * Exposed names and URIs with more than one upstream, and hangar's own list
 * pages, through `mcp-hangar --stdio` with the fixture upstream:
 *
 * - `namespace` sets the prefix of tools and prompts; `false` drops it;
 * - a name two unprefixed upstreams expose goes to the first in config
 *   order, and the clash shows in `hangar_list`, `hangar_details`,
 *   `--check-config` and the log;
 * - URIs two upstreams hand out are told apart: the first owner keeps the
 *   URI, the other's is exposed as `hangar://<server>/<uri>`, and each reads
 *   from its own upstream (listed, from a template, from a tool result, in a
 *   prompt);
 * - every list is paged with opaque cursors, an invalid cursor is -32602,
 *   and upstream pages are followed.
 */
import {afterEach, describe, expect, it} from 'vitest';
import {closeHangars, fastHangar, fixture, openHangar, rpcError, runCli, statusOf, tempDir, waitFor, writeConfig} from '../support/hangar.js';

afterEach(async () => {
	await closeHangars();
});

/** Every item of a paged list, following nextCursor; also how many pages it took. */
async function allPages<T>(list: (cursor: string | undefined) => Promise<{items: T[]; nextCursor?: string | undefined}>): Promise<{items: T[]; pages: number}> {
	const items: T[] = [];
	let cursor: string | undefined;
	let pages = 0;
	do {
		const page = await list(cursor);
		items.push(...page.items);
		cursor = page.nextCursor;
		pages += 1;
	} while (cursor !== undefined);

	return {items, pages};
}

const texts = (read: {contents: Array<Record<string, unknown>>}) => read.contents.map(content => content['text']);

describe('namespaces', () => {
	it('prefix tools and prompts with the configured namespace, or with none for "namespace": false', async () => {
		const dir = tempDir();
		const hangar = await openHangar(
			writeConfig(
				dir,
				{
					alpha: fixture('normal', ['--prompts-count', '1', '--tag', 'A'], {lazy: false, namespace: 'a'}),
					plain: fixture('normal', ['--prompts-count', '1', '--tools-count', '1', '--tag', 'P'], {lazy: false, namespace: false}),
				},
				fastHangar,
			),
		);
		await waitFor(async () => (await statusOf(hangar.client, 'plain')).state === 'ready' && (await statusOf(hangar.client, 'alpha')).state === 'ready', 'both upstreams to be ready');
		const tools = (await hangar.client.listTools()).tools.map(tool => tool.name);
		expect(tools).toContain('a__echo');
		expect(tools).toContain('tool_1');
		expect(tools).not.toContain('alpha__echo');
		expect((await hangar.client.listPrompts()).prompts.map(prompt => prompt.name).sort()).toEqual(['a__prompt_0', 'prompt_0']);
		const fromAlpha = await hangar.client.getPrompt({name: 'a__prompt_0', arguments: {topic: 'names'}});
		expect(fromAlpha.messages[0]!.content).toEqual({type: 'text', text: 'prompt 0 of A about names'});
		const fromPlain = await hangar.client.getPrompt({name: 'prompt_0'});
		expect(fromPlain.messages[0]!.content).toEqual({type: 'text', text: 'prompt 0 of P'});
		expect((await hangar.client.callTool({name: 'tool_1', arguments: {x: 1}})).content).toEqual([{type: 'text', text: '{"x":1}'}]);
		expect(JSON.stringify((await hangar.client.callTool({name: 'a__echo', arguments: {message: 'hi'}})).content)).toContain('hi');
	});

	it('give a name two unprefixed upstreams expose to the first in config order, and report the clash everywhere', async () => {
		const dir = tempDir();
		const config = writeConfig(
			dir,
			{
				first: fixture('normal', ['--prompts-count', '1', '--tag', 'first'], {lazy: false, namespace: false}),
				second: fixture('normal', ['--prompts-count', '1', '--tag', 'second'], {lazy: false, namespace: false}),
			},
			fastHangar,
		);
		const hangar = await openHangar(config);
		await waitFor(async () => (await statusOf(hangar.client, 'first')).state === 'ready' && (await statusOf(hangar.client, 'second')).state === 'ready', 'both upstreams to be ready');

		// Each name is listed once and reaches the first server.
		const tools = (await hangar.client.listTools()).tools.map(tool => tool.name);
		expect(tools.filter(name => name === 'pid')).toHaveLength(1);
		const pid = await hangar.client.callTool({name: 'pid', arguments: {}});
		expect(JSON.stringify(pid.content)).toContain(String((await statusOf(hangar.client, 'first')).pid));
		expect((await hangar.client.getPrompt({name: 'prompt_0'})).messages[0]!.content).toEqual({type: 'text', text: 'prompt 0 of first'});
		// The other's tool stays callable by server and tool.
		const other = await hangar.client.callTool({name: 'hangar_call', arguments: {server: 'second', tool: 'pid', arguments: {}}});
		expect(JSON.stringify(other.content)).toContain(String((await statusOf(hangar.client, 'second')).pid));

		const listed = await hangar.client.callTool({name: 'hangar_list', arguments: {}});
		const clashes = (listed.structuredContent as {clashes: Array<{kind: string; name: string; owner: string; shadowed: string[]}>}).clashes;
		expect(clashes).toContainEqual({kind: 'tool', name: 'pid', owner: 'first', shadowed: ['second']});
		expect(clashes).toContainEqual({kind: 'prompt', name: 'prompt_0', owner: 'first', shadowed: ['second']});
		const details = (await hangar.client.callTool({name: 'hangar_details', arguments: {server: 'second'}})).structuredContent as {
			clashes: unknown[];
			tools: Array<{name: string; exposedName: string | null}>;
			prompts: Array<{name: string; exposedName: string | null}>;
		};
		expect(details.clashes).toContainEqual({kind: 'tool', name: 'echo', owner: 'first', shadowed: ['second']});
		expect(details.tools.find(tool => tool.name === 'echo')?.exposedName).toBeNull();
		expect(details.prompts).toEqual([expect.objectContaining({name: 'prompt_0', exposedName: null})]);
		expect(hangar.stderr()).toMatch(/name clash: tool "echo" is exposed by "first" and "second": "first" keeps it \(first in config order\)/);
		await hangar.close();

		// At load, from the lists the run above cached.
		const check = await runCli(['--check-config', '--config', config]);
		expect(check.code, check.stderr).toBe(0);
		expect(check.stdout).toMatch(/warning: name clash: tool "echo" is exposed by "first" and "second"/);
		expect(check.stdout).toMatch(/warning: name clash: prompt "prompt_0" is exposed by "first" and "second"/);
	});

	it('rejects two servers that share a namespace at load', async () => {
		const dir = tempDir();
		const check = await runCli(['--check-config', '--config', writeConfig(dir, {a: fixture('normal'), b: fixture('normal', [], {namespace: 'a'})})]);
		expect(check.code).toBe(1);
		expect(check.stderr).toContain('$.mcpServers.b.namespace: namespace "a" is already the prefix of server "a"');
	});
});

describe('resource URIs of two upstreams', () => {
	it('keep the first owner\'s URI and expose the other\'s as hangar://<server>/<uri>, each reading from its own upstream', async () => {
		const dir = tempDir();
		const hangar = await openHangar(
			writeConfig(
				dir,
				{
					a: fixture('normal', ['--resources-count', '2', '--prompts-count', '1', '--tag', 'A'], {lazy: false}),
					b: fixture('normal', ['--resources-count', '2', '--prompts-count', '1', '--tag', 'B'], {lazy: false}),
				},
				fastHangar,
			),
		);
		await waitFor(async () => (await statusOf(hangar.client, 'a')).state === 'ready' && (await statusOf(hangar.client, 'b')).state === 'ready', 'both upstreams to be ready');
		const uris = (await hangar.client.listResources()).resources.map(resource => resource.uri);
		expect(uris).toEqual(['fixture://item/0', 'fixture://item/1', 'hangar://b/fixture://item/0', 'hangar://b/fixture://item/1']);
		expect((await hangar.client.listResourceTemplates()).resourceTemplates.map(template => template.uriTemplate)).toEqual(['fixture://item/{id}', 'hangar://b/fixture://item/{id}']);

		// Listed URIs and URIs built from either template.
		expect(texts(await hangar.client.readResource({uri: 'fixture://item/1'}))).toEqual(['item 1 of A']);
		const fromB = await hangar.client.readResource({uri: 'hangar://b/fixture://item/1'});
		expect(texts(fromB)).toEqual(['item 1 of B']);
		expect(fromB.contents[0]!.uri).toBe('hangar://b/fixture://item/1');
		expect(texts(await hangar.client.readResource({uri: 'fixture://item/77'}))).toEqual(['item 77 of A']);
		expect(texts(await hangar.client.readResource({uri: 'hangar://b/fixture://item/77'}))).toEqual(['item 77 of B']);

		// A resource_link in b's tool result, and an embedded resource in b's prompt, point back to b.
		const link = (await hangar.client.callTool({name: 'b__link', arguments: {}})).content as Array<{uri: string}>;
		expect(link[0]!.uri).toBe('hangar://b/fixture://item/0');
		expect(texts(await hangar.client.readResource({uri: link[0]!.uri}))).toEqual(['item 0 of B']);
		const ownLink = (await hangar.client.callTool({name: 'a__link', arguments: {}})).content as Array<{uri: string}>;
		expect(ownLink[0]!.uri).toBe('fixture://item/0');
		const prompt = await hangar.client.getPrompt({name: 'b__prompt_0'});
		expect(prompt.messages[1]!.content).toMatchObject({type: 'resource', resource: {uri: 'hangar://b/fixture://item/0', text: 'item 0 of B'}});

		// hangar_details shows both forms.
		const details = (await hangar.client.callTool({name: 'hangar_details', arguments: {server: 'b'}})).structuredContent as {resources: Array<{uri: string; exposedUri: string}>};
		expect(details.resources[0]).toMatchObject({uri: 'fixture://item/0', exposedUri: 'hangar://b/fixture://item/0'});

		// A URI no upstream lists, handed out or matches is "resource not found", naming who serves resources.
		const missing = await rpcError(hangar.client.readResource({uri: 'other://x'}));
		expect(missing.code).toBe(-32_002);
		expect(missing.message).toContain('upstreams that serve resources: a, b');
	});
});

describe('pagination of hangar\'s own lists', () => {
	it('pages tools/list, resources/list and prompts/list with opaque cursors, following the upstream\'s own pages', async () => {
		const dir = tempDir();
		// The upstream pages its lists by 100; hangar reads them whole and serves its own pages of 500.
		const hangar = await openHangar(
			writeConfig(dir, {fx: fixture('normal', ['--tools-count', '600', '--resources-count', '600', '--prompts-count', '600', '--page-size', '100'], {lazy: false})}, fastHangar),
		);
		await waitFor(async () => (await statusOf(hangar.client, 'fx')).state === 'ready', 'fx to be ready');
		const first = await hangar.client.listTools();
		expect(first.tools).toHaveLength(500);
		expect(first.nextCursor).toEqual(expect.any(String));
		const tools = await allPages(async cursor => {
			const page = await hangar.client.listTools(cursor === undefined ? {} : {cursor});
			return {items: page.tools, nextCursor: page.nextCursor};
		});
		expect(tools.pages).toBe(2);
		expect(new Set(tools.items.map(tool => tool.name)).size).toBe(tools.items.length);
		expect(tools.items.filter(tool => tool.name.startsWith('fx__tool_'))).toHaveLength(600);

		const resources = await allPages(async cursor => {
			const page = await hangar.client.listResources(cursor === undefined ? {} : {cursor});
			return {items: page.resources, nextCursor: page.nextCursor};
		});
		expect(resources.pages).toBe(2);
		expect(resources.items.map(resource => resource.uri)).toEqual(Array.from({length: 600}, (_, i) => `fixture://item/${i}`));
		const prompts = await allPages(async cursor => {
			const page = await hangar.client.listPrompts(cursor === undefined ? {} : {cursor});
			return {items: page.prompts, nextCursor: page.nextCursor};
		});
		expect(prompts.items).toHaveLength(600);

		// A cursor hangar did not give, or one of another list, is -32602.
		for (const bad of ['nonsense', '', first.nextCursor!.slice(0, -1)]) {
			expect((await rpcError(hangar.client.listTools({cursor: bad}))).code, bad).toBe(-32_602);
		}

		expect((await rpcError(hangar.client.listPrompts({cursor: first.nextCursor!}))).code).toBe(-32_602);
		expect((await rpcError(hangar.client.listResources({cursor: 'bm9wZTo1'}))).code).toBe(-32_602);
	});

	it('keeps the common case to one page', async () => {
		const dir = tempDir();
		const hangar = await openHangar(writeConfig(dir, {fx: fixture('normal', ['--tools-count', '100'], {lazy: false})}, fastHangar));
		await waitFor(async () => (await statusOf(hangar.client, 'fx')).state === 'ready', 'fx to be ready');
		const list = await hangar.client.listTools();
		expect(list.nextCursor).toBeUndefined();
		expect(list.tools.filter(tool => tool.name.startsWith('fx__tool_'))).toHaveLength(100);
	});
});
