/**
 * What a client's session serves besides tools: `resources/list`,
 * `resources/templates/list`, `resources/read`, `resources/subscribe` and
 * `unsubscribe`, `prompts/list`, `prompts/get` and `completion/complete`,
 * each in the session's method table only when hangar advertised the
 * capability it belongs to (the rest are unknown methods: -32601).
 *
 * Lists are hangar's own, derived by the router and paged (pagination.ts).
 * Requests that name something are routed by the router to one upstream,
 * with that upstream's own name or URI, and its answer comes back with the
 * URIs it carries rewritten to what clients see (only those another
 * upstream owns change; see engine/routing/resource-uris.ts).
 */
import {
	CompleteRequestSchema,
	GetPromptRequestSchema,
	ListPromptsRequestSchema,
	ListResourcesRequestSchema,
	ListResourceTemplatesRequestSchema,
	ReadResourceRequestSchema,
	SubscribeRequestSchema,
	UnsubscribeRequestSchema,
} from '@modelcontextprotocol/core';
import type {ServerCapabilities} from '@modelcontextprotocol/server';
import type {RequestContext} from '../engine/request-context.js';
import type {Route} from '../engine/routing/router.js';
import type {Subscriber} from '../engine/routing/subscriptions.js';
import type {ServedCapabilities, Supervisor} from '../engine/supervisor.js';
import {isPlainObject} from '../wire/message-classifier.js';
import {page} from './pagination.js';
import type {Params, RequestHandler} from './pipeline.js';
import {checkParams, toRpcError} from './request-params.js';

export type CatalogRequestsOptions = {
	supervisor: Supervisor;
	/** What the session advertised: handlers are installed for these only. */
	capabilities: ServedCapabilities;
	/** This session, for resources/updated. */
	subscriber: Subscriber;
	/** Awaited before a list is served: the session's first list waits for launch discovery (Supervisor.awaitDiscovery). */
	beforeList: () => Promise<void>;
};

/** The capabilities hangar answers initialize with, from what the supervisor can serve. */
export function advertised(capabilities: ServedCapabilities): ServerCapabilities {
	return {tools: {listChanged: true}, ...capabilities};
}

/** The methods each catalog capability serves (catalogHandlers serves them when the capability is offered). */
export const catalogMethods = {
	resources: ['resources/list', 'resources/templates/list', 'resources/read', 'resources/subscribe', 'resources/unsubscribe'],
	prompts: ['prompts/list', 'prompts/get'],
	completions: ['completion/complete'],
} as const;

/** The handlers of the catalog methods hangar advertised the capability for, by method. */
export function catalogHandlers(options: CatalogRequestsOptions): Record<string, RequestHandler> {
	const {supervisor, capabilities, subscriber} = options;
	const router = supervisor.router;
	const handlers: Record<string, RequestHandler> = {};
	/** Sends one routed request; failures become JSON-RPC errors that name the upstream. */
	const forward = async (route: Route, params: Record<string, unknown>, context: RequestContext) => {
		try {
			return await supervisor.request(route, params, context);
		} catch (error) {
			throw toRpcError(error, `upstream "${route.upstream.name}": ${context.method} "${route.localName}"`, context.audience);
		}
	};

	// A 2026-07-28 client's lists hold a dual-era upstream's 2026-07-28 mode's items (engine/clients/client-catalog.ts): the first waits for it to list.
	const views = supervisor.clientCatalog;
	const listed = <T, R>(method: string, schema: Parameters<typeof checkParams>[0], items: (context: RequestContext) => readonly T[], answer: (page: T[]) => R) => async (context: RequestContext, params: Params) => {
		const cursor = (checkParams(schema, method, params) as {cursor?: string} | undefined)?.cursor;
		await options.beforeList();
		if (context.client?.modern === true) await supervisor.clientTools.prepare(context.client, AbortSignal.any([context.signal, AbortSignal.timeout(supervisor.config.hangar.firstListWaitMs)]));
		const {items: found, nextCursor} = page(method, items(context), cursor);
		return {...answer(found), ...(nextCursor === undefined ? {} : {nextCursor})};
	};

	if (capabilities.resources !== undefined) {
		handlers['resources/list'] = listed('resources/list', ListResourcesRequestSchema, context => views.resources(context.client), items => ({resources: items.map(resource => resource.definition)}));
		handlers['resources/templates/list'] = listed('resources/templates/list', ListResourceTemplatesRequestSchema, context => views.resourceTemplates(context.client), items => ({resourceTemplates: items.map(template => template.definition)}));
		handlers['resources/read'] = async (context, raw) => {
			const params = checkParams(ReadResourceRequestSchema, context.method, raw);
			const route = views.routeUri(context.client, params.uri) ?? router.routeUri(params.uri);
			const result = await forward(route, {...raw, uri: route.localName}, context);
			const contents = result['contents'];
			if (Array.isArray(contents)) {
				for (const content of contents) {
					if (isPlainObject(content) && typeof content['uri'] === 'string') content['uri'] = router.exposeUri(route.upstream.name, content['uri'], true);
				}
			}

			return result;
		};

		// Served even when no upstream is known to support subscribe yet (a first run): the upstream answers for itself.
		handlers['resources/subscribe'] = async (context, raw) => {
			const {uri} = checkParams(SubscribeRequestSchema, context.method, raw);
			try {
				await supervisor.subscriptions.subscribe(subscriber, uri, context);
			} catch (error) {
				throw toRpcError(error, `resources/subscribe "${uri}"`, context.audience);
			}

			return {};
		};
		handlers['resources/unsubscribe'] = async (context, raw) => {
			const {uri} = checkParams(UnsubscribeRequestSchema, context.method, raw);
			try {
				await supervisor.subscriptions.unsubscribe(subscriber, uri, context);
			} catch (error) {
				throw toRpcError(error, `resources/unsubscribe "${uri}"`, context.audience);
			}

			return {};
		};
	}

	if (capabilities.prompts !== undefined) {
		handlers['prompts/list'] = listed('prompts/list', ListPromptsRequestSchema, context => views.prompts(context.client), items => ({prompts: items.map(prompt => ({...prompt.definition, name: prompt.name}))}));
		handlers['prompts/get'] = async (context, raw) => {
			const params = checkParams(GetPromptRequestSchema, context.method, raw);
			const route = (await views.routePrompt(context.client, params.name, context)) ?? (await router.routePrompt(params.name, context));
			const result = await forward(route, {...raw, name: route.localName}, context);
			const messages = result['messages'];
			if (Array.isArray(messages)) {
				for (const message of messages) {
					if (isPlainObject(message)) router.exposeContent(route.upstream.name, message['content']);
				}
			}

			return result;
		};
	}

	if (capabilities.completions !== undefined) {
		handlers['completion/complete'] = async (context, raw) => {
			const {ref} = checkParams(CompleteRequestSchema, context.method, raw);
			const route = ref.type === 'ref/prompt' ? ((await views.routePrompt(context.client, ref.name, context)) ?? (await router.routePrompt(ref.name, context))) : router.routeTemplate(ref.uri);
			const upstreamRef = ref.type === 'ref/prompt' ? {...ref, name: route.localName} : {...ref, uri: route.localName};
			return forward(route, {...raw, ref: upstreamRef}, context);
		};
	}

	return handlers;
}
