/**
 * Call metrics for an upstream and for each of its tools: counts, the
 * consecutive-failure streak, last success/failure, and latency percentiles
 * over a recent window (a fixed-size ring, so p50/p95 reflect the last
 * `window` calls rather than all history).
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
		if (this.count === 0) return undefined;
		this.sorted ??= this.samples.slice(0, this.count).sort((a, b) => a - b);
		const sorted = this.sorted;
		const rank = Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1));
		return Math.round(sorted[rank]! * 10) / 10;
	}
}

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

	recordSuccess(ms: number, at = Date.now()): void {
		this.calls += 1;
		this.consecutiveFailures = 0;
		this.lastSuccessAt = at;
		this.latency.add(ms);
	}

	recordFailure(ms: number, error: string, at = Date.now()): void {
		this.calls += 1;
		this.failures += 1;
		this.consecutiveFailures += 1;
		this.lastFailureAt = at;
		this.lastError = error;
		this.latency.add(ms);
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
