/**
 * The handlers of `tools/list` and `tools/call`, hangar's hot paths.
 *
 * - `tools/list`: the exposed tools (or, in search exposure, the hangar_*
 *   tools alone) and the management tools this session gets, paged; the
 *   whole list is serialized once per change of the set, not per request.
 * - `tools/call`: a management tool is served here (hangar_list's JSON is
 *   serialized once); any other name, or hangar_call's `{server, tool}`, is
 *   routed by the router to one upstream and called through the supervisor
 *   with the request's context, and the upstream's result is forwarded as it
 *   came (only the URIs it carries that another upstream owns change).
 */
import {ListToolsRequestSchema} from '@modelcontextprotocol/core';
import type {CallToolResult, Tool} from '@modelcontextprotocol/server';
import {HangarError, JsonRpcCode, JsonRpcError, errorMessage} from '../base/errors.js';
import type {Logger} from '../base/logger.js';
import type {RequestContext} from '../engine/request-context.js';
import type {Route} from '../engine/routing/router.js';
import type {Supervisor} from '../engine/supervisor.js';
import type {ClientRecord} from '../engine/clients/clients.js';
import {
	ManagementParamsError,
	checkArguments,
	isManagementTool,
	managementToolAllowed,
	managementToolRefusal,
	managementToolsFor,
	runManagementTool,
	statusJson,
	type ManagementToolsSetting,
} from './management-tools.js';
import {page, pageSize} from './pagination.js';
import {Serialized, type Params, type RequestHandler} from './pipeline.js';
import {ForwardedResult} from '../wire/forwarded-result.js';
import {callParams, checkParams, toRpcError, type CallParams} from './request-params.js';

/** What the tool handlers read of their session. */
export type ToolSession = {
	readonly supervisor: Supervisor;
	/** Who lists: a per-client server's tools are what its own instance lists. */
	readonly client: ClientRecord;
	readonly logger: Logger;
	readonly exposure: 'direct' | 'search';
	/** hangar.managementTools for this session (a person's session gets them all). */
	readonly managementSetting: ManagementToolsSetting;
	/** Who is asking, for transition reasons ("MCP client \"cursor\""). */
	readonly via: string;
	/** Whether the first list's wait for launch discovery is over (see GatewaySession.firstList). */
	readonly firstListDone: boolean;
	firstList(): Promise<void>;
};

type WholeList = {exposed: readonly unknown[] | undefined; setting: ManagementToolsSetting; json: string | undefined};

export function toolHandlers(session: ToolSession): {list: RequestHandler; call: RequestHandler} {
	let cache: WholeList | undefined;

	// A modern request's client is its identity (modern-clients.ts), not the connection's session.
	const listTools = (client: ClientRecord): Tool[] => {
		const management = managementToolsFor(session.managementSetting);
		if (session.exposure === 'search') return management.map(tool => tool as Tool);
		// Predefined tools may omit inputSchema; the protocol requires one.
		const tools: Tool[] = session.supervisor
			.toolsFor(client)
			.map(tool => ({...tool.definition, name: tool.name, inputSchema: tool.definition.inputSchema ?? {type: 'object'}}) as Tool);
		tools.push(...management.map(tool => tool as Tool));
		return tools;
	};

	/**
	 * tools/list's result as JSON, built again only when the exposed set or
	 * the management tools this session gets changed (the router keeps the
	 * same array until its set changes). With many upstreams the list is
	 * hundreds of KB: building and serializing it was most of hangar's time
	 * per tools/list. Undefined when it takes more than one page.
	 */
	const wholeList = (client: ClientRecord): string | undefined => {
		const exposed = session.exposure === 'search' ? undefined : session.supervisor.toolsFor(client);
		const setting = session.managementSetting;
		if (cache === undefined || cache.exposed !== exposed || cache.setting !== setting) {
			const tools = listTools(client);
			cache = {exposed, setting, json: tools.length > pageSize ? undefined : JSON.stringify({tools})};
		}

		return cache.json;
	};

	const list: RequestHandler = async (context, params) => {
		const cursor = params === undefined ? undefined : checkParams(ListToolsRequestSchema, 'tools/list', params)?.cursor;
		const client = context.client ?? session.client;
		// In search exposure the list is the fixed set of hangar_* tools: nothing to wait for.
		if (session.exposure === 'direct') {
			const began = Date.now();
			if (!session.firstListDone) await session.firstList();
			// A per-client server lists what a client like this one sees only once an instance told its capabilities
			// has listed; both waits together stay within hangar.firstListWaitSeconds (a client's first list has a budget).
			const left = session.supervisor.config.hangar.firstListWaitMs - (Date.now() - began);
			if (left > 0) await session.supervisor.clientTools.prepare(client, AbortSignal.any([context.signal, AbortSignal.timeout(left)]));
		}

		const whole = cursor === undefined ? wholeList(client) : undefined;
		if (whole !== undefined) return new Serialized(whole);
		const {items, nextCursor} = page('tools/list', listTools(client), cursor);
		return {tools: items, ...(nextCursor === undefined ? {} : {nextCursor})};
	};

	// Not async: a routed call's answer is the one promise of its upstream call, mapped once (the hot path).
	const call: RequestHandler = (context, raw) => {
		const params = callParams(raw);
		context.client?.called(params.name, context.record.at);
		if (!isManagementTool(params.name)) return callTool(session, context, params);
		return callManagement(session, context, params);
	};

	return {list, call};
}

