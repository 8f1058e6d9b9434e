/**
 * The `hangar_*` management tools the gateway serves next to the upstreams'
 * tools. Each answers from the supervisor's memory (a slow or hung upstream
 * cannot block it, except `hangar_call` and the lifecycle commands, which do
 * what they say), returns `structuredContent` plus the same JSON as text,
 * and answers unknown or ill-typed arguments with a tool execution error
 * saying which (`isError: true`, see tool-requests.ts).
 *
 * Lifting a quarantine is deliberately missing: only a person (TUI key or
 * `mcp-hangar approve`) may do that, never a client. `hangar.managementTools`
 * narrows what MCP clients get further: `read-only` (list, details, find,
 * call) or `none`; a tool turned off is not listed, and a call to it is
 * refused with an error that names the setting.
 */
import {JsonRpcCode} from '../base/errors.js';
import {isPlainObject} from '../wire/message-classifier.js';
import {maxListLimit} from '../wire/protocol.js';
import {settleWithin} from '../base/settle.js';
import type {PersonAction, Supervisor} from '../engine/supervisor.js';
import {findPrompts, findTools, serverEntry, upstreamDetails, type StatusEntry} from '../views/views.js';
import type {NameClash} from '../engine/routing/router.js';
import type {ToolDefinition} from '../config/read-config.js';

export type {StatusEntry} from '../views/views.js';

type ParamType = 'string' | 'integer' | 'object';
type ParamSpec = {type: ParamType; required: boolean; description: string; minimum?: number; maximum?: number};

type ManagementSpec = {
	name: string;
	title: string;
	description: string;
	params: Record<string, ParamSpec>;
	readOnly: boolean;
	/** Served under `managementTools: "read-only"`: it reads, or calls a tool as a direct call would; it changes no upstream's lifecycle. */
	reads: boolean;
};

export type ManagementToolsSetting = 'all' | 'read-only' | 'none';

const server: ParamSpec = {type: 'string', required: true, description: 'The upstream server name as configured (see hangar_list).'};
const waitSeconds: ParamSpec = {
	type: 'integer',
	required: false,
	description:
		'Wait up to this many seconds for the start or stop to finish before answering (0-60, default 0: answer at once with the state it is in; hangar_list shows the rest, and a call to a starting upstream waits for it).',
	minimum: 0,
	maximum: 60,
};

/**
 * hangar_list pages: 50 entries are about 50 KB with the text form. Past
 * ~128 KB an answer costs the client far more (V8 puts such strings in its
 * large-object space; see docs/performance.md, finding 4), and an agent
 * rarely wants 200 entries in its context at once. The most a page holds,
 * maxListLimit, is in wire/protocol.ts: the CLI client pages with it.
 */
export const defaultListLimit = 50;

