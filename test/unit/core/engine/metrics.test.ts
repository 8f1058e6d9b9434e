import {describe, expect, it} from 'vitest';
import {CallMetrics, CallSeries, LatencyWindow} from '../../../../source/core/engine/upstream/metrics.js';

describe('latency window', () => {
	it('latency percentiles come from the recent window', () => {
		const window = new LatencyWindow(4);
		for (const ms of [100, 100, 100, 100, 1, 2, 3, 4]) window.add(ms);
		expect(window.percentile(50)).toBe(2);
		expect(window.percentile(95)).toBe(4);
	});
});

describe('call series', () => {
	const bucket = 5000;
	const start = Date.parse('2026-11-22T10:00:00Z');

	it('counts calls and failures per 5-second bucket over the last 5 minutes, the newest bucket last', () => {
		const series = new CallSeries();
		series.record(2, false, start + 100);
		series.record(3, true, start + 200);
		series.record(4, false, start + bucket + 100);
		const view = series.view(start + bucket + 200);
		expect(view.calls).toHaveLength(60);
		expect(view.bucketMs).toBe(bucket);
		expect(view.end).toBe(start + 2 * bucket);
		expect(view.calls.slice(-2)).toEqual([2, 1]);
		expect(view.failures.slice(-2)).toEqual([1, 0]);
		expect(view.calls.slice(0, -2).every(n => n === 0)).toBe(true);
	});

	it('gives each bucket a p95 from a fixed histogram: within a factor of two, null without calls', () => {
		const series = new CallSeries();
		for (let i = 0; i < 19; i++) series.record(1, false, start);
		series.record(900, false, start);
		for (let i = 0; i < 100; i++) series.record(40, false, start + bucket);
		const view = series.view(start + bucket);
		const [first, second] = view.p95.slice(-2) as [number, number];
		expect(first).toBeGreaterThanOrEqual(1);
		expect(first).toBeLessThan(2);
		expect(second).toBeGreaterThanOrEqual(40);
		expect(second).toBeLessThan(80);
		expect(view.p95[0]).toBeNull();
	});

	it('forgets what is older than its window, reusing the ring: memory stays fixed however long it runs', () => {
		const series = new CallSeries(4, bucket);
		series.record(1, true, start);
		expect(series.active(start + 3 * bucket)).toBe(true);
		expect(series.active(start + 4 * bucket)).toBe(false);
		series.record(1, false, start + 4 * bucket);
		// The same slot, a new period: the old failure is gone.
		expect(series.view(start + 4 * bucket).failures).toEqual([0, 0, 0, 0]);
		expect(series.view(start + 4 * bucket).calls).toEqual([0, 0, 0, 1]);
	});

	it('is made by a CallMetrics at its first call only', () => {
		const metrics = new CallMetrics();
		expect(metrics.series(start)).toBeUndefined();
		expect(metrics.calledLately(start)).toBe(false);
		metrics.recordFailure(12, 'boom', start);
		expect(metrics.calledLately(start)).toBe(true);
		expect(metrics.series(start)?.failures.at(-1)).toBe(1);
	});
});
