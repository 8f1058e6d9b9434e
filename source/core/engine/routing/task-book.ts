/**
 * The tasks (2025-11-25 tasks) clients created through hangar: which
 * upstream runs each, under which of its ids, and which client session
 * owns it.
 *
 * - A client never sees an upstream's task id: each task gets an id of
 *   hangar's own, random, so a client can neither guess another's nor tell
 *   two upstreams' ids apart. A task is found only by the session that
 *   created it; to every other session it does not exist. Nothing crosses
 *   clients.
 * - Its status is the upstream's, as last seen: the CreateTaskResult, an
 *   answer to tasks/get, tasks/list or tasks/cancel, a
 *   `notifications/tasks/status` (relayed to the owner alone, with the id
 *   mapped and nothing else changed).
 * - From its creation until its result is fetched (tasks/result), it is
 *   cancelled, or its ttl ends, its upstream is held off the idle stop: a
 *   stop would lose it. When the upstream crashes or stops, its tasks are
 *   lost with it: a live one is reported `failed`, with the upstream and the
 *   crash named, and its owner told; tasks/result of any of them fails with
 *   that reason.
 * - Bounded: `perClient` tasks per session (the oldest finished ones go
 *   first), and a task goes when its `ttl` is over (the upstream may forget
 *   it then) or its session closes (live ones are cancelled upstream:
 *   nobody can reach them any more).
 * - Each task is one row of the calls log, its status kept current there.
 */
import {randomUUID} from 'node:crypto';
import type {Logger} from '../../base/logger.js';
import {isPlainObject} from '../../wire/message-classifier.js';
import type {CallLog} from '../call-log.js';
import type {ClientRecord} from '../clients/clients.js';
import type {Upstream} from '../upstream/upstream.js';

/** The statuses of the spec, and those after which a task never changes. */
export const taskStatuses = ['working', 'input_required', 'completed', 'failed', 'cancelled'] as const;
const terminalStatuses: ReadonlySet<string> = new Set(['completed', 'failed', 'cancelled']);

/** Tasks kept per client session; past this the oldest finished one goes (else the oldest). */
export const tasksPerClient = 1000;
/** Status notifications kept for tasks not yet registered (one sent right behind its CreateTaskResult). */
const earlyStatusLimit = 100;

export type TaskEntry = {
	/** The id the client knows. */
	readonly id: string;
	/** The upstream's own id for it. */
	readonly upstreamId: string;
	/** The instance that runs it (a per-client server's own instance for its session). */
	readonly instance: Upstream;
	/** The server's name as configured (the calls log's). */
	readonly server: string;
	readonly client: ClientRecord;
	readonly tool: string;
	/** The upstream's task object as last seen (its own id). */
	task: Record<string, unknown>;
	/** Why the upstream no longer has it (it crashed or stopped); undefined while it has. */
	lost: string | undefined;
	/** Releases the idle hold; set while it is live. */
	release: (() => void) | undefined;
	/** Its row in the calls log, and when its call began (performance.now). */
	readonly logSeq: number | undefined;
	readonly began: number;
	/** The progress token of the call that created it, the client's own: its progress after the CreateTaskResult goes out under it. */
	readonly progressToken?: string | number | undefined;
	expiry: NodeJS.Timeout | undefined;
};

export type NewTask = Pick<TaskEntry, 'instance' | 'server' | 'client' | 'tool' | 'logSeq' | 'began' | 'progressToken'>;

/** Whether `result` is a CreateTaskResult: a `task` with a string `taskId`. */
export function isCreateTaskResult(result: unknown): result is {task: Record<string, unknown>} {
	return isPlainObject(result) && isPlainObject(result['task']) && typeof result['task']['taskId'] === 'string';
}

export function isTerminal(status: unknown): boolean {
	return typeof status === 'string' && terminalStatuses.has(status);
}

export class TaskBook {
	private readonly byId = new Map<string, TaskEntry>();
	/** By instance name and the upstream's id. */
	private readonly byUpstream = new Map<string, TaskEntry>();
	private readonly early = new Map<string, Record<string, unknown>>();
	/** Progress sent right behind a CreateTaskResult, before the task was registered (bounded like `early`). */
	private readonly earlyProgress = new Map<string, Array<Record<string, unknown>>>();

	constructor(
		private readonly calls: CallLog,
		private readonly logger: Logger,
	) {}

