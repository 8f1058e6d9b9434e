import {describe, expect, it} from 'vitest';
import {JsonTextError, detectIndent, parseJson, setJsonValue} from '../../../source/client-files/json-text.js';

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

	describe('comments next to an edited entry', () => {
		const jsonc = {jsonc: true};

		it('keeps the kept entry\'s end-of-line comment when the last entry goes', () => {
			expect(setJsonValue('{\n  "a": 1, // one\n  "b": 2\n}\n', ['b'], undefined, jsonc)).toBe('{\n  "a": 1 // one\n}\n');
		});

		it('takes a removed entry\'s own end-of-line comment with it', () => {
			expect(setJsonValue('{\n  "a": 1, // one\n  "b": 2 // two\n}\n', ['a'], undefined, jsonc)).toBe('{\n  "b": 2 // two\n}\n');
		});

		it('keeps a comment line above a removed entry or its neighbour', () => {
			const text = '{\n  // servers\n  "a": 1,\n  // about b\n  "b": 2\n}\n';
			expect(setJsonValue(text, ['a'], undefined, jsonc)).toBe('{\n  // servers\n  // about b\n  "b": 2\n}\n');
			expect(setJsonValue(text, ['b'], undefined, jsonc)).toBe('{\n  // servers\n  "a": 1\n  // about b\n}\n');
		});

		it('adds after the last entry\'s end-of-line comment, which stays with that entry', () => {
			expect(setJsonValue('{\n  "a": 1 // one\n}\n', ['b'], 2, jsonc)).toBe('{\n  "a": 1, // one\n  "b": 2\n}\n');
			expect(setJsonValue('{\n  "a": 1, /* one */\n}\n', ['b'], 2, jsonc)).toBe('{\n  "a": 1, /* one */\n  "b": 2,\n}\n');
		});

		it('keeps a comment inside an empty object it adds to', () => {
			expect(setJsonValue('{\n  "servers": {\n    // none yet\n  }\n}\n', ['servers', 'x'], {command: 'y'}, jsonc)).toBe(
				'{\n  "servers": {\n    // none yet\n    "x": {\n      "command": "y"\n    }\n  }\n}\n',
			);
		});

		it('removes the last entry with its trailing comma and leaves the others\' trailing comma', () => {
			expect(setJsonValue('{\n  "a": 1,\n  "b": 2,\n}\n', ['b'], undefined, jsonc)).toBe('{\n  "a": 1,\n}\n');
		});

		it('leaves comments outside a replaced value alone', () => {
			const text = '{\n  // editor\n  "editor.tabSize": 2, // mine\n  "mcp": {"servers": {"a": {"command": "x"}}} // servers\n}\n';
			expect(setJsonValue(text, ['mcp', 'servers'], {}, jsonc)).toBe('{\n  // editor\n  "editor.tabSize": 2, // mine\n  "mcp": {"servers": {}} // servers\n}\n');
		});

		it('is not fooled by commas and comment marks inside strings', () => {
			expect(setJsonValue('{"a": "x, // y", "b": 1}', ['a'], undefined)).toBe('{"b": 1}');
			expect(setJsonValue('{"a": 1, "b": "/* , */"}', ['b'], undefined)).toBe('{"a": 1}');
		});
	});

	it('reads a file that starts with a byte order mark, and keeps the mark when editing', () => {
		expect(parseJson('\uFEFF{"a": 1}')).toEqual({a: 1});
		expect(setJsonValue('\uFEFF{"a": 1}', ['b'], 2)).toBe('\uFEFF{"a": 1, "b": 2}');
	});

	it('reports where a file is broken, by line and column', () => {
		expect(() => parseJson('{\n  "a": 1\n  "b": 2\n}')).toThrow('expected "," between two entries, found "\\"" at line 3, column 3');
		expect(() => parseJson('{"a": tru}')).toThrow('unexpected character, found "t" at line 1, column 7');
		expect(() => parseJson('{"a": 1} x')).toThrow('unexpected character, found "x" at line 1, column 10');
	});

	it('reads "__proto__" as an ordinary key', () => {
		const value = parseJson('{"__proto__": {"polluted": true}}') as Record<string, unknown>;
		expect(Object.keys(value)).toEqual(['__proto__']);
		expect(({} as Record<string, unknown>)['polluted']).toBeUndefined();
	});

	it('keeps CRLF line ends in what it adds and removes', () => {
		const crlf = '{\r\n  "mcpServers": {\r\n    "a": {"command": "x"}\r\n  }\r\n}\r\n';
		const added = setJsonValue(crlf, ['mcpServers', 'b'], {command: 'y'});
		expect(added).toBe('{\r\n  "mcpServers": {\r\n    "a": {"command": "x"},\r\n    "b": {\r\n      "command": "y"\r\n    }\r\n  }\r\n}\r\n');
		expect(setJsonValue(added, ['mcpServers', 'b'], undefined)).toBe(crlf);
	});

	it('detects tabs, two or four spaces', () => {
		expect(detectIndent('{\n\t"a": 1\n}')).toBe('\t');
		expect(detectIndent('{\n    "a": 1\n}')).toBe('    ');
		expect(detectIndent('{"a": 1}')).toBe('  ');
	});
});
