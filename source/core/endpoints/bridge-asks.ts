/**
 * Requests the supervisor sent the `--stdio` bridge's client (an upstream's
 * sampling/createMessage, elicitation/create or roots/list, relayed by the
 * supervisor), kept by the bridge (bridge.ts) until the client answers them
 * or the supervisor cancels them. When the connection to the supervisor is
 * lost, nobody is left to take their answers: the bridge cancels each at its
 * client (`notifications/cancelled`), as the supervisor cancels an upstream's
 * requests when the upstream's connection closes, so the client stops
 * showing a question nobody waits for. An answer the client still sends to
 * one of them is dropped, never passed to the next supervisor.
 *
 * Only ids are kept, at most `maxKept` of each kind: past that a request is
 * not tracked (it is only not cancelled), and the oldest dropped id is
 * forgotten (its late answer then passes, as before).
 */
import type {Id} from '../wire/message-classifier.js';

const maxKept = 1024;

/** The reason the client's cancellation gives. */
export const supervisorLostReason =
	'mcp-hangar: the supervisor went away (its connection closed) before this request was answered; nobody waits for the answer any more';

export class SupervisorAsks {
	/** Ids of the supervisor's requests on the current connection that the client has not answered. */
	private readonly open = new Set<Id>();
	/** Ids of requests cancelled because their supervisor went away: the client's late answer to one is dropped. */
	private readonly abandoned = new Set<Id>();

	constructor(private readonly debug: (message: string) => void) {}

	/** Whether any id is kept (only then is a client's answer looked at). */
	get any(): boolean {
		return this.open.size > 0 || this.abandoned.size > 0;
	}

	/** Whether a request of the supervisor waits for the client's answer. */
	get waiting(): boolean {
		return this.open.size > 0;
	}

	/** The supervisor sent the client request `id`. */
	asked(id: Id): void {
		// The id means this request now, whatever an earlier supervisor meant by it.
		this.abandoned.delete(id);
		if (this.open.size < maxKept) this.open.add(id);
	}

	/** The supervisor cancelled one of its requests: `line` is the notifications/cancelled it sent the client. */
	cancelled(line: string): void {
		let id: unknown;
		try {
			id = (JSON.parse(line) as {params?: {requestId?: unknown}}).params?.requestId;
		} catch {}

		if (typeof id === 'string' || typeof id === 'number') this.open.delete(id);
	}

	/** The client answered request `id`: false when the answer must be dropped (its supervisor went away). */
	answered(id: Id): boolean {
		this.open.delete(id);
		if (!this.abandoned.delete(id)) return true;
		this.debug(`bridge: dropped the client's answer to ${JSON.stringify(id)}: the supervisor that asked went away`);
		return false;
	}

	/** The connection closed: a notifications/cancelled line for each request still waiting, whose answers are dropped from now on. */
	lost(): string[] {
		const lines: string[] = [];
		for (const id of this.open) {
			lines.push(`${JSON.stringify({jsonrpc: '2.0', method: 'notifications/cancelled', params: {requestId: id, reason: supervisorLostReason}})}\n`);
			if (this.abandoned.size >= maxKept) this.abandoned.delete(this.abandoned.values().next().value!);
			this.abandoned.add(id);
		}

		this.open.clear();
		return lines;
	}
}
