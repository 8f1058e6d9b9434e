import {describe, expect, it} from 'vitest';
import {ContextCost, charsPerToken, estimateTokens, toolTokens} from '../../../../source/core/engine/upstream/context-cost.js';
import type {ExposedPrompt, ExposedTool} from '../../../../source/core/engine/routing/router.js';

describe('context cost', () => {
	it('estimates a definition as its JSON characters over four, rounded up', () => {
		expect(charsPerToken).toBe(4);
		expect(estimateTokens({a: 1})).toBe(Math.ceil('{"a":1}'.length / 4));
		// A tool as tools/list sends it: under its exposed name, with an input schema even when predefined without one.
		expect(toolTokens('fx__echo', {name: 'echo'})).toBe(estimateTokens({name: 'fx__echo', inputSchema: {type: 'object'}}));
	});

	it('sums each upstream\'s exposed tools and prompts, and what a client receives under each exposure', () => {
		const tools: ExposedTool[] = [
			{name: 'fx__echo', server: 'fx', tool: 'echo', definition: {name: 'echo', description: 'Echo the message back', inputSchema: {type: 'object'}}},
			{name: 'fx__add', server: 'fx', tool: 'add', definition: {name: 'add', inputSchema: {type: 'object'}}},
			{name: 'memory__read_graph', server: 'memory', tool: 'read_graph', definition: {name: 'read_graph', inputSchema: {type: 'object'}}},
		];
		const prompts: ExposedPrompt[] = [{name: 'memory__summarize', server: 'memory', prompt: 'summarize', definition: {name: 'summarize', description: 'Sum it up'}}];
		const hangar = [{name: 'hangar_list', inputSchema: {type: 'object' as const}}];
		const cost = new ContextCost(hangar);
		const view = cost.view(tools, prompts, 'direct');
		const fx = toolTokens('fx__echo', tools[0]!.definition) + toolTokens('fx__add', tools[1]!.definition);
		expect(view.upstreams['fx']).toEqual({tools: fx, prompts: 0});
		expect(view.upstreams['memory']?.prompts).toBe(estimateTokens({name: 'memory__summarize', description: 'Sum it up'}));
		expect(view.hangarTools).toBe(toolTokens('hangar_list', hangar[0]!));
		expect(view.direct).toBe(view.hangarTools + fx + view.upstreams['memory']!.tools + view.upstreams['memory']!.prompts);
		expect(view.search).toBe(view.hangarTools + view.upstreams['memory']!.prompts);
		expect(view.current).toBe(view.direct);
		expect(cost.view(tools, prompts, 'direct')).toBe(view);
		expect(cost.view(tools, prompts, 'search').current).toBe(view.search);
	});
});
