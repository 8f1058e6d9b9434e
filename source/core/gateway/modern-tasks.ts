/**
 * Tasks for 2026-07-28 clients: the `io.modelcontextprotocol/tasks`
 * extension (SEP-2663) served in front of upstreams that speak the
 * 2025-11-25 core tasks. Hangar keeps the 2025 side exactly as for a 2025
 * client (task-book.ts, task-requests.ts: ids of hangar's own, a task
 * reachable only by the client that created it) and translates at this
 * edge:
 *
 * | 2026-07-28 client sends | hangar sends the 2025 upstream | the client gets |
 * | --- | --- | --- |
 * | `tools/call` of a tool whose upstream says `taskSupport` `optional` or `required`, the extension declared in the request's `_meta` | `tools/call` with `task: {}` | a flat `CreateTaskResult`: `resultType: "task"`, `taskId` (hangar's), `status`, `createdAt`, `lastUpdatedAt`, `ttlMs`, `pollIntervalMs` |
 * | `tasks/get` | `tasks/get`; while the task is `input_required`, `tasks/result` kept open to collect its questions; once it has ended, `tasks/result` (once: kept) | a `DetailedTask`: the questions under `inputRequests`, the result inlined under `result`, or a protocol error under `error` |
 * | `tasks/cancel` | `tasks/cancel` (nothing for a task already ended) | the empty ack `{resultType: "complete"}` |
 * | `tasks/update` | the answers to what the task asked (task-inputs.ts) | the empty ack `{resultType: "complete"}` |
 * | `tasks/result`, `tasks/list` | nothing | -32601: the extension removed them |
 *
 * - A tool error is a 2025 `failed` task whose `tasks/result` is a result
 *   with `isError`: the extension calls that `completed` with the result
 *   inlined, and reserves `failed` for protocol errors (a `tasks/result`
 *   answered with a JSON-RPC error, a task lost with its upstream's crash).
 * - Without the extension in the request's `_meta` clientCapabilities, the
 *   tasks methods answer -32021 naming it, a tool the upstream runs only as
 *   a task (`required`) is refused with -32021 too, and any other tool is
 *   called plainly. A 2025 `task` param on a 2026-07-28 request is ignored
 *   (the extension lets the server decide): the call is answered in full.
 * - A 2025 task that asks its client mid-task (`input_required`: the
 *   upstream sends elicitation or sampling, naming the task, while
 *   `tasks/result` is pending) is translated by task-inputs.ts: once
 *   tasks/get finds it `input_required`, hangar sends the 2025 tasks/result
 *   itself and holds what the upstream asks; tasks/get shows it as the
 *   task's `inputRequests`, tasks/update answers it, and the result that
 *   tasks/result brings back is the one tasks/get inlines. While the
 *   upstream says `input_required` and hangar holds no question for the
 *   client (not asked yet, or asked what the client did not declare),
 *   tasks/get says so: `input_required`, empty `inputRequests`, and a
 *   `statusMessage` naming why.
 */
import {JsonRpcCode, JsonRpcError} from '../base/errors.js';
import type {RequestContext} from '../engine/request-context.js';
import {isCreateTaskResult, isTerminal, type TaskEntry} from '../engine/routing/task-book.js';
import type {ServedCapabilities, Supervisor} from '../engine/supervisor.js';
import {UpstreamRpcError} from '../link/connection.js';
import {isPlainObject} from '../wire/message-classifier.js';
import {isManagementTool} from './management-tools.js';
import type {Params, RequestHandler} from './pipeline.js';
import {clientCapabilitiesKey, modernErrorCode} from './protocol-era.js';
import {toRpcError} from './request-params.js';
import {taskInputsOf} from './task-inputs.js';

/** The extension's identifier, as clients declare it and servers advertise it under `capabilities.extensions`. */
export const tasksExtension = 'io.modelcontextprotocol/tasks';

/**
 * What a 2026-07-28 client reads of hangar's capabilities (server/discover):
 * tasks as the extension, never the 2025 `tasks` slot the extension
 * replaced. `now` is hangar's 2025 tasks capability as it is now (read per
 * discover: on a first run it is known once the upstreams have started).
 */
export function modernCapabilities(capabilities: Record<string, unknown>, now: ServedCapabilities['tasks']): Record<string, unknown> {
	const {tasks: _tasks, ...rest} = capabilities;
	if (!runsToolTasks(now)) return rest;
	const extensions = isPlainObject(rest['extensions']) ? rest['extensions'] : {};
	return {...rest, extensions: {...extensions, [tasksExtension]: {}}};
}