/** A tools/call of a management tool (hangar_call routes on to an upstream). */
async function callManagement(session: ToolSession, context: RequestContext, params: CallParams): Promise<CallToolResult | Serialized> {
	const setting = session.managementSetting;
	if (!managementToolAllowed(params.name, setting)) {
		throw new JsonRpcError(JsonRpcCode.InvalidParams, managementToolRefusal(params.name, setting), {error: 'ManagementToolDisabled', tool: params.name, setting: 'managementTools', value: setting});
	}

	if (params.name === 'hangar_call') return callTool(session, context, params);
	if (params.name === 'hangar_list') {
		let json: string;
		try {
			json = JSON.stringify(statusJson(session.supervisor, checkArguments('hangar_list', params.arguments)));
		} catch (error) {
			return argumentErrorResult(error);
		}

		// Serialized once, and spliced in as both structuredContent and its text form (a page of 50 entries is ~50 KB with both).
		return new Serialized(`{"content":[{"type":"text","text":${JSON.stringify(json)}}],"structuredContent":${json}}`);
	}

	return serveManagement(session, context, params);
}

/**
 * A management tool's arguments that are wrong (ill-typed, unknown, a
 * server or tool that does not exist) answered as a tool execution error,
 * as the 2025-11-25 revision asks (SEP-1303): the model reads the message
 * and can correct its call, where a protocol error would end it.
 * Undefined for any other failure, which stays a JSON-RPC error.
 */
function asArgumentError(error: unknown): CallToolResult | undefined {
	const wrongArgument =
		error instanceof ManagementParamsError ||
		(error instanceof JsonRpcError && error.code === JsonRpcCode.InvalidParams) ||
		(error instanceof HangarError && error.operation === 'lookup');
	if (!wrongArgument) return undefined;
	const rpc = toRpcError(error);
	// The error's data (UnknownTool with the upstream's tools, ...) rides in _meta: the CLI words it for a shell, a model reads the text.
	return {content: [{type: 'text', text: rpc.message}], isError: true, ...(rpc.data === undefined ? {} : {_meta: {[argumentErrorKey]: rpc.data}})};
}

/** The `_meta` key of a management tool's argument error result that carries the error's data. */
export const argumentErrorKey = 'mcp-hangar/error';

/** `asArgumentError`'s result, or the error thrown on. */
function argumentErrorResult(error: unknown): CallToolResult {
	const result = asArgumentError(error);
	if (result === undefined) throw error;
	return result;
}

