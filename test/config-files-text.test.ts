import {describe, expect, it} from 'vitest';
import {JsonTextError, detectIndent, parseJson, setJsonValue} from '../source/config-files/json-text.js';
import {TomlError, parseToml} from '../source/config-files/toml.js';
import {rewriteCodexConfig} from '../source/config-files/clients/codex.js';

describe('JSON text editing', () => {
	const file = '{\n\t"hangar": {"lazy": false},\n\t"mcpServers": {\n\t\t"a": {"command": "x", "args": ["1", "2"]},\n\t\t"b": {"url": "https://b.example/mcp"}\n\t}\n}\n';

	it('adds a key after the last one, in the file\'s own indentation, leaving every other byte alone', () => {
		const out = setJsonValue(file, ['mcpServers', 'c'], {command: 'y'});
		expect(out).toBe('{\n\t"hangar": {"lazy": false},\n\t"mcpServers": {\n\t\t"a": {"command": "x", "args": ["1", "2"]},\n\t\t"b": {"url": "https://b.example/mcp"},\n\t\t"c": {\n\t\t\t"command": "y"\n\t\t}\n\t}\n}\n');
		expect(parseJson(out)).toEqual({hangar: {lazy: false}, mcpServers: {a: {command: 'x', args: ['1', '2']}, b: {url: 'https://b.example/mcp'}, c: {command: 'y'}}});
	});

	it('removes a first, middle or last key with its comma and line', () => {
		expect(setJsonValue(file, ['mcpServers', 'a'], undefined)).toBe('{\n\t"hangar": {"lazy": false},\n\t"mcpServers": {\n\t\t"b": {"url": "https://b.example/mcp"}\n\t}\n}\n');
		expect(setJsonValue(file, ['mcpServers', 'b'], undefined)).toBe('{\n\t"hangar": {"lazy": false},\n\t"mcpServers": {\n\t\t"a": {"command": "x", "args": ["1", "2"]}\n\t}\n}\n');
		expect(setJsonValue('{"a": 1, "b": 2, "c": 3}', ['b'], undefined)).toBe('{"a": 1, "c": 3}');
		expect(setJsonValue('{"only": {"x": 1}}', ['only', 'x'], undefined)).toBe('{"only": {}}');
		expect(setJsonValue(file, ['mcpServers', 'missing'], undefined)).toBe(file);
	});

	it('replaces a value in place and creates missing parents', () => {
		expect(setJsonValue('{"a": {"b": 1}, "z": true}', ['a', 'b'], [1, 2])).toBe('{"a": {"b": [\n  1,\n  2\n]}, "z": true}');
		expect(setJsonValue('{}\n', ['mcp', 'servers', 'hangar'], {command: 'n'})).toBe('{\n  "mcp": {\n    "servers": {\n      "hangar": {\n        "command": "n"\n      }\n    }\n  }\n}\n');
		expect(setJsonValue('{"x": 1}', ['y'], 2)).toBe('{"x": 1, "y": 2}');
	});

	it('keeps comments and trailing commas of JSONC files', () => {
		const jsonc = '// servers\n{\n  "a": 1, // one\n  /* two */ "b": 2,\n}\n';
		expect(parseJson(jsonc, {jsonc: true})).toEqual({a: 1, b: 2});
		expect(setJsonValue(jsonc, ['c'], 3, {jsonc: true})).toBe('// servers\n{\n  "a": 1, // one\n  /* two */ "b": 2,\n  "c": 3,\n}\n');
		expect(() => parseJson(jsonc)).toThrow(JsonTextError);
	});

	it('reports where a file is broken, by line and column', () => {
		expect(() => parseJson('{\n  "a": 1\n  "b": 2\n}')).toThrow('expected "," or "}" after the value of "a", found "\\"" at line 3, column 3');
		expect(() => parseJson('{"a": tru}')).toThrow('expected a value, found "t" at line 1, column 7');
		expect(() => parseJson('{"a": 1} x')).toThrow('unexpected "x" after the end of the JSON value');
	});

	it('reads "__proto__" as an ordinary key', () => {
		const value = parseJson('{"__proto__": {"polluted": true}}') as Record<string, unknown>;
		expect(Object.keys(value)).toEqual(['__proto__']);
		expect(({} as Record<string, unknown>)['polluted']).toBeUndefined();
	});

	it('detects tabs, two or four spaces', () => {
		expect(detectIndent('{\n\t"a": 1\n}')).toBe('\t');
		expect(detectIndent('{\n    "a": 1\n}')).toBe('    ');
		expect(detectIndent('{"a": 1}')).toBe('  ');
	});
});

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

describe('Codex setup rewrite', () => {
	const launch = {command: '/usr/bin/node', args: ['/opt/hangar/dist/cli.js', '--stdio', '--config', '/home/me/hangar config.json']};

	it('cuts every [mcp_servers…] table, keeps other tables and the comments above them, and appends one hangar table', () => {
		const before = [
			'model = "o3"',
			'',
			'[mcp_servers.a]',
			'command = "npx"',
			'',
			'[mcp_servers.a.env]',
			'K = "v"',
			'',
			'# about the UI',
			'[tui]',
			'notifications = true',
			'',
			'[mcp_servers."b.c"]',
			'url = "https://x.example/mcp"',
			'',
		].join('\n');
		const after = rewriteCodexConfig(before, launch);
		expect(after).toBe(
			[
				'model = "o3"',
				'',
				'# about the UI',
				'[tui]',
				'notifications = true',
				'',
				'[mcp_servers.hangar]',
				'command = "/usr/bin/node"',
				'args = ["/opt/hangar/dist/cli.js", "--stdio", "--config", "/home/me/hangar config.json"]',
				'',
			].join('\n'),
		);
		expect(parseToml(after).value['mcp_servers']).toEqual({hangar: {command: launch.command, args: launch.args}});
	});

	it('writes a file that had none', () => {
		expect(rewriteCodexConfig('', launch)).toBe(`[mcp_servers.hangar]\ncommand = "/usr/bin/node"\nargs = ["/opt/hangar/dist/cli.js", "--stdio", "--config", "/home/me/hangar config.json"]\n`);
	});
});
