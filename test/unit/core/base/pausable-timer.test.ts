import {afterEach, beforeEach, describe, expect, it, vi} from 'vitest';
import {PausableTimer} from '../../../../source/core/base/pausable-timer.js';

beforeEach(() => {
	vi.useFakeTimers({toFake: ['setTimeout', 'clearTimeout', 'performance']});
});

afterEach(() => {
	vi.useRealTimers();
});

describe('PausableTimer', () => {
	it('fires once after its time when never paused', () => {
		let fired = 0;
		new PausableTimer(1000, () => fired++);
		vi.advanceTimersByTime(999);
		expect(fired).toBe(0);
		vi.advanceTimersByTime(1);
		expect(fired).toBe(1);
		vi.advanceTimersByTime(5000);
		expect(fired).toBe(1);
	});

	it('does not count the time it was paused', () => {
		let fired = 0;
		const timer = new PausableTimer(1000, () => fired++);
		vi.advanceTimersByTime(600);
		timer.pause();
		expect(timer.paused).toBe(true);
		vi.advanceTimersByTime(60_000);
		expect(fired).toBe(0);
		expect(timer.left).toBe(400);
		timer.resume();
		vi.advanceTimersByTime(399);
		expect(fired).toBe(0);
		vi.advanceTimersByTime(1);
		expect(fired).toBe(1);
	});

	it('can start paused, and pausing or resuming twice changes nothing', () => {
		let fired = 0;
		const timer = new PausableTimer(100, () => fired++, true);
		vi.advanceTimersByTime(1000);
		expect(fired).toBe(0);
		timer.resume();
		timer.resume();
		vi.advanceTimersByTime(50);
		timer.pause();
		timer.pause();
		expect(timer.left).toBe(50);
		timer.resume();
		vi.advanceTimersByTime(50);
		expect(fired).toBe(1);
	});

	it('never fires once cleared, even when resumed', () => {
		let fired = 0;
		const timer = new PausableTimer(100, () => fired++);
		timer.clear();
		timer.resume();
		vi.advanceTimersByTime(1000);
		expect(fired).toBe(0);
		expect(timer.paused).toBe(false);
	});
});
