/**
 * Where a client's request goes. The router owns the exposed names and URIs:
 * it derives what clients see from the upstreams (what upstreams a person or
 * the config switched off serve is hidden), and routes every request that
 * names something back to its upstream:
 *
 * - tools and prompts by exposed name: `<namespace>__<name>`, or the
 *   upstream's own name for a server with `"namespace": false` (`owner` is
 *   the one place that takes a prefixed name apart). A name two upstreams
 *   expose goes to the first of them in config order; the clash is kept in
 *   `clashes()` for every surface to show;
 * - `hangar_call`'s `{server, tool}`;
 * - resource URIs (`resources/read`, `subscribe`, and completion references
 *   to templates) by the rules in resource-uris.ts: a URI another upstream
 *   owns is exposed as `hangar://<server>/<uri>`;
 * - `completion/complete` by its reference: a prompt's exposed name, or a
 *   template's exposed URI.
 *
 * It also finds the owner of a hidden name (so its call gets that upstream's
 * refusal rather than "unknown"), suggests the closest names, and waits,
 * within the call's budget, for an upstream that has never listed its tools
 * to list them.
 */
import type {ToolDefinition} from '../../config/read-config.js';
import {closeMatches} from '../../base/closest-match.js';
import type {JsonRpcError} from '../../base/errors.js';
import {callTimeout, requestFailed, toolFiltered, resourceNotFound, unknownPrompt, unknownServer, unknownServerTool, unknownTool} from '../refusals.js';
import type {RequestContext} from '../request-context.js';
import type {PromptDefinition, ResourceDefinition, ResourceTemplateDefinition} from '../upstream/catalog.js';
import type {Upstream} from '../upstream/upstream.js';
import {hangarUri, parseHangarUri, TemplateMatcher, UriBook} from './resource-uris.js';
import {exposedName, separator, toolNaming} from './tool-names.js';
import {isHidden, ownNames, takesPart, uniqueOwnNames} from './exposed-names.js';

export {isHidden, takesPart};
import {ToolSearchIndex, type ToolSearchHit} from './tool-search.js';

export type ExposedTool = {
	/** `<namespace>__<tool>` (or the tool's own name) as clients see it. */
	name: string;
	server: string;
	/** The upstream's own name for it. */
	tool: string;
	definition: ToolDefinition;
};


export type ExposedPrompt = {
	/** `<namespace>__<prompt>` (or the prompt's own name) as clients see it. */
	name: string;
	server: string;
	/** The upstream's own name for it. */
	prompt: string;
	definition: PromptDefinition;
};

export type ExposedResource = {
	/** The URI clients see: the upstream's own, or `hangar://<server>/<uri>` when another upstream owns it. */
	uri: string;
	server: string;
	/** The upstream's own URI. */
	own: string;
	definition: ResourceDefinition;
};

export type ExposedTemplate = {
	/** The template clients see: the upstream's own, or `hangar://<server>/<template>` when an earlier upstream has the same one. */
	uriTemplate: string;
	server: string;
	own: string;
	definition: ResourceTemplateDefinition;
};

/** Two or more upstreams expose the same name: it goes to `owner`, the others' are not exposed under it. */
export type NameClash = {
	kind: 'tool' | 'prompt';
	name: string;
	/** The server that keeps the name (first in config order), or "hangar" for a name hangar reserves. */
	owner: string;
	/** The servers whose tool or prompt of that name is not exposed (a tool stays callable with hangar_call). */
	shadowed: string[];
};

/** What a change of the exposed set is about, for the list_changed notification it calls for. */
export type ExposedKind = 'tools' | 'resources' | 'prompts';

/** What a request names: a tool, a prompt, a resource URI, or a resource template (a completion's `ref/resource`). */
export type RouteKind = 'tool' | 'prompt' | 'resource' | 'template' | 'task';

