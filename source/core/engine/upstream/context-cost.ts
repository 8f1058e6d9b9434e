/**
 * What the tool and prompt definitions cost a client's context: for each
 * upstream, the estimated tokens of what it exposes (its tools as
 * `tools/list` lists them, its prompts as `prompts/list` does), and what a
 * client receives in all under the configured exposure, beside what the
 * other exposure would give (search exposure lists only hangar's own tools).
 *
 * The estimate: the definition's JSON as hangar sends it (name, title,
 * description, input and output schemas, annotations) in characters, divided
 * by 4, rounded up. Four characters a token is the usual rule for English
 * and JSON with the tokenizers of current models; real counts differ by
 * model (schemas full of punctuation cost a little more a character), so it
 * is for comparing upstreams and exposures, not for billing. Computed when
 * the exposed lists change (the router rebuilds them), not on each read.
 */
import type {ToolDefinition} from '../../config/read-config.js';
import type {ExposedPrompt, ExposedTool} from '../routing/router.js';

/** Characters per token in the estimate (see above). */
export const charsPerToken = 4;

export function estimateTokens(value: unknown): number {
	return Math.ceil((JSON.stringify(value)?.length ?? 0) / charsPerToken);
}

/** A tool as `tools/list` sends it (predefined tools may omit inputSchema; the list never does). */
export function toolTokens(name: string, definition: ToolDefinition): number {
	return estimateTokens({...definition, name, inputSchema: definition.inputSchema ?? {type: 'object'}});
}

export type ContextCostView = {
	exposure: 'direct' | 'search';
	/** Per upstream: its exposed tools and prompts, in estimated tokens. */
	upstreams: Record<string, {tools: number; prompts: number}>;
	/** Hangar's own hangar_* tools, listed in both exposures. */
	hangarTools: number;
	/** What a client receives under direct exposure: every exposed tool, the prompts, hangar's tools. */
	direct: number;
	/** Under search exposure: hangar's tools and the prompts. */
	search: number;
	/** Under the configured exposure. */
	current: number;
};

/** Remembers the last answer while the router hands out the same lists. */
export class ContextCost {
	private last: {tools: readonly ExposedTool[]; prompts: readonly ExposedPrompt[]; exposure: string; view: ContextCostView} | undefined;

	constructor(private readonly hangarTools: readonly ToolDefinition[]) {}

	view(tools: readonly ExposedTool[], prompts: readonly ExposedPrompt[], exposure: 'direct' | 'search'): ContextCostView {
		const last = this.last;
		if (last?.tools === tools && last.prompts === prompts && last.exposure === exposure) return last.view;
		const upstreams: ContextCostView['upstreams'] = {};
		const of = (server: string): {tools: number; prompts: number} => (upstreams[server] ??= {tools: 0, prompts: 0});
		let toolSum = 0;
		let promptSum = 0;
		for (const tool of tools) {
			const tokens = toolTokens(tool.name, tool.definition);
			of(tool.server).tools += tokens;
			toolSum += tokens;
		}

		for (const prompt of prompts) {
			const tokens = estimateTokens({...prompt.definition, name: prompt.name});
			of(prompt.server).prompts += tokens;
			promptSum += tokens;
		}

		const hangarTools = this.hangarTools.reduce((sum, tool) => sum + toolTokens(tool.name, tool), 0);
		const direct = hangarTools + toolSum + promptSum;
		const search = hangarTools + promptSum;
		const view: ContextCostView = {exposure, upstreams, hangarTools, direct, search, current: exposure === 'direct' ? direct : search};
		this.last = {tools, prompts, exposure, view};
		return view;
	}
}
