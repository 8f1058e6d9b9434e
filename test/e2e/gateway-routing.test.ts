import {afterEach, describe, expect, it} from 'vitest';
import {CallToolResultSchema, ToolListChangedNotificationSchema} from '@modelcontextprotocol/sdk/types.js';
import {everything, fastHangar, fixture, memory, processesWithTag, rpcError, startHangar, statusOf, tempDir, waitFor, writeConfig, type HangarHandle} from '../support/hangar.js';

let hangar: HangarHandle | undefined;
afterEach(async () => {
	await hangar?.close();
	hangar = undefined;
});

describe('routing through mcp-hangar --stdio', () => {
	it('lists namespaced tools of real upstreams with their schemas passed through untouched', async () => {
		const dir = tempDir();
		hangar = await startHangar(writeConfig(dir, {everything: everything({lazy: false, instances: 'shared'}), memory: memory(dir, {lazy: false})}, fastHangar));
		const tools = await waitFor(async () => {
			const list = await hangar!.client.listTools();
			return list.tools.some(tool => tool.name === 'everything__get-sum') && list.tools.some(tool => tool.name === 'memory__create_entities') && list.tools;
		}, 'both upstreams to list their tools');

		const sum = tools.find(tool => tool.name === 'everything__get-sum')!;
		expect(sum.inputSchema).toMatchObject({type: 'object', properties: {a: {type: 'number'}, b: {type: 'number'}}});
		expect(tools.map(tool => tool.name)).toContain('hangar_list');
		for (const tool of tools) expect(tool.name).toMatch(/^[a-zA-Z0-9_-]{1,64}$/);

		const result = await hangar.client.callTool({name: 'everything__get-sum', arguments: {a: 2, b: 40}});
		expect(JSON.stringify(result.content)).toContain('42');
		const graph = await hangar.client.callTool({name: 'memory__read_graph', arguments: {}});
		expect(JSON.stringify(graph.content)).toContain('entities');
	});

	it('takes an upstream\'s own name for a tool only it has, and refuses a name two upstreams share', async () => {
		const dir = tempDir();
		hangar = await startHangar(writeConfig(dir, {fx: fixture('normal', [], {lazy: false}), fy: fixture('normal', [], {lazy: false}), memory: memory(dir, {lazy: false})}, fastHangar));
		await waitFor(async () => (await hangar!.client.listTools()).tools.some(tool => tool.name === 'memory__read_graph'), 'memory to list its tools');
		// tools/list keeps the prefixed names; a client written against server-memory directly still reaches it.
		expect((await hangar.client.listTools()).tools.map(tool => tool.name)).not.toContain('read_graph');
		const graph = await hangar.client.callTool({name: 'read_graph', arguments: {}});
		expect(JSON.stringify(graph.content)).toContain('entities');
		const shared = await rpcError(hangar.client.callTool({name: 'echo', arguments: {message: 'x'}}));
		expect(shared.message).toMatch(/^MCP error -32602: Unknown tool "echo"\. Closest matches: (fx|fy)__echo/);
	});

	it('forwards structured content and isError results as the upstream sent them', async () => {
		const dir = tempDir();
		hangar = await startHangar(writeConfig(dir, {fx: fixture('normal')}, fastHangar));
		const added = await hangar.client.request(
			{method: 'tools/call', params: {name: 'fx__add', arguments: {a: 1, b: 2}}},
			CallToolResultSchema,
		);
		expect(added.structuredContent).toEqual({sum: 3});
		const failed = await hangar.client.callTool({name: 'fx__fail', arguments: {message: 'nope'}});
		expect(failed.isError).toBe(true);
		const entry = await statusOf(hangar.client, 'fx');
		expect(entry.failures).toBe(0);
		expect(entry.consecutiveFailures).toBe(0);
	});

	it('shortens long or invalid upstream tool names with a stable hash and still routes them', async () => {
		const dir = tempDir();
		hangar = await startHangar(writeConfig(dir, {fx: fixture('normal', ['--long-names'])}, fastHangar));
		const tools = (await waitFor(async () => {
			const list = await hangar!.client.listTools();
			return list.tools.some(tool => tool.name.startsWith('fx__')) && list.tools;
		}, 'fixture tools'));
		const long = tools.find(tool => tool.name.startsWith('fx__a_very_long_tool_name_'))!;
		const dotted = tools.find(tool => tool.name.startsWith('fx__dotted_name_with_chars'))!;
		expect(long.name.length).toBeLessThanOrEqual(64);
		expect(long.name).toMatch(/_[0-9a-f]{8}$/);
		expect(dotted.name).toMatch(/^[a-zA-Z0-9_-]{1,64}$/);
		const result = await hangar.client.callTool({name: dotted.name, arguments: {x: 1}});
		expect(JSON.stringify(result.content)).toContain('x');
	});

	it('sends tools/list_changed, with the _meta the upstream\'s carried, when an upstream changes its tools, and lists the new ones', async () => {
		const dir = tempDir();
		hangar = await startHangar(writeConfig(dir, {fx: fixture('tools-change', [], {lazy: false})}, fastHangar));
		const changes: Array<Record<string, unknown> | undefined> = [];
		hangar.client.setNotificationHandler(ToolListChangedNotificationSchema, notification => {
			changes.push(notification.params?._meta);
		});
		await waitFor(async () => (await hangar!.client.listTools()).tools.some(tool => tool.name === 'fx__gen_1'), 'gen_1 to appear');
		const before = changes.length;
		await hangar.client.callTool({name: 'fx__echo', arguments: {message: 'x'}});
		await waitFor(() => changes.length > before, 'a list_changed notification after the call');
		const names = (await hangar.client.listTools()).tools.map(tool => tool.name);
		expect(names).toContain('fx__gen_2');
		expect(names).not.toContain('fx__gen_1');
		// The fixture's list_changed said which generation it was; hangar's, sent once the list was re-read, says the same.
		expect(changes.slice(before)).toEqual([{'fixture/generation': 2}]);
	});

	it('leaves no process behind after the client closes stdin', async () => {
		const dir = tempDir();
		hangar = await startHangar(writeConfig(dir, {everything: everything({lazy: false, instances: 'shared'}), fx: fixture('normal', [], {lazy: false})}, fastHangar));
		await waitFor(async () => (await statusOf(hangar!.client, 'fx')).state === 'ready' && (await statusOf(hangar!.client, 'everything')).state === 'ready', 'both ready');
		expect(processesWithTag(hangar.tag).length).toBeGreaterThanOrEqual(3);
		await hangar.close();
		await waitFor(() => processesWithTag(hangar!.tag).length === 0, 'every process to exit');
	});
});