/**
 * Where a request that names something goes, one shape for every kind: the
 * upstream it resolved to (for a per-client server its template: the
 * supervisor picks the session's instance) and that upstream's own name for
 * what was named (a tool, a prompt) or its own URI (a resource, a template).
 */
export type Route = {kind: RouteKind; upstream: Upstream; localName: string};

/**
 * How long a request may wait for upstreams still learning what they serve:
 * their callTimeoutSeconds (the longest), or the caller's deadline when it
 * ends first (`setting` then names it). Undefined: no limit applies.
 */
function learningLimit(learning: Upstream[], deadline: RouteScope['deadline']): {remainingMs: number; ms: number; setting: string | undefined} | undefined {
	const ownMs = learning.length === 0 ? undefined : Math.max(...learning.map(upstream => upstream.config.callTimeoutMs));
	if (deadline !== undefined && (ownMs === undefined || deadline.remainingMs <= ownMs)) return {remainingMs: deadline.remainingMs, ms: deadline.deadline.ms, setting: deadline.deadline.setting};
	return ownMs === undefined ? undefined : {remainingMs: ownMs, ms: ownMs, setting: undefined};
}

/** What routing reads of the request: its signal (a wait for an upstream's list ends with it) and its deadline. */
export type RouteScope = Pick<RequestContext, 'signal' | 'deadline'> & Partial<Pick<RequestContext, 'method'>>;

/** Everything that the exposed set of one kind is derived from, as one string. */
type Signatures = Record<ExposedKind, string>;

export class Router {
	private exposed: ExposedTool[] = [];
	private byName = new Map<string, ExposedTool>();
	/** Every tool name's owner, hidden upstreams included: a hidden owner's call gets its refusal. */
	private toolOwners = new Map<string, ExposedTool>();
	private prompts: ExposedPrompt[] = [];
	private promptByName = new Map<string, ExposedPrompt>();
	private promptOwners = new Map<string, ExposedPrompt>();
	/** Own names that exactly one exposed tool (prompt) has, and that no exposed name takes: what a client that used the upstream directly calls it. */
	private toolByOwnName = new Map<string, ExposedTool>();
	private promptByOwnName = new Map<string, ExposedPrompt>();
	private nameClashes: {tool: NameClash[]; prompt: NameClash[]} = {tool: [], prompt: []};
	private resourceList: ExposedResource[] = [];
	private templateList: ExposedTemplate[] = [];
	private templateByUri = new Map<string, ExposedTemplate>();
	/** The upstream that lists each URI first in config order, hidden upstreams included. */
	private listedOwner = new Map<string, string>();
	private matchers: Array<{server: string; matcher: TemplateMatcher}> = [];
	/** URIs handed out in results that no list names (see UriBook). */
	readonly book = new UriBook();
	private signatures: Signatures = {tools: '', resources: '', prompts: ''};
	private dirty = true;
	private initialized = false;
	private readonly changed = new Set<ExposedKind>();
	private searchIndex: ToolSearchIndex<ExposedTool> | undefined;
	private promptIndex: ToolSearchIndex<ExposedPrompt & {tool: string}> | undefined;
	private namespaceOwners: Map<string, Upstream> | undefined;

	constructor(private readonly upstreams: ReadonlyMap<string, Upstream>) {}

	/** Something a route depends on changed (a transition, a list): rebuilt on the next read. */
	invalidate(): void {
		this.dirty = true;
	}

	/** Which exposed sets changed since the last call (a list_changed is due for each). */
	takeChanges(): ReadonlySet<ExposedKind> {
		this.ensureFresh();
		const changed = new Set(this.changed);
		this.changed.clear();
		return changed;
	}

	tools(): readonly ExposedTool[] {
		this.ensureFresh();
		return this.exposed;
	}

	exposedPrompts(): readonly ExposedPrompt[] {
		this.ensureFresh();
		return this.prompts;
	}

	resources(): readonly ExposedResource[] {
		this.ensureFresh();
		return this.resourceList;
	}

	resourceTemplates(): readonly ExposedTemplate[] {
		this.ensureFresh();
		return this.templateList;
	}

