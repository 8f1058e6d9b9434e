/**
 * Resource subscriptions across every client session: `resources/subscribe`
 * and `unsubscribe` are routed to the URI's upstream and counted, so the
 * upstream is asked once however many sessions watch a URI, and told to stop
 * when the last one leaves (or closes). Its `notifications/resources/updated`
 * go only to the sessions that subscribed, each with the URI as it
 * subscribed to it. An upstream that restarts has forgotten its
 * subscriptions: they are sent again once it is ready.
 *
 * A per-client server's resource is watched on the subscribing session's
 * own instance (`pick`), and that instance's updates go to that session;
 * when an "auto" server learns that it runs per client, what its sessions
 * watch moves to their own instances (`moveToInstances`).
 *
 * Bounded: a session may hold at most `perSessionLimit` subscriptions, so no
 * client can grow this without end.
 */
import {JsonRpcCode, JsonRpcError, errorMessage} from '../../base/errors.js';
import type {Logger} from '../../base/logger.js';
import type {CallContext} from '../upstream/call-path.js';
import type {ClientRecord} from '../clients/clients.js';
import type {Upstream} from '../upstream/upstream.js';
import type {Router} from './router.js';

/** One session's side: told about updates of what it subscribed to; `client` is its session (for a per-client server's instance). */
/** A session watching resources: told each change under the URI it subscribed with, and the upstream's `_meta` as it came. */
export type Subscriber = {notify: (uri: string, meta: Record<string, unknown> | undefined) => void; client?: ClientRecord};

/** `routed`: the upstream the URI routes to; `upstream`: the one watching it (a per-client server's instance, or that upstream). */
/** `sending`: its first subscribe is on its way (it may be what starts the upstream): a start that completes meanwhile does not send it again. */
type Entry = {routed: Upstream; upstream: Upstream; own: string; subscribers: Map<Subscriber, string>; sending?: boolean};

export const perSessionLimit = 1000;

export class Subscriptions {
	private readonly entries = new Map<string, Entry>();
	private readonly counts = new Map<Subscriber, number>();

	constructor(
		private readonly router: Router,
		private readonly logger: Logger,
		/** The upstream that serves `subscriber` for a routed upstream: its own instance of a per-client server, else the upstream itself. */
		private readonly pick: (upstream: Upstream, subscriber: Subscriber) => Upstream = upstream => upstream,
	) {}

	/** How many distinct upstream resources are watched now. */
	get size(): number {
		return this.entries.size;
	}

	async subscribe(subscriber: Subscriber, uri: string, context: CallContext = {}): Promise<void> {
		const route = this.router.routeUri(uri);
		const upstream = this.pick(route.upstream, subscriber);
		const key = keyOf(upstream.name, route.localName);
		const entry = this.entries.get(key);
		if (entry?.subscribers.has(subscriber)) return;
		const count = this.counts.get(subscriber) ?? 0;
		if (count >= perSessionLimit) {
			throw new JsonRpcError(JsonRpcCode.InvalidParams, `Too many subscriptions: this session already watches ${perSessionLimit} resources; unsubscribe from some first.`, {error: 'TooManySubscriptions', limit: perSessionLimit});
		}

		this.counts.set(subscriber, count + 1);
		if (entry !== undefined) {
			entry.subscribers.set(subscriber, uri);
			return;
		}

		const created: Entry = {routed: route.upstream, upstream, own: route.localName, subscribers: new Map([[subscriber, uri]]), sending: true};
		this.entries.set(key, created);
		try {
			await upstream.request('resources/subscribe', {uri: route.localName}, `resources/subscribe "${route.localName}"`, context);
		} catch (error) {
			this.leave(key, created, subscriber);
			throw error;
		} finally {
			created.sending = false;
		}
	}