const specs: ManagementSpec[] = [
	{
		name: 'hangar_list',
		title: 'List upstream MCP servers',
		description:
			'List the upstream MCP servers behind mcp-hangar with their live state (cold, starting, ready, degraded, dead, stopping, stopped, quarantined, disabled), whether a call would be routed now (ready) or attempted at all (callable), whether the tool list is stale, circuit breaker, pid, tool count, call and failure counts, latency, restarts and last error. Answers instantly from memory. Up to `limit` upstreams (default 50) in config order; `total` and `states` (counts by state) cover all of them, and `nextCursor`, when not null, fetches the next page. `clashes` lists names two upstreams expose (servers with "namespace": false) and which one keeps each.',
		params: {
			limit: {type: 'integer', required: false, description: `Most upstreams to return (1-${maxListLimit}, default ${defaultListLimit}).`, minimum: 1, maximum: maxListLimit},
			cursor: {type: 'string', required: false, description: 'The nextCursor of the previous page.'},
		},
		readOnly: true,
		reads: true,
	},
	{
		name: 'hangar_details',
		title: 'Details of one upstream',
		description:
			'One upstream in depth: its tools with input schemas and per-tool calls, failures and latency; its capabilities, resources, resource templates and prompts (with the names and URIs clients see); name clashes it is part of; the last 50 state transitions with their reasons; recent calls and errors; the tail of its stderr; and, if it is quarantined, why (with the diff when a pinned tool changed).',
		params: {server},
		readOnly: true,
		reads: true,
	},
	{
		name: 'hangar_find_tools',
		title: 'Find tools across every upstream',
		description:
			'Fuzzy search over the tool names, descriptions and server names of every upstream, including cold ones (from their cached tool lists). Each hit has the name to call directly ("<server>__<tool>"), the server and tool for hangar_call, its input schema, and its server\'s state, whether it is callable, and when its tool list was last verified. prompts holds the prompts that match the same way (get one with prompts/get by its name). Quarantined upstreams never appear. notYetKnown lists upstreams whose tools were never listed yet (first run, still starting): search again in a moment.',
		params: {
			query: {type: 'string', required: true, description: 'What the tool should do or be called, e.g. "read file" or "knowledge graph".'},
			limit: {type: 'integer', required: false, description: 'Most hits to return (1-50, default 10).', minimum: 1, maximum: 50},
		},
		readOnly: true,
		reads: true,
	},
	{
		name: 'hangar_call',
		title: 'Call a tool of an upstream',
		description:
			'Call a tool by its server and its own name (as hangar_find_tools returns them), on the same path as a direct call: the upstream is started on demand, the circuit breaker and the call deadline apply, progress and cancellation pass through.',
		params: {
			server,
			tool: {type: 'string', required: true, description: 'The tool\'s own name on that server (without the "<server>__" prefix).'},
			arguments: {type: 'object', required: false, description: 'The tool\'s arguments, as its input schema describes.'},
		},
		readOnly: false,
		reads: true,
	},
	{
		name: 'hangar_start',
		title: 'Start an upstream',
		description:
			'Start an upstream now (from cold, stopped or dead; resets its restart budget). Answers at once with its state ("starting"), or once it is ready or its start failed if waitSeconds allows.',
		params: {server, waitSeconds},
		readOnly: false,
		reads: false,
	},
	{
		name: 'hangar_stop',
		title: 'Stop an upstream',
		description:
			'Stop an upstream as a person would: it lands in "stopped", its tools are hidden, and it does not start on demand until it is started again. Answers at once (state "stopping" while its process exits), or once it is stopped if waitSeconds allows.',
		params: {server, waitSeconds},
		readOnly: false,
		reads: false,
	},
	{
		name: 'hangar_restart',
		title: 'Restart an upstream',
		description: 'Stop an upstream and start it again. Answers at once with its state, or once it is running again (or failed to) if waitSeconds allows.',
		params: {server, waitSeconds},
		readOnly: false,
		reads: false,
	},
	{
		name: 'hangar_quarantine',
		title: 'Quarantine an upstream',
		description:
			'Quarantine an upstream at once: its tools are hidden and its calls refused from this moment, it is stopped if running, and this survives restarts. Only a person can lift a quarantine (the TUI, or `mcp-hangar approve`). Answers at once (state "stopping" while its process exits), or once it is stopped if waitSeconds allows.',
		params: {server, reason: {type: 'string', required: false, description: 'Why, for the person who reviews it.'}, waitSeconds},
		readOnly: false,
		reads: false,
	},
];

function toTool(spec: ManagementSpec): ToolDefinition {
	const properties: Record<string, Record<string, unknown>> = {};
	for (const [key, param] of Object.entries(spec.params)) {
		properties[key] = {
			type: param.type,
			description: param.description,
			...(param.minimum === undefined ? {} : {minimum: param.minimum}),
			...(param.maximum === undefined ? {} : {maximum: param.maximum}),
		};
	}

	const required = Object.entries(spec.params)
		.filter(([, param]) => param.required)
		.map(([key]) => key);
	return {
		name: spec.name,
		title: spec.title,
		description: spec.description,
		inputSchema: {type: 'object', properties, ...(required.length > 0 ? {required} : {}), additionalProperties: false},
		annotations: {readOnlyHint: spec.readOnly, openWorldHint: false, ...(spec.readOnly ? {} : {destructiveHint: spec.name === 'hangar_stop' || spec.name === 'hangar_quarantine'})},
	};
}

