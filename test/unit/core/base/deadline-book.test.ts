import {afterEach, beforeEach, describe, expect, it, vi} from 'vitest';
import {DeadlineBook} from '../../../../source/core/base/deadline-book.js';

beforeEach(() => {
	vi.useFakeTimers({toFake: ['setTimeout', 'clearTimeout', 'performance']});
});

afterEach(() => {
	vi.useRealTimers();
});

/** An owner that counts its expiries. */
function owner(): {expire(): void; fired: number} {
	return {
		fired: 0,
		expire() {
			this.fired += 1;
		},
	};
}

describe('DeadlineBook', () => {
	it('expires a deadline once, after its time', () => {
		const book = new DeadlineBook();
		const call = owner();
		book.add(1000, call);
		vi.advanceTimersByTime(999);
		expect(call.fired).toBe(0);
		vi.advanceTimersByTime(1);
		expect(call.fired).toBe(1);
		vi.advanceTimersByTime(5000);
		expect(call.fired).toBe(1);
		expect(book.size).toBe(0);
	});

	it('never expires a deadline that was removed, and expires the others each at its own time', () => {
		const book = new DeadlineBook();
		const [a, b, c] = [owner(), owner(), owner()];
		const first = book.add(1000, a);
		book.add(3000, b);
		vi.advanceTimersByTime(500);
		// Earlier than the one the timer waits for: it still expires on time.
		book.add(200, c);
		book.remove(first);
		vi.advanceTimersByTime(200);
		expect([a.fired, b.fired, c.fired]).toEqual([0, 0, 1]);
		vi.advanceTimersByTime(2299);
		expect(b.fired).toBe(0);
		vi.advanceTimersByTime(1);
		expect([a.fired, b.fired, c.fired]).toEqual([0, 1, 1]);
	});

	it('does not count the time it was paused, for the deadlines it had and those added meanwhile', () => {
		const book = new DeadlineBook();
		const [early, late] = [owner(), owner()];
		const deadline = book.add(1000, early);
		vi.advanceTimersByTime(600);
		book.pause();
		expect(book.paused).toBe(true);
		book.add(100, late);
		vi.advanceTimersByTime(60_000);
		expect([early.fired, late.fired]).toEqual([0, 0]);
		expect(book.left(deadline)).toBe(400);
		book.resume();
		vi.advanceTimersByTime(100);
		expect([early.fired, late.fired]).toEqual([0, 1]);
		vi.advanceTimersByTime(299);
		expect(early.fired).toBe(0);
		vi.advanceTimersByTime(1);
		expect(early.fired).toBe(1);
	});

	it('changes nothing when paused or resumed twice', () => {
		const book = new DeadlineBook();
		const call = owner();
		const deadline = book.add(100, call);
		book.resume();
		vi.advanceTimersByTime(50);
		book.pause();
		book.pause();
		expect(book.left(deadline)).toBe(50);
		vi.advanceTimersByTime(1000);
		book.resume();
		book.resume();
		vi.advanceTimersByTime(49);
		expect(call.fired).toBe(0);
		vi.advanceTimersByTime(1);
		expect(call.fired).toBe(1);
	});

	it('keeps one timer for many deadlines, and sets none for a deadline later than the one it waits for', () => {
		const book = new DeadlineBook();
		const set = vi.spyOn(globalThis, 'setTimeout');
		for (let index = 0; index < 100; index++) book.remove(book.add(60_000, owner()));
		expect(set).toHaveBeenCalledTimes(1);
		set.mockRestore();
	});

	it('does not keep the process alive', () => {
		const set = vi.spyOn(globalThis, 'setTimeout');
		new DeadlineBook().add(60_000, owner());
		const timer = set.mock.results[0]!.value as NodeJS.Timeout;
		set.mockRestore();
		expect(timer.hasRef()).toBe(false);
	});
});
