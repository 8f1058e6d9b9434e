/**
 * Tool pinning. When a person approves an upstream, hangar stores a hash of
 * each tool's name, description and input schema (and the values, so a later
 * change can be shown as a diff). A live tool list that changes a pinned tool
 * (a "rug pull": same name, new description or schema) sends the upstream to
 * quarantine with the diff as its reason.
 */
import {createHash} from 'node:crypto';
import type {ToolDefinition} from '../config/config.js';

export type PinnedTool = {hash: string; description: string | null; inputSchema: unknown};

export type ToolChange = {
	tool: string;
	field: 'description' | 'inputSchema';
	before: unknown;
	after: unknown;
};

/** JSON with object keys sorted, so equal schemas hash equally whatever their key order. */
export function canonicalJson(value: unknown): string {
	if (Array.isArray(value)) return `[${value.map(item => canonicalJson(item)).join(',')}]`;
	if (typeof value === 'object' && value !== null) {
		const entries = Object.entries(value as Record<string, unknown>)
			.filter(([, item]) => item !== undefined)
			.sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
		return `{${entries.map(([key, item]) => `${JSON.stringify(key)}:${canonicalJson(item)}`).join(',')}}`;
	}

	return JSON.stringify(value) ?? 'null';
}

function pinOf(tool: ToolDefinition): PinnedTool {
	const description = tool.description ?? null;
	const inputSchema = tool.inputSchema ?? null;
	const hash = createHash('sha256').update(canonicalJson({name: tool.name, description, inputSchema})).digest('hex');
	return {hash, description, inputSchema};
}

export function pinTools(tools: readonly ToolDefinition[]): Record<string, PinnedTool> {
	return Object.fromEntries(tools.map(tool => [tool.name, pinOf(tool)]));
}

/** What changed in pinned tools. Tools that are new or gone are not changes of a pinned tool. */
export function toolChanges(pins: Record<string, PinnedTool>, tools: readonly ToolDefinition[]): ToolChange[] {
	const changes: ToolChange[] = [];
	for (const tool of tools) {
		const pinned = pins[tool.name];
		if (pinned === undefined) continue;
		const now = pinOf(tool);
		if (now.hash === pinned.hash) continue;
		if (now.description !== pinned.description) changes.push({tool: tool.name, field: 'description', before: pinned.description, after: now.description});
		if (canonicalJson(now.inputSchema) !== canonicalJson(pinned.inputSchema)) {
			changes.push({tool: tool.name, field: 'inputSchema', before: pinned.inputSchema, after: now.inputSchema});
		}
	}

	return changes;
}

/** One line per change, for transition reasons and logs. */
export function describeChanges(changes: readonly ToolChange[]): string {
	return changes
		.map(change =>
			change.field === 'description'
				? `tool "${change.tool}" description changed from ${JSON.stringify(change.before)} to ${JSON.stringify(change.after)}`
				: `tool "${change.tool}" input schema changed from ${canonicalJson(change.before)} to ${canonicalJson(change.after)}`,
		)
		.join('; ');
}

/**
 * What an approval pins, as a phrase for a question ("Lift the quarantine of
 * "fx" and pin …?") and an answer ("… pinned …"). Times are ISO unless the
 * caller formats them (the TUI shows local wall-clock times).
 */
export function describeApproval(
	plan: {from: 'changed' | 'listed' | 'first-listing'; tools?: number; verifiedAt?: number | undefined},
	time: (ms: number) => string = ms => new Date(ms).toISOString(),
): string {
	const count = plan.tools ?? 0;
	const tools = `its ${count} tool${count === 1 ? '' : 's'}`;
	switch (plan.from) {
		case 'changed': {
			return `${tools} as it listed them when it was quarantined, changes included (see hangar_details)`;
		}

		case 'listed': {
			return `${tools} as last listed${plan.verifiedAt === undefined ? '' : ` (${time(plan.verifiedAt)})`}`;
		}

		default: {
			return 'its tools as it first lists them (none are known yet)';
		}
	}
}
