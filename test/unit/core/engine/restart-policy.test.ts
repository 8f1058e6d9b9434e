import {describe, expect, it} from 'vitest';
import {RestartPolicy} from '../../../../source/core/engine/upstream/restart-policy.js';

describe('restart policy', () => {
	it('allows restarts with doubling delays until the budget is spent inside the window', () => {
		const policy = new RestartPolicy({maxRestarts: 5, windowMs: 60_000, minDelayMs: 1000, maxDelayMs: 60_000});
		expect([0, 1, 2, 3, 4].map(at => policy.recordCrash(at))).toEqual([1000, 2000, 4000, 8000, 16_000]);
		expect(policy.recordCrash(5)).toBeUndefined();
	});

	it('forgets crashes older than the window', () => {
		const policy = new RestartPolicy({maxRestarts: 1, windowMs: 10_000, minDelayMs: 1000, maxDelayMs: 60_000});
		expect(policy.recordCrash(0)).toBe(1000);
		expect(policy.recordCrash(20_000)).toBe(1000);
		expect(policy.recordCrash(21_000)).toBeUndefined();
	});
});
