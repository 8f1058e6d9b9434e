import {describe, expect, it} from 'vitest';
import {mergeBuckets, sparkline} from '../../../../source/tui/components/sparkline.js';

describe('sparkline', () => {
	it('draws each value on the scale of the largest, a zero as the lowest block and no data as a space', () => {
		expect(sparkline([0, 1, 2, 4, 8], 5, 'sum')).toBe('▁▂▃▅█');
		expect(sparkline([null, 0, null, 3], 4, 'max')).toBe(' ▁ █');
		expect(sparkline([], 10, 'sum')).toBe('');
	});

	it('never draws a value above zero as the lowest block: one failure among none stays visible', () => {
		expect(sparkline([1000, 1, 0], 3, 'sum')).toBe('█▂▁');
	});

	it('draws on a given scale (failures on the calls\' scale)', () => {
		expect(sparkline([5, 10], 2, 'sum', 10)).toBe('▅█');
		expect(sparkline([1, 1], 2, 'sum', 8)).toBe('▂▂');
	});

	it('merges buckets to fit the width from the newest end: counts are added, latencies take their maximum', () => {
		const values = [1, 2, 3, 4, 5, 6];
		expect(mergeBuckets(values, 3, 'sum')).toEqual([3, 7, 11]);
		expect(mergeBuckets(values, 3, 'max')).toEqual([2, 4, 6]);
		// Not a whole number of groups: the oldest group is the short one.
		expect(mergeBuckets([1, 2, 3, 4, 5], 2, 'sum')).toEqual([3, 12]);
		expect(mergeBuckets([null, null, 3, null], 2, 'max')).toEqual([null, 3]);
		expect(sparkline(new Array<number>(60).fill(1), 10, 'sum')).toHaveLength(10);
	});
});
