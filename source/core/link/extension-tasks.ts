/**
 * A 2026-07-28 upstream's tasks extension (`io.modelcontextprotocol/tasks`,
 * SEP-2663) driven as 2025-11-25 core tasks, so the engine above (the task
 * book, hangar's ids, one owner per task) works for it as for a 2025
 * upstream, and so does the gateway's translation for 2026-07-28 clients
 * (gateway/modern-tasks.ts). Only for a modern connection whose
 * `server/discover` advertises the extension:
 *
 * | the engine asks (2025) | hangar sends the upstream (the extension declared in the request's `_meta` clientCapabilities) | the engine gets |
 * | --- | --- | --- |
 * | `tools/call` with `task` | `tools/call` without `task` | a 2025 `CreateTaskResult` (`{task}`: `ttl`, `pollInterval` from `ttlMs`, `pollIntervalMs`) when it answers `resultType: "task"`; its result otherwise |
 * | `tasks/get` | `tasks/get` | the 2025 `Task`; an inlined `result` or `error` is kept for tasks/result |
 * | `tasks/result` | `tasks/get`, polled until the task ends | the result (its `related-task` `_meta` added), or the task's JSON-RPC error |
 * | `tasks/cancel` | `tasks/cancel`, then `tasks/get` | the 2025 `Task` as it is after the cancel |
 * | `tasks/list` | nothing (the extension has none) | the tasks this connection created, as last seen |
 *
 * - The capabilities the engine reads gain the 2025 `tasks` slot
 *   (`list`, `cancel`, `requests.tools.call`), so hangar offers tasks to
 *   2025 clients only because this upstream runs them.
 * - The extension's status push (`notifications/tasks` on
 *   subscriptions/listen) is optional; hangar polls each live task instead
 *   (at its `pollIntervalMs`, within 50 ms and 5 s) and sends the engine
 *   `notifications/tasks/status` params when its status changes.
 * - A task in `input_required` asks as a 2025 task does: its
 *   `inputRequests` go, while a tasks/result waits, to that request's client
 *   as requests of their own (through `ClientSide`, the client-faithful
 *   rules of input-rounds.ts), and the answers go back with `tasks/update`.
 * - Bounded: at most `followedLimit` tasks per connection (the oldest ended
 *   ones go first); a task is forgotten when its `ttlMs` ends.
 */
import {isPlainObject} from '../wire/message-classifier.js';
import {ConnectionLostError, RequestCancelledError, UpstreamRpcError, UpstreamTimeoutError} from './connection-errors.js';
import type {ClientSide} from './client-side.js';
import type {ConnectionEvents} from './connection-events.js';
import {answerInputRound, readInputRound} from './input-rounds.js';
import {isTerminalTaskStatus} from './task-progress.js';
import {relatedTaskKey} from './upstream-asks.js';

/** The extension's identifier, as servers advertise it under `capabilities.extensions` and clients declare it. */
export const tasksExtensionId = 'io.modelcontextprotocol/tasks';

const clientCapabilitiesKey = 'io.modelcontextprotocol/clientCapabilities';

/** Tasks followed per connection, at most. */
export const followedLimit = 1000;

/** Input requests answered per task, at most: an upstream that never stops asking would hold a person forever. */
export const answeredLimit = 64;

/** How long one poll (tasks/get) may take. */
const pollTimeoutMs = 30_000;

/** The 2025 methods answered here for an upstream with the extension. */
const translatedMethods: ReadonlySet<string> = new Set(['tasks/get', 'tasks/result', 'tasks/cancel', 'tasks/list']);

/** The extension's methods that need it declared on the request. */
const extensionMethods: ReadonlySet<string> = new Set(['tasks/get', 'tasks/cancel', 'tasks/update']);

const statuses: ReadonlySet<string> = new Set(['working', 'input_required', 'completed', 'failed', 'cancelled']);

/** Whether a server's capabilities advertise the extension. */
export function offersTasksExtension(capabilities: Record<string, unknown> | undefined): boolean {
	const extensions = capabilities?.['extensions'];
	return isPlainObject(extensions) && extensions[tasksExtensionId] !== undefined;
}

