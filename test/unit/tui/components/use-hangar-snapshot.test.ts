import {describe, expect, it} from 'vitest';
import {frameDelay} from '../../../../source/tui/components/use-hangar-snapshot.js';

describe('the frame rate', () => {
	const timing = {frameMs: 100, costFactor: 16, maxFrameMs: 1000};
	it('waits at least the frame interval, and longer the more a frame costs, React and the renderer together', () => {
		expect(frameDelay({renderMs: 1, outputMs: 0}, timing)).toBe(100);
		// Under load a frame took 12 ms in React and 14 ms in Ink's output: about 2 frames a second.
		expect(frameDelay({renderMs: 12, outputMs: 14}, timing)).toBe(416);
		expect(frameDelay({renderMs: 12, outputMs: 0}, timing)).toBe(192);
		expect(frameDelay({renderMs: 80, outputMs: 80}, timing)).toBe(1000);
	});
});
