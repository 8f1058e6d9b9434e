/**
 * The tools each client session sees of the servers that run one instance
 * per client. An upstream may list tools depending on what its client can
 * do (server-everything lists its sampling, elicitation, URL-elicitation and
 * roots tools only to a client that declared them), and each per-client
 * instance is told exactly its own client's capabilities: so a session sees
 * what its own instance lists, as it would directly, and not the template's
 * list (which is told the most capable set, see `sharedCapabilities`).
 *
 * Lists are learned per capability profile (the capabilities an instance is
 * told, as canonical JSON) from each instance's first live list, in memory for
 * this run: a session whose profile is the template's sees the template's
 * list; one whose profile no instance has listed yet has its own instance
 * started by its first `tools/list` (`prepare`), which then waits for it
 * within the first list's wait. Shared servers have one list for every
 * client (README: "Several clients, one upstream"), but a dual-era one: a
 * 2026-07-28 client sees its era twin's list (era-twins.ts), as it would
 * directly, and a tool only that path has routes there (`route`).
 */
import {createHash} from 'node:crypto';
import type {ToolDefinition} from '../../config/read-config.js';
import {isHidden, uniqueOwnNames} from '../routing/exposed-names.js';
import type {ExposedTool, Route, RouteScope} from '../routing/router.js';
import {exposedName} from '../routing/tool-names.js';
import {canonicalJson} from '../upstream/pins.js';
import type {Upstream} from '../upstream/upstream.js';
import {sessionCapabilities, sharedCapabilities} from './client-relay.js';
import type {ClientRecord} from './clients.js';

/**
 * The capabilities a session's per-client instances are told, as one
 * comparable key of fixed size (their canonical JSON's SHA-256: a client
 * declares what it likes, of any size); `modern`: of an instance in
 * 2026-07-28 mode, whose list is its own path's.
 */
export function profileOf(client: ClientRecord, modern = false): string {
	return profileKey(canonicalJson(sessionCapabilities(client.declaredCapabilities)), modern);
}

function profileKey(profile: string, modern = false): string {
	return createHash('sha256').update(modern ? `2026-07-28 ${profile}` : profile).digest('base64');
}

/** What a per-client server's template is told (and so what its own list is the list of). */
const templateProfile = profileKey(canonicalJson(sharedCapabilities.auto));

/**
 * Lists kept per template, at most: clients choose their capabilities, so
 * sessions that each declare new ones must not grow memory without end. Past
 * it the oldest learned profile goes; a session of it lists from its own
 * instance again.
 */
export const maxProfilesKept = 64;

/** What the session views need of the supervisor. */
export type ClientToolsHost = {
	/** The exposed tools every client shares (the router's). */
	tools(): readonly ExposedTool[];
	/** The servers whose list a session may not share: those that run one instance per client session now, and, for a 2026-07-28 client, the dual-era ones. */
	ownListTemplates(client: ClientRecord): Iterable<Upstream>;
	/** Whether the session is served by the template's 2026-07-28 mode (see era-twins.ts). */
	servesModern(template: Upstream, client: ClientRecord): boolean;
	/** A session's instance of a template (its own, or the era twin it is served by), if it has one. */
	instanceOf(template: Upstream, client: ClientRecord): Upstream | undefined;
	/** A session's instance of a template, created when it has none. */
	instanceFor(template: Upstream, client: ClientRecord, operation: string): Upstream;
};

type View = {base: readonly ExposedTool[]; lists: ReadonlyArray<readonly ToolDefinition[] | undefined>; tools: readonly ExposedTool[]; byName?: Map<string, ExposedTool>; byOwn?: Map<string, ExposedTool>};

export class ClientTools {
	/** Each template's lists by profile, from its instances' live lists (a reload makes a new template: its lists start empty). */
	private readonly byProfile = new WeakMap<Upstream, Map<string, readonly ToolDefinition[]>>();
	/** The instances whose first live list was learned already (see `learned`). */
	private readonly taught = new WeakSet<Upstream>();
	/** What each instance's session was last shown of its list (JSON), to tell a list that changed from one that did not. */
	private readonly shown = new WeakMap<Upstream, string>();
	/** The last view built for each session, reused while nothing it was built from changed. */
	private readonly views = new WeakMap<ClientRecord, View>();

