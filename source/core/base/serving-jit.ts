/**
 * V8's tiering for a process that serves calls (the `--stdio` bridge, the
 * daemon, `--stdio --standalone`, `serve`): once it has a client, its hot
 * functions are compiled by TurboFan after 200 calls instead of V8's
 * 3,000, and a function whose feedback changed waits 50 calls (V8: 500).
 *
 * Each function on the call path runs about once per call, so with V8's
 * defaults a client's first few thousand calls ran interpreted or in
 * baseline code: about 600 µs of CPU per sequential standalone call there,
 * against about 200 once optimized (docs/performance.md, "ninth round").
 * The compile itself costs a few hundred ms of a compiler thread, once.
 *
 * Set when the first request arrives, not at start: set at start, the
 * start-up code that runs a few hundred times (the config's schema, module
 * set-up) was optimized too, for nothing, and the daemon idled 5 MiB
 * larger. The two flags are read at each tiering decision, so
 * `v8.setFlagsFromString` at run time takes effect (a test checks it).
 */
import v8 from 'node:v8';

export const servingJitFlags = ['--invocation-count-for-turbofan=200', '--minimum-invocations-after-ic-update=50'] as const;

let tuned = false;

/** Sets the serving flags, once per process; later calls do nothing. */
export function tuneJitForServing(): void {
	if (tuned) return;
	tuned = true;
	for (const flag of servingJitFlags) v8.setFlagsFromString(flag);
}