	/** Every name two or more upstreams expose, tools first, each with the one that keeps it. */
	clashes(): readonly NameClash[] {
		this.ensureFresh();
		return [...this.nameClashes.tool, ...this.nameClashes.prompt];
	}

	/** The name a tool or prompt of `server` is exposed as, or undefined when another upstream (or hangar) keeps that name. */
	exposedNameOf(kind: 'tool' | 'prompt', server: string, own: string): string | undefined {
		this.ensureFresh();
		const upstream = this.upstreams.get(server);
		if (upstream === undefined) return undefined;
		const name = exposedName(upstream.config.namespace, own);
		const owner = (kind === 'tool' ? this.toolOwners : this.promptOwners).get(name);
		return owner?.server === server ? name : undefined;
	}

	/**
	 * The upstream a prefixed exposed name belongs to, and the rest of the
	 * name: the one place that takes `<namespace>__<name>` apart. Undefined
	 * when no upstream has that namespace.
	 */
	owner(name: string): {upstream: Upstream; rest: string} | undefined {
		const split = name.indexOf(separator);
		if (split === -1) return undefined;
		if (this.namespaceOwners === undefined) {
			this.namespaceOwners = new Map();
			for (const upstream of this.upstreams.values()) {
				if (upstream.config.namespace !== false) this.namespaceOwners.set(upstream.config.namespace, upstream);
			}
		}

		const upstream = this.namespaceOwners.get(name.slice(0, split));
		return upstream === undefined ? undefined : {upstream, rest: name.slice(split + separator.length)};
	}

	/**
	 * Upstreams that may own `name` but have not listed what they serve yet
	 * (first run without cache, or a start in progress): the one its prefix
	 * names, and every unprefixed one.
	 */
	private learning(name: string): Upstream[] {
		const learning = (upstream: Upstream) => upstream.state === 'starting' || (upstream.state === 'cold' && upstream.toolsSource === 'none');
		const candidates = [...this.upstreams.values()].filter(upstream => upstream.config.namespace === false && learning(upstream));
		const prefixed = this.owner(name)?.upstream;
		if (prefixed !== undefined && learning(prefixed)) candidates.push(prefixed);
		return candidates;
	}

	/**
	 * Resolves an exposed name, waiting for the upstreams that may own it to
	 * list their tools when they are not known yet (first run without cache,
	 * or a start in progress), so an early call is routed instead of refused.
	 */
	async resolveTool(name: string, signal: AbortSignal): Promise<ExposedTool | undefined> {
		this.ensureFresh();
		const known = this.listedTool(name);
		if (known !== undefined) return known;
		const learning = this.learning(name);
		if (learning.length === 0) return undefined;
		await Promise.all(learning.map(async upstream => upstream.learnTools(signal)));
		this.ensureFresh();
		return this.listedTool(name);
	}

	/** The tool an exposed name, or an upstream's own name for a tool no other upstream has, stands for. */
	private listedTool(name: string): ExposedTool | undefined {
		return this.byName.get(name) ?? this.toolByOwnName.get(name);
	}

	/** For a name of an upstream whose tools are hidden (stopped, quarantined, disabled): who owns it. */
	hiddenOwner(name: string): {server: string; tool: string} | undefined {
		this.ensureFresh();
		const known = this.toolOwners.get(name);
		if (known !== undefined) return isHidden(this.upstreams.get(known.server)!) ? {server: known.server, tool: known.tool} : undefined;
		const owner = this.owner(name);
		if (owner === undefined || !isHidden(owner.upstream)) return undefined;
		return {server: owner.upstream.name, tool: owner.rest};
	}

	/**
	 * For a prefixed name of an upstream that has never listed its tools and
	 * is not learning them (it failed to start): that upstream, so the call
	 * gets its refusal with the reason rather than "unknown tool".
	 */
	private unlistedOwner(name: string): {server: string; tool: string} | undefined {
		const owner = this.owner(name);
		if (owner === undefined || owner.upstream.toolsSource !== 'none' || !takesPart(owner.upstream)) return undefined;
		return {server: owner.upstream.name, tool: owner.rest};
	}

