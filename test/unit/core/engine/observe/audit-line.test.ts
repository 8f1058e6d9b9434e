/**
 * A call's audit line is written as text: it must be the bytes
 * JSON.stringify would write for the same record, whatever its strings hold.
 */
import {describe, expect, it} from 'vitest';
import {JsonQuotes, callLine, millisText} from '../../../../../source/core/engine/observe/audit-line.js';
import {isoTime, type AuditCall} from '../../../../../source/core/engine/observe/audit-log.js';

const plain: AuditCall = {
	kind: 'call',
	time: '2026-11-28T01:02:03.456Z',
	client: 'claude-code',
	session: 'stdio',
	upstream: 'fs',
	tool: 'read_file',
	ms: 0.452,
	outcome: 'ok',
	code: null,
	error: null,
	argsBytes: 19,
};

describe('callLine', () => {
	it('writes what JSON.stringify writes, for plain records and for strings that need escapes', () => {
		const quotes = new JsonQuotes();
		const odd = 'quote " backslash \\ newline \n tab \t nul \u0000 bell \u0007 lone \ud800 pair 😀 bidi \u202e é';
		const records: AuditCall[] = [
			plain,
			{...plain, session: null, outcome: 'error', code: 'UpstreamTimeout', error: 'upstream "fs": tools/call "read_file" got no answer within 60000 ms', ms: 60_000.123},
			{...plain, client: odd, session: odd, upstream: odd, tool: odd, error: odd, code: '-32603', args: `{"path":"${odd}"}`},
			{...plain, time: '+275760-09-13T00:00:00.000Z', ms: Number.NaN, argsBytes: 0, outcome: 'tool-error'},
			{...plain, time: 'not "a time"', client: 'x'.repeat(300)},
		];
		// Twice: the second time from the quotes kept.
		for (const record of [...records, ...records]) expect(callLine(record, quotes)).toBe(JSON.stringify(record));
	});

	it('writes a time isoTime made as JSON.stringify does without checking it', () => {
		const quotes = new JsonQuotes();
		for (const at of [0, Date.UTC(2026, 10, 28, 1, 2, 3, 4), Date.UTC(9999, 11, 31, 23, 59, 59, 999), 8.64e15, -5, 1.5]) {
			const record = {...plain, time: isoTime(at)};
			expect(callLine(record, quotes, true)).toBe(JSON.stringify(record));
		}
	});

	it('keeps a bounded number of quoted strings', () => {
		const quotes = new JsonQuotes();
		for (let index = 0; index < 5000; index++) expect(quotes.of(`client-${index}`)).toBe(`"client-${index}"`);
		expect((quotes as unknown as {quoted: Map<string, string>}).quoted.size).toBeLessThanOrEqual(512);
	});

	it('writes a duration rounded to the microsecond as JSON writes the number', () => {
		const durations = [0, 0.0004, 0.0005, 0.001, 0.01, 0.012, 0.1, 0.12, 0.123, 0.452, 1, 1.5, 1.05, 1.005, 9.999, 10.01, 60_000.123, 123_456_789.001, 2 ** 40 + 0.5, -0.5, Number.NaN, Number.POSITIVE_INFINITY, 1e300];
		// A fixed sequence of fractions (a linear congruential generator), from 0.01 ms to 100 s.
		let seed = 12_345;
		for (let index = 0; index < 20_000; index++) {
			seed = (seed * 1_103_515_245 + 12_345) % 2 ** 31;
			durations.push((seed / 2 ** 31) * 10 ** ((index % 8) - 2));
		}

		for (const ms of durations) {
			const rounded = Math.round(ms * 1000) / 1000;
			expect(millisText(rounded), String(ms)).toBe(JSON.stringify(rounded));
		}
	});
});
