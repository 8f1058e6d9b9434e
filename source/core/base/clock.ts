/**
 * Time as the engine sees it: the wall clock for the times it records and
 * shows, and one-shot and repeating timers. The engine takes a `Clock`
 * instead of calling `Date.now` and `setTimeout` itself, so a unit test can
 * move time forward by hand (see test/support/manual-clock.ts) instead of
 * waiting for it.
 */
export type Cancel = () => void;

export type Clock = {
	/** Milliseconds since the epoch, as `Date.now()`. */
	now(): number;
	/** Runs `run` once after `ms` (at least 0). */
	after(ms: number, run: () => void): Cancel;
	/** Runs `run` every `ms` until cancelled. */
	every(ms: number, run: () => void): Cancel;
};

/** The real clock: `Date.now` and Node's timers, looked up at each call (so vitest's fake timers apply too). */
export const systemClock: Clock = {
	now: () => Date.now(),
	after(ms, run) {
		const handle = setTimeout(run, Math.max(0, ms));
		return () => clearTimeout(handle);
	},
	every(ms, run) {
		const handle = setInterval(run, ms);
		return () => clearInterval(handle);
	},
};
