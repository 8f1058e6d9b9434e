import {describe, expect, it} from 'vitest';
import {LineSplitter} from '../../../../source/core/wire/line-splitter.js';

function split(chunks: string[], overflow?: ConstructorParameters<typeof LineSplitter>[1], flush = false): {lines: string[]; discarded: Array<[string, number]>} {
	const lines: string[] = [];
	const discarded: Array<[string, number]> = [];
	const splitter = new LineSplitter(
		line => lines.push(line),
		overflow?.policy === 'discard' ? {...overflow, onDiscarded: (prefix, bytes) => discarded.push([prefix, bytes])} : overflow,
	);
	for (const chunk of chunks) splitter.write(chunk);
	if (flush) splitter.flush();
	return {lines, discarded};
}

const discard = (maxBytes: number) => ({maxBytes, policy: 'discard' as const, onDiscarded: () => {}});

describe('LineSplitter', () => {
	it('joins chunks into lines, drops the CR of CRLF, and passes blank lines on', () => {
		expect(split(['a\r\nb', 'c\n\n', '\r\nd\n']).lines).toEqual(['a', 'bc', '', '', 'd']);
	});

	it('keeps an unterminated last line until flushed', () => {
		expect(split(['a\nb']).lines).toEqual(['a']);
		expect(split(['a\nb'], undefined, true).lines).toEqual(['a', 'b']);
		expect(split(['a\n'], undefined, true).lines).toEqual(['a']);
	});

	it('discards a line past its byte limit as it streams in, reporting its first kilobyte and its size, and reads on', () => {
		const long = `{"id":"big",${'x'.repeat(5000)}}`;
		const {lines, discarded} = split(['ok\n', long.slice(0, 2000), long.slice(2000), '\nnext\n'], discard(100));
		expect(lines).toEqual(['ok', 'next']);
		expect(discarded).toEqual([[long.slice(0, 1024), long.length]]);
	});

	it('reports the last kilobyte of a discarded line too, however it was cut into chunks', () => {
		const long = `{"result":{"text":"${'x'.repeat(5000)}"},"jsonrpc":"2.0","id":"h7"}`;
		for (const cuts of [[1500], [150, 4000, 5060], [5070]]) {
			const pieces = [0, ...cuts, long.length].slice(1).map((end, index, ends) => long.slice(index === 0 ? 0 : ends[index - 1], end));
			const suffixes: string[] = [];
			const splitter = new LineSplitter(() => {}, {maxBytes: 100, policy: 'discard', onDiscarded: (_prefix, _bytes, suffix) => suffixes.push(suffix)});
			for (const piece of [...pieces, '\n']) splitter.write(piece);
			expect(suffixes, cuts.join(',')).toEqual([long.slice(-1024)]);
		}
	});

	it('counts the limit in bytes, not characters', () => {
		const wide = 'é'.repeat(60);
		expect(split([`${wide}\n`], discard(100)).discarded).toEqual([[wide, 120]]);
		expect(split([`${'e'.repeat(60)}\n`], discard(100)).lines).toEqual(['e'.repeat(60)]);
	});

	it('keeps a line at its byte limit and discards one past it, with its exact size, whatever chunks it came in', () => {
		// Lines far below the limit are not measured: what is counted must still be exact near it.
		for (const [unit, bytes] of [['a', 1], ['é', 2], ['€', 3]] as const) {
			const fits = unit.repeat(Math.floor(90 / bytes));
			const over = unit.repeat(Math.floor(90 / bytes) + 1);
			for (const size of [1, 7, 29, 200]) {
				const chunks = (text: string) => [...`${text}\n`.matchAll(new RegExp(`[^]{1,${size}}`, 'g'))].map(match => match[0]);
				const limit = fits.length * bytes;
				expect(split(chunks(fits), discard(limit)).lines, `${unit} ${size}`).toEqual([fits]);
				expect(split(chunks(over), discard(limit)).discarded, `${unit} ${size}`).toEqual([[over, over.length * bytes]]);
			}
		}
	});

	it('passes a runaway line on in pieces, each cut where a chunk ends past the limit, when the policy is to split', () => {
		expect(split(['abcdefghij', 'kl\nm\n'], {maxBytes: 4, policy: 'split'}).lines).toEqual(['abcdefghij', 'kl', 'm']);
		expect(split(['abc', 'def', 'gh', 'ij\n'], {maxBytes: 4, policy: 'split'}).lines).toEqual(['abcdef', 'ghij']);
	});

	it('the line splitter joins chunks and strips CR', () => {
		const lines: string[] = [];
		const splitter = new LineSplitter(line => lines.push(line));
		splitter.write('a\r\nb');
		splitter.write('c\nd');
		splitter.flush();
		expect(lines).toEqual(['a', 'bc', 'd']);
	});
});