export const managementTools: readonly ToolDefinition[] = specs.map(spec => toTool(spec));
const specByName = new Map(specs.map(spec => [spec.name, spec]));
const toolsBySetting: Record<ManagementToolsSetting, readonly ToolDefinition[]> = {
	all: managementTools,
	'read-only': managementTools.filter(tool => specByName.get(tool.name)!.reads),
	none: [],
};

export function isManagementTool(name: string): boolean {
	return specByName.has(name);
}

/** The management tools MCP clients get under `setting`. */
export function managementToolsFor(setting: ManagementToolsSetting): readonly ToolDefinition[] {
	return toolsBySetting[setting];
}

/** Whether management tool `name` is served to MCP clients under `setting`. */
export function managementToolAllowed(name: string, setting: ManagementToolsSetting): boolean {
	return setting === 'all' || (setting === 'read-only' && specByName.get(name)?.reads === true);
}

/** Why a call to management tool `name` is refused under `setting`: a sentence naming the setting and what to do. */
export function managementToolRefusal(name: string, setting: ManagementToolsSetting): string {
	const what = setting === 'none' ? 'every management tool is turned off' : `${name} is turned off (only hangar_list, hangar_details, hangar_find_tools and hangar_call are served)`;
	return (
		`${name} is not available to MCP clients: ${what} by "managementTools": "${setting}" in the hangar settings of the config. ` +
		'A person can still act on upstreams (mcp-hangar tui, mcp-hangar status and call); to let clients do it, change "managementTools" and restart hangar.'
	);
}

/** Invalid arguments of a management tool: answered as a tool execution error (`isError: true`) with this message. */
export class ManagementParamsError extends Error {
	readonly code = JsonRpcCode.InvalidParams;
}

/** Checks `args` against the tool's parameters; throws ManagementParamsError naming every problem. */
export function checkArguments(name: string, args: Record<string, unknown> | undefined): Record<string, unknown> {
	const spec = specByName.get(name)!;
	const given = args ?? {};
	const problems: string[] = [];
	const unknown = Object.keys(given).filter(key => !Object.hasOwn(spec.params, key));
	if (unknown.length > 0) {
		const known = Object.keys(spec.params);
		problems.push(`unknown argument${unknown.length > 1 ? 's' : ''} ${unknown.map(key => `"${key}"`).join(', ')} (${known.length === 0 ? 'it takes none' : `it takes ${known.map(key => `"${key}"`).join(', ')}`})`);
	}

	for (const [key, param] of Object.entries(spec.params)) {
		const value = given[key];
		if (value === undefined) {
			if (param.required) problems.push(`"${key}" is required (${param.description})`);
			continue;
		}

		const ok =
			param.type === 'string'
				? typeof value === 'string' && value !== ''
				: param.type === 'integer'
					? Number.isInteger(value) && (param.minimum === undefined || (value as number) >= param.minimum) && (param.maximum === undefined || (value as number) <= param.maximum)
					: isPlainObject(value);
		if (!ok) {
			const range = param.minimum === undefined ? '' : ` from ${param.minimum} to ${param.maximum}`;
			problems.push(`"${key}" must be ${param.type === 'string' ? 'a non-empty string' : param.type === 'integer' ? `an integer${range}` : 'an object'} (got ${JSON.stringify(value)})`);
		}
	}

	if (problems.length > 0) throw new ManagementParamsError(`Invalid arguments for ${name}: ${problems.join('; ')}.`);
	return given;
}

export type StatusPage = {
	/** Upstreams configured, all pages together. */
	total: number;
	/** How many are in each state, all pages together (states with none are left out). */
	states: Partial<Record<StatusEntry['state'], number>>;
	upstreams: StatusEntry[];
	/** Pass as `cursor` for the next page; null on the last one. */
	nextCursor: string | null;
	/** Names two or more upstreams expose (servers with "namespace": false): who keeps each, and whose is left out. */
	clashes: NameClash[];
	/** Estimated tokens of the definitions a client receives: under the configured exposure, and under each (see each entry's contextTokens). */
	contextTokens: {exposure: 'direct' | 'search'; current: number; direct: number; search: number};
};

