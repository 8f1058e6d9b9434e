/**
 * An upstream's tool list: live (read from the running upstream), cached
 * (persisted by an earlier run) or predefined in the config, always with the
 * time it was last verified and a revision that changes only when its
 * content does. What it serves is that list through the server's tool
 * filter (tool-filter.ts); the whole list is what is persisted, so a changed
 * filter needs no new listing. It also holds what tool pinning needs: a
 * freshly listed set is checked against the pins (a changed pinned tool is a
 * rug pull, and the list is never exposed) and pins what `hangar.pinning`
 * says it pins (pins.ts), and `approvalPlan` says what an approval would pin.
 */
import type {ServerConfig, ToolDefinition} from '../../config/read-config.js';
import type {LogBuffer} from '../../link/log-buffer.js';
import {approvalPins, checkListing, pinTools, pinnedAt, pinnedBy, type PinningMode, type ToolChange} from './pins.js';
import {ToolFilter} from '../routing/tool-filter.js';
import {leftOutNote, toolLeftOut, toolProblem, type LeftOutTool} from './tool-check.js';
import type {JsonRpcError} from '../../base/errors.js';
import type {StateStore} from '../state-store.js';

export type ToolsSource = 'live' | 'cache' | 'config' | 'none';

/** What an approval pins, and how many tools: see `ToolList.approvalPlan`. */
export type ApprovalPlan =
	| {from: 'changed'; tools: number}
	| {from: 'listed'; tools: number; verifiedAt: number | undefined}
	| {from: 'first-listing'};

/** A freshly listed tool set changed a pinned tool. */
export class RugPull extends Error {
	constructor(
		readonly changes: ToolChange[],
		readonly tools: readonly ToolDefinition[],
	) {
		super('a pinned tool changed');
	}
}

/** A tool the server's filter keeps from every surface, and the rule that does. */
export type FilteredTool = {name: string; rule: string};

export class ToolList {
	/** Everything the upstream listed (or the cache or config holds). */
	private all: readonly ToolDefinition[] = [];
	/** What is served: `all` through the filter. */
	private list: readonly ToolDefinition[] = [];
	private filteredOut: FilteredTool[] = [];
	/** Tools the upstream listed that clients would reject (tool-check.ts): never served, each with why. */
	private leftOutTools: LeftOutTool[] = [];
	private readonly filter: ToolFilter;
	private from: ToolsSource = 'none';
	private verified: number | undefined;
	/** Bumped whenever the list's content changes (not when the same list is verified again). */
	revision = 0;
	private refreshing: Promise<void> | undefined;
	private refreshAgain = false;

	constructor(
		private readonly name: string,
		config: ServerConfig,
		private readonly store: StateStore,
		private readonly log: LogBuffer,
		private readonly pinning: PinningMode = 'first-use',
		/**
		 * Whether a live list is written to the server's record. An instance
		 * of a per-client server is told its own client's capabilities and may
		 * list other tools than the server's template: its list is its own.
		 */
		private readonly persist = true,
	) {
		this.filter = new ToolFilter(config.includeTools, config.excludeTools);
		const persisted = store.upstream(name);
		if (persisted.tools !== undefined) {
			this.take(persisted.tools);
			this.from = 'cache';
			this.verified = persisted.toolsVerifiedAt;
		} else if (config.tools !== undefined) {
			this.take(config.tools);
			this.from = 'config';
		}
	}

	/** Keeps the tools clients accept (the others are left out, logged once each time the set of them changes); returns those. */
	private check(tools: readonly ToolDefinition[]): readonly ToolDefinition[] {
		const leftOut: LeftOutTool[] = [];
		const kept: ToolDefinition[] = [];
		for (const tool of tools) {
			// A missing or null inputSchema is served as {"type":"object"} (tool-requests.ts): checked as such.
			const reason = toolProblem(tool.inputSchema == null ? {...tool, inputSchema: {type: 'object'}} : tool);
			if (reason === undefined) kept.push(tool);
			else leftOut.push({name: tool.name, reason});
		}

		if (JSON.stringify(leftOut) !== JSON.stringify(this.leftOutTools)) for (const tool of leftOut) this.log.push('hangar', leftOutNote(tool));
		this.leftOutTools = leftOut;
		return leftOut.length === 0 ? tools : kept;
	}