/** A management tool other than hangar_list and hangar_call: its JSON as structuredContent and text. */
async function serveManagement(session: ToolSession, context: RequestContext, params: CallParams): Promise<CallToolResult> {
	try {
		const args = checkArguments(params.name, params.arguments);
		const json = await runManagementTool(session.supervisor, params.name, args, session.via);
		return {content: [{type: 'text', text: JSON.stringify(json)}], structuredContent: json as Record<string, unknown>};
	} catch (error) {
		const argumentError = asArgumentError(error);
		if (argumentError !== undefined) return argumentError;
		// Refusals are answered as they are; anything else is a bug in hangar.
		if (!(error instanceof HangarError)) session.logger.error(`unexpected error in ${params.name}: ${errorMessage(error)}`);
		throw toRpcError(error, params.name, context.audience);
	}
}

/**
 * Routes one call to its upstream (a `<server>__<tool>` name, or
 * hangar_call's server and tool) and calls it. A listed name routes at once,
 * and the upstream's answer is mapped in one reaction: no await between the
 * client's line and the upstream call.
 */
function callTool(session: ToolSession, context: RequestContext, params: CallParams): Promise<CallToolResult | Serialized> | CallToolResult {
	const {supervisor} = session;
	if (params.name === 'hangar_call') {
		let route: Route;
		let args: Params;
		try {
			const given = checkArguments('hangar_call', params.arguments);
			route = supervisor.router.routeServerTool(given['server'] as string, given['tool'] as string);
			args = given['arguments'] as Params;
		} catch (error) {
			return argumentErrorResult(error);
		}

		return callRouted(session, context, route, args, params.name);
	}

	// A name only this client's own list has (a dual-era upstream's 2026-07-28 mode, a per-client instance's own tool) routes there.
	const own = supervisor.clientTools.route(context.client ?? session.client, params.name, context);
	const listed = own === undefined ? supervisor.router.listedRoute(params.name) : undefined;
	if (listed !== undefined) return callRouted(session, context, listed, params.arguments, params.name);
	return routeThenCall(session, context, own, params);
}

/** The slow path: a client's own list, or a name not listed yet (its upstream is learning its tools), routed with waiting. */
async function routeThenCall(session: ToolSession, context: RequestContext, own: Promise<Route | undefined> | undefined, params: CallParams): Promise<CallToolResult | Serialized> {
	const route = (await own) ?? (await session.supervisor.router.routeTool(params.name, context));
	return callRouted(session, context, route, params.arguments, params.name);
}

function callRouted(session: ToolSession, context: RequestContext, route: Route, args: Params, name: string): Promise<CallToolResult | Serialized> {
	const failed = (error: unknown): never => {
		throw callFailure(session, context, route, name, error);
	};

	let call: Promise<Awaited<ReturnType<Supervisor['call']>>>;
	try {
		call = session.supervisor.call(route, args, context);
	} catch (error) {
		return Promise.reject(callFailure(session, context, route, name, error));
	}

	return call.then(answer => {
		try {
			// The upstream's text, when nothing in it can need changing: written to the client with only the id replaced.
			if (answer instanceof ForwardedResult && !answer.mayCarryUris) return new Serialized(answer.json);
			const result = answer instanceof ForwardedResult ? (answer.value() as CallToolResult) : answer;
			// resource_link and embedded resource items: their URIs are remembered for reading and, where another upstream owns one, rewritten.
			session.supervisor.router.exposeContent(route.upstream.name, result.content);
			return result;
		} catch (error) {
			return failed(error);
		}
	}, failed);
}

/** A routed call's failure as the client is answered: its error, named for the upstream and tool; anything unexpected is logged. */
function callFailure(session: ToolSession, context: RequestContext, route: Route, name: string, error: unknown): JsonRpcError {
	if (!(error instanceof HangarError || error instanceof JsonRpcError)) session.logger.error(`unexpected error in tools/call ${name}: ${errorMessage(error)}`, {correlationId: context.correlationId});
	return toRpcError(error, `upstream "${route.upstream.name}": tools/call "${route.localName}"`, context.audience);
}
