/**
 * The client's messages the `--stdio` bridge (bridge.ts) holds while it has
 * no open connection to a supervisor, in the order received. A held request
 * waits until it is sent or until it has waited the request timeout; then
 * `expired` answers it.
 */
import type {Cancel, Clock} from '../base/clock.js';
import type {Id, Peek} from '../wire/message-classifier.js';

/** A message from the client; `line` is undefined for one sent that will never be sent again (bridge-answers.ts, resendable). */
export type Held = {line: string | undefined; shape: Peek; timer?: Cancel; heldSince: number};

/** Whether a held message is a request (owed an answer). */
export const isRequest = ({shape}: Held): boolean => shape.id !== undefined && shape.method !== undefined;

export class HeldMessages {
	private items: Held[] = [];

	constructor(
		private readonly clock: Clock,
		private readonly timeoutMs: number,
		private readonly expired: (held: Held) => void,
	) {}

	get length(): number {
		return this.items.length;
	}

	/** Whether a request with this id is held. */
	owes(id: Id): boolean {
		return this.items.length > 0 && this.items.some(held => held.shape.id === id && held.shape.method !== undefined);
	}

	/** Whether anything held carries an id (something is owed, or may be). */
	get holdsIds(): boolean {
		return this.items.length > 0 && this.items.some(held => held.shape.id !== undefined);
	}

	push(held: Held): void {
		this.arm(held);
		this.items.push(held);
	}

	/** Puts back requests a lost supervisor never answered before what is held, in their order, each with its deadline. */
	putBack(helds: Held[]): void {
		this.items.unshift(...helds);
		for (const held of helds) this.arm(held);
	}

	/** The held message whose id is `id`, no longer held (a cancellation of one never sent); undefined when none is. */
	remove(id: unknown): Held | undefined {
		const index = this.items.findIndex(held => held.shape.id !== undefined && held.shape.id === id);
		if (index === -1) return undefined;
		const [held] = this.items.splice(index, 1);
		held!.timer?.();
		return held;
	}

	/** Everything held, in order, no longer held and with no deadline. */
	takeAll(): Held[] {
		const all = this.items.splice(0);
		for (const held of all) {
			held.timer?.();
			held.timer = undefined;
		}

		return all;
	}

	/** The held requests, in order, no longer held; notifications and answers stay. */
	takeRequests(): Held[] {
		const requests = this.items.filter(held => isRequest(held));
		this.filter(held => !isRequest(held));
		return requests;
	}

	/** Keeps only what `keep` says; what it drops has no deadline any more. */
	filter(keep: (held: Held) => boolean): void {
		this.items = this.items.filter(held => {
			if (keep(held)) return true;
			held.timer?.();
			return false;
		});
	}

	private arm(held: Held): void {
		if (held.timer !== undefined || !isRequest(held)) return;
		held.timer = this.clock.after(Math.max(0, this.timeoutMs - (this.clock.now() - held.heldSince)), () => {
			const index = this.items.indexOf(held);
			if (index === -1) return;
			this.items.splice(index, 1);
			this.expired(held);
		});
	}
}
