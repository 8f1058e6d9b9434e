/**
 * An upstream's output copied to hangar's log file is bounded per upstream:
 * a burst passes whole, a flood is cut to the rate, and the lines left out
 * are counted in a line of their own.
 */
import {afterEach, describe, expect, it, vi} from 'vitest';
import {Logger} from '../../../../source/core/base/logger.js';
import {copiedLinesBurst, copiedLinesPerSecond, copyToLog, LogBuffer} from '../../../../source/core/link/log-buffer.js';

afterEach(() => {
	vi.useRealTimers();
});

function fileLogger(): {logger: Logger; lines: string[]} {
	const lines: string[] = [];
	const sink = Object.assign((line: string) => {
		lines.push(line);
	}, {kind: 'file' as const});
	return {logger: new Logger(sink, 'info'), lines};
}

describe('copyToLog', () => {
	it('copies a burst whole, cuts a flood to the rate and says how many lines it left out', () => {
		vi.useFakeTimers();
		let now = 1_000_000;
		const {logger, lines} = fileLogger();
		const log = new LogBuffer();
		copyToLog(log, logger, 'flood', () => now);
		for (let index = 0; index < 10_000; index++) log.push('stderr', `noise ${index}`);
		expect(lines.filter(line => line.includes('stderr: noise'))).toHaveLength(copiedLinesBurst);
		// A second later, a second's worth more.
		now += 1000;
		for (let index = 0; index < 1000; index++) log.push('stderr', `more ${index}`);
		expect(lines.filter(line => line.includes('stderr: more'))).toHaveLength(copiedLinesPerSecond);
		now += 5000;
		vi.advanceTimersByTime(5000);
		const report = lines.filter(line => line.includes('not written to this log'));
		expect(report).toHaveLength(1);
		expect(report[0]).toContain(`${10_000 - copiedLinesBurst + 1000 - copiedLinesPerSecond} lines of its output not written to this log`);
		expect(report[0]).toContain('mcp-hangar logs flood');
	});
});
