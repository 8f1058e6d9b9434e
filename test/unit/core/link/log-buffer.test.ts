import {describe, expect, it, onTestFinished, vi} from 'vitest';
import {LogBuffer, OutputLineSplitter} from '../../../../source/core/link/log-buffer.js';

describe('log buffer', () => {
	it('the log buffer keeps only the newest lines', () => {
		const log = new LogBuffer(3);
		for (let i = 0; i < 5; i++) log.push('stderr', `line ${i}`);
		expect(log.tail(10).map(line => line.text)).toEqual(['line 2', 'line 3', 'line 4']);
		expect(log.droppedLines).toBe(2);
	});

	it('the output line splitter joins chunks, strips CR and skips empty lines', () => {
		const lines: string[] = [];
		const splitter = new OutputLineSplitter(line => lines.push(line));
		splitter.write(Buffer.from('a\r\nb'));
		splitter.write(Buffer.from('c\n\nd'));
		splitter.flush();
		expect(lines).toEqual(['a', 'bc', 'd']);
	});

	it('the output line splitter decodes only what it keeps of a long line, and only admitted lines', () => {
		const lines: Array<[string, number]> = [];
		let admitted = 0;
		const splitter = new OutputLineSplitter((text, bytes) => lines.push([text, bytes]), () => admitted++ % 2 === 0, 4);
		splitter.write(Buffer.from('abcdefgh\nskipped\nxy'));
		splitter.write(Buffer.from('zzzzzz\n'));
		expect(lines).toEqual([
			['abcd', 8],
			['xyzz', 8],
		]);
	});

	it('the log buffer takes in output up to its budget, then counts and reports what it drops', () => {
		// Fake timers: on real ones, a full run on a loaded machine twice failed to see the report in time.
		vi.useFakeTimers();
		onTestFinished(() => {
			vi.useRealTimers();
		});
		const log = new LogBuffer(100, 2000, {bytesPerSecond: 1, burstBytes: 10}, 5000);
		const notes: string[] = [];
		log.onLine(line => {
			if (line.source === 'hangar') notes.push(line.text);
		});
		expect(log.admit('stderr', 6)).toBe(true);
		expect(log.admit('stderr', 6)).toBe(false);
		expect(log.admit('stdout', 100)).toBe(false);
		expect(log.dropped).toEqual({stderr: {lines: 1, bytes: 6}, stdout: {lines: 1, bytes: 100}});
		// The first report is due 1 s after the first drop, not before.
		vi.advanceTimersByTime(999);
		expect(notes).toHaveLength(0);
		vi.advanceTimersByTime(1);
		expect(notes).toHaveLength(1);
		expect(notes[0]).toMatch(/^dropped 1 line \(6 bytes\) of stderr and 1 line \(100 bytes\) of stdout in [\d.]+ s: it wrote faster than hangar keeps an upstream's output \(1 bytes\/s\)/);
	});

	it('the log buffer masks secrets and keeps no more of a line than its limit', () => {
		const log = new LogBuffer(10, 40);
		log.push('stderr', 'connecting to https://me:pw@example.com');
		log.push('stderr', `${'x'.repeat(30)} https://me:secret-password@example.com`);
		const [first, second] = log.tail(2).map(line => line.text);
		expect(first).toBe('connecting to https://***@example.com');
		// Cut after masking: no part of the password survives the cut.
		expect(second).toMatch(new RegExp(`^${'x'.repeat(30)} https://\\*+… \\(69 chars\\)$`));
	});
});