	constructor(private readonly host: ClientToolsHost) {}

	/**
	 * An instance listed its tools: its first live list is the list of its
	 * client's profile. Only the first: a later list may hold what that
	 * client did (a tool it made), which another client of the same profile
	 * must never see before its own instance lists.
	 */
	learned(template: Upstream, instance: Upstream, client: ClientRecord): void {
		if (instance.toolsSource !== 'live' || this.taught.has(instance)) return;
		this.taught.add(instance);
		let lists = this.byProfile.get(template);
		if (lists === undefined) {
			lists = new Map();
			this.byProfile.set(template, lists);
		}

		const profile = profileOf(client, instance.drivenIn === 'modern');
		lists.delete(profile);
		if (lists.size >= maxProfilesKept) lists.delete(lists.keys().next().value!);
		lists.set(profile, instance.tools);
	}

	/**
	 * An instance listed its tools: learns them (see `learned`) and says
	 * whether its session's list of that server changed. Before the
	 * instance's first live list its session saw its profile's list, or the
	 * template's; an instance that lists just that (the common case: every
	 * session of a per-client server starts its own) changes nothing its
	 * client could see, and its client gets no list_changed, as it would get
	 * none from the upstream directly.
	 */
	listed(template: Upstream, instance: Upstream, client: ClientRecord): boolean {
		// Not live: the session's list is not the instance's (listOf); it may have gone back to the shared one.
		if (instance.toolsSource !== 'live') return true;
		const before = this.shown.get(instance) ?? JSON.stringify(this.byProfile.get(template)?.get(profileOf(client, instance.drivenIn === 'modern')) ?? template.tools);
		const now = JSON.stringify(instance.tools);
		this.shown.set(instance, now);
		this.learned(template, instance, client);
		return now !== before;
	}

	/** The list a session sees of one per-client or dual-era server, or undefined where that is the template's. */
	private listOf(template: Upstream, client: ClientRecord): readonly ToolDefinition[] | undefined {
		if (isHidden(template)) return undefined;
		const instance = this.host.instanceOf(template, client);
		if (instance !== undefined && instance.toolsSource === 'live') return instance.tools;
		const modern = this.host.servesModern(template, client);
		const profile = profileOf(client, modern);
		if (profile === templateProfile) return undefined;
		return this.byProfile.get(template)?.get(profile);
	}

	/** The per-client (or, for a 2026-07-28 client, dual-era) servers whose list this session cannot know without its own instance (or era twin) listing. */
	private unknown(client: ClientRecord): Upstream[] {
		return [...this.host.ownListTemplates(client)].filter(
			template => !isHidden(template) && (this.host.servesModern(template, client) || profileOf(client) !== templateProfile) && this.listOf(template, client) === undefined,
		);
	}

	/**
	 * Before a session's tools/list: starts its own instance of each
	 * per-client server whose list for a client like it is not known yet,
	 * and waits for them (until `signal`). An instance that fails to start
	 * leaves the template's list in place.
	 */
	async prepare(client: ClientRecord, signal: AbortSignal): Promise<void> {
		const templates = this.unknown(client);
		if (templates.length === 0) return;
		await Promise.all(
			templates.map(async template => {
				const reason = this.host.servesModern(template, client)
					? `on demand: a 2026-07-28 client needs what its 2026-07-28 mode lists`
					: `on demand: its client session listed tools, and what it lists depends on its client's capabilities`;
				let instance: Upstream;
				try {
					instance = this.host.instanceFor(template, client, 'tools/list');
				} catch {
					// The per-client instance limit is reached (clients/instance-limit.ts): the template's list stays; its calls are refused, saying why.
					return;
				}

				// A session that closed, or a server switched off meanwhile, gets no instance: nothing to wait for.
				if (instance !== template) await instance.warm(reason, signal);
			}),
		);
	}

