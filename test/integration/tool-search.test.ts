/**
 * Tool search as a specification: plain-language queries against the real
 * tool lists of @modelcontextprotocol/server-everything and server-memory
 * (learned by running both once through the real supervisor), and the
 * ranking rules on small hand-made lists.
 */
import {afterAll, beforeAll, describe, expect, it} from 'vitest';
import type {ExposedTool} from '../../source/core/engine/supervisor.js';
import {minimumScore, stem, ToolSearchIndex} from '../../source/core/engine/routing/tool-search.js';
import {everything, memory, tempDir, waitFor} from '../support/hangar.js';
import {closeAll, startSupervisor} from '../support/supervisor.js';

describe('over the real tools of server-everything and server-memory', () => {
	let tools: readonly ExposedTool[] = [];
	let index: ToolSearchIndex<ExposedTool>;
	const top = (query: string, count = 3) => index.search(query, count).map(hit => hit.tool.name);

	beforeAll(async () => {
		const dir = tempDir();
		const {supervisor} = await startSupervisor({everything: everything(), memory: memory(dir)}, {}, {dir});
		// Both are lazy with nothing cached, so the supervisor starts each once to learn its tools.
		await waitFor(() => ['everything', 'memory'].every(name => supervisor.upstream(name).toolsSource === 'live'), 'both upstreams to list their tools');
		tools = supervisor.tools();
		index = new ToolSearchIndex(tools);
	});

	afterAll(closeAll);

	it('has the tool lists it is specified against', () => {
		expect(tools.filter(tool => tool.server === 'memory')).toHaveLength(9);
		expect(tools.map(tool => tool.name)).toContain('everything__gzip-file-as-resource');
	});

	// Queries whose words are the tools' own words.
	it.each([
		['add two numbers', 'everything__get-sum'],
		['echo text back', 'everything__echo'],
		['long running task with progress', 'everything__trigger-long-running-operation'],
		['search the knowledge graph', 'memory__search_nodes'],
		['delete a relation', 'memory__delete_relations'],
		['get environment variables', 'everything__get-env'],
		['print a tiny image', 'everything__get-tiny-image'],
		['create entities', 'memory__create_entities'],
	])('ranks the tool named by its own words first: "%s" -> %s', (query, expected) => {
		expect(top(query)[0]).toBe(expected);
	});

	// Queries in a person's words: the intent map and stemming carry them to the tools' words.
	it('finds the memory tools that keep facts for "remember facts about people"', () => {
		expect(top('remember facts about people', 2).sort()).toEqual(['memory__add_observations', 'memory__create_entities']);
	});

	it('finds the memory tools that keep facts for "save information about a person"', () => {
		expect(top('save information about a person', 2).sort()).toEqual(['memory__add_observations', 'memory__create_entities']);
	});

	it('finds adding an observation first, then creating an entity, for "store a note"', () => {
		const found = top('store a note');
		expect(found[0]).toBe('memory__add_observations');
		expect(found).toContain('memory__create_entities');
	});

	it('finds reading the whole graph first for "list all entities"', () => {
		expect(top('list all entities')[0]).toBe('memory__read_graph');
	});

	it('finds creating relations among the top two for "link two entities"', () => {
		expect(top('link two entities', 2)).toContain('memory__create_relations');
	});

	it('ranks deleting above creating for "forget an entity"', () => {
		const found = top('forget an entity', 10);
		expect(found[0]).toBe('memory__delete_entities');
		expect(found.indexOf('memory__delete_entities')).toBeLessThan(found.indexOf('memory__create_entities'));
	});

	it('forgives a typo: "serch nodes" finds search_nodes first', () => {
		expect(top('serch nodes')[0]).toBe('memory__search_nodes');
	});

	it('finds a tool by a part of one word of its name: "zip" finds the gzip tool first', () => {
		expect(top('zip')[0]).toBe('everything__gzip-file-as-resource');
	});

	it('returns every tool for its exact one-word name', () => {
		for (const tool of tools) expect(top(tool.tool, 1), tool.tool).toEqual([tool.name]);
	});

	it('returns nothing for words no tool uses', () => {
		expect(index.search('xylophone quartz', 10)).toEqual([]);
	});

	it('scores in 0..1, best first, never below the minimum, within the limit', () => {
		for (const query of ['remember facts about people', 'knowledge graph', 'get', 'serch nodes', 'echo']) {
			const hits = index.search(query, 5);
			expect(hits.length).toBeLessThanOrEqual(5);
			for (const [position, hit] of hits.entries()) {
				expect(hit.score).toBeGreaterThanOrEqual(minimumScore);
				expect(hit.score).toBeLessThanOrEqual(1);
				if (position > 0) expect(hit.score).toBeLessThanOrEqual(hits[position - 1]!.score);
			}
		}
	});
});

