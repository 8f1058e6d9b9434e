import {describe, expect, it} from 'vitest';
import {TomlError, parseToml, tomlLayout} from '../../../source/client-files/toml.js';

describe('TOML reading', () => {
	it('reads what Codex and people write: tables, dotted and quoted keys, every string form, numbers, arrays, inline tables', () => {
		const text = 
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
			].join('\n');
		expect(parseToml(text)).toEqual({
			model: 'gpt-5',
			count: 1000,
			hex: 255,
			ratio: 0.25,
			when: '1979-05-27T07:32:00.000Z',
			on: true,
			a: {'b.c': {d: {literal: String.raw`C:\path\no\escapes`, basic: 'tab\tquote" é', multi: 'one two', raw: String.raw`x\y`, list: [1, 2], inline: {k: 'v', nested: {deep: 1}}, dotted: {key: 'yes'}}}},
			items: [{n: 1}, {n: 2}],
		});
		expect(tomlLayout(text).sections.map(section => section.path)).toEqual([['a', 'b.c', 'd'], ['items'], ['items']]);
	});

	it('refuses what TOML forbids, with the line', () => {
		expect(() => parseToml('a = 1\na = 2')).toThrow(new TomlError(2, 1, 'trying to redefine an already defined table or value'));
		expect(() => parseToml('[t]\nx = 1\n[t]\ny = 2')).toThrow('trying to redefine an already defined table or value at line 3');
		expect(() => parseToml('a = bare')).toThrow('invalid value at line 1, column 5');
		expect(() => parseToml('a = "open')).toThrow('unfinished string');
		expect(() => parseToml('a = 1 b = 2')).toThrow('each key-value declaration must be followed by an end-of-line');
		expect(() => parseToml('t = {a = 1}\n[t]\nb = 2')).toThrow('trying to redefine an already defined table or value at line 2');
	});

	it('reads a date as its ISO text and an integer too large for a number as the nearest one, so the rest of the file still imports', () => {
		expect(parseToml('d = 1979-05-27\nbig = 99999999999999999999')).toEqual({d: '1979-05-27', big: 1e20});
	});

	it('keeps a "__proto__" key as an ordinary key', () => {
		const value = parseToml('[__proto__]\npolluted = true');
		expect(Object.keys(value)).toEqual(['__proto__']);
		expect(({} as Record<string, unknown>)['polluted']).toBeUndefined();
	});

	describe('where tables and root keys sit in the text', () => {
		it('takes a line that looks like a header inside a multi-line string or array for what it is', () => {
			const text = ['note = """', '[not.a.table]', '"""', "raw = '''", '[[nor.this]]', "'''", 'list = [', '  ["x"]', ']', '[real]', 'k = 1', ''].join('\n');
			const layout = tomlLayout(text);
			expect(layout.sections).toEqual([{path: ['real'], arrayItem: false, start: text.indexOf('[real]'), end: text.length}]);
			expect(layout.entries.map(entry => [entry.key, text.slice(entry.start, entry.end)])).toEqual([
				[['note'], 'note = """\n[not.a.table]\n"""\n'],
				[['raw'], "raw = '''\n[[nor.this]]\n'''\n"],
				[['list'], 'list = [\n  ["x"]\n]\n'],
			]);
		});

		it('reads quoted and dotted keys of headers and root keys, and headers with comments after them', () => {
			const text = 'mcp_servers.a.command = "x" # root\n# about b\n\n[ mcp_servers . "b.c" ] # b\nurl = "u"\n[[ \'arr\' ]]\n';
			const layout = tomlLayout(text);
			expect(layout.entries).toEqual([{key: ['mcp_servers', 'a', 'command'], start: 0, end: text.indexOf('# about b')}]);
			expect(layout.sections.map(section => [section.path, section.arrayItem])).toEqual([
				[['mcp_servers', 'b.c'], false],
				[['arr'], true],
			]);
		});

		it('refuses a text that is not TOML', () => {
			expect(() => tomlLayout('[a')).toThrow(TomlError);
		});
	});
});