	/**
	 * Unsubscribes; the upstream is told when no session watches the URI any
	 * more (if it runs: a stopped one has forgotten). `context`: the
	 * session's request, so that what the upstream says while it handles the
	 * unsubscribe counts as that session's (calls-in-flight.ts); without it
	 * (a session that closed), the request is hangar's own.
	 */
	async unsubscribe(subscriber: Subscriber, uri: string, context: CallContext = {}): Promise<void> {
		const route = this.router.routeUri(uri);
		// Found, not picked: unsubscribing must not create a per-client instance.
		const found = [...this.entries].find(([, entry]) => entry.routed === route.upstream && entry.own === route.localName && entry.subscribers.has(subscriber));
		if (found === undefined) return;
		const [key, entry] = found;
		const last = this.leave(key, entry, subscriber);
		if (last && entry.upstream.readyConnection !== undefined) {
			await entry.upstream.request('resources/unsubscribe', {uri: entry.own}, `resources/unsubscribe "${entry.own}"`, context);
		}
	}

	/** A session closed: all its subscriptions end. */
	drop(subscriber: Subscriber): void {
		if (!this.counts.has(subscriber)) return;
		for (const [key, entry] of this.entries) {
			if (!entry.subscribers.has(subscriber)) continue;
			if (this.leave(key, entry, subscriber) && entry.upstream.readyConnection !== undefined) {
				entry.upstream.request('resources/unsubscribe', {uri: entry.own}, `resources/unsubscribe "${entry.own}"`).catch(() => {});
			}
		}

		this.counts.delete(subscriber);
	}

	/** `server` said its resource `own` changed: each subscribed session hears it, as the URI it subscribed to. */
	updated(server: string, own: string, meta?: Record<string, unknown>): void {
		const entry = this.entries.get(keyOf(server, own));
		if (entry === undefined) return;
		for (const [subscriber, uri] of entry.subscribers) subscriber.notify(uri, meta);
	}

	/** `upstream` (re)started: what sessions watch on it is asked for again. */
	resubscribe(upstream: Upstream): void {
		for (const entry of this.entries.values()) {
			if (entry.upstream !== upstream || entry.sending === true) continue;
			upstream.request('resources/subscribe', {uri: entry.own}, `resources/subscribe "${entry.own}"`).catch((error: unknown) => {
				this.logger.warn(`subscribing again to ${entry.own} after a restart failed: ${errorMessage(error)}`, {upstream: upstream.name});
			});
		}
	}

	/**
	 * `template` runs one instance per client session from now on (an
	 * "auto" one learned it): what sessions watch on it moves to each
	 * session's own instance (started for it), which that session then hears
	 * from alone. The shared instance, stopping once its calls end, is told
	 * to stop watching.
	 */
	moveToInstances(template: Upstream): void {
		for (const [key, entry] of [...this.entries]) {
			if (entry.upstream !== template || entry.routed !== template) continue;
			for (const [subscriber, uri] of [...entry.subscribers]) {
				if (subscriber.client === undefined || this.ownInstance(template, subscriber) === template) continue;
				if (this.leave(key, entry, subscriber) && template.readyConnection !== undefined) {
					template.request('resources/unsubscribe', {uri: entry.own}, `resources/unsubscribe "${entry.own}"`).catch(() => {});
				}

				this.subscribe(subscriber, uri).catch((error: unknown) => {
					this.logger.warn(`watching ${uri} on its session's own instance failed: ${errorMessage(error)}`, {upstream: template.name});
				});
			}
		}
	}

	/** The subscriber's own instance of `template`, or `template` when it can have none now (the per-client instance limit is reached: logged). */
	private ownInstance(template: Upstream, subscriber: Subscriber): Upstream {
		try {
			return this.pick(template, subscriber);
		} catch (error) {
			this.logger.warn(`a subscription stays on the shared instance: ${errorMessage(error)}`, {upstream: template.name});
			return template;
		}
	}

	/** Removes one subscriber from an entry; true when it was the last. */
	private leave(key: string, entry: Entry, subscriber: Subscriber): boolean {
		entry.subscribers.delete(subscriber);
		const count = (this.counts.get(subscriber) ?? 1) - 1;
		if (count <= 0) this.counts.delete(subscriber);
		else this.counts.set(subscriber, count);
		if (entry.subscribers.size > 0) return false;
		this.entries.delete(key);
		return true;
	}
}

function keyOf(server: string, own: string): string {
	return `${server}\n${own}`;
}