	/** For the name a tool would have if its server's filter did not keep it out (or it were not left out as malformed: `malformed` says why): the server, the tool and the rule. */
	private filteredOwner(name: string): {server: string; tool: string; rule: string; malformed?: JsonRpcError} | undefined {
		const candidates = [...this.upstreams.values()].filter(upstream => upstream.config.namespace === false);
		const prefixed = this.owner(name);
		const found: Array<{upstream: Upstream; tool: string}> = candidates.map(upstream => ({upstream, tool: name}));
		if (prefixed !== undefined) found.push({upstream: prefixed.upstream, tool: prefixed.rest});
		for (const {upstream, tool} of found) {
			const rule = upstream.filteredTools.find(filtered => filtered.name === tool)?.rule;
			if (rule !== undefined) return {server: upstream.name, tool, rule};
			const malformed = upstream.toolList.leftOutRefusal(tool);
			if (malformed !== undefined) return {server: upstream.name, tool, rule: '', malformed};
		}

		return undefined;
	}

	/**
	 * Up to `limit` exposed tool names close to `name`, for "did you mean"
	 * hints: a typo of it or of its tool part, or names it starts (see
	 * closeMatches); a name that resembles none gets none.
	 */
	closest(name: string, limit = 3): string[] {
		this.ensureFresh();
		return closeMatches(name, this.exposed, tool => [tool.name, tool.tool], limit).map(tool => tool.name);
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

	/** The same search over the exposed prompts. */
	searchPrompts(query: string, limit: number): Array<ToolSearchHit<ExposedPrompt>> {
		this.ensureFresh();
		this.promptIndex ??= new ToolSearchIndex(this.prompts.map(prompt => ({...prompt, tool: prompt.prompt})));
		return this.promptIndex.search(query, limit);
	}

	/**
	 * Routes a `tools/call` by its exposed name. Waiting for an upstream to
	 * list its tools (a cold start on the first run) ends with the request's
	 * signal or that upstream's callTimeoutSeconds, and counts against the
	 * request's deadline when it has one. Unknown names
	 * are refused with the closest ones.
	 */
	async routeTool(name: string, scope: RouteScope): Promise<Route> {
		// A listed name routes without waiting, and without a deadline to arm (most calls).
		const listed = this.listedRoute(name);
		if (listed !== undefined) return listed;
		const {deadline, signal} = scope;
		// The wait for a first list is part of the call: it ends at the callTimeoutSeconds of the upstreams
		// that may own the name (the longest), or at the caller's own deadline when that comes first.
		const learning = this.learning(name);
		const limit = learningLimit(learning, deadline);
		if (limit === undefined) return this.routeToolNow(name, signal);
		const timeout = AbortSignal.timeout(limit.remainingMs);
		const timedOut = () => {
			const upstream = this.owner(name)?.upstream.name ?? (learning.length === 1 ? learning[0]!.name : undefined);
			return callTimeout({upstream, tool: name, timeoutMs: limit.ms, phase: 'discovery', setting: limit.setting});
		};

		let route: Route;
		try {
			route = await this.routeToolNow(name, AbortSignal.any([signal, timeout]));
		} catch (error) {
			if (!timeout.aborted || signal.aborted) throw error;
			throw timedOut();
		}

		// The wait ended by the deadline while the upstream still learns its tools: a route to it would only wait on.
		if (timeout.aborted && !signal.aborted && this.learning(name).length > 0) throw timedOut();
		return route;
	}

	/** The route of a listed name, at once (most calls); undefined: `routeTool` decides, waiting if it must. */
	listedRoute(name: string): Route | undefined {
		this.ensureFresh();
		const known = this.listedTool(name);
		return known === undefined ? undefined : this.toolRoute(known.server, known.tool);
	}

	/** Routes `hangar_call`'s `{server, tool}`: a tool the upstream does not list is refused, unless its list is not known yet (the call starts it). */
	routeServerTool(server: string, tool: string): Route {
		const upstream = this.upstreams.get(server);
		if (upstream === undefined) throw unknownServer(server, [...this.upstreams.keys()]);
		const rule = upstream.toolList.filterRule(tool);
		if (rule !== undefined) throw toolFiltered(server, tool, rule);
		const malformed = upstream.toolList.leftOutRefusal(tool);
		if (malformed !== undefined) throw malformed;
		if (!upstream.listsTool(tool)) throw unknownServerTool(server, tool, upstream.tools.map(definition => definition.name));
		return {kind: 'tool', upstream, localName: tool};
	}

	private toolRoute(server: string, tool: string): Route {
		return {kind: 'tool', upstream: this.upstreams.get(server)!, localName: tool};
	}

	private async routeToolNow(name: string, signal: AbortSignal): Promise<Route> {
		// A tool of a stopped, quarantined or disabled upstream is hidden, but calling it gets that
		// upstream's refusal (with its reason) rather than "unknown tool".
		const route = (await this.resolveTool(name, signal)) ?? this.hiddenOwner(name) ?? this.unlistedOwner(name);
		if (route === undefined) {
			const filtered = this.filteredOwner(name);
			if (filtered?.malformed !== undefined) throw filtered.malformed;
			if (filtered !== undefined) throw toolFiltered(filtered.server, filtered.tool, filtered.rule);
			const own = [...this.upstreams.values()].filter(upstream => upstream.config.namespace === false).length;
			throw unknownTool(name, this.closest(name), toolNaming(own, this.upstreams.size));
		}

		return this.toolRoute(route.server, route.tool);
	}

	/**
	 * Routes `prompts/get` (and a completion's `ref/prompt`) by the prompt's
	 * exposed name, waiting like a tool for an upstream still learning what it
	 * serves. A prompt of a hidden upstream routes to it, so the request gets
	 * that upstream's refusal.
	 */
	async routePrompt(name: string, scope: RouteScope): Promise<Route> {
		this.ensureFresh();
		const listed = (): ExposedPrompt | undefined => this.promptByName.get(name) ?? this.promptByOwnName.get(name);
		let found = listed();
		if (found === undefined) {
			const learning = this.learning(name);
			if (learning.length > 0) {
				// Within the deadline a tool call's wait has (routeTool): the upstreams' callTimeoutSeconds, or the caller's shorter one.
				const limit = learningLimit(learning, scope.deadline)!;
				const timeout = AbortSignal.timeout(limit.remainingMs);
				await Promise.all(learning.map(async upstream => upstream.learnTools(AbortSignal.any([scope.signal, timeout]))));
				this.ensureFresh();
				found = listed();
				if (found === undefined && timeout.aborted && !scope.signal.aborted && this.learning(name).length > 0) {
					const upstream = this.owner(name)?.upstream.name ?? learning[0]!.name;
					throw requestFailed(upstream, `${scope.method ?? 'prompts/get'} "${name}"`, {kind: 'timeout', timeoutMs: limit.ms, setting: limit.setting});
				}
			}
		}

		found ??= this.promptOwners.get(name);
		if (found !== undefined) return {kind: 'prompt', upstream: this.upstreams.get(found.server)!, localName: found.prompt};
		const owner = this.owner(name);
		if (owner !== undefined && isHidden(owner.upstream)) return {kind: 'prompt', upstream: owner.upstream, localName: owner.rest};
		throw unknownPrompt(name, this.prompts.map(prompt => prompt.name));
	}

	/**
	 * Routes a resource URI (`resources/read`, `resources/subscribe`) to its
	 * upstream and that upstream's own URI: `hangar://<server>/<uri>` to that
	 * server; else the owner by the rules in resource-uris.ts; else, when only
	 * one upstream serves resources, to it (a client may build URIs itself).
	 */
	routeUri(uri: string): Route {
		this.ensureFresh();
		const parsed = parseHangarUri(uri);
		if (parsed !== undefined) {
			const upstream = this.upstreams.get(parsed.server);
			if (upstream !== undefined) return {kind: 'resource', upstream, localName: parsed.uri};
		}

		const owner = this.uriOwner(uri);
		if (owner !== undefined) return {kind: 'resource', upstream: this.upstreams.get(owner)!, localName: uri};
		const serving = [...this.upstreams.values()].filter(upstream => takesPart(upstream) && (upstream.capabilities === undefined || upstream.capabilities.resources !== undefined));
		if (serving.length === 1) return {kind: 'resource', upstream: serving[0]!, localName: uri};
		throw resourceNotFound(uri, serving.map(upstream => upstream.name));
	}

	/** Routes a completion's `ref/resource`: a template's exposed URI, else any URI `routeUri` knows. */
	routeTemplate(uriTemplate: string): Route {
		this.ensureFresh();
		const template = this.templateByUri.get(uriTemplate);
		if (template !== undefined) return {kind: 'template', upstream: this.upstreams.get(template.server)!, localName: template.own};
		return {...this.routeUri(uriTemplate), kind: 'template'};
	}

	/**
	 * The URI clients see for `uri` of `server`: its own, unless another
	 * upstream owns it. `handedOut`: it came in a result (a tool's
	 * resource_link or embedded resource, a prompt's or a read's contents),
	 * and is remembered so a read of it reaches `server`.
	 */
	exposeUri(server: string, uri: string, handedOut = false): string {
		this.ensureFresh();
		const owner = this.uriOwner(uri) ?? (handedOut ? this.book.claim(uri, server) : server);
		return owner === server ? uri : hangarUri(server, uri);
	}

	/**
	 * Rewrites, in place, the URIs in content items a result of `server`
	 * carries (`resource_link` and embedded `resource` items) to what clients
	 * see; anything else is left untouched. Cheap when there are none: one
	 * pass over the items' types.
	 */
	exposeContent(server: string, content: unknown): void {
		const items = Array.isArray(content) ? content : [content];
		for (const item of items) {
			if (typeof item !== 'object' || item === null) continue;
			const record = item as {type?: unknown; uri?: unknown; resource?: {uri?: unknown}};
			if (record.type === 'resource_link' && typeof record.uri === 'string') {
				record.uri = this.exposeUri(server, record.uri, true);
			} else if (record.type === 'resource' && typeof record.resource === 'object' && record.resource !== null && typeof record.resource.uri === 'string') {
				record.resource.uri = this.exposeUri(server, record.resource.uri, true);
			}
		}
	}

	private uriOwner(uri: string): string | undefined {
		return this.listedOwner.get(uri) ?? this.book.owner(uri) ?? this.templateOwner(uri);
	}

	/** The upstream whose template matches `uri` most specifically (then first in config order). */
	private templateOwner(uri: string): string | undefined {
		let best: {server: string; specificity: number} | undefined;
		for (const {server, matcher} of this.matchers) {
			if ((best === undefined || matcher.specificity > best.specificity) && matcher.matches(uri)) best = {server, specificity: matcher.specificity};
		}

		return best?.server;
	}

	/**
	 * The exposed sets are derived on demand: events only mark them dirty,
	 * reads rebuild them. Whether one changed is judged from each upstream's
	 * visibility and list revisions, not by serializing every schema; a kind
	 * whose inputs did not change (most transitions: starting, ready,
	 * degraded, ...) keeps its set and indexes.
	 */
	private ensureFresh(): void {
		if (!this.dirty) return;
		this.dirty = false;
		const present = [...this.upstreams.values()].filter(upstream => takesPart(upstream));
		const visibility = (upstream: Upstream) => `${upstream.name}:${isHidden(upstream) ? 0 : 1}`;
		const next: Signatures = {
			tools: present.map(upstream => `${visibility(upstream)}:${upstream.toolsRevision}`).join('|'),
			resources: present.map(upstream => `${visibility(upstream)}:${upstream.resourcesRevision}`).join('|'),
			prompts: present.map(upstream => `${visibility(upstream)}:${upstream.promptsRevision}`).join('|'),
		};
		const kinds: ExposedKind[] = ['tools', 'resources', 'prompts'];
		for (const kind of kinds) {
			if (this.initialized && next[kind] === this.signatures[kind]) continue;
			if (this.initialized) this.changed.add(kind);
			if (kind === 'tools') this.buildTools(present);
			else if (kind === 'prompts') this.buildPrompts(present);
			else this.buildResources(present);
		}

		this.signatures = next;
		this.initialized = true;
	}

	private buildTools(present: Upstream[]): void {
		const named = ownNames(
			'tool',
			present,
			upstream => upstream.tools,
			(upstream, definition: ToolDefinition, name): ExposedTool => ({name, server: upstream.name, tool: definition.name, definition}),
		);
		this.toolOwners = named.owners;
		this.exposed = named.exposed;
		this.nameClashes.tool = named.clashes;
		this.byName = new Map(this.exposed.map(tool => [tool.name, tool]));
		this.toolByOwnName = uniqueOwnNames(this.exposed, tool => tool.tool, this.byName);
		this.searchIndex = undefined;
	}

	private buildPrompts(present: Upstream[]): void {
		const named = ownNames(
			'prompt',
			present,
			upstream => upstream.catalog.prompts,
			(upstream, definition: PromptDefinition, name): ExposedPrompt => ({name, server: upstream.name, prompt: definition.name, definition}),
		);
		this.promptOwners = named.owners;
		this.prompts = named.exposed;
		this.nameClashes.prompt = named.clashes;
		this.promptByName = new Map(this.prompts.map(prompt => [prompt.name, prompt]));
		this.promptByOwnName = uniqueOwnNames(this.prompts, prompt => prompt.prompt, this.promptByName);
		this.promptIndex = undefined;
	}

	private buildResources(present: Upstream[]): void {
		const listedOwner = new Map<string, string>();
		for (const upstream of present) {
			for (const resource of upstream.catalog.resources) {
				if (!listedOwner.has(resource.uri)) listedOwner.set(resource.uri, upstream.name);
			}
		}

		this.listedOwner = listedOwner;
		this.matchers = present.flatMap(upstream => upstream.catalog.resourceTemplates.map(template => ({server: upstream.name, matcher: new TemplateMatcher(template.uriTemplate)})));
		const resources: ExposedResource[] = [];
		const templates: ExposedTemplate[] = [];
		const templateOwner = new Map<string, string>();
		for (const upstream of present) {
			const hidden = isHidden(upstream);
			const seen = new Set<string>();
			for (const definition of upstream.catalog.resources) {
				// Listed twice by the same upstream: the first counts.
				if (seen.has(definition.uri)) continue;
				seen.add(definition.uri);
				const owner = listedOwner.get(definition.uri)!;
				const uri = owner === upstream.name ? definition.uri : hangarUri(upstream.name, definition.uri);
				if (!hidden) resources.push({uri, server: upstream.name, own: definition.uri, definition: {...definition, uri}});
			}

			for (const definition of upstream.catalog.resourceTemplates) {
				const owner = templateOwner.get(definition.uriTemplate) ?? upstream.name;
				templateOwner.set(definition.uriTemplate, owner);
				const uriTemplate = owner === upstream.name ? definition.uriTemplate : hangarUri(upstream.name, definition.uriTemplate);
				if (!hidden) templates.push({uriTemplate, server: upstream.name, own: definition.uriTemplate, definition: {...definition, uriTemplate}});
			}
		}

		this.resourceList = resources;
		this.templateList = templates;
		this.templateByUri = new Map(templates.map(template => [template.uriTemplate, template]));
	}
}