	/** Tasks held now. */
	get size(): number {
		return this.byId.size;
	}

	/** Registers the task of a CreateTaskResult; returns the result as the client gets it (the id mapped). */
	created(given: NewTask, result: {task: Record<string, unknown>}): Record<string, unknown> {
		const task = result.task;
		const upstreamId = task['taskId'] as string;
		const entry: TaskEntry = {...given, id: randomUUID(), upstreamId, task, lost: undefined, release: undefined, expiry: undefined};
		this.byId.set(entry.id, entry);
		this.byUpstream.set(keyOf(entry.instance.name, upstreamId), entry);
		this.bound(entry.client);
		if (!isTerminal(task['status'])) entry.release = entry.instance.holdIdle();
		const ttl = task['ttl'];
		if (typeof ttl === 'number' && ttl > 0) {
			entry.expiry = setTimeout(() => this.remove(entry), Math.min(ttl, 2 ** 31 - 1));
			entry.expiry.unref();
		}

		const progress = this.earlyProgress.get(keyOf(entry.instance.name, upstreamId));
		if (progress !== undefined) {
			this.earlyProgress.delete(keyOf(entry.instance.name, upstreamId));
			setImmediate(() => {
				for (const update of progress) this.progressFromUpstream(entry.instance.name, upstreamId, update);
			});
		}

		const early = this.early.get(keyOf(entry.instance.name, upstreamId));
		if (early !== undefined) {
			this.early.delete(keyOf(entry.instance.name, upstreamId));
			// After the answer that names the task has gone out.
			setImmediate(() => this.statusFromUpstream(entry.instance.name, early));
		}

		return {...result, task: this.expose(entry, task)};
	}

	/** The task `id` if `client` created it; undefined otherwise (another session's is unknown to it, as is an id never handed out). */
	find(client: ClientRecord | undefined, id: string): TaskEntry | undefined {
		const entry = this.byId.get(id);
		return entry === undefined || entry.client !== client ? undefined : entry;
	}

	/** The session that created the task hangar handed out as `id`, when `instance` (its name) runs it. */
	ownerOf(instance: string, id: string): ClientRecord | undefined {
		const entry = this.byId.get(id);
		return entry?.instance.name === instance ? entry.client : undefined;
	}

	/** The id hangar handed out for an instance's task, for the `related-task` `_meta` of what it sends that task's client. */
	exposedIdOf(instance: string, upstreamId: string): string | undefined {
		return this.byUpstream.get(keyOf(instance, upstreamId))?.id;
	}

	/** `client`'s tasks, oldest first. */
	ofClient(client: ClientRecord): TaskEntry[] {
		return [...this.byId.values()].filter(entry => entry.client === client);
	}

	/** A task object of the upstream's (its own id) as the client gets it: the id hangar handed out, nothing else changed. */
	expose(entry: TaskEntry, task: Record<string, unknown>): Record<string, unknown> {
		return {...task, taskId: entry.id};
	}

	/** The upstream said where the task is (an answer to tasks/get, tasks/list, tasks/cancel): kept, and its row updated. */
	observed(entry: TaskEntry, task: Record<string, unknown>): void {
		if (entry.lost !== undefined) return;
		const before = entry.task['status'];
		entry.task = task;
		const status = task['status'];
		// A finished task's result is still the upstream's to give: the hold lasts until tasks/result has it (or a cancel, or the ttl).
		if (status === 'cancelled') this.unhold(entry);

		if (status !== before && typeof status === 'string') this.logStatus(entry, status, typeof task['statusMessage'] === 'string' ? task['statusMessage'] : null);
	}

	/** tasks/result answered: the task has ended (its status, if not seen yet, is taken as completed). */
	ended(entry: TaskEntry): void {
		if (!isTerminal(entry.task['status'])) this.observed(entry, {...entry.task, status: 'completed'});
		this.unhold(entry);
	}

	private unhold(entry: TaskEntry): void {
		entry.release?.();
		entry.release = undefined;
	}