/** Whether hangar's 2025 `tasks` capability includes task-augmented tools/call (an upstream offers it). */
function runsToolTasks(tasks: unknown): boolean {
	return isPlainObject(tasks) && isPlainObject(tasks['requests']) && isPlainObject(tasks['requests']['tools']) && tasks['requests']['tools']['call'] !== undefined;
}

/** What the request declared in its `_meta` clientCapabilities. */
function declaredBy(params: Params): Record<string, unknown> {
	const meta = params?.['_meta'];
	const declared = isPlainObject(meta) ? meta[clientCapabilitiesKey] : undefined;
	return isPlainObject(declared) ? declared : {};
}

/** Whether the request declared the tasks extension in its `_meta` clientCapabilities. */
function declaresTasks(params: Params): boolean {
	const declared = declaredBy(params);
	return isPlainObject(declared['extensions']) && declared['extensions'][tasksExtension] !== undefined;
}

function missingExtension(what: string): JsonRpcError {
	return new JsonRpcError(
		modernErrorCode.missingClientCapability,
		`${what} needs the ${tasksExtension} extension, and this request does not declare it: add it under extensions in the request's _meta clientCapabilities`,
		{requiredCapabilities: {extensions: {[tasksExtension]: {}}}},
	);
}

/**
 * The request's context with some facts replaced (the task param hangar
 * adds upstream, the method a translated request is sent as). The original
 * stays the prototype, so its signal, deadline and record are the same ones.
 */
function contextWith(context: RequestContext, overrides: Partial<Pick<RequestContext, 'task' | 'method'>>): RequestContext {
	const derived = Object.create(context) as RequestContext;
	for (const [key, value] of Object.entries(overrides)) Object.defineProperty(derived, key, {value, enumerable: true});
	return derived;
}

/** A 2025 task object as the extension words it: `ttlMs` and `pollIntervalMs` in place of `ttl` and `pollInterval`. */
function modernTask(task: Record<string, unknown>): Record<string, unknown> {
	const {ttl, pollInterval, _meta: _dropped, ...rest} = task;
	return {
		...rest,
		ttlMs: typeof ttl === 'number' && ttl > 0 ? Math.round(ttl) : null,
		...(typeof pollInterval === 'number' && pollInterval > 0 ? {pollIntervalMs: Math.max(1, Math.round(pollInterval))} : {}),
	};
}

/**
 * The modern handlers, by method; `call` is the session's tools/call, and
 * `scope` the session (a connection that is its client ends what its
 * requests hold when it closes). Served only to 2026-07-28 requests
 * (Pipeline.handleModern). Nothing is gated on what hangar offered when the
 * session began: a task is created only for a tool whose upstream says it
 * supports tasks, and the tasks methods find only tasks so created.
 */
