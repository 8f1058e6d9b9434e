import {Writable} from 'node:stream';
import {setImmediate as turnEnd} from 'node:timers/promises';
import {describe, expect, it} from 'vitest';
import {LineSplitter} from '../../../../source/core/wire/line-splitter.js';
import {CoalescingWriter} from '../../../../source/core/wire/write-coalescer.js';

/** A stream that records each write it is given, as one string per write. */
function recorder(): {stream: Writable; writes: string[]} {
	const writes: string[] = [];
	const stream = new Writable({
		decodeStrings: false,
		write(chunk: string, _encoding, done) {
			writes.push(chunk);
			done();
		},
	});
	return {stream, writes};
}

describe('the write coalescer', () => {
	it('writes the first line of a turn at once and joins the lines after it into one write at the turn\'s end', async () => {
		const {stream, writes} = recorder();
		const writer = new CoalescingWriter(stream);
		const reader = new LineSplitter(line => writer.write(`${line}\n`));
		reader.write('a\nb\nc\n');
		expect(writes).toEqual(['a\n']);
		await turnEnd();
		expect(writes).toEqual(['a\n', 'b\nc\n']);
	});

	it('writes at once again in the next turn, and never ahead of a line still waiting', async () => {
		const {stream, writes} = recorder();
		const writer = new CoalescingWriter(stream);
		const reader = new LineSplitter(line => writer.write(`${line}\n`));
		reader.write('a\nb\n');
		await turnEnd();
		reader.write('c\n');
		expect(writes).toEqual(['a\n', 'b\n', 'c\n']);

		// A new turn while lines still wait: the new line queues behind them.
		reader.write('d\ne\n');
		reader.write('f\n');
		expect(writes).toEqual(['a\n', 'b\n', 'c\n', 'd\n']);
		await turnEnd();
		expect(writes.join('')).toBe('a\nb\nc\nd\ne\nf\n');
		expect(writes.at(-1)).toBe('e\nf\n');
	});

	it('writes a large line at once and on its own, after what waited before it', async () => {
		const {stream, writes} = recorder();
		const writer = new CoalescingWriter(stream);
		const large = `${'x'.repeat(20_000)}\n`;
		const reader = new LineSplitter(line => writer.write(line === 'large' ? large : `${line}\n`));
		reader.write('a\nb\nlarge\nc\n');
		expect(writes).toEqual(['a\n', 'b\n', large]);
		await turnEnd();
		expect(writes).toEqual(['a\n', 'b\n', large, 'c\n']);
	});
});
