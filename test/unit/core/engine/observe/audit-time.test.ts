/**
 * The audit line's time: formatted once per second and then by its
 * milliseconds (a call's bookkeeping), always the text toISOString gives.
 */
import {describe, expect, it} from 'vitest';
import {isoTime} from '../../../../../source/core/engine/observe/audit-log.js';

describe('isoTime', () => {
	it('is toISOString for times across seconds, in any order, and for the edges', () => {
		const start = Date.UTC(2026, 10, 27, 21, 5, 19, 990);
		const times = [start, start + 9, start + 10, start + 11, start + 109, start + 1009, start - 2000, start + 100_000_000, 0, 1, 999, 1000, Date.UTC(9999, 11, 31, 23, 59, 59, 999), 1.5, -5];
		for (let step = 0; step < 5000; step += 7) times.push(start + step);
		for (const at of times) expect(isoTime(at)).toBe(new Date(at).toISOString());
	});
});
