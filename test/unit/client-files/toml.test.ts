import {describe, expect, it} from 'vitest';
import {TomlError, parseToml} from '../../../source/client-files/toml.js';

describe('TOML reading', () => {
	it('reads what Codex and people write: tables, dotted and quoted keys, every string form, numbers, arrays, inline tables', () => {
		const document = parseToml(
			[
				'# top',
				'model = "gpt-5" # trailing comment',
				'count = 1_000',
				'hex = 0xff',
				'ratio = 2.5e-1',
				'when = 1979-05-27T07:32:00Z',
				'on = true',
				'',
				'[a."b.c".d]',
				"literal = 'C:\\path\\no\\escapes'",
				'basic = "tab\\tquote\\" \\u00e9"',
				'multi = """',
				'one \\',
				'   two"""',
				"raw = '''",
				"x\\y'''",
				'list = [',
				'  1, # one',
				'  2,',
				']',
				'inline = { k = "v", nested.deep = 1 }',
				'dotted.key = "yes"',
				'',
				'[[items]]',
				'n = 1',
				'[[items]]',
				'n = 2',
			].join('\n'),
		);
		expect(document.value).toEqual({
			model: 'gpt-5',
			count: 1000,
			hex: 255,
			ratio: 0.25,
			when: '1979-05-27T07:32:00Z',
			on: true,
			a: {'b.c': {d: {literal: String.raw`C:\path\no\escapes`, basic: 'tab\tquote" é', multi: 'one two', raw: String.raw`x\y`, list: [1, 2], inline: {k: 'v', nested: {deep: 1}}, dotted: {key: 'yes'}}}},
			items: [{n: 1}, {n: 2}],
		});
		expect(document.sections.map(section => section.path.join('.'))).toEqual(['a.b.c.d', 'items', 'items']);
	});

	it('refuses what TOML forbids, with the line', () => {
		expect(() => parseToml('a = 1\na = 2')).toThrow(new TomlError(2, 1, 'duplicate key "a"'));
		expect(() => parseToml('[t]\nx = 1\n[t]\ny = 2')).toThrow('table [t] is defined twice at line 3');
		expect(() => parseToml('a = bare')).toThrow('invalid value "bare" (strings need quotes) at line 1');
		expect(() => parseToml('a = "open')).toThrow('unterminated string');
		expect(() => parseToml('a = 1 b = 2')).toThrow('expected the end of the line');
		expect(() => parseToml('t = {a = 1}\n[t]\nb = 2')).toThrow('already defined as a value');
	});
});
