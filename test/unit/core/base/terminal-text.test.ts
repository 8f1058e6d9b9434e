import {describe, expect, it} from 'vitest';
import {terminalJson, terminalText} from '../../../../source/core/base/terminal-text.js';

// Every character a terminal may act on, or that reorders what a line shows.
const controls = [
	...Array.from({length: 0x20}, (_, code) => code),
	0x7f,
	...Array.from({length: 0x20}, (_, index) => 0x80 + index),
	0x61c,
	0x200e,
	0x200f,
	0x2028,
	0x2029,
	0x202a,
	0x202b,
	0x202c,
	0x202d,
	0x202e,
	0x2066,
	0x2067,
	0x2068,
	0x2069,
].map(code => String.fromCodePoint(code));
const raw = new RegExp(`[${controls.map(character => `\\u{${character.codePointAt(0)!.toString(16)}}`).join('')}]`, 'u');

describe('the output rule for text hangar did not write', () => {
	it('shows every control, escape and bidi character escaped, and keeps the rest as it is', () => {
		for (const character of controls) expect(terminalText(`a${character}b`)).not.toMatch(raw);
		expect(terminalText('\u001B]52;c;aGk=\u0007')).toBe('\\x1b]52;c;aGk=\\x07');
		expect(terminalText('\u001B]0;pwned\u001B\\')).toBe('\\x1b]0;pwned\\x1b\\');
		expect(terminalText('\u001B[2J\u001B[6n')).toBe('\\x1b[2J\\x1b[6n');
		expect(terminalText('\u009B31m\u007F')).toBe('\\u009b31m\\u007f');
		expect(terminalText('abc\u202Edcba\u2066x\u2069')).toBe('abc\\u202edcba\\u2066x\\u2069');
		expect(terminalText('tab\there\nline')).toBe('tab\\x09here\\x0aline');
		expect(terminalText('héllo ✓ 日本 🚀 \\x1b')).toBe('héllo ✓ 日本 🚀 \\x1b');
	});

	it('shows invisible characters escaped: zero-width, word joiners, the BOM, the soft hyphen and Unicode tags', () => {
		// An upstream can hide text (tag characters smuggle ASCII) or make two names look the same.
		expect(terminalText('read\u200Bfile\u200C\u2060\uFEFF\u00AD\u180E')).toBe('read\\u200bfile\\u200c\\u2060\\ufeff\\u00ad\\u180e');
		expect(terminalText('a\u{E0041}\u{E007F}b\uFFF9')).toBe('a\\udb40\\udc41\\udb40\\udc7fb\\ufff9');
		expect(terminalText('x\u200Dy')).toBe('x\\u200dy');
		// An emoji's joiner stays, or the emoji would fall apart.
		expect(terminalText('👩\u200D💻 👨\uFE0F\u200D👩')).toBe('👩\u200D💻 👨\uFE0F\u200D👩');
		const value = {name: 'a\u200Bb\u{E0041}c\uFEFF'};
		const json = terminalJson(value);
		expect(json).toBe(String.raw`{"name":"a\u200bb\udb40\udc41c\ufeff"}`);
		expect(JSON.parse(json)).toEqual(value);
		expect(terminalText(terminalText('\u{E0041}\u200B'))).toBe(terminalText('\u{E0041}\u200B'));
	});

	it('shows every other character Unicode says draws nothing escaped: variation selectors, which can smuggle bytes, and the other ignorables', () => {
		// 256 variation selectors after one letter encode any bytes an agent reads and a person never sees.
		expect(terminalText('x\u{E0100}\u{E0131}\u{E01EF}y')).toBe(String.raw`x\udb40\udd00\udb40\udd31\udb40\uddefy`);
		expect(terminalText('a\uFE00b\uFE0Dc\uFE0Fd\uFE0Ee')).toBe(String.raw`a\ufe00b\ufe0dc\ufe0fd\ufe0ee`);
		// The combining grapheme joiner, Khmer's inherent vowels, Mongolian's free variation selectors.
		expect(terminalText('a\u034Fb\u17B4c\u17B5d\u180Be\u180Ff')).toBe(String.raw`a\u034fb\u17b4c\u17b5d\u180be\u180ff`);
		const value = {name: 'x\u{E0100}\uFE01'};
		expect(terminalJson(value)).toBe(String.raw`{"name":"x\udb40\udd00\ufe01"}`);
		expect(JSON.parse(terminalJson(value))).toEqual(value);
	});

	it('keeps the one presentation selector that makes a character an emoji or text, and a keycap', () => {
		expect(terminalText('❤\uFE0F ☺\uFE0E ©\uFE0F 1\uFE0F\u20E3 #\uFE0F\u20E3')).toBe('❤\uFE0F ☺\uFE0E ©\uFE0F 1\uFE0F\u20E3 #\uFE0F\u20E3');
		// A second one carries nothing a person sees.
		expect(terminalText('❤\uFE0F\uFE0F')).toBe(String.raw`❤` + '\uFE0F' + String.raw`\ufe0f`);
		expect(terminalText('1\uFE0F')).toBe(String.raw`1\ufe0f`);
	});

	it('keeps newlines, CRLF and tabs for a surface that prints whole lines, but not a lone carriage return', () => {
		expect(terminalText('one\tcell\r\ntwo\n', 'lines')).toBe('one\tcell\r\ntwo\n');
		expect(terminalText('safe\rforged', 'lines')).toBe('safe\\x0dforged');
		expect(terminalText('\u001B[1m\n\u009B', 'lines')).toBe('\\x1b[1m' + '\n' + '\\u009b');
	});

	it('changes nothing the second time, so a caller and its sink can both apply it', () => {
		const once = terminalText('\u001B]52;c;x\u0007\u009B\u202E\r\n');
		expect(terminalText(once)).toBe(once);
		expect(terminalText(once, 'lines')).toBe(once);
	});

	it('--json escapes C1 and bidi controls as JSON escapes C0, and parses back to the same value', () => {
		const value = {name: 'a\u001B[2Jb\u009B6n\u202Ec\u2066d\u007F', list: ['\u0085', 'ok']};
		const json = terminalJson(value, 2);
		// Its only raw control is the indentation's newline.
		expect(json.replaceAll('\n', '')).not.toMatch(raw);
		expect(json).toContain('\\u001b[2J');
		expect(json).toContain('\\u009b6n');
		expect(json).toContain('\\u202ec\\u2066d\\u007f');
		expect(JSON.parse(json)).toEqual(value);
	});
});