type SendOptions = {signal?: AbortSignal | undefined; timeoutMs: number; caller?: unknown};

type Outcome = {result: Record<string, unknown>} | {error: {code: number; message: string; data?: unknown}};

type Followed = {
	/** The task as the engine gets it (2025 words, the upstream's id). */
	task: Record<string, unknown>;
	outcome: Outcome | undefined;
	timer: NodeJS.Timeout | undefined;
	expiry: NodeJS.Timeout | undefined;
	/** Settles when the task has ended (or can no longer be followed). */
	ended: Promise<void>;
	end: (error?: Error) => void;
	/** What an `input_required` task asks now (its `inputRequests`), and the keys already answered. */
	asks: Record<string, unknown> | undefined;
	answered: Set<string>;
	/** Wakes a tasks/result waiting for the task to end or ask. */
	wake: (() => void) | undefined;
};

export type ExtensionTasksDeps = {
	name: string;
	/** Whom an `input_required` task's questions go to (the client of the tasks/result waiting), and where status changes go. */
	clientSide: ClientSide | undefined;
	events: Pick<ConnectionEvents, 'onTaskStatus' | 'exposedTaskId'>;
	/** The upstream's own capabilities (server/discover), and whether the connection is modern. */
	capabilities: () => Record<string, unknown> | undefined;
	modern: () => boolean;
	/** Sends a request on the connection's modern path (the envelope added, then `outgoing`). */
	send: (method: string, params: Record<string, unknown>, options: SendOptions) => Promise<Record<string, unknown>>;
};

export class ExtensionTasks {
	private readonly followed = new Map<string, Followed>();

	constructor(private readonly deps: ExtensionTasksDeps) {}

	/** Whether this connection drives the extension. */
	get offered(): boolean {
		return this.deps.modern() && offersTasksExtension(this.deps.capabilities());
	}

	/** The capabilities the engine reads: with the 2025 `tasks` slot for an upstream that offers the extension. */
	capabilities(capabilities: Record<string, unknown> | undefined): Record<string, unknown> | undefined {
		if (capabilities === undefined || !this.offered || capabilities['tasks'] !== undefined) return capabilities;
		return {...capabilities, tasks: {list: {}, cancel: {}, requests: {tools: {call: {}}}}};
	}

	/** Whether `method` is a 2025 tasks method answered here. */
	handles(method: string): boolean {
		return translatedMethods.has(method) && this.offered;
	}

	/**
	 * A request on its way to the upstream, changed in place: a task-augmented
	 * tools/call loses the 2025 `task` param, and it and the extension's
	 * methods declare the extension in the `_meta` clientCapabilities (the
	 * envelope is already there). Any other request is left as it is, so the
	 * upstream never answers a task to a call nobody follows.
	 */
	outgoing(method: string, params: Record<string, unknown>): void {
		if (!this.offered) return;
		if (method === 'tools/call') {
			if (params['task'] === undefined) return;
			delete params['task'];
		} else if (!extensionMethods.has(method)) {
			return;
		}

		const meta = isPlainObject(params['_meta']) ? params['_meta'] : {};
		const declared = isPlainObject(meta[clientCapabilitiesKey]) ? meta[clientCapabilitiesKey] : {};
		const extensions = isPlainObject(declared['extensions']) ? declared['extensions'] : {};
		params['_meta'] = {...meta, [clientCapabilitiesKey]: {...declared, extensions: {...extensions, [tasksExtensionId]: {}}}};
	}

	/** A tools/call answer: `resultType: "task"` (to a request that declared the extension) becomes the 2025 CreateTaskResult, and the task is followed. */
	incoming(method: string, sent: Record<string, unknown>, answer: Record<string, unknown>): Record<string, unknown> {
		if (method !== 'tools/call' || answer['resultType'] !== 'task' || !this.offered || !declares(sent)) return answer;
		const task = this.legacyTask(answer, 'tools/call');
		this.follow(task);
		return {task};
	}

