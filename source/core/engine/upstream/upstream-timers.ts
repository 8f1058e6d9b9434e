/**
 * An upstream's timers, by name: the automatic restart, the breaker's probe,
 * the idle stop (one-shot), the health ping and the tool-list refresh
 * (repeating). Setting a timer replaces the one of the same name, so no
 * timer can be armed twice; `clearAll` is what a stop and a shutdown call.
 */
export type TimerName = 'restart' | 'probe' | 'idle' | 'health' | 'refresh';

export class UpstreamTimers {
	private readonly timers = new Map<TimerName, {handle: NodeJS.Timeout; repeating: boolean}>();

	/** Runs `run` once after `ms`; the timer is forgotten before `run` is called. */
	once(name: TimerName, ms: number, run: () => void): void {
		this.clear(name);
		const handle = setTimeout(() => {
			this.timers.delete(name);
			run();
		}, Math.max(0, ms));
		this.timers.set(name, {handle, repeating: false});
	}

	/** Runs `run` every `ms` until cleared. */
	every(name: TimerName, ms: number, run: () => void): void {
		this.clear(name);
		this.timers.set(name, {handle: setInterval(run, ms), repeating: true});
	}

	has(name: TimerName): boolean {
		return this.timers.has(name);
	}

	clear(name: TimerName): void {
		const timer = this.timers.get(name);
		if (timer === undefined) return;
		if (timer.repeating) clearInterval(timer.handle);
		else clearTimeout(timer.handle);
		this.timers.delete(name);
	}

	clearAll(): void {
		for (const name of [...this.timers.keys()]) this.clear(name);
	}
}
