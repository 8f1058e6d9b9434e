/**
 * What an upstream serves besides tools: the server capabilities it answered
 * `initialize` with, its resources, resource templates and prompts. Like its
 * tool list (`ToolList`), each is live (read from the running upstream) or
 * cached (persisted by an earlier run, so a cold upstream's capabilities and
 * lists are known without starting it), with the time it was last verified
 * and a revision per kind that changes only when the content does. Re-reads
 * after `notifications/*\/list_changed` coalesce like the tool list's.
 */
import type {LogBuffer} from '../../link/log-buffer.js';
import type {StateStore} from '../state-store.js';

/** A resource as the upstream listed it (its own URI); other fields pass through untouched. */
export type ResourceDefinition = {uri: string; name: string; [field: string]: unknown};
export type ResourceTemplateDefinition = {uriTemplate: string; name: string; [field: string]: unknown};
export type PromptDefinition = {
	name: string;
	title?: string | undefined;
	description?: string | undefined;
	arguments?: Array<{name: string; description?: string | undefined; required?: boolean | undefined}> | undefined;
	[field: string]: unknown;
};

/** The part of an upstream's `initialize` answer hangar reads; the rest is kept as it came. */
export type ServerCapabilities = {
	resources?: {subscribe?: boolean | undefined; listChanged?: boolean | undefined} | undefined;
	prompts?: {listChanged?: boolean | undefined} | undefined;
	completions?: Record<string, unknown> | undefined;
	[capability: string]: unknown;
};

export type CatalogLists = {
	resources: ResourceDefinition[];
	resourceTemplates: ResourceTemplateDefinition[];
	prompts: PromptDefinition[];
};

export type CatalogKind = keyof CatalogLists;
export const catalogKinds: readonly CatalogKind[] = ['resources', 'resourceTemplates', 'prompts'];

/** What the state store keeps of a catalog. */
export type PersistedCatalog = CatalogLists & {capabilities: ServerCapabilities; verifiedAt: number};

export type CatalogSource = 'live' | 'cache' | 'none';

/** Which list a capability stands for: an upstream without it is never asked for the list. */
export function servesKind(capabilities: ServerCapabilities, kind: CatalogKind): boolean {
	return kind === 'prompts' ? capabilities.prompts !== undefined : capabilities.resources !== undefined;
}

export class Catalog {
	private caps: ServerCapabilities | undefined;
	private readonly lists: CatalogLists = {resources: [], resourceTemplates: [], prompts: []};
	private from: CatalogSource = 'none';
	private verified: number | undefined;
	/** Bumped when resources or templates change (one notification covers both for clients). */
	resourcesRevision = 0;
	/** Bumped when the prompts change. */
	promptsRevision = 0;
	private readonly refreshing = new Map<CatalogKind, Promise<void>>();
	private readonly refreshAgain = new Set<CatalogKind>();

	constructor(
		private readonly name: string,
		private readonly store: StateStore,
		private readonly log: LogBuffer,
		/** Told when a refresh changed a list. */
		private readonly onRefreshed: () => void = () => {},
		/** False for an era twin: its lists are its 2026-07-28 path's, not the server's to save (nor to start from). */
		private readonly saved = true,
	) {
		const persisted = saved ? store.upstream(name).catalog : undefined;
		if (persisted !== undefined) {
			this.caps = persisted.capabilities;
			this.lists.resources = persisted.resources;
			this.lists.resourceTemplates = persisted.resourceTemplates;
			this.lists.prompts = persisted.prompts;
			this.verified = persisted.verifiedAt;
			this.from = 'cache';
		}
	}

	/** The capabilities of its last `initialize` (this run or a cached one); undefined when never known. */
	get capabilities(): ServerCapabilities | undefined {
		return this.caps;
	}

	get source(): CatalogSource {
		return this.from;
	}

	get verifiedAt(): number | undefined {
		return this.verified;
	}

	get resources(): readonly ResourceDefinition[] {
		return this.lists.resources;
	}

	get resourceTemplates(): readonly ResourceTemplateDefinition[] {
		return this.lists.resourceTemplates;
	}

	get prompts(): readonly PromptDefinition[] {
		return this.lists.prompts;
	}

	/**
	 * Takes what a start read: the capabilities and every list the upstream
	 * serves (a kind it does not serve becomes empty; one whose read failed is
	 * left as it was, `undefined`). Persisted at once.
	 */
	setLive(capabilities: ServerCapabilities, lists: Partial<CatalogLists>): void {
		this.caps = capabilities;
		for (const kind of catalogKinds) {
			const list = lists[kind] ?? (servesKind(capabilities, kind) ? undefined : []);
			if (list !== undefined) this.put(kind, list);
		}

		this.from = 'live';
		this.persist();
	}

	/** Whether a re-read of `kind` is running. */
	isRefreshing(kind: CatalogKind): boolean {
		return this.refreshing.has(kind);
	}

	/** Takes one list re-read after a list_changed. */
	set(kind: CatalogKind, list: CatalogLists[CatalogKind]): void {
		this.put(kind, list);
		this.persist();
	}

	private put(kind: CatalogKind, list: CatalogLists[CatalogKind]): void {
		if (JSON.stringify(list) === JSON.stringify(this.lists[kind])) return;
		(this.lists as Record<CatalogKind, unknown[]>)[kind] = list;
		if (kind === 'prompts') this.promptsRevision += 1;
		else this.resourcesRevision += 1;
	}

	private persist(): void {
		this.verified = Date.now();
		const caps = this.caps;
		if (caps === undefined || !this.saved) return;
		this.store.update(this.name, upstream => {
			upstream.catalog = {capabilities: caps, ...this.lists, verifiedAt: this.verified!};
		});
	}

	/**
	 * Re-reads one list with `read` and takes it; bursts of list_changed
	 * coalesce into at most one extra read per kind. `settled` runs once no
	 * read of `kind` is running or due any more.
	 */
	refresh(kind: CatalogKind, why: string, read: () => Promise<CatalogLists[CatalogKind] | undefined>, settled?: () => void): void {
		if (this.refreshing.has(kind)) {
			this.refreshAgain.add(kind);
			return;
		}

		const running = (async () => {
			try {
				const list = await read();
				if (list !== undefined) {
					const before = `${this.resourcesRevision}:${this.promptsRevision}`;
					this.set(kind, list);
					this.log.push('hangar', `${kind} refreshed (${list.length}): ${why}`);
					if (before !== `${this.resourcesRevision}:${this.promptsRevision}`) this.onRefreshed();
				}
			} catch (error) {
				this.log.push('hangar', `${kind} refresh failed: ${error instanceof Error ? error.message : String(error)}`);
			} finally {
				this.refreshing.delete(kind);
				if (this.refreshAgain.delete(kind)) this.refresh(kind, why, read, settled);
				else settled?.();
			}
		})();
		this.refreshing.set(kind, running);
	}
}