	/** A 2025 tasks method (`handles`), answered in the extension's words. */
	async request(method: string, params: Record<string, unknown>, options: SendOptions): Promise<Record<string, unknown>> {
		if (method === 'tasks/list') return {tasks: [...this.followed.values()].map(followed => followed.task)};
		const taskId = params['taskId'];
		if (typeof taskId !== 'string') throw new UpstreamRpcError(-32_602, `Invalid params for "${method}": "taskId" must be a string`, undefined);
		if (method === 'tasks/get') return this.get(taskId, options);
		if (method === 'tasks/cancel') {
			await this.deps.send('tasks/cancel', {taskId}, options);
			return this.get(taskId, options);
		}

		return this.result(taskId, options);
	}

	/** The connection closed: nothing is followed any more; a tasks/result waiting fails as the connection's requests do. */
	clear(): void {
		for (const followed of this.followed.values()) this.unfollow(followed, new ConnectionLostError());
		this.followed.clear();
	}

	private async get(taskId: string, options: SendOptions): Promise<Record<string, unknown>> {
		return this.observe(await this.deps.send('tasks/get', {taskId}, options));
	}

	/** tasks/result: waits until the task has ended, then its result or its error. */
	private async result(taskId: string, options: SendOptions): Promise<Record<string, unknown>> {
		let followed = this.followed.get(taskId);
		if (followed === undefined || (isTerminalTaskStatus(followed.task['status']) && followed.outcome === undefined)) {
			await this.get(taskId, options);
			followed = this.followed.get(taskId);
		}

		if (followed === undefined) throw new UpstreamRpcError(-32_602, `upstream "${this.deps.name}" no longer has task "${taskId}"`, undefined);
		await this.untilEnded(taskId, followed, options);
		const outcome = followed.outcome;
		if (outcome !== undefined && 'result' in outcome) {
			const meta = isPlainObject(outcome.result['_meta']) ? outcome.result['_meta'] : {};
			return {...outcome.result, _meta: {...meta, [relatedTaskKey]: {taskId}}};
		}

		if (outcome !== undefined) throw new UpstreamRpcError(outcome.error.code, outcome.error.message, outcome.error.data);
		throw new UpstreamRpcError(-32_602, `task "${taskId}" was ${String(followed.task['status'])} on upstream "${this.deps.name}": it has no result`, {status: followed.task['status']});
	}

	/**
	 * Waits for the task to end, answering what it asks meanwhile as a 2025
	 * task asks during tasks/result: each new input request goes to the
	 * client of this tasks/result (as a request of its own, its
	 * `related-task` `_meta` naming hangar's id for the task), and the
	 * answers go back with `tasks/update`. A key is asked once.
	 */
	private async untilEnded(taskId: string, followed: Followed, options: SendOptions): Promise<void> {
		const deadline = performance.now() + options.timeoutMs;
		for (;;) {
			const asks = Object.entries(followed.asks ?? {}).filter(([key]) => !followed.answered.has(key));
			if (asks.length > 0 && followed.task['status'] === 'input_required') {
				if (followed.answered.size + asks.length > answeredLimit) throw new UpstreamRpcError(-32_603, `task "${taskId}" on upstream "${this.deps.name}" asked for more than ${answeredLimit} inputs: hangar stopped answering`, undefined);
				const round = readInputRound(this.deps.name, 'tasks/result', {inputRequests: Object.fromEntries(asks.map(([key, ask]) => [key, this.related(taskId, ask)]))});
				// Marked before asking, so a second tasks/result waiting does not ask again; unmarked if the asking fails, so a later one can.
				for (const [key] of asks) followed.answered.add(key);
				try {
					const inputResponses = await answerInputRound(this.deps.name, this.deps.clientSide, round, {signal: options.signal ?? new AbortController().signal, caller: options.caller});
					await this.deps.send('tasks/update', {taskId, inputResponses}, options);
				} catch (error) {
					for (const [key] of asks) followed.answered.delete(key);
					throw error;
				}

				continue;
			}

			if (isTerminalTaskStatus(followed.task['status'])) break;
			const woken = new Promise<void>(resolve => {
				followed.wake = resolve;
			});
			await waitFor(Promise.race([followed.ended, woken]), {...options, timeoutMs: Math.max(1, Math.round(deadline - performance.now()))});
		}

		await waitFor(followed.ended, {...options, timeoutMs: Math.max(1, Math.round(deadline - performance.now()))});
	}

