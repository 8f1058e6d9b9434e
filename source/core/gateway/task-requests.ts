/**
 * The handlers of `tasks/get`, `tasks/result`, `tasks/cancel` and
 * `tasks/list` (2025-11-25 tasks), in a session's method table only when
 * hangar offered `tasks` (some upstream offers it; see
 * `Supervisor.capabilities`). Plain JSON: the params are checked by hand,
 * the upstream's answers pass as they came but for the task ids.
 *
 * - A task id is hangar's (engine/routing/task-book.ts): it names a task
 *   only in the session that created it, and is sent upstream as that
 *   upstream's own id. Any other id is -32602, the same for another
 *   session's task as for one never handed out.
 * - `tasks/list` is hangar's own list of the session's tasks, across
 *   upstreams, oldest first, with their status as each upstream lists it
 *   now (an upstream that cannot list them, or fails to, gives the status
 *   last seen), paged with hangar's opaque cursors (pagination.ts).
 */
import {JsonRpcCode, JsonRpcError} from '../base/errors.js';
import type {ClientRecord} from '../engine/clients/clients.js';
import type {RequestContext} from '../engine/request-context.js';
import {unknownTask} from '../engine/refusals.js';
import type {TaskEntry} from '../engine/routing/task-book.js';
import type {ServedCapabilities, Supervisor} from '../engine/supervisor.js';
import type {Upstream} from '../engine/upstream/upstream.js';
import {UpstreamRpcError} from '../link/connection.js';
import {isPlainObject} from '../wire/message-classifier.js';
import {page} from './pagination.js';
import type {Params, RequestHandler} from './pipeline.js';
import {toRpcError} from './request-params.js';

/** Pages of an upstream's own tasks/list read for one answer, at most (a server that never ends its list is cut off). */
const upstreamListPages = 20;

/**
 * An upstream's error about a task names it by the upstream's own id, which
 * its client never saw: that id becomes the one hangar gave the client.
 */
function ownTaskId(error: unknown, entry: TaskEntry): unknown {
	if (!(error instanceof UpstreamRpcError) || !error.message.includes(entry.upstreamId)) return error;
	return new UpstreamRpcError(error.code, error.message.replaceAll(entry.upstreamId, entry.id), error.data);
}

/** The handlers of the tasks methods hangar offers, by method (none when it offers no `tasks`). */
export function taskHandlers(supervisor: Supervisor, capabilities: ServedCapabilities): Record<string, RequestHandler> {
	const offered = capabilities.tasks;
	if (offered === undefined) return {};
	const book = supervisor.tasks;

	/** The session's task that params.taskId names, or -32602. */
	const entryFor = (context: RequestContext, params: Params): TaskEntry => {
		const taskId = params?.['taskId'];
		if (typeof taskId !== 'string') throw new JsonRpcError(JsonRpcCode.InvalidParams, `Invalid params for "${context.method}": "taskId" must be a string, the id tools/call's CreateTaskResult gave`);
		const entry = book.find(context.client, taskId);
		if (entry === undefined) throw unknownTask(context.method, taskId);
		return entry;
	};

	const routed: RequestHandler = async (context, params) => {
		const entry = entryFor(context, params);
		try {
			return await supervisor.taskRequest(entry, params ?? {}, context);
		} catch (error) {
			throw toRpcError(ownTaskId(error, entry), `upstream "${entry.instance.name}": ${context.method} "${entry.id}"`, context.audience);
		}
	};

	const handlers: Record<string, RequestHandler> = {'tasks/get': routed, 'tasks/result': routed};
	if (offered.cancel !== undefined) handlers['tasks/cancel'] = routed;
	if (offered.list !== undefined) {
		handlers['tasks/list'] = async (context, params) => {
			const cursor = params?.['cursor'];
			if (cursor !== undefined && typeof cursor !== 'string') throw new JsonRpcError(JsonRpcCode.InvalidParams, 'Invalid params for "tasks/list": "cursor" must be a string, a nextCursor this list gave');
			const client = context.client;
			// Upstreams are asked for the first page; later pages page what it found (a bad cursor is refused by page()).
			if (client !== undefined && cursor === undefined) await refresh(supervisor, client, context);
			const mine = client === undefined ? [] : book.ofClient(client);
			const {items, nextCursor} = page('tasks/list', mine, cursor);
			return {tasks: items.map(entry => book.expose(entry, entry.task)), ...(nextCursor === undefined ? {} : {nextCursor})};
		};
	}

	return handlers;
}

/**
 * Asks each upstream instance that runs a task of `client`'s, and can list
 * tasks, for its list, and keeps what it says of those tasks. Upstreams are
 * asked together; one that fails is left at what was last seen.
 */
async function refresh(supervisor: Supervisor, client: ClientRecord, context: RequestContext): Promise<void> {
	const book = supervisor.tasks;
	const byInstance = new Map<Upstream, Map<string, TaskEntry>>();
	for (const entry of book.ofClient(client)) {
		if (entry.lost !== undefined || !listsTasks(entry.instance) || entry.instance.readyConnection === undefined) continue;
		let mine = byInstance.get(entry.instance);
		if (mine === undefined) {
			mine = new Map();
			byInstance.set(entry.instance, mine);
		}

		mine.set(entry.upstreamId, entry);
	}

	await Promise.all(
		[...byInstance].map(async ([instance, mine]) => {
			let cursor: string | undefined;
			for (let pages = 0; pages < upstreamListPages; pages++) {
				const answer = await instance.request('tasks/list', cursor === undefined ? {} : {cursor}, 'tasks/list', {signal: context.signal, deadline: context.deadline}).catch(() => undefined);
				const tasks = answer?.['tasks'];
				if (!Array.isArray(tasks)) return;
				for (const task of tasks) {
					const entry = isPlainObject(task) && typeof task['taskId'] === 'string' ? mine.get(task['taskId']) : undefined;
					if (entry !== undefined) book.observed(entry, task as Record<string, unknown>);
				}

				cursor = typeof answer?.['nextCursor'] === 'string' ? answer['nextCursor'] : undefined;
				if (cursor === undefined) return;
			}
		}),
	);
}

function listsTasks(upstream: Upstream): boolean {
	const tasks = upstream.capabilities?.['tasks'];
	return isPlainObject(tasks) && tasks['list'] !== undefined;
}
