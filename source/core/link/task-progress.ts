/**
 * The progress of calls that became tasks (2025-11-25 tasks): a call sent
 * with `task` and a progress token, answered with a CreateTaskResult, goes on
 * sending progress under its token until the task ends. One connection's
 * tokens are followed here, at most a bounded number (the oldest forgotten
 * first); a late progress of a plain call is dropped.
 */
import {isPlainObject} from '../wire/message-classifier.js';

/** Task progress tokens followed per connection, at most. */
const taskTokensLimit = 1000;

/** Whether a task status is one after which the task never changes (2025-11-25 tasks). */
export function isTerminalTaskStatus(status: unknown): boolean {
	return status === 'completed' || status === 'failed' || status === 'cancelled';
}

export class TaskProgressTokens {
	/** Progress token → the upstream's task id. */
	private readonly tokens = new Map<string, string>();

	/** The task whose progress `token` carries, if it is followed. */
	taskOf(token: string): string | undefined {
		return this.tokens.get(token);
	}

	/** A call sent with `task` and progress token `token` was answered with `result`: follow it while it is a live task. */
	follow(token: string, result: Record<string, unknown>): void {
		const task = result['task'];
		if (!isPlainObject(task) || typeof task['taskId'] !== 'string' || isTerminalTaskStatus(task['status'])) return;
		this.tokens.set(token, task['taskId']);
		if (this.tokens.size > taskTokensLimit) this.tokens.delete(this.tokens.keys().next().value!);
	}

	/** The task `taskId` ended (or its result was fetched): progress under its token is dropped from now on. */
	forget(taskId: unknown): void {
		for (const [token, id] of this.tokens) if (id === taskId) this.tokens.delete(token);
	}

	clear(): void {
		this.tokens.clear();
	}
}