	/** An input request with the `related-task` `_meta` a 2025 client reads, naming hangar's id for the task. */
	private related(taskId: string, ask: unknown): unknown {
		const exposed = this.deps.events.exposedTaskId?.(taskId);
		if (!isPlainObject(ask) || exposed === undefined) return ask;
		const params = isPlainObject(ask['params']) ? ask['params'] : {};
		const meta = isPlainObject(params['_meta']) ? params['_meta'] : {};
		return {...ask, params: {...params, _meta: {...meta, [relatedTaskKey]: {taskId: exposed}}}};
	}

	/** A DetailedTask the upstream answered tasks/get with: kept, its change of status told, its outcome kept once it ended. */
	private observe(detailed: Record<string, unknown>): Record<string, unknown> {
		const task = this.legacyTask(detailed, 'tasks/get');
		const taskId = task['taskId'] as string;
		let followed = this.followed.get(taskId);
		if (followed === undefined) {
			followed = this.follow(task);
		} else if (followed.task['status'] !== task['status']) {
			followed.task = task;
			this.deps.events.onTaskStatus?.(task);
		} else {
			followed.task = task;
		}

		followed.asks = task['status'] === 'input_required' && isPlainObject(detailed['inputRequests']) ? detailed['inputRequests'] : undefined;
		followed.wake?.();
		followed.wake = undefined;

		if (isTerminalTaskStatus(task['status'])) {
			const result = detailed['result'];
			const error = detailed['error'];
			if (task['status'] === 'completed' && isPlainObject(result)) followed.outcome = {result};
			if (task['status'] === 'failed') followed.outcome = {error: rpcErrorOf(error, this.deps.name)};
			this.unfollow(followed);
		}

		return task;
	}

	/** Follows a task: polled while it is live, forgotten when its ttl ends. */
	private follow(task: Record<string, unknown>): Followed {
		const taskId = task['taskId'] as string;
		let end!: (error?: Error) => void;
		const ended = new Promise<void>((resolve, reject) => {
			end = error => (error === undefined ? resolve() : reject(error));
		});
		ended.catch(() => {});
		const followed: Followed = {task, outcome: undefined, timer: undefined, expiry: undefined, ended, end, asks: undefined, answered: new Set(), wake: undefined};
		this.followed.set(taskId, followed);
		this.bound();
		const ttl = task['ttl'];
		if (typeof ttl === 'number' && ttl > 0) {
			followed.expiry = setTimeout(() => this.forget(taskId, followed), Math.min(ttl, 2 ** 31 - 1));
			followed.expiry.unref();
		}

		if (isTerminalTaskStatus(task['status'])) end();
		else this.schedule(taskId, followed);
		return followed;
	}

	private schedule(taskId: string, followed: Followed): void {
		const interval = followed.task['pollInterval'];
		const ms = Math.min(5000, Math.max(50, typeof interval === 'number' ? interval : 500));
		followed.timer = setTimeout(() => {
			followed.timer = undefined;
			void this.poll(taskId, followed);
		}, ms);
		followed.timer.unref();
	}

	/** One poll: the task's state kept, and the next poll scheduled while it is live. */
	private async poll(taskId: string, followed: Followed): Promise<void> {
		try {
			const detailed = await this.deps.send('tasks/get', {taskId}, {timeoutMs: pollTimeoutMs});
			if (this.followed.get(taskId) !== followed) return;
			this.observe(detailed);
			if (!isTerminalTaskStatus(followed.task['status'])) this.schedule(taskId, followed);
		} catch (error) {
			// The upstream forgot it, answered what is not a task, or the connection went: nothing more to follow.
			if (this.followed.get(taskId) === followed) this.unfollow(followed, error instanceof Error ? error : new Error(String(error)));
		}
	}

