/**
 * A tool MCP clients would reject (the SDK checks tools/list as a whole, so one
 * such tool fails the whole list) is left out of what an upstream serves, with
 * the reason in its log; the rest are served as the upstream wrote them.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import {afterEach, describe, expect, it} from 'vitest';
import {Logger} from '../../../../../source/core/base/logger.js';
import {parseConfig, type ToolDefinition} from '../../../../../source/core/config/read-config.js';
import {StateStore} from '../../../../../source/core/engine/state-store.js';
import {toolLeftOut, toolProblem} from '../../../../../source/core/engine/upstream/tool-check.js';
import {ToolList} from '../../../../../source/core/engine/upstream/tool-list.js';
import {LogBuffer} from '../../../../../source/core/link/log-buffer.js';

const cleanups: Array<() => Promise<void>> = [];
afterEach(async () => {
	for (const cleanup of cleanups.splice(0)) await cleanup();
});

async function toolList(): Promise<{list: ToolList; log: LogBuffer; store: StateStore}> {
	const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'hangar-unit-'));
	const config = parseConfig({mcpServers: {fx: {command: 'x'}}}, path.join(dir, 'config.json'), {stateDir: dir});
	const store = await StateStore.open(dir, new Logger(() => {}, 'silent'), 0);
	const log = new LogBuffer(100);
	cleanups.push(async () => {
		await store.close();
		fs.rmSync(dir, {recursive: true, force: true});
	});
	return {list: new ToolList('fx', config.servers[0]!, store, log), log, store};
}

const object = {type: 'object'};

describe('tool check', () => {
	it.each([
		[{name: 'a', inputSchema: 'str'}, 'its inputSchema is a string, not an object'],
		[{name: 'a', inputSchema: {}}, 'its inputSchema.type is missing, not "object"'],
		[{name: 'a', inputSchema: {type: 'string'}}, 'its inputSchema.type is "string", not "object"'],
		[{name: 'a', inputSchema: []}, 'its inputSchema is an array, not an object'],
		[{name: 'a', inputSchema: {type: 'object', properties: []}}, 'its inputSchema.properties is an array, not an object'],
		[{name: 'a', description: 5, inputSchema: object}, 'its description is a number, not a string'],
		[{name: 'a', title: 7, inputSchema: object}, 'its title is a number, not a string'],
		[{name: 'a', annotations: 'x', inputSchema: object}, 'its annotations is a string, not an object'],
		[{name: 'a', outputSchema: {type: 'string'}, inputSchema: object}, 'its outputSchema.type is "string", not "object"'],
		[{name: 'a', icons: 'x', inputSchema: object}, 'its icons is a string, not an array'],
		[{name: 'a', _meta: 'x', inputSchema: object}, 'its _meta is a string, not an object'],
		[{name: 'a', execution: {taskSupport: 'bogus'}, inputSchema: object}, 'its execution.taskSupport is "bogus", not one of "required", "optional", "forbidden"'],
	])('names what is wrong with %j', (tool, reason) => {
		expect(toolProblem(tool)).toContain(reason);
	});

	it('accepts a valid tool, unknown fields and a self-referencing schema included', () => {
		expect(toolProblem({name: 'c', extra: 1, inputSchema: {type: 'object', properties: {x: {$ref: '#'}}}, outputSchema: object})).toBeUndefined();
	});

	it('leaves a malformed tool out of the list, serves the rest as written, persists only those, and logs why once', async () => {
		const {list, log, store} = await toolList();
		const good = {description: 'd', name: 'good', inputSchema: {properties: {}, type: 'object'}, zz: 1} as ToolDefinition;
		const bare = {name: 'bare'} as ToolDefinition; // served with {"type":"object"}
		const bad = {name: 'bad', inputSchema: 'str'} as unknown as ToolDefinition;
		list.set([good, bad, bare], 'live');
		expect(list.tools).toEqual([good, bare]);
		expect(JSON.stringify(list.tools[0])).toBe(JSON.stringify(good));
		expect(list.leftOut).toEqual([{name: 'bad', reason: 'its inputSchema is a string, not an object'}]);
		expect(list.leftOutReason('bad')).toBe('its inputSchema is a string, not an object');
		expect(list.lists('bad')).toBe(false);
		expect(store.upstream('fx').tools).toEqual([good, bare]);
		const notes = () => log.tail(100).filter(line => line.text.includes('left out of tools/list'));
		expect(notes().map(line => line.text)).toEqual([expect.stringContaining('tool "bad" left out of tools/list: its inputSchema is a string, not an object')]);
		list.set([good, bad, bare], 'live');
		expect(notes()).toHaveLength(1);
		list.set([good], 'live');
		expect(list.leftOut).toEqual([]);
	});

	it('refuses a call to a left-out tool saying why and what to do', () => {
		const error = toolLeftOut('fx', 'bad', 'its inputSchema is a string, not an object');
		expect(error.message).toMatch(/Tool "bad" of server "fx" is not served: .*its inputSchema is a string, not an object.*fix its tool definition/);
	});
});
