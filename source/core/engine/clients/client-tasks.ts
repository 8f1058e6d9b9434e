/**
 * The tasks clients run for an upstream: an upstream may send a client
 * `sampling/createMessage` or `elicitation/create` as a task (with `task`
 * in its params), and the client answers with a `CreateTaskResult` naming a
 * task id of its own. The upstream then polls that task (`tasks/get`,
 * `tasks/result`, `tasks/cancel`), and each poll belongs to the client
 * that created the task, whatever other clients have in flight on a shared
 * instance. This book remembers which client that is.
 *
 * The ids are the clients' own, so two clients may hand out the same one:
 * such an id is nobody's here (the relay then places its polls as any
 * request, and never guesses between the two). Bounded: past
 * `clientTaskLimit` the oldest is forgotten.
 */
import {isPlainObject} from '../../wire/message-classifier.js';
import type {RelayedMethod} from '../../link/client-side.js';
import type {ClientRecord} from './clients.js';

/** The client tasks remembered per relay: past it, the oldest is forgotten. */
export const clientTaskLimit = 256;

/** The upstream's requests that name one task of its client's in `params.taskId`. */
const pollingMethods: ReadonlySet<RelayedMethod> = new Set(['tasks/get', 'tasks/result', 'tasks/cancel']);

export class ClientTaskBook {
	/** By the client's task id: its session, or null when two sessions handed out that id. */
	private readonly owners = new Map<string, ClientRecord | null>();

	/** A relayed request went to `record` and was answered with `result`: a task it created, when the request asked for one. */
	answered(params: Record<string, unknown> | undefined, result: Record<string, unknown>, record: ClientRecord): void {
		if (!isPlainObject(params?.['task']) || !isPlainObject(result['task'])) return;
		const id = result['task']['taskId'];
		if (typeof id !== 'string') return;
		const known = this.owners.get(id);
		this.owners.delete(id);
		this.owners.set(id, known === undefined || known === record ? record : null);
		if (this.owners.size > clientTaskLimit) this.owners.delete(this.owners.keys().next().value!);
	}

	/** The session whose task the upstream's request polls, or undefined (not a poll, an id hangar never saw or two sessions share). */
	ownerOf(method: RelayedMethod, params: Record<string, unknown> | undefined): ClientRecord | undefined {
		const id = params?.['taskId'];
		if (!pollingMethods.has(method) || typeof id !== 'string') return undefined;
		return this.owners.get(id) ?? undefined;
	}

	get size(): number {
		return this.owners.size;
	}
}
