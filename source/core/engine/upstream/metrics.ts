/**
 * Call metrics for an upstream and for each of its tools: counts, the
 * consecutive-failure streak, last success/failure, latency percentiles
 * over a recent window (a fixed-size ring, so p50/p95 reflect the last
 * `window` calls rather than all history), and the same over time
 * (`CallSeries`: calls, failures and p95 latency per 5-second bucket for the
 * last 5 minutes, in fixed-size rings), which the TUI draws as sparklines
 * and `hangar_details` returns.
 */

export class LatencyWindow {
	private readonly samples: number[];
	private index = 0;
	private count = 0;
	/** Sorted copy, kept until the next sample: status reads are far more frequent than they need to be. */
	private sorted: number[] | undefined;

	constructor(private readonly size = 256) {
		this.samples = new Array<number>(size).fill(0);
	}

	add(ms: number): void {
		this.samples[this.index] = ms;
		this.index = (this.index + 1) % this.size;
		this.count = Math.min(this.count + 1, this.size);
		this.sorted = undefined;
	}

	percentile(p: number): number | undefined {
		this.sorted ??= this.samples.slice(0, this.count).sort((a, b) => a - b);
		return percentileOfSorted(this.sorted, p);
	}

	/** Its samples (the last `size` calls), in no particular order: what a merge of several windows reads. */
	values(): readonly number[] {
		return this.samples.slice(0, this.count);
	}
}

/** The p-th percentile (nearest rank, to 0.1 ms) of samples sorted ascending; undefined without samples. */
export function percentileOfSorted(sorted: readonly number[], p: number): number | undefined {
	if (sorted.length === 0) return undefined;
	const rank = Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1));
	return Math.round(sorted[rank]! * 10) / 10;
}

/** How history is bucketed: 60 buckets of 5 s, the last 5 minutes. */
export const seriesBuckets = 60;
export const seriesBucketMs = 5000;

/**
 * Latency histogram bins per bucket: bin i holds calls up to 0.1 ms × 2^i
 * (0.1 ms … 52 s), the last bin anything slower. A bucket's p95 is the upper
 * bound of the bin where the 95th percentile falls: within a factor of two,
 * which is what a sparkline can show, in fixed memory whatever the call rate.
 */
const latencyBins = 20;
const binBound = (bin: number): number => 0.1 * 2 ** bin;
const binOf = (ms: number): number => Math.min(latencyBins - 1, Math.max(0, Math.ceil(Math.log2(Math.max(ms, 0.1) / 0.1))));

/** A series as plain data: oldest bucket first, the last one is the bucket `end` falls in (still filling). */
export type SeriesView = {
	/** The end of the last bucket, in ms since the epoch. */
	end: number;
	bucketMs: number;
	calls: number[];
	failures: number[];
	/** The bucket's p95 latency in ms (a histogram bin's bound), null without calls. */
	p95: Array<number | null>;
};

/**
 * Calls, failures and latency over the last `buckets` × `bucketMs`, in rings
 * allocated once: recording is a few array writes, reading walks the ring.
 * A bucket is reused by whichever 5-second period comes round to it next.
 */
export class CallSeries {
	private readonly period: Float64Array;
	private readonly calls: Uint32Array;
	private readonly failures: Uint32Array;
	private readonly histogram: Uint32Array;

	constructor(
		private readonly buckets = seriesBuckets,
		private readonly bucketMs = seriesBucketMs,
	) {
		this.period = new Float64Array(buckets).fill(-1);
		this.calls = new Uint32Array(buckets);
		this.failures = new Uint32Array(buckets);
		this.histogram = new Uint32Array(buckets * latencyBins);
	}

	record(ms: number, failed: boolean, at: number): void {
		const period = Math.floor(at / this.bucketMs);
		const slot = period % this.buckets;
		if (this.period[slot] !== period) {
			this.period[slot] = period;
			this.calls[slot] = 0;
			this.failures[slot] = 0;
			this.histogram.fill(0, slot * latencyBins, (slot + 1) * latencyBins);
		}

		this.calls[slot]! += 1;
		if (failed) this.failures[slot]! += 1;
		this.histogram[slot * latencyBins + binOf(ms)]! += 1;
	}

