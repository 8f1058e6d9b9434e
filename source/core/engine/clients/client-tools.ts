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
 * client (README: "Several clients, one upstream").
 */
import type {ToolDefinition} from '../../config/read-config.js';
import {isHidden} from '../routing/exposed-names.js';
import type {ExposedTool} from '../routing/router.js';
import {exposedName} from '../routing/tool-names.js';
import {canonicalJson} from '../upstream/pins.js';
import type {Upstream} from '../upstream/upstream.js';
import {sessionCapabilities, sharedCapabilities} from './client-relay.js';
import type {ClientRecord} from './clients.js';

/** The capabilities a session's per-client instances are told, as one comparable string. */
export function profileOf(client: ClientRecord): string {
	return canonicalJson(sessionCapabilities(client.declaredCapabilities));
}

/** What a per-client server's template is told (and so what its own list is the list of). */
const templateProfile = canonicalJson(sharedCapabilities.auto);

/** What the session views need of the supervisor. */
export type ClientToolsHost = {
	/** The exposed tools every client shares (the router's). */
	tools(): readonly ExposedTool[];
	/** The servers that run one instance per client session now. */
	perClientTemplates(): Iterable<Upstream>;
	/** A session's instance of a template, if it has one. */
	instanceOf(template: Upstream, client: ClientRecord): Upstream | undefined;
	/** A session's instance of a template, created when it has none. */
	instanceFor(template: Upstream, client: ClientRecord): Upstream;
};

type View = {base: readonly ExposedTool[]; lists: ReadonlyArray<readonly ToolDefinition[] | undefined>; tools: readonly ExposedTool[]};

export class ClientTools {
	/** Each template's lists by profile, from its instances' live lists (a reload makes a new template: its lists start empty). */
	private readonly byProfile = new WeakMap<Upstream, Map<string, readonly ToolDefinition[]>>();
	/** The instances whose first live list was learned already (see `learned`). */
	private readonly taught = new WeakSet<Upstream>();
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

		lists.set(profileOf(client), instance.tools);
	}

	/** The list a session sees of one per-client server, or undefined where that is the template's. */
	private listOf(template: Upstream, client: ClientRecord): readonly ToolDefinition[] | undefined {
		if (isHidden(template)) return undefined;
		const instance = this.host.instanceOf(template, client);
		if (instance !== undefined && instance.toolsSource === 'live') return instance.tools;
		const profile = profileOf(client);
		if (profile === templateProfile) return undefined;
		return this.byProfile.get(template)?.get(profile);
	}

	/** The per-client servers whose list this session cannot know without its own instance listing. */
	private unknown(client: ClientRecord): Upstream[] {
		const profile = profileOf(client);
		if (profile === templateProfile) return [];
		return [...this.host.perClientTemplates()].filter(template => !isHidden(template) && this.listOf(template, client) === undefined);
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
		const reason = `on demand: its client session listed tools, and what it lists depends on its client's capabilities`;
		await Promise.all(
			templates.map(async template => {
				const instance = this.host.instanceFor(template, client);
				// A session that closed, or a server switched off meanwhile, gets no instance: nothing to wait for.
				if (instance !== template) await instance.warm(reason, signal);
			}),
		);
	}

	/** The tools `client` sees: the shared set, with each per-client server's tools replaced by its own list. */
	toolsFor(client: ClientRecord | undefined): readonly ExposedTool[] {
		const base = this.host.tools();
		if (client === undefined) return base;
		const templates = [...this.host.perClientTemplates()];
		if (templates.length === 0) return base;
		const lists = templates.map(template => this.listOf(template, client));
		if (lists.every(list => list === undefined)) return base;
		const last = this.views.get(client);
		if (last !== undefined && last.base === base && last.lists.length === lists.length && last.lists.every((list, index) => list === lists[index])) return last.tools;
		const tools = replaceLists(base, templates, lists);
		this.views.set(client, {base, lists, tools});
		return tools;
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
