import {describe, expect, it} from 'vitest';
import type {ClientFile} from '../../../source/client-files/client-model.js';
import {planImport} from '../../../source/client-files/import-plan.js';

describe('planning an import', () => {
	const server = (name: string, entry: Record<string, unknown>, client: 'cursor' | 'codex' = 'cursor') => ({
		client,
		file: `/${client}.json`,
		group: {path: ['mcpServers'], projectDir: undefined, servers: {}},
		name,
		entry,
		notes: [],
		problem: undefined,
	});
	const file = (...servers: Array<ReturnType<typeof server>>): ClientFile => ({location: {client: servers[0]!.client, scope: 'user', file: servers[0]!.file}, servers, notes: [], hasServerMap: true});

	it('imports a server configured twice once, keeps what hangar has, skips hangar itself, and never reuses a name', () => {
		const items = planImport(
			[
				file(server('a', {command: 'x', args: ['1']}), server('b.c', {url: 'https://u.example/mcp'}), server('hangar', {command: '/usr/bin/node', args: ['/x/dist/cli.js', '--stdio', '--config', '/c.json']})),
				file(server('again', {command: 'x', args: ['1']}, 'codex'), server('taken', {command: 'y'}, 'codex'), server('kept', {command: 'z'}, 'codex')),
			],
			{taken: {command: 'other'}, same: {command: 'z'}},
		);
		expect(items.map(item => [item.kind, item.server.name, 'name' in item ? item.name : undefined, item.kind === 'add' ? item.renamed : undefined])).toEqual([
			['add', 'a', 'a', undefined],
			['add', 'b.c', 'b-c', 'not a valid hangar name'],
			['hangar', 'hangar', undefined, undefined],
			['duplicate', 'again', 'a', undefined],
			['add', 'taken', 'taken-2', '"taken" is taken'],
			['present', 'kept', 'same', undefined],
		]);
	});

	it('reports an entry hangar would refuse, with the reason, and goes on with the rest', () => {
		const items = planImport([file(server('bad', {url: 'nope'}), server('good', {command: 'x'}))], {}, entry => (entry.url === 'nope' ? 'url: expected an http(s) URL' : undefined));
		expect(items.map(item => [item.kind, item.kind === 'unusable' ? item.problem : undefined])).toEqual([
			['unusable', 'url: expected an http(s) URL'],
			['add', undefined],
		]);
	});

	it('keeps two entries that launch the same command with different credentials as two upstreams, and compares what hangar has by the whole launch', () => {
		const items = planImport(
			[
				file(
					server('github-work', {command: 'npx', args: ['-y', 'gh-mcp'], env: {GITHUB_TOKEN: 'work'}}),
					server('github-personal', {command: 'npx', args: ['-y', 'gh-mcp'], env: {GITHUB_TOKEN: 'personal'}}),
					server('everything', {command: 'node', args: ['e.js']}),
					server('github', {command: 'node', args: ['e.js'], envFile: '/home/u/.gh.env'}),
					server('api-a', {url: 'https://api.example/mcp', headers: {Authorization: 'Bearer a'}}),
					server('api-b', {url: 'https://api.example/mcp', headers: {Authorization: 'Bearer b'}}),
					server('elsewhere', {command: 'node', args: ['e.js'], cwd: '/srv'}),
				),
				file(server('work-again', {command: 'npx', args: ['-y', 'gh-mcp'], env: {GITHUB_TOKEN: 'work'}}, 'codex'), server('mine', {command: 'tool', env: {B: '2', A: '1'}}, 'codex')),
			],
			{mine: {command: 'tool', env: {A: '1', B: '2'}}, api: {url: 'https://api.example/mcp'}},
		);
		expect(items.map(item => [item.kind, item.server.name, 'name' in item ? item.name : undefined])).toEqual([
			['add', 'github-work', 'github-work'],
			['add', 'github-personal', 'github-personal'],
			['add', 'everything', 'everything'],
			['add', 'github', 'github'],
			['add', 'api-a', 'api-a'],
			['add', 'api-b', 'api-b'],
			['add', 'elsewhere', 'elsewhere'],
			['duplicate', 'work-again', 'github-work'],
			['present', 'mine', 'mine'],
		]);
	});
});
