/**
 * A per-client server's call totals: its template's calls plus those of every
 * instance ever run under it. Instances come and go with client sessions, so
 * a sum over the live ones would make a server's CALLS go down when a client
 * leaves. When an instance is let go, `RetiredInstances` counts it with the
 * live ones until its stop settles (a call it was serving ends, as a failure,
 * on the way), then folds its counts into a tally that only grows.
 *
 * Latency is the nearest-rank p50/p95 over the merged recent samples: the
 * last 256 calls of the template and of each live instance, and the last 256
 * calls of the retired ones together.
 */
import {LatencyWindow, percentileOfSorted} from '../upstream/metrics.js';
import type {Upstream} from '../upstream/upstream.js';

/** One upstream's (or tally's) share of a server's totals. */
export type CallCounts = {calls: number; failures: number; toolErrors: number; inFlight: number; latencySamples: readonly number[]};

export type CallTotals = {calls: number; failures: number; toolErrors: number; inFlight: number; latencyMs: {p50: number | null; p95: number | null}};

/** What an upstream counts now. */
export function countsOf(upstream: Upstream): CallCounts {
	const snapshot = upstream.snapshot();
	return {calls: snapshot.calls, failures: snapshot.failures, toolErrors: snapshot.toolErrors, inFlight: snapshot.inFlight, latencySamples: upstream.metrics.latencySamples()};
}

/** The sum of several shares, latency percentiles over all their samples. */
export function totalOf(parts: readonly CallCounts[]): CallTotals {
	const totals = {calls: 0, failures: 0, toolErrors: 0, inFlight: 0};
	const samples: number[] = [];
	for (const part of parts) {
		totals.calls += part.calls;
		totals.failures += part.failures;
		totals.toolErrors += part.toolErrors;
		totals.inFlight += part.inFlight;
		samples.push(...part.latencySamples);
	}

	samples.sort((a, b) => a - b);
	return {...totals, latencyMs: {p50: percentileOfSorted(samples, 50) ?? null, p95: percentileOfSorted(samples, 95) ?? null}};
}

/** The instances a per-client template has let go: stopping ones counted as they are, stopped ones folded in. */
export class RetiredInstances {
	private calls = 0;
	private failures = 0;
	private toolErrors = 0;
	private readonly latency = new LatencyWindow();
	private readonly stopping = new Set<Upstream>();

	/** An instance let go; `stopped` settles once it has stopped (its last call ended). */
	retire(instance: Upstream, stopped: Promise<void>): void {
		this.stopping.add(instance);
		void stopped.finally(() => {
			if (!this.stopping.delete(instance)) return;
			const counts = countsOf(instance);
			this.calls += counts.calls;
			this.failures += counts.failures;
			this.toolErrors += counts.toolErrors;
			for (const ms of counts.latencySamples) this.latency.add(ms);
		});
	}

	/** Its shares of the server's totals: the folded tally (nothing in flight) and each instance still stopping. */
	counts(): CallCounts[] {
		const folded: CallCounts = {calls: this.calls, failures: this.failures, toolErrors: this.toolErrors, inFlight: 0, latencySamples: this.latency.values()};
		return [folded, ...[...this.stopping].map(instance => countsOf(instance))];
	}
}

/** The supervisor's side: the instances each per-client template has let go (a template a reload replaced takes its tally with it). */
export class InstanceTotals {
	private readonly retired = new WeakMap<Upstream, RetiredInstances>();

	/** Lets `instance` of `template` go, its calls kept in the server's totals; `stopped` settles once it has stopped, and is returned. */
	retire(template: Upstream, instance: Upstream, stopped: Promise<void>): Promise<void> {
		let retired = this.retired.get(template);
		if (retired === undefined) {
			retired = new RetiredInstances();
			this.retired.set(template, retired);
		}

		retired.retire(instance, stopped);
		return stopped;
	}

	/**
	 * A server's calls, failures, tool errors, calls in flight and latency:
	 * its template's, its `live` instances' and those of every instance it
	 * has let go; undefined while it has never run one (its own snapshot
	 * says it all then, without merging latency samples).
	 */
	of(template: Upstream, live: readonly Upstream[]): CallTotals | undefined {
		const retired = this.retired.get(template);
		if (live.length === 0 && retired === undefined) return undefined;
		return totalOf([countsOf(template), ...live.map(instance => countsOf(instance)), ...(retired?.counts() ?? [])]);
	}
}
