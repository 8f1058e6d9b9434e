/**
 * `subscriptions/listen` (2026-07-28): a modern client's one long-lived
 * request on which hangar tells it of changes, replacing the 2025 GET
 * stream, unsolicited list_changed and `resources/subscribe`. The changes
 * are hangar's merged view of its upstreams: a legacy upstream's
 * `notifications/tools|prompts|resources/list_changed` reaches hangar as
 * the supervisor's change events (the same ones a 2025 session relays), and
 * its `notifications/resources/updated` for a URI the listen asked for
 * reaches it through the supervisor's resource subscriptions (which
 * subscribe upstream once per URI, and to a per-client server's instance of
 * this client). A modern upstream's changes come the same way: its
 * connection holds a listen stream to it (link/upstream-listen.ts).
 *
 * Only what the client asked for in `notifications` and hangar can honour
 * is sent: the honoured subset is acknowledged first
 * (`notifications/subscriptions/acknowledged`), and every notification
 * carries the listen request's id as `io.modelcontextprotocol/subscriptionId`
 * in its `_meta`. The listen ends when the client cancels it or goes (its
 * HTTP response closes, its stdio connection ends); it is then owed no
 * answer. On HTTP the notifications travel on the request's own SSE
 * answer; on stdio, on the same connection, tied to the request.
 */
import {JsonRpcCode, JsonRpcError} from '../base/errors.js';
import type {RequestContext} from '../engine/request-context.js';
import type {Subscriber} from '../engine/routing/subscriptions.js';
import type {Supervisor} from '../engine/supervisor.js';
import {isPlainObject} from '../wire/message-classifier.js';
import type {Params, RequestHandler} from './pipeline.js';
import {toRpcError} from './request-params.js';
import {implementationInfo} from '../wire/protocol.js';
import {serverInfoKey} from './protocol-era.js';

export const subscriptionIdKey = 'io.modelcontextprotocol/subscriptionId';

/** What a listen asks for (the 2026-07-28 SubscriptionFilter). */
export type SubscriptionFilter = {
	toolsListChanged?: boolean;
	promptsListChanged?: boolean;
	resourcesListChanged?: boolean;
	resourceSubscriptions?: string[];
};

/** Listens open at once in this process, and the most URIs one may watch: past either, a listen is refused (bounded memory). */
export const listenLimits = {open: 1024, uris: 1000};
let open = 0;

/** The filter a listen request's params carry, or the reason it is not one (-32602: `notifications` is required). */
export function listenFilter(params: Params): SubscriptionFilter | string {
	const filter = params?.['notifications'];
	if (!isPlainObject(filter)) return 'subscriptions/listen needs params.notifications, the notification types to receive (e.g. {"toolsListChanged": true})';
	const result: SubscriptionFilter = {};
	for (const key of ['toolsListChanged', 'promptsListChanged', 'resourcesListChanged'] as const) {
		const value = filter[key];
		if (value === undefined) continue;
		if (typeof value !== 'boolean') return `params.notifications.${key} must be true or false`;
		result[key] = value;
	}

	const uris = filter['resourceSubscriptions'];
	if (uris !== undefined) {
		if (!Array.isArray(uris) || !uris.every(uri => typeof uri === 'string')) return 'params.notifications.resourceSubscriptions must be an array of resource URIs';
		if (uris.length > listenLimits.uris) return `params.notifications.resourceSubscriptions lists ${uris.length} URIs; one listen may watch at most ${listenLimits.uris}`;
		result.resourceSubscriptions = [...new Set(uris as string[])];
	}

	return result;
}

/** The part of `requested` hangar sends, given what it serves (`capabilities`, as a 2025 client is told them) and whether its tool list can change. */
export function honoredFilter(requested: SubscriptionFilter, capabilities: Record<string, unknown>, toolsCanChange: boolean): SubscriptionFilter {
	const honored: SubscriptionFilter = {};
	const has = (kind: string) => isPlainObject(capabilities[kind]);
	if (requested.toolsListChanged === true && toolsCanChange) honored.toolsListChanged = true;
	if (requested.promptsListChanged === true && has('prompts')) honored.promptsListChanged = true;
	if (requested.resourcesListChanged === true && has('resources')) honored.resourcesListChanged = true;
	// As resources/subscribe for a 2025 client: served wherever resources are, even before any upstream is known to
	// support subscribe (a first run); the upstream a URI routes to answers for itself, and refuses the listen if it cannot.
	if (requested.resourceSubscriptions !== undefined && requested.resourceSubscriptions.length > 0 && has('resources')) {
		honored.resourceSubscriptions = requested.resourceSubscriptions;
	}

	return honored;
}

