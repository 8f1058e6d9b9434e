/**
 * Era twins: a dual-era upstream (it answers `server/discover` and the 2025
 * `initialize`, upstream-era.ts saves it as `dual`) is driven in both
 * generations, because a dual-era server may expose different things on
 * its two paths. 2025 clients keep the upstream itself, driven in its 2025
 * mode; 2026-07-28 clients reach its era twin: one more instance of the
 * same server, opened pinned to 2026-07-28 (over HTTP another connection to
 * the same URL, over stdio a second process, since a stdio server decides
 * its era per connection), as each client would reach it directly.
 *
 * A twin is made when a 2026-07-28 client first needs it, starts on its
 * first request and stops when idle like any instance; every modern client
 * shares it (a per-client server's modern clients each get their own
 * instance opened in 2026-07-28 mode instead: `Supervisor.instanceFor`).
 * What a modern upstream asks its client arrives per call as
 * `input_required` (link/input-rounds.ts) and goes to the calling client
 * only, told that client's own capabilities: sharing one twin crosses no
 * clients. A person's stop, restart or quarantine of the server retires
 * its twin with its other instances; its lists are its own, never saved as
 * the server's.
 */
import type {Logger} from '../../base/logger.js';
import type {HangarSettings} from '../../config/read-config.js';
import type {RelayedMethod} from '../../link/client-side.js';
import type {StateStore} from '../state-store.js';
import {Upstream, type ListKind} from '../upstream/upstream.js';
import type {Caller} from './calls-in-flight.js';
import {SharedRelay, type SharedHost} from './client-relay.js';
import type {ClientRecord, ClientRegistry} from './clients.js';

/** The suffix of an era twin's name: `<server>@2026-07-28`. */
export const twinSuffix = '@2026-07-28';

/** What the twins need of the supervisor. */
export type EraTwinsHost = {
	settings(): HangarSettings;
	readonly store: StateStore;
	readonly logger: Logger;
	readonly clients: ClientRegistry;
	/** Ties a twin to the supervisor's events (transitions, activity, tasks, resource updates); returns the untie. */
	follow(twin: Upstream, template: Upstream): () => void;
	/** A twin's list changed (its own list_changed, or its first live list): the modern clients list again. */
	listsChanged(kind: ListKind, meta?: Record<string, unknown>): void;
	/** A twin is let go: its calls stay in the server's totals, as a per-client instance's do (`stopped` settles once it has stopped). */
	keepCounts(template: Upstream, twin: Upstream, stopped: Promise<void>): Promise<void>;
};

/**
 * Whether `client` is served by the 2026-07-28 mode of `template`: a
 * 2026-07-28 client, and an upstream saved as dual-era.
 */
export function servesModern(template: Upstream, client: ClientRecord | undefined): boolean {
	return client?.modern === true && template.dualEra;
}

/**
 * A twin's client side: what it asks comes as `input_required` within one
 * client's call, so it goes to that caller (never learned as client-scoped:
 * a question in a call's own answer has one client), and the upstream is
 * told the calling client's own capabilities in each request's `_meta`.
 */
class TwinRelay extends SharedRelay {
	capabilitiesOf(caller: unknown): Record<string, unknown> | undefined {
		const known = caller as Caller | undefined;
		if (known?.client === undefined) return undefined;
		return known.client.heldCalls.get(known.requestId)?.capabilities ?? known.client.declaredCapabilities;
	}
}

type Twin = {upstream: Upstream; untie: () => void};

export class EraTwins {
	private readonly twins = new Map<Upstream, Twin>();

	constructor(private readonly host: EraTwinsHost) {}

	/** The twin of `template`, if one was made. */
	twinOf(template: Upstream): Upstream | undefined {
		return this.twins.get(template)?.upstream;
	}

	/** Every twin now, for shutdown and status. */
	all(): Upstream[] {
		return [...this.twins.values()].map(twin => twin.upstream);
	}

	/** The twin of `template`, made (cold) when it has none. */
	twinFor(template: Upstream): Upstream {
		const known = this.twins.get(template);
		if (known !== undefined) return known.upstream;
		const name = `${template.name}${twinSuffix}`;
		const logger = this.host.logger.child(name);
		let upstream: Upstream | undefined;
		const relayHost: SharedHost = {
			setting: 'auto',
			runsPerClient: () => false,
			get callers() {
				return upstream!.callers;
			},
			clientScoped: (_method: RelayedMethod) => {},
			// A 2026-07-28 upstream asks about its tasks in their input_required (held-inputs), never in a related-task request.
			taskOwner: () => undefined,
		};
		upstream = new Upstream(template.config, this.host.settings(), this.host.store, logger, new TwinRelay(this.host.clients, relayHost, logger), name, {}, 'modern');
		const twin = upstream;
		const onTools = (): void => this.host.listsChanged('tools');
		const onCatalog = (): void => {
			this.host.listsChanged('prompts');
			this.host.listsChanged('resources');
		};

		const onListMeta = (kind: ListKind, meta: Record<string, unknown>): void => this.host.listsChanged(kind, meta);
		const untieHost = this.host.follow(twin, template);
		twin.on('tools', onTools);
		twin.on('catalog', onCatalog);
		twin.on('listMeta', onListMeta);
		const untie = (): void => {
			untieHost();
			twin.off('tools', onTools);
			twin.off('catalog', onCatalog);
			twin.off('listMeta', onListMeta);
		};

		twin.log.push('hangar', `era twin of "${template.name}": the same server driven in its 2026-07-28 mode, for 2026-07-28 clients (its 2025 mode serves 2025 clients)`);
		this.twins.set(template, {upstream: twin, untie});
		return twin;
	}

	/** Shuts the twin of `template` down (a person's stop, restart or quarantine, a reload, shutdown); a modern client's next request makes a new one. */
	async retire(template: Upstream, reason: string): Promise<number> {
		const twin = this.twins.get(template);
		if (twin === undefined) return 0;
		this.twins.delete(template);
		twin.untie();
		await this.host.keepCounts(template, twin.upstream, twin.upstream.shutdown(reason).then(() => {}, () => {}));
		return 1;
	}
}
