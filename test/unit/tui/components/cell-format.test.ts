import {describe, expect, it} from 'vitest';
import {count, cut, duration, fit, latency, printable, shortDuration, wrap} from '../../../../source/tui/components/cell-format.js';

describe('cell formats', () => {
	it('keeps numbers and times short', () => {
		expect(duration(42)).toBe('42s');
		expect(duration(312)).toBe('5m12s');
		expect(duration(3725)).toBe('1h02m');
		expect(duration(2 * 86_400 + 3 * 3600)).toBe('2d03h');
		expect(shortDuration(3725)).toBe('1h');
		expect(shortDuration(7.6)).toBe('7s');
		// Exact under an hour, as the detail view says it (35s, 4m10s), then one unit.
		expect(shortDuration(47)).toBe('47s');
		expect(shortDuration(250)).toBe('4m10s');
		expect(shortDuration(3 * 86_400 + 5)).toBe('3d');
		expect(count(1234)).toBe('1234');
		expect(count(12_345)).toBe('12.3k');
		expect(latency({p50: 3.21, p95: 1500})).toBe('3.2ms/1.5s');
		expect(latency({p50: null, p95: null})).toBe('-');
	});

	it('cuts and pads text, and shows escape sequences escaped, tabs and newlines as spaces', () => {
		expect(cut('abcdef', 4)).toBe('abc…');
		expect(fit('ab', 4, 'right')).toBe('  ab');
		expect(fit('abcdef', 4)).toBe('abc…');
		expect(printable('\u001B[31mred\u001B[0m\tand\nmore\u0007\u001B]0;title\u0007')).toBe('\\x1b[31mred\\x1b[0m and more\\x07\\x1b]0;title\\x07');
		expect(printable('\u009B2J\u202Eevil')).toBe('\\u009b2J\\u202eevil');
		// A line break (LF, CRLF) or a tab is a space on one line; a lone carriage return is escaped, as the CLI shows it.
		expect(printable('A\bB\rC\r\nD\nE\tF\fG\u0085H\u2028I')).toBe('A\\x08B\\x0dC D E F\\x0cG\\u0085H\\u2028I');
	});

	it('wraps messages by word to a number of lines, marking what is cut', () => {
		expect(wrap('start failed: the process exited', 14, 3)).toEqual(['start failed:', 'the process', 'exited']);
		expect(wrap('start failed: the process exited with code 4', 14, 2)).toEqual(['start failed:', 'the process e…']);
		expect(wrap('abcdefghij', 4, 3)).toEqual(['abcd', 'efgh', 'ij']);
		expect(wrap('', 10, 2)).toEqual(['']);
	});
});
