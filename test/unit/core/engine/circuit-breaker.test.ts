import {describe, expect, it} from 'vitest';
import {CircuitBreaker} from '../../../../source/core/engine/upstream/circuit-breaker.js';

describe('circuit breaker', () => {
	const breaker = () => new CircuitBreaker({threshold: 3, minMs: 1000, maxMs: 60_000, jitter: 0});

	it('opens after the threshold of consecutive failures, not before', () => {
		const b = breaker();
		expect(b.recordFailure(0)).toBe(false);
		expect(b.recordFailure(0)).toBe(false);
		expect(b.recordFailure(0)).toBe(true);
		expect(b.state).toBe('open');
		expect(b.nextProbeAt).toBe(1000);
	});

	it('a success resets the streak', () => {
		const b = breaker();
		b.recordFailure(0);
		b.recordFailure(0);
		b.recordSuccess();
		expect(b.recordFailure(0)).toBe(false);
		expect(b.consecutiveFailures).toBe(1);
	});

	it('doubles the backoff on each failed probe up to the maximum, and resets on success', () => {
		const b = breaker();
		for (let i = 0; i < 3; i++) b.recordFailure(0);
		const delays = [b.nextProbeAt];
		for (let i = 0; i < 8; i++) {
			b.beginProbe();
			expect(b.state).toBe('half-open');
			expect(b.recordFailure(0)).toBe(true);
			delays.push(b.nextProbeAt);
		}

		expect(delays).toEqual([1000, 2000, 4000, 8000, 16_000, 32_000, 60_000, 60_000, 60_000]);
		b.beginProbe();
		b.recordSuccess();
		expect(b.state).toBe('closed');
		for (let i = 0; i < 3; i++) b.recordFailure(0);
		expect(b.nextProbeAt).toBe(1000);
	});

	it('adds jitter within the configured spread', () => {
		const b = new CircuitBreaker({threshold: 1, minMs: 1000, maxMs: 60_000, jitter: 0.2, random: () => 0.5});
		b.recordFailure(0);
		expect(b.nextProbeAt).toBe(1100);
	});
});
