/**
 * Tool pinning. Hangar stores a hash of each tool's name, description and
 * input schema (and the values, so a later change can be shown as a diff).
 * A live tool list that changes a pinned tool (a "rug pull": same name, new
 * description or schema) sends the upstream to quarantine with the diff as
 * its reason, until a person approves the change.
 *
 * When tools are pinned depends on `hangar.pinning`:
 * - `first-use` (the default): trust on first use. Each tool is pinned the
 *   first time hangar lists it, and a person's approval pins again.
 * - `approval`: only a person's approval pins (then the list it was shown,
 *   or the first list served after it).
 * - `off`: nothing is pinned or checked.
 */
import {createHash} from 'node:crypto';
import {canonicalJson} from '../../base/canonical-json.js';
import {NestingTooDeepError} from '../../base/nesting.js';
import type {ToolDefinition} from '../../config/read-config.js';

/** JSON with object keys sorted (base/canonical-json.ts), as pins hash it. */
export {canonicalJson};

export type PinnedTool = {hash: string; description: string | null; inputSchema: unknown};

export const pinningModes = ['first-use', 'approval', 'off'] as const;
export type PinningMode = (typeof pinningModes)[number];

/**
 * An upstream's pins as stored: when and how they were taken, and the tools
 * (undefined after an approval given before its tools were ever listed).
 * Records from before `by` existed were all taken by an approval.
 */
export type PinRecord = {approvedAt?: number | undefined; pinnedAt?: number | undefined; by?: 'first-use' | 'approval' | undefined; tools?: Record<string, PinnedTool> | undefined};

export type ToolChange = {
	tool: string;
	field: 'description' | 'inputSchema';
	before: unknown;
	after: unknown;
};

function pinOf(tool: ToolDefinition): PinnedTool {
	const description = tool.description ?? null;
	const inputSchema = tool.inputSchema ?? null;
	let canonical: string;
	try {
		canonical = canonicalJson({name: tool.name, description, inputSchema});
	} catch (error) {
		if (!(error instanceof NestingTooDeepError)) throw error;
		throw new NestingTooDeepError(`its tool list cannot be pinned: the input schema of tool ${JSON.stringify(tool.name.slice(0, 200))}`);
	}

	const hash = createHash('sha256').update(canonical).digest('hex');
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

/** A person's approval: pins `tools` now (undefined: the first list it serves from now on). */
export function approvalPins(tools: Record<string, PinnedTool> | undefined, now = Date.now()): PinRecord {
	return {by: 'approval', approvedAt: now, pinnedAt: now, tools};
}

/** How a record was pinned (records from before first-use pinning were all approvals). */
export function pinnedBy(pins: PinRecord): 'first-use' | 'approval' {
	return pins.by ?? 'approval';
}

/** When a record's tools were pinned. */
export function pinnedAt(pins: PinRecord): number {
	return pins.pinnedAt ?? pins.approvedAt ?? 0;
}

export type ListingCheck = {
	/** Pinned tools the listing changes: a rug pull. */
	changes: ToolChange[];
	/** The record to store instead of the current one, when the listing pins something. */
	pins?: PinRecord | undefined;
	/** What was pinned, for the upstream's log. */
	note?: string | undefined;
};

/**
 * Checks a freshly listed tool set against an upstream's pins: the changes
 * of pinned tools (none when `mode` is off), and, when the listing is
 * accepted, what it pins: under `first-use`, every tool not pinned yet;
 * after an approval given before the tools were known, the whole list.
 */
export function checkListing(mode: PinningMode, pins: PinRecord | undefined, tools: readonly ToolDefinition[], now = Date.now()): ListingCheck {
	if (mode === 'off') return {changes: []};
	if (pins?.tools === undefined) {
		if (pins !== undefined) {
			return {changes: [], pins: {...pins, pinnedAt: now, tools: pinTools(tools)}, note: `pinned ${tools.length} tools (approved before they were first listed)`};
		}

		if (mode === 'approval') return {changes: []};
		return {changes: [], pins: {by: 'first-use', pinnedAt: now, tools: pinTools(tools)}, note: `pinned ${tools.length} tools at their first listing (hangar.pinning "first-use")`};
	}

	const changes = toolChanges(pins.tools, tools);
	if (changes.length > 0 || mode !== 'first-use') return {changes};
	const pinned = pins.tools;
	const unpinned = tools.filter(tool => pinned[tool.name] === undefined);
	if (unpinned.length === 0) return {changes};
	return {
		changes,
		pins: {...pins, tools: {...pinned, ...pinTools(unpinned)}},
		note: `pinned ${unpinned.length} new tool${unpinned.length === 1 ? '' : 's'} at ${unpinned.length === 1 ? 'its' : 'their'} first listing: ${unpinned.map(tool => tool.name).join(', ')}`,
	};
}

/** The reason of a rug pull's quarantine: what changed, and since when it was trusted. */
export function rugPullReason(pins: PinRecord | undefined, changes: readonly ToolChange[]): string {
	const since = pins !== undefined && pinnedBy(pins) === 'first-use' ? 'hangar first listed it' : 'a person approved it';
	return `a pinned tool changed since ${since}: ${describeChanges(changes)}`;
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
