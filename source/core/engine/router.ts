/**
 * Where a client's request goes. The router owns the exposed names: it
 * derives the exposed tool set from the providers (tools of upstreams a
 * person or the config switched off are hidden), takes an exposed name apart
 * (the one place that knows `<server>__<tool>`), resolves `hangar_call`'s
 * `{server, tool}`, finds the owner of a hidden tool (so its call gets that
 * upstream's refusal rather than "unknown tool"), suggests the closest names,
 * and waits, within the call's budget, for an upstream that has never listed
 * its tools to list them.
 *
 * Routing by exposed name is written once (`owner`), so prompts, resource
 * URIs and completion references can be routed the same way.
 */
import Fuse from 'fuse.js';
import type {ToolDefinition} from '../config/config.js';
import {callTimeout, unknownServer, unknownServerTool, unknownTool} from './refusals.js';
import type {CallBudget} from './call-path.js';
import type {Provider} from './provider.js';
import {exposedToolName, separator} from './tool-names.js';
import {ToolSearchIndex, type ToolSearchHit} from './tool-search.js';

export type ExposedTool = {
	/** `<server>__<tool>` as clients see it. */
	name: string;
	server: string;
	/** The upstream's own name for it. */
	tool: string;
	definition: ToolDefinition;
};

/** Where a call goes: the upstream, its own name for the tool, the arguments. */
export type ToolRoute = {server: string; tool: string; arguments: Record<string, unknown> | undefined};

/** Tools are hidden once a person or the config switched the upstream off, including while it is stopping towards that. */
export function isHidden(provider: Provider): boolean {
	return provider.admin !== 'enabled';
}

export class Router {
	private exposed: ExposedTool[] = [];
	private byName = new Map<string, ExposedTool>();
	private signature = '';
	private dirty = true;
	private initialized = false;
	private changed = false;
	private fuse: Fuse<ExposedTool> | undefined;
	private searchIndex: ToolSearchIndex<ExposedTool> | undefined;

	constructor(private readonly providers: ReadonlyMap<string, Provider>) {}

	/** Something a route depends on changed (a transition, a tool list): rebuilt on the next read. */
	invalidate(): void {
		this.dirty = true;
	}

	/** Whether the exposed set changed since the last call (then `tools/list_changed` is due). */
	takeChange(): boolean {
		this.ensureFresh();
		const changed = this.changed;
		this.changed = false;
		return changed;
	}

	tools(): readonly ExposedTool[] {
		this.ensureFresh();
		return this.exposed;
	}

	/**
	 * The upstream an exposed name belongs to, and the rest of the name: the
	 * one place that takes `<server>__<tool>` apart. Undefined when no
	 * configured upstream owns the prefix.
	 */
	owner(name: string): {provider: Provider; rest: string} | undefined {
		const split = name.indexOf(separator);
		if (split === -1) return undefined;
		const provider = this.providers.get(name.slice(0, split));
		return provider === undefined ? undefined : {provider, rest: name.slice(split + separator.length)};
	}

	/**
	 * Resolves an exposed name, waiting for the upstream it names to list its
	 * tools when they are not known yet (first run without cache, or a start
	 * in progress), so an early call is routed instead of refused.
	 */
	async resolveTool(name: string, signal: AbortSignal): Promise<ExposedTool | undefined> {
		this.ensureFresh();
		const known = this.byName.get(name);
		if (known !== undefined) return known;
		const provider = this.owner(name)?.provider;
		if (provider === undefined || (provider.state !== 'starting' && !(provider.state === 'cold' && provider.toolsSource === 'none'))) {
			return undefined;
		}

		await provider.learnTools(signal);
		this.ensureFresh();
		return this.byName.get(name);
	}

	/** For `<server>__<tool>` of an upstream whose tools are hidden (stopped, quarantined, disabled): who owns it. */
	hiddenOwner(name: string): {server: string; tool: string} | undefined {
		const owner = this.owner(name);
		if (owner === undefined || !isHidden(owner.provider)) return undefined;
		return {server: owner.provider.name, tool: owner.rest};
	}

