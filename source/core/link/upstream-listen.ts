/**
 * `subscriptions/listen` toward a 2026-07-28 upstream: that era has no
 * unsolicited `list_changed` and no `resources/subscribe`, so hangar holds
 * one listen stream open to each running modern upstream for what it needs:
 * the list changes the upstream offers (`tools|prompts|resources.listChanged`
 * in its capabilities) and the URIs clients subscribed to on it. What
 * arrives on the stream reaches the connection's ordinary notification
 * handlers (the SDK dispatches a listen's notifications to them), so it is
 * routed exactly as a 2025 upstream's unsolicited notifications are.
 *
 * The filter of a listen is fixed when it opens, so a change of the URIs
 * watched opens a new listen (acknowledged first) and then closes the old
 * one: no change is lost in between, at the cost of a possible duplicate.
 * Changes asked for while a re-open runs are batched into the next one. A
 * stream the upstream drops while the connection stays open is opened again
 * with a growing delay; a restarted upstream is a new connection, which
 * opens its own listen (and the engine subscribes its URIs again).
 */
import {errorMessage} from '../base/errors.js';
import {isPlainObject} from '../wire/message-classifier.js';
import {UpstreamRpcError} from './connection-errors.js';
import type {LogBuffer} from './log-buffer.js';

/** What a listen asks for (the 2026-07-28 SubscriptionFilter). */
export type ListenFilter = {toolsListChanged?: boolean; promptsListChanged?: boolean; resourcesListChanged?: boolean; resourceSubscriptions?: string[]};

/** An open listen, as the SDK client's `listen()` returns it. */
export type OpenListen = {readonly honoredFilter: ListenFilter; close(): Promise<void>; readonly closed: Promise<'local' | 'graceful' | 'remote'>};

/** What this needs of the connection: the SDK client's `listen`, the upstream's capabilities, and whether the connection is closed. */
export type ListenSide = {
	listen: (filter: ListenFilter) => Promise<OpenListen>;
	capabilities: () => Record<string, unknown> | undefined;
	isClosed: () => boolean;
	log: LogBuffer;
};

/** The most URIs hangar watches on one upstream (bounded memory: the filter travels whole on every re-open). */
export const upstreamListenUris = 10_000;
/** The delays before a dropped stream is opened again (the last one repeats). */
const reopenDelaysMs = [500, 2000, 10_000, 30_000];

/** The `_meta` key a listen's notifications carry its id under: the upstream's own, not for clients. */
const subscriptionIdKey = 'io.modelcontextprotocol/subscriptionId';

/** An upstream's notification `_meta` without the id of hangar's listen (clients get their own, or none). */
export function withoutListenId(meta: Record<string, unknown> | undefined): Record<string, unknown> | undefined {
	if (!isPlainObject(meta) || !(subscriptionIdKey in meta)) return meta;
	const {[subscriptionIdKey]: _id, ...rest} = meta;
	return Object.keys(rest).length === 0 ? undefined : rest;
}

export class UpstreamListen {
	private readonly uris = new Set<string>();
	private current: OpenListen | undefined;
	/** The re-open queued behind the running one (its waiters share it). */
	private next: Promise<ListenFilter> | undefined;
	private running: Promise<unknown> = Promise.resolve();
	private drops = 0;
	private timer: NodeJS.Timeout | undefined;

	constructor(private readonly side: ListenSide) {}

	/** Opens the listen for the list changes the upstream offers (nothing when it offers none). */
	start(): void {
		this.reopen().catch((error: unknown) => this.failed(error));
	}

	/** Whether `method` is one this serves in place of the upstream (which has no such method in its era). */
	handles(method: string): boolean {
		return method === 'resources/subscribe' || method === 'resources/unsubscribe';
	}

	/** `resources/subscribe` or `unsubscribe` for `params.uri`, by a new listen that watches it (or no longer does). */
	async request(method: string, params: Record<string, unknown>): Promise<Record<string, unknown>> {
		const uri = params['uri'];
		if (typeof uri !== 'string') throw new UpstreamRpcError(-32_602, `${method} needs params.uri, a resource URI`, undefined);
		if (method === 'resources/unsubscribe') {
			if (this.uris.delete(uri)) await this.reopen();
			return {};
		}

		if (this.uris.has(uri)) return {};
		if (this.uris.size >= upstreamListenUris) throw new UpstreamRpcError(-32_603, `resources/subscribe: hangar already watches ${upstreamListenUris} resources of this upstream; unsubscribe from some first`, undefined);
		this.uris.add(uri);
		const honored = await this.reopen().catch((error: unknown) => {
			this.uris.delete(uri);
			throw error;
		});
		if (honored.resourceSubscriptions?.includes(uri) === true) return {};
		this.uris.delete(uri);
		throw new UpstreamRpcError(-32_601, `resources/subscribe: the upstream (2026-07-28) did not accept "${uri}" on its subscriptions/listen stream; it does not offer resource subscriptions`, undefined);
	}

	/** The filter for what hangar needs now: the list changes the upstream offers, and the URIs watched. */
	private filter(): ListenFilter {
		const capabilities = this.side.capabilities() ?? {};
		const offers = (kind: string) => isPlainObject(capabilities[kind]) && capabilities[kind]['listChanged'] === true;
		const filter: ListenFilter = {};
		if (offers('tools')) filter.toolsListChanged = true;
		if (offers('prompts')) filter.promptsListChanged = true;
		if (offers('resources')) filter.resourcesListChanged = true;
		if (this.uris.size > 0) filter.resourceSubscriptions = [...this.uris];
		return filter;
	}

	/** Queues a re-open with the filter as it is when it starts; resolves with what the upstream honoured. */
	private async reopen(): Promise<ListenFilter> {
		if (this.next !== undefined) return this.next;
		const next = this.running.then(async () => {
			this.next = undefined;
			return this.open();
		});
		this.next = next;
		this.running = next.catch(() => {});
		return next;
	}

	private async open(): Promise<ListenFilter> {
		if (this.side.isClosed()) return {};
		const filter = this.filter();
		const old = this.current;
		if (Object.keys(filter).length === 0) {
			this.current = undefined;
			await old?.close();
			return {};
		}

		const opened = await this.side.listen(filter);
		this.current = opened;
		this.drops = 0;
		void opened.closed.then(how => this.ended(opened, how));
		await old?.close();
		return opened.honoredFilter;
	}

	/** A listen ended: one the upstream dropped while it is still the one hangar needs is opened again, after a delay. */
	private ended(listen: OpenListen, how: 'local' | 'graceful' | 'remote'): void {
		if (how === 'local' || listen !== this.current || this.side.isClosed()) return;
		this.current = undefined;
		const delay = reopenDelaysMs[Math.min(this.drops, reopenDelaysMs.length - 1)]!;
		this.drops += 1;
		this.side.log.push('hangar', `its subscriptions/listen stream ended (${how === 'graceful' ? 'it closed it' : 'dropped'}): opening it again in ${delay / 1000} s`);
		clearTimeout(this.timer);
		this.timer = setTimeout(() => this.start(), delay);
		this.timer.unref();
	}

	private failed(error: unknown): void {
		if (this.side.isClosed()) return;
		this.side.log.push('hangar', `subscriptions/listen failed (${errorMessage(error)}): its list changes and resource updates do not reach clients until it restarts`);
	}
}