	private take(listed: readonly ToolDefinition[]): void {
		const tools = this.check(listed);
		this.all = tools;
		if (!this.filter.active) {
			this.list = tools;
			this.filteredOut = [];
			return;
		}

		const served: ToolDefinition[] = [];
		const filtered: FilteredTool[] = [];
		for (const tool of tools) {
			const rule = this.filter.ruleFor(tool.name);
			if (rule === undefined) served.push(tool);
			else filtered.push({name: tool.name, rule});
		}

		this.list = served;
		this.filteredOut = filtered;
	}

	/** The tools the upstream lists that its filter keeps from every surface, each with its rule. */
	get filtered(): readonly FilteredTool[] {
		return this.filteredOut;
	}

	/** The tools the upstream lists that clients would reject, each with why (tool-check.ts). */
	get leftOut(): readonly LeftOutTool[] {
		return this.leftOutTools;
	}

	/** Why `tool` is left out of the list (tool-check.ts); undefined when it is not. */
	leftOutReason(tool: string): string | undefined {
		return this.leftOutTools.length === 0 ? undefined : this.leftOutTools.find(left => left.name === tool)?.reason;
	}

	/** The refusal of a call to `tool` when it is left out of the list, saying why; undefined when it is not. */
	leftOutRefusal(tool: string): JsonRpcError | undefined {
		const reason = this.leftOutReason(tool);
		return reason === undefined ? undefined : toolLeftOut(this.name, tool, reason);
	}

	/** Undefined when `tool` may be served; else the filter rule that keeps it out (whether or not the upstream lists it). */
	filterRule(tool: string): string | undefined {
		return this.filter.ruleFor(tool);
	}

	get tools(): readonly ToolDefinition[] {
		return this.list;
	}

	get source(): ToolsSource {
		return this.from;
	}

	/** When the list was last read from the upstream itself. */
	get verifiedAt(): number | undefined {
		return this.verified;
	}

	/** Whether `tool` may be called: the upstream lists it, or its tools are not known yet (the call will start it and find out). */
	lists(tool: string): boolean {
		if (this.filter.ruleFor(tool) !== undefined) return false;
		return this.from === 'none' || this.list.some(definition => definition.name === tool);
	}

	/** Whether the list may be out of date: from a previous run or the config, or not verified within `refreshMs` (never listed: not stale). */
	stale(refreshMs: number): boolean {
		// Never listed is not stale: there is no list to be out of date ("not listed yet" on every surface).
		if (this.from === 'none') return false;
		if (this.from !== 'live') return true;
		return refreshMs > 0 && this.verified !== undefined && Date.now() - this.verified > refreshMs;
	}

	/** Takes a list read from the upstream (or its source): persisted at once, revision bumped when its content changed. */
	set(listed: ToolDefinition[], source: ToolsSource): void {
		const before = this.all;
		this.take(listed);
		// Only what is served is kept: a tool left out is learned again (and left out again) at the next listing.
		const tools = this.all as ToolDefinition[];
		const changed = JSON.stringify(tools) !== JSON.stringify(before);
		this.from = source;
		this.verified = Date.now();
		if (changed) this.revision += 1;
		if (!this.persist) return;
		// Written at once when the list is new or changed: a one-shot client's next run must find it.
		const write = changed ? this.store.updateNow.bind(this.store) : this.store.update.bind(this.store);
		write(this.name, upstream => {
			upstream.tools = tools;
			upstream.toolsVerifiedAt = this.verified;
		});
	}