function tool(server: string, name: string, description?: string, title?: string): ExposedTool {
	return {name: `${server}__${name}`, server, tool: name, definition: {name, ...(description === undefined ? {} : {description}), ...(title === undefined ? {} : {title})}};
}

describe('ranking rules', () => {
	it('stems plurals and verb endings alike on both sides', () => {
		expect(stem('entities')).toBe(stem('entity'));
		expect(stem('relations')).toBe(stem('relation'));
		expect(stem('creates')).toBe(stem('create'));
		expect(stem('created')).toBe(stem('creating'));
		expect(stem('matches')).toBe(stem('match'));
		expect(stem('status')).toBe('status');
		expect(stem('note')).not.toBe(stem('not'));
	});

	it('matches a singular query word to a plural tool word fully', () => {
		const index = new ToolSearchIndex([tool('kg', 'delete_relations'), tool('kg', 'other')]);
		expect(index.search('relation', 5).map(hit => hit.tool.name)).toEqual(['kg__delete_relations']);
	});

	it('splits camelCase, snake_case and kebab-case names into words', () => {
		const index = new ToolSearchIndex([tool('a', 'readGraph'), tool('a', 'open_file'), tool('a', 'list-users')]);
		expect(index.search('graph', 1)[0]!.tool.name).toBe('a__readGraph');
		expect(index.search('file', 1)[0]!.tool.name).toBe('a__open_file');
		expect(index.search('users', 1)[0]!.tool.name).toBe('a__list-users');
	});

	it('finds a tool by its server name', () => {
		const index = new ToolSearchIndex([tool('fx', 'echo'), tool('fx', 'add'), tool('other', 'echo')]);
		expect(index.search('fx', 10).map(hit => hit.tool.name)).toEqual(['fx__add', 'fx__echo']);
	});

	it('weighs an intent word\'s expansion less than the word itself', () => {
		const index = new ToolSearchIndex([tool('a', 'remove_item'), tool('a', 'delete_item')]);
		const [first, second] = index.search('delete', 2);
		expect(first!.tool.name).toBe('a__delete_item');
		expect(second!.tool.name).toBe('a__remove_item');
		expect(second!.score).toBeLessThan(first!.score);
	});

	it('drops a hit that matched only a stray run of letters', () => {
		const index = new ToolSearchIndex([tool('a', 'consume_queue', 'Consumes messages from a queue'), tool('a', 'get_sum', 'Returns the sum of two numbers')]);
		expect(index.search('sum', 10).map(hit => hit.tool.name)).toEqual(['a__get_sum']);
	});

	it('orders equal scores by name', () => {
		const index = new ToolSearchIndex([tool('b', 'echo'), tool('a', 'echo')]);
		expect(index.search('echo', 5).map(hit => hit.tool.name)).toEqual(['a__echo', 'b__echo']);
	});

	it('returns nothing for an empty query', () => {
		expect(new ToolSearchIndex([tool('a', 'echo')]).search('  ', 5)).toEqual([]);
	});
});