	private unfollow(followed: Followed, error?: Error): void {
		if (followed.timer !== undefined) clearTimeout(followed.timer);
		followed.timer = undefined;
		followed.end(error);
	}

	private forget(taskId: string, followed: Followed): void {
		if (this.followed.get(taskId) !== followed) return;
		this.unfollow(followed, new UpstreamRpcError(-32_602, `task "${taskId}" on upstream "${this.deps.name}" outlived its ttlMs and is forgotten`, undefined));
		if (followed.expiry !== undefined) clearTimeout(followed.expiry);
		this.followed.delete(taskId);
	}

	/** Keeps the followed tasks within `followedLimit`: the oldest ended ones go first, then the oldest. */
	private bound(): void {
		let over = this.followed.size - followedLimit;
		for (const pass of [true, false]) {
			for (const [taskId, followed] of this.followed) {
				if (over <= 0) return;
				if (pass && !isTerminalTaskStatus(followed.task['status'])) continue;
				this.forget(taskId, followed);
				over -= 1;
			}
		}
	}

	/** A task of the extension in the 2025 words the engine reads; an answer that is not a task is the upstream's fault. */
	private legacyTask(task: Record<string, unknown>, method: string): Record<string, unknown> {
		const {taskId, status, statusMessage, createdAt, lastUpdatedAt, ttlMs, pollIntervalMs} = task;
		if (typeof taskId !== 'string' || typeof status !== 'string' || !statuses.has(status)) {
			throw new UpstreamRpcError(-32_603, `upstream "${this.deps.name}" answered ${method} with a task without a string taskId and a known status`, undefined);
		}

		return {
			taskId,
			status,
			...(typeof statusMessage === 'string' ? {statusMessage} : {}),
			createdAt,
			lastUpdatedAt,
			ttl: typeof ttlMs === 'number' ? ttlMs : null,
			...(typeof pollIntervalMs === 'number' ? {pollInterval: pollIntervalMs} : {}),
		};
	}
}

/** Whether a request declared the extension in its `_meta` clientCapabilities. */
function declares(params: Record<string, unknown>): boolean {
	const meta = params['_meta'];
	const declared = isPlainObject(meta) ? meta[clientCapabilitiesKey] : undefined;
	return isPlainObject(declared) && isPlainObject(declared['extensions']) && declared['extensions'][tasksExtensionId] !== undefined;
}

/** A failed task's `error`, as the JSON-RPC error tasks/result answers. */
function rpcErrorOf(error: unknown, name: string): {code: number; message: string; data?: unknown} {
	if (isPlainObject(error) && typeof error['code'] === 'number' && typeof error['message'] === 'string') {
		return {code: error['code'], message: error['message'], ...(error['data'] === undefined ? {} : {data: error['data']})};
	}

	return {code: -32_603, message: `the task failed on upstream "${name}", which gave no JSON-RPC error for it`};
}

/** Waits for `ended` within the request's deadline and signal. */
async function waitFor(ended: Promise<void>, options: SendOptions): Promise<void> {
	const {signal, timeoutMs} = options;
	let timer: NodeJS.Timeout | undefined;
	let onAbort: (() => void) | undefined;
	try {
		await Promise.race([
			ended,
			new Promise<never>((_resolve, reject) => {
				timer = setTimeout(() => reject(new UpstreamTimeoutError(timeoutMs)), timeoutMs);
				timer.unref();
				if (signal === undefined) return;
				onAbort = () => reject(new RequestCancelledError());
				if (signal.aborted) onAbort();
				else signal.addEventListener('abort', onAbort, {once: true});
			}),
		]);
	} finally {
		clearTimeout(timer);
		if (onAbort !== undefined) signal?.removeEventListener('abort', onAbort);
	}
}
