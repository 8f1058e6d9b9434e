/**
 * What a client's session serves besides tools: `resources/list`,
 * `resources/templates/list`, `resources/read`, `resources/subscribe` and
 * `unsubscribe`, `prompts/list`, `prompts/get` and `completion/complete`,
 * each registered on the session's SDK `Server` only when hangar advertised
 * the capability it belongs to (the SDK refuses the rest with -32601).
 *
 * Lists are hangar's own, derived by the router and paged (pagination.ts).
 * Requests that name something are routed by the router to one upstream,
 * with that upstream's own name or URI, and its answer comes back with the
 * URIs it carries rewritten to what clients see (only those another
 * upstream owns change; see engine/routing/resource-uris.ts).
 */
import type {Server} from '@modelcontextprotocol/sdk/server/index.js';
import {
	CompleteRequestSchema,
	GetPromptRequestSchema,
	ListPromptsRequestSchema,
	ListResourcesRequestSchema,
	ListResourceTemplatesRequestSchema,
	ReadResourceRequestSchema,
	SubscribeRequestSchema,
	UnsubscribeRequestSchema,
	type ServerCapabilities,
} from '@modelcontextprotocol/sdk/types.js';
import type {JsonRpcError} from '../base/errors.js';
import {CallBudget, type CallDeadline} from '../engine/upstream/call-path.js';
import type {ClientRecord} from '../engine/clients/clients.js';
import type {Route} from '../engine/routing/router.js';
import type {Subscriber} from '../engine/routing/subscriptions.js';
import type {ServedCapabilities, Supervisor} from '../engine/supervisor.js';
import {isPlainObject} from '../wire/message-classifier.js';
import {page} from './pagination.js';

export type CatalogRequestsOptions = {
	supervisor: Supervisor;
	/** What the session advertised: handlers are registered for these only. */
	capabilities: ServedCapabilities;
	/** This session, for resources/updated. */
	subscriber: Subscriber;
	/** The session's record: a per-client server's requests go to its own instance. */
	client: ClientRecord;
	/** A deadline for every request, as for tools/call (HTTP sessions). */
	callDeadline: CallDeadline | undefined;
	/** How a failure is answered (the session's one conversion to JSON-RPC errors). */
	toRpcError: (error: unknown, what: string) => JsonRpcError;
	/** Awaited before a list is served: the session's first list waits for launch discovery (Supervisor.awaitDiscovery). */
	beforeList: () => Promise<void>;
};

/** The capabilities object for the SDK `Server`, from what the supervisor can serve. */
export function advertised(capabilities: ServedCapabilities): ServerCapabilities {
	return {tools: {listChanged: true}, ...capabilities};
}

export function registerCatalogRequests(server: Server, options: CatalogRequestsOptions): void {
	const {supervisor, capabilities, subscriber, toRpcError, client} = options;
	const router = supervisor.router;
	const context = (signal: AbortSignal) => ({signal, budget: options.callDeadline === undefined ? undefined : new CallBudget(options.callDeadline)});
	/** Sends one routed request and hands its result to `expose`; failures become the session's JSON-RPC errors. */
	const forward = async (route: Route, method: string, params: Record<string, unknown>, operation: string, extra: {signal: AbortSignal; requestId: string | number}) => {
		try {
			// The caller: a request the upstream sends its client meanwhile can belong to this session.
			return await supervisor.request(route.upstream, method, params, operation, {...context(extra.signal), caller: {client, requestId: extra.requestId}}, client);
		} catch (error) {
			throw toRpcError(error, `upstream "${route.upstream.name}": ${operation}`);
		}
	};

	const routed = <T>(what: string, route: () => T): T => {
		try {
			return route();
		} catch (error) {
			throw toRpcError(error, what);
		}
	};

	if (capabilities.resources !== undefined) {
		server.setRequestHandler(ListResourcesRequestSchema, async request => {
			await options.beforeList();
			const {items, nextCursor} = routed('resources/list', () => page('resources/list', router.resources(), request.params?.cursor));
			return {resources: items.map(resource => resource.definition), ...(nextCursor === undefined ? {} : {nextCursor})};
		});
		server.setRequestHandler(ListResourceTemplatesRequestSchema, async request => {
			await options.beforeList();
			const {items, nextCursor} = routed('resources/templates/list', () => page('resources/templates/list', router.resourceTemplates(), request.params?.cursor));
			return {resourceTemplates: items.map(template => template.definition), ...(nextCursor === undefined ? {} : {nextCursor})};
		});
		server.setRequestHandler(ReadResourceRequestSchema, async (request, extra) => {
			const route = routed('resources/read', () => router.routeUri(request.params.uri));
			const result = await forward(route, 'resources/read', {...request.params, uri: route.own}, `resources/read "${route.own}"`, extra);
			const contents = result['contents'];
			if (Array.isArray(contents)) {
				for (const content of contents) {
					if (isPlainObject(content) && typeof content['uri'] === 'string') content['uri'] = router.exposeUri(route.upstream.name, content['uri'], true);
				}
			}

			return result as never;
		});
		// Served even when no upstream is known to support subscribe yet (a first run): the upstream answers for itself.
		{
			server.setRequestHandler(SubscribeRequestSchema, async (request, extra) => {
				try {
					await supervisor.subscriptions.subscribe(subscriber, request.params.uri, context(extra.signal));
				} catch (error) {
					throw toRpcError(error, `resources/subscribe "${request.params.uri}"`);
				}

				return {};
			});
			server.setRequestHandler(UnsubscribeRequestSchema, async request => {
				try {
					await supervisor.subscriptions.unsubscribe(subscriber, request.params.uri);
				} catch (error) {
					throw toRpcError(error, `resources/unsubscribe "${request.params.uri}"`);
				}

				return {};
			});
		}
	}

	if (capabilities.prompts !== undefined) {
		server.setRequestHandler(ListPromptsRequestSchema, async request => {
			await options.beforeList();
			const {items, nextCursor} = routed('prompts/list', () => page('prompts/list', router.exposedPrompts(), request.params?.cursor));
			return {prompts: items.map(prompt => ({...prompt.definition, name: prompt.name})), ...(nextCursor === undefined ? {} : {nextCursor})};
		});
		server.setRequestHandler(GetPromptRequestSchema, async (request, extra) => {
			const route = await router.routePrompt(request.params.name, extra.signal).catch((error: unknown) => {
				throw toRpcError(error, 'prompts/get');
			});
			const result = await forward(route, 'prompts/get', {...request.params, name: route.own}, `prompts/get "${route.own}"`, extra);
			const messages = result['messages'];
			if (Array.isArray(messages)) {
				for (const message of messages) {
					if (isPlainObject(message)) router.exposeContent(route.upstream.name, message['content']);
				}
			}

			return result as never;
		});
	}

	if (capabilities.completions !== undefined) {
		server.setRequestHandler(CompleteRequestSchema, async (request, extra) => {
			const {ref} = request.params;
			let route: Route;
			let upstreamRef: Record<string, unknown>;
			if (ref.type === 'ref/prompt') {
				route = await router.routePrompt(ref.name, extra.signal).catch((error: unknown) => {
					throw toRpcError(error, 'completion/complete');
				});
				upstreamRef = {...ref, name: route.own};
			} else {
				route = routed('completion/complete', () => router.routeTemplate(ref.uri));
				upstreamRef = {...ref, uri: route.own};
			}

			return (await forward(route, 'completion/complete', {...request.params, ref: upstreamRef}, `completion/complete (${ref.type})`, extra)) as never;
		});
	}
}