/** One page of hangar_list for arguments already checked by `checkArguments`. */
export function statusJson(supervisor: Supervisor, args: Record<string, unknown> = {}): StatusPage {
	const limit = (args['limit'] as number | undefined) ?? defaultListLimit;
	const cursor = args['cursor'] as string | undefined;
	const all = [...supervisor.upstreams.values()];
	const offset = cursor === undefined ? 0 : Number(cursor);
	if (cursor !== undefined && !(/^\d+$/.test(cursor) && offset <= all.length)) {
		throw new ManagementParamsError(`Invalid arguments for hangar_list: "cursor" ${JSON.stringify(cursor)} is not a nextCursor hangar_list gave (omit it for the first page).`);
	}

	// Counting states needs only each upstream's state; full entries are built for this page alone.
	const states: StatusPage['states'] = {};
	for (const upstream of all) states[upstream.state] = (states[upstream.state] ?? 0) + 1;
	const end = Math.min(all.length, offset + limit);
	const now = Date.now();
	const cost = supervisor.contextCost();
	const upstreams = all.slice(offset, end).map(upstream => serverEntry(supervisor, upstream, now));
	return {
		total: all.length,
		states,
		upstreams,
		nextCursor: end < all.length ? String(end) : null,
		clashes: [...supervisor.clashes()],
		contextTokens: {exposure: cost.exposure, current: cost.current, direct: cost.direct, search: cost.search},
	};
}

const personActionOfTool: Record<string, PersonAction> = {
	hangar_start: 'start',
	hangar_stop: 'stop',
	hangar_restart: 'restart',
	hangar_quarantine: 'quarantine',
};

/**
 * Runs a management tool other than hangar_list (served on its own fast path)
 * and hangar_call (a tool call, routed by the gateway). Resolves with the
 * JSON to return; rejects with a HangarError (refusals, failed starts) or a
 * ManagementParamsError.
 */
export async function runManagementTool(supervisor: Supervisor, name: string, args: Record<string, unknown>, via: string): Promise<unknown> {
	switch (name) {
		case 'hangar_details': {
			return upstreamDetails(supervisor, args['server'] as string);
		}

		case 'hangar_find_tools': {
			const query = args['query'] as string;
			const limit = (args['limit'] as number | undefined) ?? 10;
			const hits = findTools(supervisor, query, limit);
			const prompts = findPrompts(supervisor, query, limit);
			// Upstreams that could serve tools but have never listed them (first run, still starting): not searched yet.
			const notYetKnown = [...supervisor.upstreams.values()]
				.filter(upstream => upstream.callable && upstream.toolsSource === 'none')
				.map(upstream => ({server: upstream.name, state: upstream.state}));
			return {query, hits, prompts, notYetKnown};
		}

		default: {
			const action = personActionOfTool[name];
			if (action === undefined) throw new Error(`${name} is not served here`);
			const server = args['server'] as string;
			const reason = args['reason'] as string | undefined;
			const outcome = supervisor.act(server, action, reason === undefined ? via : `${via}: ${reason}`);
			// With 0 it still sees commands that settle without waiting for a process: refusals, a stop of an upstream that is not running.
			const message = await settleWithin(outcome, ((args['waitSeconds'] as number | undefined) ?? 0) * 1000);
			const status = serverEntry(supervisor, supervisor.upstream(server));
			if (message !== undefined) return {server, action, done: true, message, status};
			// Still under way: its end (or failure) shows in hangar_list and hangar_details, never as an unhandled rejection.
			outcome.catch(() => {});
			return {server, action, done: false, message: underWay(server, action, status.state), status};
		}
	}
}

function underWay(server: string, action: PersonAction, state: string): string {
	const watch = 'hangar_list shows when it is done';
	switch (action) {
		case 'start':
		case 'restart': {
			return `${action} of "${server}" is under way (${state}); ${watch}, and a call to one of its tools waits for the start`;
		}

		case 'stop': {
			return `stop of "${server}" is under way (${state}): it takes no new calls and lands in "stopped"; ${watch}`;
		}

		default: {
			return `"${server}" is quarantined: its tools are hidden and calls refused already; its process is being stopped (${state}); ${watch}`;
		}
	}
}
