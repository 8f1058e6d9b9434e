import {describe, expect, it} from 'vitest';
import {shareRows} from '../../../../source/tui/components/row-budget.js';

describe('row budget', () => {
	it('shares rows between sections, cutting the longest first', () => {
		expect(shareRows([3, 5, 2], 20)).toEqual([3, 5, 2]);
		expect(shareRows([10, 2, 10], 12)).toEqual([5, 2, 5]);
		expect(shareRows([10, 10], 5)).toEqual([3, 2]);
		expect(shareRows([4, 4], 0)).toEqual([0, 0]);
	});
});
