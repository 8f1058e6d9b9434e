import {describe, expect, it} from 'vitest';
import {Cancellation, offCancel, onCancel, signalOf} from '../../../../source/core/base/cancellation.js';

describe('Cancellation', () => {
	it('tells each listener once, in the order they came, and none that left', () => {
		const cancellation = new Cancellation();
		const told: string[] = [];
		const gone = () => told.push('gone');
		cancellation.listen(() => told.push('a'));
		cancellation.listen(gone);
		cancellation.listen(() => told.push('b'));
		cancellation.unlisten(gone);
		cancellation.abort('why');
		cancellation.abort('again');
		expect(told).toEqual(['a', 'b']);
		expect(cancellation.aborted).toBe(true);
		expect(cancellation.reason).toBe('why');
	});

	it('keeps the order when the first listener leaves', () => {
		const cancellation = new Cancellation();
		const told: string[] = [];
		const first = () => told.push('first');
		cancellation.listen(first);
		cancellation.listen(() => told.push('second'));
		cancellation.listen(() => told.push('third'));
		cancellation.unlisten(first);
		cancellation.abort(undefined);
		expect(told).toEqual(['second', 'third']);
	});

	it('makes a real AbortSignal on demand that aborts with it, or is aborted already', () => {
		const before = new Cancellation();
		const signal = before.signal;
		expect(signal.aborted).toBe(false);
		before.abort(new Error('cancelled'));
		expect(signal.aborted).toBe(true);
		expect((signal.reason as Error).message).toBe('cancelled');

		const after = new Cancellation();
		after.abort('late');
		expect(after.signal.aborted).toBe(true);
		expect(after.signal.reason).toBe('late');
	});

	it('calls no listener that comes after it was cancelled, as an AbortSignal would not', () => {
		const cancellation = new Cancellation();
		cancellation.abort('done');
		let told = 0;
		cancellation.listen(() => told++);
		expect(told).toBe(0);
	});

	it('is listened to like an AbortSignal through onCancel and offCancel', () => {
		for (const make of [() => new AbortController(), () => new Cancellation()]) {
			const source = make();
			const cancel = source instanceof Cancellation ? source : source.signal;
			let told = 0;
			const listener = () => told++;
			onCancel(cancel, listener);
			offCancel(cancel, listener);
			onCancel(cancel, () => (told += 10));
			source.abort('x');
			expect(told).toBe(10);
			expect(signalOf(cancel).aborted).toBe(true);
		}
	});
});