export type ListenOptions = {
	supervisor: Supervisor;
	/** What hangar serves (advertised to 2025 clients at initialize). */
	capabilities: Record<string, unknown>;
	/** Whether tools/list can change (in search exposure it is the fixed hangar_* set). */
	toolsCanChange: boolean;
	/** Sends a notification tied to client request `requestId`. */
	notify: (method: string, params: Record<string, unknown>, requestId: string | number) => void;
	/** Aborted when the endpoint shuts down: each listen is then ended gracefully, with its (empty) result. */
	ending?: AbortSignal | undefined;
};

/** The `subscriptions/listen` handler: acknowledges, then relays the changes asked for until the listen ends. */
export function listenHandler(options: ListenOptions): RequestHandler {
	const {supervisor} = options;
	return async (context: RequestContext, params: Params) => {
		const requested = listenFilter(params);
		if (typeof requested === 'string') throw new JsonRpcError(JsonRpcCode.InvalidParams, `Invalid params: ${requested}`);
		if (open >= listenLimits.open) throw new JsonRpcError(JsonRpcCode.InternalError, `Subscription limit reached: hangar holds ${listenLimits.open} subscriptions/listen streams open; close one first`);
		const id = context.id;
		const send = (method: string, extra: Record<string, unknown> = {}) => {
			const meta = isPlainObject(extra['_meta']) ? extra['_meta'] : {};
			options.notify(method, {...extra, _meta: {...meta, [subscriptionIdKey]: id}}, id);
		};

		const honored = honoredFilter(requested, options.capabilities, options.toolsCanChange);
		if (Object.keys(honored).length === 0) {
			// Nothing to send: acknowledged, then ended at once, as the SDK's own servers do.
			send('notifications/subscriptions/acknowledged', {notifications: honored});
			return {_meta: {[subscriptionIdKey]: id, [serverInfoKey]: implementationInfo}};
		}

		const subscriber: Subscriber = {notify: (uri, meta) => send('notifications/resources/updated', meta === undefined ? {uri} : {uri, _meta: meta}), client: context.client};
		const listeners: Array<() => void> = [];
		const on = (event: 'toolsChanged' | 'resourcesChanged' | 'promptsChanged', method: string) => {
			const listener = () => send(method);
			supervisor.on(event, listener);
			listeners.push(() => supervisor.off(event, listener));
		};

		open += 1;
		try {
			// Upstream subscriptions first: a URI no upstream serves refuses the listen before it is acknowledged.
			for (const uri of honored.resourceSubscriptions ?? []) {
				try {
					await supervisor.subscriptions.subscribe(subscriber, uri, context);
				} catch (error) {
					throw toRpcError(error, `subscriptions/listen on resource "${uri}"`, context.audience);
				}
			}

			if (context.signal.aborted) return {};
			send('notifications/subscriptions/acknowledged', {notifications: honored});
			if (honored.toolsListChanged === true) {
				on('toolsChanged', 'notifications/tools/list_changed');
				// A per-client server's list as this client sees it (its own instance listed it).
				const own = (clientId: number) => {
					if (clientId === context.client?.id) send('notifications/tools/list_changed');
				};

				supervisor.on('clientToolsChanged', own);
				listeners.push(() => supervisor.off('clientToolsChanged', own));
			}

			if (honored.promptsListChanged === true) on('promptsChanged', 'notifications/prompts/list_changed');
			if (honored.resourcesListChanged === true) on('resourcesChanged', 'notifications/resources/list_changed');
			// Held until the client cancels or goes (then no answer is owed: the pipeline sends none), or the endpoint
			// shuts down: then the listen is answered, the spec's sign that the server ended it on purpose.
			const signals = options.ending === undefined ? [context.signal] : [context.signal, options.ending];
			await new Promise<void>(resolve => {
				if (signals.some(signal => signal.aborted)) resolve();
				else for (const signal of signals) signal.addEventListener('abort', () => resolve(), {once: true});
			});
			return {_meta: {[subscriptionIdKey]: id, [serverInfoKey]: implementationInfo}};
		} finally {
			open -= 1;
			for (const stop of listeners) stop();
			supervisor.subscriptions.drop(subscriber);
		}
	};
}
