/**
 * The prompts, resources and resource templates a 2026-07-28 client sees:
 * the shared lists (the router's), with each dual-era upstream's replaced
 * by what its 2026-07-28 mode lists (its era twin, or the client's own
 * instance of a per-client server, opened so: era-twins.ts), as the client
 * would see them directly. A prompt or resource only that path has routes
 * there. Every other client sees the router's lists unchanged.
 */
import {isHidden, uniqueOwnNames} from '../routing/exposed-names.js';
import {hangarUri} from '../routing/resource-uris.js';
import type {ExposedPrompt, ExposedResource, ExposedTemplate, Route, RouteScope, Router} from '../routing/router.js';
import {exposedName} from '../routing/tool-names.js';
import type {Upstream} from '../upstream/upstream.js';
import type {ClientRecord} from './clients.js';

/** What the views need of the supervisor. */
export type ClientCatalogHost = {
	readonly router: Router;
	/** The dual-era upstreams that serve this client from their 2026-07-28 mode (none for a 2025 client). */
	modernTemplates(client: ClientRecord): Upstream[];
	/** The instance that serves the client for a template (its era twin), if one was made. */
	instanceOf(template: Upstream, client: ClientRecord): Upstream | undefined;
	/** Starts (and waits for) the instances whose lists this client needs and nobody has read yet (ClientTools.prepare). */
	prepare(client: ClientRecord, signal: AbortSignal): Promise<void>;
};

/** One dual-era template and the instance whose lists replace its own. */
type Replacement = {template: Upstream; instance: Upstream};

export class ClientCatalog {
	constructor(private readonly host: ClientCatalogHost) {}

	prompts(client: ClientRecord | undefined): readonly ExposedPrompt[] {
		const base = this.host.router.exposedPrompts();
		const replacements = this.replacements(client);
		if (replacements.length === 0) return base;
		return replaceByServer(base, replacements, ({template, instance}, taken) =>
			instance.catalog.prompts.map(definition => ({name: exposedName(template.config.namespace, definition.name), server: template.name, prompt: definition.name, definition})).filter(prompt => !taken.has(prompt.name)),
		);
	}

	resources(client: ClientRecord | undefined): readonly ExposedResource[] {
		const base = this.host.router.resources();
		const replacements = this.replacements(client);
		if (replacements.length === 0) return base;
		return replaceByServer(base, replacements, ({template, instance}, taken) =>
			instance.catalog.resources.map(definition => {
				const uri = taken.has(definition.uri) ? hangarUri(template.name, definition.uri) : definition.uri;
				return {uri, server: template.name, own: definition.uri, definition: {...definition, uri}};
			}),
		);
	}

	resourceTemplates(client: ClientRecord | undefined): readonly ExposedTemplate[] {
		const base = this.host.router.resourceTemplates();
		const replacements = this.replacements(client);
		if (replacements.length === 0) return base;
		return replaceByServer(base, replacements, ({template, instance}, taken) =>
			instance.catalog.resourceTemplates.map(definition => {
				const uriTemplate = taken.has(definition.uriTemplate) ? hangarUri(template.name, definition.uriTemplate) : definition.uriTemplate;
				return {uriTemplate, server: template.name, own: definition.uriTemplate, definition: {...definition, uriTemplate}};
			}),
		);
	}

	/** Routes prompts/get (or a completion's ref/prompt) by the name this client sees, when a dual-era upstream serves it; undefined: the router's. */
	async routePrompt(client: ClientRecord | undefined, name: string, scope: RouteScope): Promise<Route | undefined> {
		if (client === undefined || this.host.modernTemplates(client).length === 0) return undefined;
		let found = this.findPrompt(client, name);
		if (found === undefined && this.unread(client)) {
			const signal = scope.deadline === undefined ? scope.signal : AbortSignal.any([scope.signal, AbortSignal.timeout(scope.deadline.remainingMs)]);
			await this.host.prepare(client, signal);
			found = this.findPrompt(client, name);
		}

		const template = found === undefined ? undefined : this.host.modernTemplates(client).find(candidate => candidate.name === found.server);
		return template === undefined ? undefined : {kind: 'prompt', upstream: template, localName: found!.prompt};
	}

	/** Routes a resource URI this client was listed by a dual-era upstream's 2026-07-28 mode; undefined: the router's. */
	routeUri(client: ClientRecord | undefined, uri: string): Route | undefined {
		const replacements = this.replacements(client);
		if (replacements.length === 0) return undefined;
		const found = this.resources(client).find(resource => resource.uri === uri);
		const template = found === undefined ? undefined : replacements.find(replacement => replacement.template.name === found.server)?.template;
		return template === undefined ? undefined : {kind: 'resource', upstream: template, localName: found!.own};
	}

	/** A prompt of a dual-era upstream's 2026-07-28 mode by the name this client sees, or by its own name where no other takes it. */
	private findPrompt(client: ClientRecord, name: string): ExposedPrompt | undefined {
		const prompts = this.prompts(client);
		const byName = new Map(prompts.map(prompt => [prompt.name, prompt]));
		const found = byName.get(name) ?? uniqueOwnNames(prompts, prompt => prompt.prompt, byName).get(name);
		return found !== undefined && this.host.modernTemplates(client).some(template => template.name === found.server) ? found : undefined;
	}

	/** Whether a dual-era upstream serving this client has not listed its 2026-07-28 mode yet. */
	private unread(client: ClientRecord): boolean {
		return this.host.modernTemplates(client).some(template => !isHidden(template) && this.host.instanceOf(template, client)?.catalog.source !== 'live');
	}

	private replacements(client: ClientRecord | undefined): Replacement[] {
		if (client === undefined || !client.modern) return [];
		const found: Replacement[] = [];
		for (const template of this.host.modernTemplates(client)) {
			const instance = this.host.instanceOf(template, client);
			if (!isHidden(template) && instance !== undefined && instance.catalog.source === 'live') found.push({template, instance});
		}

		return found;
	}
}

/**
 * `base` with the items of each replaced server swapped for `own`'s, placed
 * where that server's first item stood (at the end when it had none);
 * `taken`: the names (or URIs) the other servers keep.
 */
function replaceByServer<T extends {server: string}>(base: readonly T[], replacements: readonly Replacement[], own: (replacement: Replacement, taken: ReadonlySet<string>) => T[]): T[] {
	const replaced = new Map(replacements.map(replacement => [replacement.template.name, replacement]));
	const key = (item: T): string => {
		const record = item as unknown as {name?: string; uri?: string; uriTemplate?: string};
		return record.name ?? record.uri ?? record.uriTemplate ?? '';
	};

	const taken = new Set(base.filter(item => !replaced.has(item.server)).map(key));
	const items: T[] = [];
	const placed = new Set<string>();
	const place = (server: string): void => {
		placed.add(server);
		items.push(...own(replaced.get(server)!, taken));
	};

	for (const item of base) {
		if (!replaced.has(item.server)) items.push(item);
		else if (!placed.has(item.server)) place(item.server);
	}

	for (const server of replaced.keys()) if (!placed.has(server)) place(server);
	return items;
}
