/**
 * An upstream's first `roots/list` on one connection, as an event a start
 * can wait for: an upstream that scopes itself by its client's roots asks
 * on its own after initialized (server-filesystem at once, server-everything
 * 350 ms later), and should have its answer before it serves a call.
 * Whether it asks is learned from earlier starts (`StartRoots`, from the
 * state store); see `UpstreamAsks.settled`.
 */

import {Wakeups} from '../base/wakeups.js';

/** What a start expects of the upstream's roots, from what it did after an earlier start. */
export type StartRoots = {
	/** It was told `roots`. */
	told: boolean;
	/** It asked for roots on its own after an earlier start told them: wait for that request. Undefined: not known. */
	expected: boolean | undefined;
};

export class RootsRequest {
	private seen = false;
	private readonly wakeups = new Wakeups();

	/** Whether the upstream has sent roots/list on this connection. */
	get asked(): boolean {
		return this.seen;
	}

	/** The upstream sent roots/list; returns whether it was its first. */
	arrived(): boolean {
		const first = !this.seen;
		this.seen = true;
		this.wake();
		return first;
	}

	/** Wakes every wait (the connection closed). */
	wake(): void {
		this.wakeups.wake();
	}

	/** Waits for the first roots/list, at most `limitMs` or until `signal` aborts. */
	async wait(signal: AbortSignal, limitMs: number): Promise<void> {
		if (this.seen) return;
		await this.wakeups.wait(limitMs, signal);
	}
}
