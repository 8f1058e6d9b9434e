/**
 * Keeping an upstream's lists current while it runs: the tool list and the
 * catalog (resources, templates, prompts) as a start read them, and read
 * again after a list_changed or the periodic refresh. A refreshed tool list
 * whose pinned tools changed is a rug pull, handed to the lifecycle; a
 * reply from a connection that has since gone is dropped.
 */
import type {HangarSettings, ToolDefinition} from '../../config/read-config.js';
import type {UpstreamConnection} from '../../link/connection.js';
import type {LogBuffer} from '../../link/log-buffer.js';
import type {Catalog, CatalogKind, CatalogLists, ServerCapabilities} from './catalog.js';
import type {Lifecycle} from './lifecycle.js';
import type {ToolList} from './tool-list.js';
import type {UpstreamState} from './upstream-state.js';

/** What the refresh is given: the lists it changes, the live connection, and who is told. */
export type ListRefreshDeps = {
	settings: HangarSettings;
	toolList: ToolList;
	catalog: Catalog;
	log: LogBuffer;
	lifecycle: Pick<Lifecycle, 'connection' | 'rugPull'>;
	state(): UpstreamState;
	/** Its tool list changed. */
	toolsChanged(): void;
	/** Its resources, templates or prompts changed. */
	catalogChanged(): void;
};

export class ListRefresh {
	constructor(private readonly deps: ListRefreshDeps) {}

	setTools(tools: ToolDefinition[]): void {
		this.deps.toolList.set(tools, 'live');
		this.deps.toolsChanged();
	}

	setCatalog(capabilities: ServerCapabilities, lists: Partial<CatalogLists>): void {
		const {catalog} = this.deps;
		const before = `${catalog.resourcesRevision}:${catalog.promptsRevision}`;
		const wasUnknown = catalog.capabilities === undefined;
		catalog.setLive(capabilities, lists);
		if (wasUnknown || before !== `${catalog.resourcesRevision}:${catalog.promptsRevision}`) this.deps.catalogChanged();
	}

	/** Re-reads some of its catalog lists after a list_changed; bursts coalesce per list. */
	refreshCatalog(kinds: CatalogKind[], why: string, settled: (kind: CatalogKind) => void = () => {}): void {
		const {lifecycle} = this.deps;
		const connection: UpstreamConnection | undefined = lifecycle.connection();
		if (connection === undefined) {
			for (const kind of kinds) settled(kind);
			return;
		}

		for (const kind of kinds) {
			this.deps.catalog.refresh(
				kind,
				why,
				async () => {
					const list = await connection.listAll(kind, AbortSignal.timeout(this.deps.settings.pingTimeoutMs * 2));
					if (connection !== lifecycle.connection()) return undefined;
					return list as never;
				},
				() => settled(kind),
			);
		}
	}

	/** Re-reads the tool list; coalesces bursts of list_changed into at most one extra refresh. */
	refreshTools(why: string, settled: () => void = () => {}): void {
		const {lifecycle, toolList} = this.deps;
		const connection = lifecycle.connection();
		if (connection === undefined) {
			settled();
			return;
		}

		toolList.refresh(
			why,
			async () => connection.listTools(AbortSignal.timeout(this.deps.settings.pingTimeoutMs * 2)),
			(tools, reason) => {
				const state = this.deps.state();
				if (connection !== lifecycle.connection() || (state !== 'ready' && state !== 'degraded')) return;
				const changes = toolList.pinnedChanges(tools);
				if (changes.length > 0) {
					lifecycle.rugPull(changes, tools, 'running');
					return;
				}

				this.deps.log.push('hangar', `tool list refreshed (${tools.length} tools): ${reason}`);
				this.setTools(tools);
			},
			settled,
		);
	}
}