export function modernTaskHandlers(supervisor: Supervisor, call: RequestHandler, scope: object): Record<string, RequestHandler> {
	const book = supervisor.tasks;
	const inputs = taskInputsOf(supervisor);

	const entryFor = (context: RequestContext, params: Params): TaskEntry => {
		if (!declaresTasks(params)) throw missingExtension(context.method);
		const taskId = params?.['taskId'];
		if (typeof taskId !== 'string') throw new JsonRpcError(JsonRpcCode.InvalidParams, `Invalid params for "${context.method}": "taskId" must be a string, the id tools/call's CreateTaskResult gave`);
		const entry = book.find(context.client, taskId);
		// The same answer for another client's task as for an id never handed out.
		if (entry === undefined) {
			throw new JsonRpcError(JsonRpcCode.InvalidParams, `Invalid params for "${context.method}": no task ${JSON.stringify(taskId)} for this client; a task is reachable only by the client that created it, until its ttlMs ends`, {error: 'UnknownTask', taskId});
		}

		return entry;
	};

	const failing = (entry: TaskEntry, context: RequestContext, error: unknown): JsonRpcError => toRpcError(error, `upstream "${entry.instance.name}": ${context.method} "${entry.id}"`, context.audience);

	const get: RequestHandler = async (context, params) => {
		const entry = entryFor(context, params);
		let task: Record<string, unknown>;
		try {
			task = await supervisor.taskRequest(entry, {}, context);
		} catch (error) {
			throw failing(entry, context, error);
		}

		const status = task['status'];
		const detailed = modernTask(task);
		if (!isTerminal(status) && (status === 'input_required' || inputs.has(entry))) {
			const asked = await inputs.pending(entry, context, declaredBy(params), scope);
			if (Object.keys(asked).length > 0) return {...detailed, status: 'input_required', inputRequests: asked};
			if (status === 'input_required') {
				return {
					...detailed,
					inputRequests: {},
					statusMessage: `upstream "${entry.server}" says the task needs its client's input, and hangar holds no question of it for this client: it has not asked yet (poll again), or asked what this client's requests do not declare in their _meta clientCapabilities (then it was told no; cancel the task)`,
				};
			}
		}

		if (status !== 'completed' && status !== 'failed') return detailed;
		const outcome = await inputs.outcomeOf(entry, contextWith(context, {method: 'tasks/result'}));
		// A tool that ran and reported an error is completed, its result inlined; failed is for protocol errors (SEP-2663).
		return 'result' in outcome ? {...detailed, status: 'completed', result: outcome.result} : {...detailed, status: 'failed', error: outcome.error};
	};

	const cancel: RequestHandler = async (context, params) => {
		const entry = entryFor(context, params);
		// Idempotent: an ended (or lost) task's cancel is the same empty ack.
		if (entry.lost !== undefined || isTerminal(entry.task['status'])) return {};
		const tasks = entry.instance.capabilities?.['tasks'];
		if (!isPlainObject(tasks) || tasks['cancel'] === undefined) {
			throw new JsonRpcError(JsonRpcCode.InvalidRequest, `tasks/cancel "${entry.id}": upstream "${entry.server}" does not offer tasks/cancel (its 2025 tasks capability has no cancel), so hangar cannot stop the task; it ends on its own, or when its ttl does`);
		}

		try {
			await supervisor.taskRequest(entry, {}, context);
		} catch (error) {
			// It ended between the client's look and the cancel: the ack is the same.
			if (!(error instanceof UpstreamRpcError && isTerminal(entry.task['status']))) throw failing(entry, context, error);
		}

		// What it asked its client is answered with an error now: nobody will answer it.
		inputs.cancelled(entry);
		return {};
	};

	const update: RequestHandler = async (context, params) => {
		const entry = entryFor(context, params);
		const responses = params?.['inputResponses'];
		if (!isPlainObject(responses)) throw new JsonRpcError(JsonRpcCode.InvalidParams, `Invalid params for "tasks/update" "${entry.id}": "inputResponses" must be an object, the answers keyed as tasks/get's inputRequests`);
		inputs.answer(entry, responses);
		return {};
	};

	const removed = (method: string): RequestHandler => () => {
		throw new JsonRpcError(JsonRpcCode.MethodNotFound, `Method not found: "${method}" (the ${tasksExtension} extension of 2026-07-28 removed it: tasks/get inlines the result)`);
	};

	/** tools/call: a task-supporting tool runs as a task when the request declares the extension. */
	const toolCall: RequestHandler = async (context, params) => {
		const name = params?.['name'];
		if (typeof name !== 'string' || isManagementTool(name)) return call(context, params);
		let support: unknown;
		try {
			const route = await supervisor.router.routeTool(name, context);
			const definition = route.upstream.tools.find(tool => tool.name === route.localName) as {execution?: {taskSupport?: unknown}} | undefined;
			support = definition?.execution?.taskSupport;
		} catch {
			// The call itself says why it cannot be routed.
			return call(context, params);
		}

		const declared = declaresTasks(params);
		if (support === 'required' && !declared) throw missingExtension(`tools/call "${name}" (its upstream runs it only as a task)`);
		// The 2025 `task` param is not part of a 2026-07-28 request: the server decides, so one sent anyway is ignored (never a 2025 CreateTaskResult the client cannot read).
		if (!declared || (support !== 'required' && support !== 'optional')) return call(contextWith(context, {task: undefined}), params);
		const result = await call(contextWith(context, {task: {}}), params);
		if (!isCreateTaskResult(result)) return result;
		return {...modernTask(result.task), resultType: 'task'};
	};

	return {'tools/call': toolCall, 'tasks/get': get, 'tasks/cancel': cancel, 'tasks/update': update, 'tasks/result': removed('tasks/result'), 'tasks/list': removed('tasks/list')};
}
