/**
 * A `Clock` that moves only when a test says so: `advance(ms)` runs every
 * timer that falls due, in time order, letting the promises each one starts
 * settle before the next (so a restart the backoff timer begins can finish
 * before the test looks).
 */
import type {Cancel, Clock} from '../../source/core/base/clock.js';

type Timer = {at: number; every: number | undefined; run: () => void; id: number};

export class ManualClock implements Clock {
	private time: number;
	private timers: Timer[] = [];
	private nextId = 0;

	constructor(start = Date.UTC(2026, 0, 1)) {
		this.time = start;
	}

	now(): number {
		return this.time;
	}

	after(ms: number, run: () => void): Cancel {
		return this.add({at: this.time + Math.max(0, ms), every: undefined, run, id: this.nextId++});
	}

	every(ms: number, run: () => void): Cancel {
		return this.add({at: this.time + ms, every: ms, run, id: this.nextId++});
	}

	/** How many timers are armed. */
	get pending(): number {
		return this.timers.length;
	}

	/** Moves time forward by `ms`, running what falls due on the way. */
	async advance(ms: number): Promise<void> {
		const end = this.time + ms;
		for (;;) {
			await settle();
			const due = this.timers.filter(timer => timer.at <= end).sort((a, b) => a.at - b.at || a.id - b.id)[0];
			if (due === undefined) break;
			this.time = due.at;
			if (due.every === undefined) this.timers = this.timers.filter(timer => timer !== due);
			else due.at += due.every;
			due.run();
		}

		this.time = end;
		await settle();
	}

	private add(timer: Timer): Cancel {
		this.timers.push(timer);
		return () => {
			this.timers = this.timers.filter(other => other !== timer);
		};
	}
}

/** Lets pending promise chains (in-memory messages, their handlers) run: a few turns of the event loop, no wall-clock wait. */
export async function settle(turns = 5): Promise<void> {
	for (let turn = 0; turn < turns; turn++) await new Promise<void>(resolve => setImmediate(resolve));
}