	/** Up to `limit` exposed tool names closest to `name`, for "did you mean" hints. */
	closest(name: string, limit = 3): string[] {
		this.ensureFresh();
		this.fuse ??= new Fuse(this.exposed, {keys: ['name'], threshold: 0.6, ignoreLocation: true});
		return this.fuse.search(name, {limit}).map(hit => hit.item.name);
	}

	/**
	 * Tool search over the exposed tools (the same set tools/list serves, from
	 * live lists or the cache, so cold upstreams are found too): hits with a
	 * score in 0..1, best first. How queries are matched is in tool-search.ts;
	 * the index is built on the first search after the set changed.
	 */
	search(query: string, limit: number): Array<ToolSearchHit<ExposedTool>> {
		this.ensureFresh();
		this.searchIndex ??= new ToolSearchIndex(this.exposed);
		return this.searchIndex.search(query, limit);
	}

	/**
	 * Routes a `tools/call` by its exposed name. Waiting for an upstream to
	 * list its tools (a cold start on the first run) counts against the
	 * caller's budget, when it has one. Unknown names are refused with the
	 * closest ones.
	 */
	async routeTool(name: string, args: Record<string, unknown> | undefined, signal: AbortSignal, budget?: CallBudget): Promise<ToolRoute> {
		if (budget === undefined) return this.routeToolNow(name, args, signal);
		const timeout = AbortSignal.timeout(budget.remainingMs);
		try {
			return await this.routeToolNow(name, args, AbortSignal.any([signal, timeout]));
		} catch (error) {
			if (!timeout.aborted || signal.aborted) throw error;
			throw callTimeout({upstream: this.owner(name)?.provider.name, tool: name, timeoutMs: budget.deadline.ms, phase: 'discovery', setting: budget.deadline.setting});
		}
	}

	/** Routes `hangar_call`'s `{server, tool}`: a tool the upstream does not list is refused, unless its list is not known yet (the call starts it). */
	routeServerTool(server: string, tool: string, args: Record<string, unknown> | undefined): ToolRoute {
		const provider = this.providers.get(server);
		if (provider === undefined) throw unknownServer(server, [...this.providers.keys()]);
		if (!provider.listsTool(tool)) throw unknownServerTool(server, tool, provider.tools.map(definition => definition.name));
		return {server, tool, arguments: args};
	}

	private async routeToolNow(name: string, args: Record<string, unknown> | undefined, signal: AbortSignal): Promise<ToolRoute> {
		// A tool of a stopped, quarantined or disabled upstream is hidden, but calling it gets that
		// upstream's refusal (with its reason) rather than "unknown tool".
		const route = (await this.resolveTool(name, signal)) ?? this.hiddenOwner(name);
		if (route === undefined) throw unknownTool(name, this.closest(name));
		return {server: route.server, tool: route.tool, arguments: args};
	}

	/**
	 * The exposed set is derived on demand: events only mark it dirty, reads
	 * rebuild it. Whether it changed is judged from each provider's visibility
	 * and tool-list revision, not by serializing every schema.
	 */
	private ensureFresh(): void {
		if (!this.dirty) return;
		this.dirty = false;
		// The set depends only on which upstreams are visible and their tool-list revisions: when those
		// did not change (most transitions: starting, ready, degraded, ...), the set and its indexes stay.
		const visible = [...this.providers.values()].filter(provider => !isHidden(provider));
		const signature = visible.map(provider => `${provider.name}:${provider.toolsRevision}`).join('|');
		if (this.initialized && signature === this.signature) return;
		if (this.initialized) this.changed = true;
		this.signature = signature;
		this.initialized = true;
		const exposed: ExposedTool[] = [];
		for (const provider of visible) {
			const seen = new Set<string>();
			for (const definition of provider.tools) {
				// An upstream that lists the same tool twice would make tools/list ambiguous.
				if (seen.has(definition.name)) continue;
				seen.add(definition.name);
				exposed.push({name: exposedToolName(provider.name, definition.name), server: provider.name, tool: definition.name, definition});
			}
		}

		this.exposed = exposed;
		this.byName = new Map(exposed.map(tool => [tool.name, tool]));
		this.fuse = undefined;
		this.searchIndex = undefined;
	}
}