	/** Whether a re-read is running. */
	get isRefreshing(): boolean {
		return this.refreshing !== undefined;
	}

	/**
	 * Re-reads the list with `read`, and hands it to `apply`; bursts of
	 * requests (list_changed storms) coalesce into at most one extra read.
	 * `settled` runs once no read is running or due any more.
	 */
	refresh(why: string, read: () => Promise<ToolDefinition[] | undefined>, apply: (tools: ToolDefinition[], why: string) => void, settled?: () => void): void {
		if (this.refreshing !== undefined) {
			this.refreshAgain = true;
			return;
		}

		this.refreshing = (async () => {
			try {
				const tools = await read();
				if (tools !== undefined) apply(tools, why);
			} catch (error) {
				this.log.push('hangar', `tool list refresh failed: ${error instanceof Error ? error.message : String(error)}`);
			} finally {
				this.refreshing = undefined;
				if (this.refreshAgain) {
					this.refreshAgain = false;
					this.refresh(why, read, apply, settled);
				} else {
					settled?.();
				}
			}
		})();
	}

	// ---------------------------------------------------------------------
	// Pins

	/** How and when its tools were pinned (at first use, or by a person's approval) and how many; undefined when nothing is pinned. */
	get pins(): {by: 'first-use' | 'approval'; pinnedAt: number; approvedAt: number | undefined; tools: number | undefined} | undefined {
		const pins = this.store.upstream(this.name).pins;
		if (pins === undefined) return undefined;
		return {by: pinnedBy(pins), pinnedAt: pinnedAt(pins), approvedAt: pins.approvedAt, tools: pins.tools === undefined ? undefined : Object.keys(pins.tools).length};
	}

	/** Whether a tool has a pin. */
	pinOf(tool: string): 'pinned' | 'unpinned' {
		return this.store.upstream(this.name).pins?.tools?.[tool] === undefined ? 'unpinned' : 'pinned';
	}

	/** Changes of pinned tools in a freshly listed set; pins what hangar.pinning says this listing pins (pins.ts). */
	pinnedChanges(tools: readonly ToolDefinition[]): ToolChange[] {
		const check = checkListing(this.pinning, this.store.upstream(this.name).pins, tools);
		if (check.pins !== undefined) {
			const pins = check.pins;
			this.store.update(this.name, upstream => {
				upstream.pins = pins;
			});
		}

		if (check.note !== undefined) this.log.push('hangar', check.note);
		return check.changes;
	}

	/**
	 * What a person's approval pins, decided here once for the approval, its
	 * answer and the TUI's question: after a rug pull, the whole list it
	 * served then (the one its diff shows); else the list in hand, live or
	 * cached from an earlier run (the one hangar_details shows); else, when
	 * none was ever listed (or only the config's predefined one), the first
	 * list it serves. Only counts the tools: the TUI asks for it on every
	 * render, and the pins themselves (a hash per tool) are made by `approve`.
	 */
	get approvalPlan(): ApprovalPlan {
		const seen = this.store.upstream(this.name).admin?.seen;
		if (seen !== undefined) return {from: 'changed', tools: Object.keys(seen).length};
		// Distinct names: the pins are keyed by name, so a tool listed twice is pinned once.
		if (this.from === 'live' || this.from === 'cache') return {from: 'listed', tools: new Set(this.list.map(tool => tool.name)).size, verifiedAt: this.verified};
		return {from: 'first-listing'};
	}

	/** Lifts the quarantine record and pins what `approvalPlan` says; returns the plan. */
	approve(): ApprovalPlan {
		const plan = this.approvalPlan;
		const pins = plan.from === 'changed' ? this.store.upstream(this.name).admin?.seen : plan.from === 'listed' ? pinTools(this.list) : undefined;
		this.store.update(this.name, upstream => {
			upstream.admin = undefined;
			upstream.pins = approvalPins(pins);
		});
		return plan;
	}
}
