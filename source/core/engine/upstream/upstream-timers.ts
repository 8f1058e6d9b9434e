/**
 * An upstream's timers, by name: the automatic restart, the breaker's probe,
 * the idle stop (one-shot), the health ping and the tool-list refresh
 * (repeating). Setting a timer replaces the one of the same name, so no
 * timer can be armed twice; `clearAll` is what a stop and a shutdown call.
 */
import {systemClock, type Cancel, type Clock} from '../../base/clock.js';

export type TimerName = 'restart' | 'probe' | 'idle' | 'health' | 'refresh';

export class UpstreamTimers {
	private readonly timers = new Map<TimerName, Cancel>();

	constructor(private readonly clock: Clock = systemClock) {}

	/** Runs `run` once after `ms`; the timer is forgotten before `run` is called. */
	once(name: TimerName, ms: number, run: () => void): void {
		this.clear(name);
		const cancel = this.clock.after(ms, () => {
			this.timers.delete(name);
			run();
		});
		this.timers.set(name, cancel);
	}

	/** Runs `run` every `ms` until cleared. */
	every(name: TimerName, ms: number, run: () => void): void {
		this.clear(name);
		this.timers.set(name, this.clock.every(ms, run));
	}

	has(name: TimerName): boolean {
		return this.timers.has(name);
	}

	clear(name: TimerName): void {
		const cancel = this.timers.get(name);
		if (cancel === undefined) return;
		cancel();
		this.timers.delete(name);
	}

	clearAll(): void {
		for (const name of [...this.timers.keys()]) this.clear(name);
	}
}