	/** The tools `client` sees: the shared set, with each per-client server's tools replaced by its own list. */
	toolsFor(client: ClientRecord | undefined): readonly ExposedTool[] {
		const base = this.host.tools();
		if (client === undefined) return base;
		const templates = [...this.host.ownListTemplates(client)];
		if (templates.length === 0) return base;
		const lists = templates.map(template => this.listOf(template, client));
		if (lists.every(list => list === undefined)) return base;
		const last = this.views.get(client);
		if (last !== undefined && last.base === base && last.lists.length === lists.length && last.lists.every((list, index) => list === lists[index])) return last.tools;
		const tools = replaceLists(base, templates, lists);
		this.views.set(client, {base, lists, tools});
		return tools;
	}

	/**
	 * Routes a 2026-07-28 client's tools/call by the name it sees, where its
	 * list is not the shared one (a tool only a dual-era upstream's
	 * 2026-07-28 mode lists); undefined: the router's. A call made before
	 * that mode has listed waits for it (within the request's signal and deadline).
	 */
	route(client: ClientRecord | undefined, name: string, scope: RouteScope): Promise<Route | undefined> | undefined {
		// A 2025 client's call routes by the router, as before: nothing on its hot path, not even a promise.
		if (client?.modern !== true) return undefined;
		return this.ownRoute(client, name, scope);
	}

	private async ownRoute(client: ClientRecord, name: string, scope: RouteScope): Promise<Route | undefined> {
		let found = this.lookup(client, name);
		if (found === undefined && this.unknown(client).length > 0) {
			const signal = scope.deadline === undefined ? scope.signal : AbortSignal.any([scope.signal, AbortSignal.timeout(scope.deadline.remainingMs)]);
			await this.prepare(client, signal);
			found = this.lookup(client, name);
		}

		if (found === undefined) return undefined;
		const upstream = [...this.host.ownListTemplates(client)].find(template => template.name === found.server);
		return upstream === undefined ? undefined : {kind: 'tool', upstream, localName: found.tool};
	}

	/** A name in this session's own view (exposed, or a tool's own name no other takes), when it has one. */
	private lookup(client: ClientRecord, name: string): ExposedTool | undefined {
		const tools = this.toolsFor(client);
		const view = this.views.get(client);
		if (view === undefined || view.tools !== tools) return undefined;
		view.byName ??= new Map(tools.map(tool => [tool.name, tool]));
		view.byOwn ??= uniqueOwnNames(tools, tool => tool.tool, view.byName);
		return view.byName.get(name) ?? view.byOwn.get(name);
	}
}

/** `base` with the tools of each template given a list replaced by that list, where the template's first tool stood; names other servers keep stay theirs. */
function replaceLists(base: readonly ExposedTool[], templates: readonly Upstream[], lists: ReadonlyArray<readonly ToolDefinition[] | undefined>): ExposedTool[] {
	const replaced = new Map<string, readonly ToolDefinition[]>();
	for (const [index, template] of templates.entries()) {
		const list = lists[index];
		if (list !== undefined) replaced.set(template.name, list);
	}

	const kept = new Set(base.filter(tool => !replaced.has(tool.server)).map(tool => tool.name));
	const own = (server: string, namespace: string | false, list: readonly ToolDefinition[]): ExposedTool[] =>
		list.map(definition => ({name: exposedName(namespace, definition.name), server, tool: definition.name, definition})).filter(tool => !kept.has(tool.name));
	const tools: ExposedTool[] = [];
	const placed = new Set<string>();
	for (const tool of base) {
		const list = replaced.get(tool.server);
		if (list === undefined) {
			tools.push(tool);
			continue;
		}

		if (placed.has(tool.server)) continue;
		placed.add(tool.server);
		const template = templates.find(candidate => candidate.name === tool.server)!;
		tools.push(...own(tool.server, template.config.namespace, list));
	}

	// A server whose template lists nothing shown (all its tools depend on capabilities the template lacks): at the end.
	for (const template of templates) {
		const list = replaced.get(template.name);
		if (list !== undefined && !placed.has(template.name)) tools.push(...own(template.name, template.config.namespace, list));
	}

	return tools;
}
