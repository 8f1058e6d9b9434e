import {describe, expect, it} from 'vitest';
import {LatencyWindow} from '../../../../source/core/engine/metrics.js';

describe('latency window', () => {
	it('latency percentiles come from the recent window', () => {
		const window = new LatencyWindow(4);
		for (const ms of [100, 100, 100, 100, 1, 2, 3, 4]) window.add(ms);
		expect(window.percentile(50)).toBe(2);
		expect(window.percentile(95)).toBe(4);
	});
});
