/**
 * Listings as the upstreams wrote them: every tool, prompt, resource and
 * resource template of real upstreams (server-everything, server-memory,
 * server-filesystem) and of the hand-written fixture and conformance
 * servers reaches a client through hangar as the same JSON text it has
 * directly, keys in the same order (`$schema`, `icons` and all), apart from
 * the name namespacing changes. Compared as text, read raw.
 */
import fs from 'node:fs';
import path from 'node:path';
import {afterEach, describe, expect, it} from 'vitest';
import {cliPath, everythingPath, fastHangar, fixturePath, memoryPath, root, tempDir, writeConfig} from '../support/hangar.js';
import {rawSession, stopRawSessions} from '../support/raw-session.js';

afterEach(stopRawSessions);

const filesystemPath = path.join(root, 'node_modules', '@modelcontextprotocol', 'server-filesystem', 'dist', 'index.js');
const conformancePath = path.join(root, 'dist', 'demo', 'conformance-server.js');

const lists = [
	['tools/list', 'tools'],
	['prompts/list', 'prompts'],
	['resources/list', 'resources'],
	['resources/templates/list', 'resourceTemplates'],
] as const;

/** Every item of every list `session` serves, as JSON text, by list. */
async function listings(session: Awaited<ReturnType<typeof rawSession>>): Promise<Record<string, Array<Record<string, unknown>>>> {
	const found: Record<string, Array<Record<string, unknown>>> = {};
	for (const [method, key] of lists) {
		const answer = await session.request(method, method, {});
		found[key] = answer.error === undefined ? (answer.result![key] as Array<Record<string, unknown>>) : [];
	}

	return found;
}

describe('listings through hangar', () => {
	it('are byte-faithful to each upstream\'s own, apart from the namespaced names', async () => {
		const dir = tempDir();
		const files = path.join(dir, 'files');
		fs.mkdirSync(files);
		const upstreams: Record<string, {args: string[]; env?: Record<string, string>}> = {
			everything: {args: [everythingPath, 'stdio']},
			memory: {args: [memoryPath], env: {MEMORY_FILE_PATH: path.join(dir, 'memory.jsonl')}},
			filesystem: {args: [filesystemPath, files]},
			fixture: {args: [fixturePath, '--mode', 'normal', '--resources-count', '2', '--prompts-count', '2']},
			conformance: {args: [conformancePath]},
		};
		const servers = Object.fromEntries(Object.entries(upstreams).map(([name, {args, env}]) => [name, {command: process.execPath, args, ...(env === undefined ? {} : {env}), lazy: false, instances: 'shared'}]));
		const hangar = await rawSession([cliPath, '--stdio', '--standalone', '--config', writeConfig(dir, servers, fastHangar)]);
		const through = await listings(hangar);
		for (const [name, {args, env}] of Object.entries(upstreams)) {
			Object.assign(process.env, env);
			const direct = await listings(await rawSession(args));
			for (const [, key] of lists) {
				const own = (item: Record<string, unknown>) => (key === 'tools' || key === 'prompts' ? {...item, name: `${name}__${String(item['name'])}`} : item);
				const served = new Set(through[key]!.map(item => JSON.stringify(item)));
				const missing = direct[key]!.map(item => JSON.stringify(own(item))).filter(text => !served.has(text));
				expect(missing, `${name} ${key}: served otherwise through hangar`).toEqual([]);
			}

			// Not an empty comparison: every upstream lists tools.
			expect(direct['tools']!.length, name).toBeGreaterThan(0);
		}
	}, 120_000);
});