	/** An upstream's notifications/tasks/status: kept, and relayed to the task's client alone, the id mapped. */
	statusFromUpstream(instance: string, params: Record<string, unknown>): void {
		const upstreamId = params['taskId'];
		if (typeof upstreamId !== 'string') return;
		const key = keyOf(instance, upstreamId);
		const entry = this.byUpstream.get(key);
		if (entry === undefined) {
			// Sent before its CreateTaskResult was registered (or for a task of no client's): kept a little while.
			this.early.delete(key);
			this.early.set(key, params);
			if (this.early.size > earlyStatusLimit) this.early.delete(this.early.keys().next().value!);
			return;
		}

		if (entry.lost !== undefined) return;
		this.observed(entry, params);
		entry.client.peer?.notify('notifications/tasks/status', this.expose(entry, params));
	}

	/**
	 * Progress an upstream sent for its task after the CreateTaskResult (the
	 * call's token stays valid for the task's life): relayed to the task's
	 * client alone, under the token that client's call carried, the rest
	 * unchanged. Dropped once the task has ended or been lost.
	 */
	progressFromUpstream(instance: string, upstreamId: string, progress: Record<string, unknown>): void {
		const key = keyOf(instance, upstreamId);
		const entry = this.byUpstream.get(key);
		if (entry === undefined) {
			const held = this.earlyProgress.get(key) ?? [];
			if (held.length < earlyStatusLimit) held.push(progress);
			this.earlyProgress.delete(key);
			this.earlyProgress.set(key, held);
			if (this.earlyProgress.size > earlyStatusLimit) this.earlyProgress.delete(this.earlyProgress.keys().next().value!);
			return;
		}

		if (entry.lost !== undefined || entry.progressToken === undefined || isTerminal(entry.task['status'])) return;
		entry.client.peer?.notify('notifications/progress', {progressToken: entry.progressToken, ...progress});
	}

	/**
	 * Instance `instance` crashed or stopped: its tasks are gone with it. A
	 * live one is reported failed, with `why`, to its client.
	 */
	upstreamGone(instance: string, why: string): void {
		for (const entry of this.byId.values()) {
			if (entry.instance.name !== instance || entry.lost !== undefined) continue;
			if (!isTerminal(entry.task['status'])) {
				const failed = {...entry.task, status: 'failed', statusMessage: `${why}; the task was lost with it`, lastUpdatedAt: new Date().toISOString()};
				this.observed(entry, failed);
				entry.client.peer?.notify('notifications/tasks/status', this.expose(entry, failed));
			}

			entry.lost = why;
			this.unhold(entry);
		}
	}

	/** A client session closed: its tasks go, and the live ones are cancelled upstream (no one can reach them now). */
	dropClient(client: ClientRecord): void {
		for (const entry of this.ofClient(client)) {
			const live = entry.lost === undefined && !isTerminal(entry.task['status']);
			this.remove(entry);
			const cancels = isPlainObject(entry.instance.capabilities?.['tasks']) && entry.instance.capabilities['tasks']['cancel'] !== undefined;
			if (live && cancels && entry.instance.readyConnection !== undefined) {
				entry.instance.request('tasks/cancel', {taskId: entry.upstreamId}, `tasks/cancel "${entry.upstreamId}"`).catch((error: unknown) => {
					this.logger.debug(`tasks/cancel of a closed session's task on ${entry.instance.name} failed: ${String(error)}`);
				});
			}
		}
	}

	private remove(entry: TaskEntry): void {
		if (this.byId.get(entry.id) !== entry) return;
		this.byId.delete(entry.id);
		this.byUpstream.delete(keyOf(entry.instance.name, entry.upstreamId));
		this.unhold(entry);
		if (entry.expiry !== undefined) clearTimeout(entry.expiry);
	}

	/** Keeps a client's tasks within `tasksPerClient`: the oldest finished ones go first. */
	private bound(client: ClientRecord): void {
		const mine = this.ofClient(client);
		let over = mine.length - tasksPerClient;
		for (const entry of mine) {
			if (over <= 0) return;
			if (entry.lost !== undefined || isTerminal(entry.task['status'])) {
				this.remove(entry);
				over -= 1;
			}
		}

		for (const entry of mine) {
			if (over <= 0) return;
			if (this.byId.has(entry.id)) {
				this.remove(entry);
				over -= 1;
			}
		}
	}

	private logStatus(entry: TaskEntry, status: string, message: string | null): void {
		if (entry.logSeq === undefined) return;
		this.calls.updateTask(entry.logSeq, {status, ms: performance.now() - entry.began, error: status === 'failed' || status === 'cancelled' ? message : null});
	}
}

function keyOf(instance: string, upstreamId: string): string {
	return `${instance}\u0000${upstreamId}`;
}