	/** Whether anything was recorded in the window ending at `now`. */
	active(now: number): boolean {
		const last = Math.floor(now / this.bucketMs);
		for (const period of this.period) if (period > last - this.buckets && period <= last) return true;
		return false;
	}

	view(now: number): SeriesView {
		const last = Math.floor(now / this.bucketMs);
		const view: SeriesView = {end: (last + 1) * this.bucketMs, bucketMs: this.bucketMs, calls: [], failures: [], p95: []};
		for (let period = last - this.buckets + 1; period <= last; period++) {
			const slot = ((period % this.buckets) + this.buckets) % this.buckets;
			if (this.period[slot] !== period) {
				view.calls.push(0);
				view.failures.push(0);
				view.p95.push(null);
				continue;
			}

			const calls = this.calls[slot]!;
			view.calls.push(calls);
			view.failures.push(this.failures[slot]!);
			view.p95.push(calls === 0 ? null : this.percentileBound(slot, calls, 0.95));
		}

		return view;
	}

	private percentileBound(slot: number, calls: number, p: number): number {
		const rank = Math.ceil(p * calls);
		let seen = 0;
		for (let bin = 0; bin < latencyBins; bin++) {
			seen += this.histogram[slot * latencyBins + bin]!;
			if (seen >= rank) return binBound(bin);
		}

		return binBound(latencyBins - 1);
	}
}

/** A rug pull's last error starts with it; an approval clears that error (person-actions.ts). */
export const quarantinedPrefix = 'quarantined: ';

export type CallMetricsSnapshot = {
	calls: number;
	failures: number;
	consecutiveFailures: number;
	lastSuccessAt: number | undefined;
	lastFailureAt: number | undefined;
	lastError: string | undefined;
	latencyMs: {p50: number | undefined; p95: number | undefined};
};

export class CallMetrics {
	calls = 0;
	failures = 0;
	consecutiveFailures = 0;
	lastSuccessAt: number | undefined;
	lastFailureAt: number | undefined;
	lastError: string | undefined;
	private readonly latency = new LatencyWindow();
	/** Made at the first call: most tools of most upstreams are never called, and cost nothing then. */
	private timeline: CallSeries | undefined;

	recordSuccess(ms: number, at = Date.now()): void {
		this.calls += 1;
		this.consecutiveFailures = 0;
		this.lastSuccessAt = at;
		this.latency.add(ms);
		(this.timeline ??= new CallSeries()).record(ms, false, at);
	}

	recordFailure(ms: number, error: string, at = Date.now()): void {
		this.calls += 1;
		this.failures += 1;
		this.consecutiveFailures += 1;
		this.lastFailureAt = at;
		this.lastError = error;
		this.latency.add(ms);
		(this.timeline ??= new CallSeries()).record(ms, true, at);
	}

	/**
	 * A call another upstream served on this one's behalf (an instance of a
	 * per-client server, for its template): only the history counts it, so
	 * the server's sparklines show its instances' traffic while its own
	 * counters, breaker and latency stay its own.
	 */
	recordInHistory(ms: number, failed: boolean, at = Date.now()): void {
		(this.timeline ??= new CallSeries()).record(ms, failed, at);
	}

	/** Calls, failures and p95 over the last 5 minutes; undefined when it has never been called. */
	series(now = Date.now()): SeriesView | undefined {
		return this.timeline?.view(now);
	}

	/** Whether it was called in the last 5 minutes. */
	calledLately(now = Date.now()): boolean {
		return this.timeline?.active(now) ?? false;
	}

	/** Its latency samples (the last 256 calls), for a merge across a per-client server's instances. */
	latencySamples(): readonly number[] {
		return this.latency.values();
	}

	snapshot(): CallMetricsSnapshot {
		return {
			calls: this.calls,
			failures: this.failures,
			consecutiveFailures: this.consecutiveFailures,
			lastSuccessAt: this.lastSuccessAt,
			lastFailureAt: this.lastFailureAt,
			lastError: this.lastError,
			latencyMs: {p50: this.latency.percentile(50), p95: this.latency.percentile(95)},
		};
	}
}
