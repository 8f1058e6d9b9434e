/**
 * A TOML reader for Codex's ~/.codex/config.toml, the one client config that
 * is not JSON. It covers TOML 1.0 as config files use it: tables and arrays
 * of tables, dotted and quoted keys, every string form, integers (with
 * underscores, hex, octal, binary), floats, booleans, arrays and inline
 * tables. Dates and times are kept as their text (nothing hangar imports is
 * a date). Besides the values it returns where each table and each key/value
 * line sits, so a setup can cut the `[mcp_servers.*]` tables out of the text
 * and leave the rest of the file as the person wrote it.
 */

export type TomlTable = {[key: string]: TomlValue};
export type TomlValue = string | number | boolean | TomlValue[] | TomlTable;

/** A `[table]` or `[[array.table]]` header and the text it governs: from its line to the next header's line. */
export type TomlSection = {path: string[]; arrayItem: boolean; start: number; end: number};
/** A `key = value` line: the table it is in, its own (dotted) key, and its text span. */
export type TomlEntry = {table: string[]; key: string[]; start: number; end: number};

export type TomlDocument = {value: TomlTable; sections: TomlSection[]; entries: TomlEntry[]};

export class TomlError extends Error {
	constructor(
		readonly line: number,
		readonly column: number,
		problem: string,
	) {
		super(`${problem} at line ${line}, column ${column}`);
		this.name = 'TomlError';
	}
}

const bareKey = /^[A-Za-z0-9_-]+/;
const dateTime = /^\d{4}-\d{2}-\d{2}(?:[Tt ]\d{2}:\d{2}(?::\d{2}(?:\.\d+)?)?(?:[Zz]|[+-]\d{2}:\d{2})?)?|^\d{2}:\d{2}(?::\d{2}(?:\.\d+)?)?/;
const escapes: Record<string, string> = {b: '\b', t: '\t', n: '\n', f: '\f', r: '\r', e: '\u001B', '"': '"', '\\': '\\'};

const newTable = (): TomlTable => Object.create(null) as TomlTable;
const isTable = (value: TomlValue | undefined): value is TomlTable => typeof value === 'object' && value !== null && !Array.isArray(value);

export function parseToml(text: string): TomlDocument {
	let at = text.startsWith('\uFEFF') ? 1 : 0;
	const root = newTable();
	const sections: TomlSection[] = [];
	const entries: TomlEntry[] = [];
	// Tables closed to further definition: inline tables and those defined by a header (a second header is an error).
	const sealed = new WeakSet<TomlTable>();
	const headed = new WeakSet<TomlTable>();

	const fail = (problem: string, offset = at): never => {
		const before = text.slice(0, offset);
		throw new TomlError(before.split('\n').length, offset - before.lastIndexOf('\n'), problem);
	};

	const skipSpaces = () => {
		while (text[at] === ' ' || text[at] === '\t') at++;
	};

	const skipComment = () => {
		if (text[at] === '#') {
			while (at < text.length && text[at] !== '\n') at++;
		}
	};

	/** After a value or header: only spaces and a comment until the end of the line. */
	const endOfLine = () => {
		skipSpaces();
		skipComment();
		if (text[at] === '\r') at++;
		if (at < text.length && text[at] !== '\n') fail(`expected the end of the line, found ${JSON.stringify(text[at])}`);
		if (text[at] === '\n') at++;
	};

	/** Whitespace, newlines and comments, as allowed inside arrays. */
	const skipAll = () => {
		for (;;) {
			skipSpaces();
			skipComment();
			if (text[at] === '\n' || text[at] === '\r') at++;
			else return;
		}
	};

	const basicString = (): string => {
		at++;
		let out = '';
		for (;;) {
			const char = text[at];
			if (char === undefined || char === '\n') fail('unterminated string');
			at++;
			if (char === '"') return out;
			if (char === '\\') out += escape();
			else out += char;
		}
	};

	const escape = (): string => {
		const code = text[at];
		if (code !== undefined && code in escapes) {
			at++;
			return escapes[code]!;
		}

		if (code === 'u' || code === 'U') {
			const length = code === 'u' ? 4 : 8;
			const hex = text.slice(at + 1, at + 1 + length);
			if (!new RegExp(`^[0-9A-Fa-f]{${length}}$`).test(hex)) fail(`invalid \\${code} escape`);
			at += 1 + length;
			return String.fromCodePoint(Number.parseInt(hex, 16));
		}

		return fail(`invalid escape "\\${code ?? ''}"`);
	};

	const multilineBasic = (): string => {
		at += 3;
		if (text[at] === '\r') at++;
		if (text[at] === '\n') at++;
		let out = '';
		for (;;) {
			if (at >= text.length) fail('unterminated """ string');
			if (text.startsWith('"""', at)) {
				// Up to two quotes may sit right before the closing three.
				let quotes = 3;
				while (text[at + quotes] === '"' && quotes < 5) quotes++;
				out += '"'.repeat(quotes - 3);
				at += quotes;
				return out;
			}

			const char = text[at]!;
			if (char === '\\') {
				// A backslash at the end of a line trims the newline and the whitespace after it.
				const trim = /^\\[ \t]*\r?\n[\s]*/.exec(text.slice(at));
				if (trim !== null) {
					at += trim[0].length;
					continue;
				}

				at++;
				out += escape();
				continue;
			}

			out += char;
			at++;
		}
	};

	const literalString = (): string => {
		const end = text.indexOf("'", at + 1);
		const newline = text.indexOf('\n', at + 1);
		if (end === -1 || (newline !== -1 && newline < end)) fail('unterminated literal string');
		const out = text.slice(at + 1, end);
		at = end + 1;
		return out;
	};

	const multilineLiteral = (): string => {
		at += 3;
		if (text[at] === '\r') at++;
		if (text[at] === '\n') at++;
		const end = text.indexOf("'''", at);
		if (end === -1) fail("unterminated ''' string");
		let close = end + 3;
		while (text[close] === "'" && close < end + 5) close++;
		const out = text.slice(at, close - 3);
		at = close;
		return out;
	};

	const key = (): string[] => {
		const parts: string[] = [];
		for (;;) {
			skipSpaces();
			if (text[at] === '"') {
				parts.push(basicString());
			} else if (text[at] === "'") {
				parts.push(literalString());
			} else {
				const match = bareKey.exec(text.slice(at, at + 256));
				if (match === null) fail(`expected a key, found ${at >= text.length ? 'the end of the file' : JSON.stringify(text[at])}`);
				parts.push(match![0]);
				at += match![0].length;
			}

			skipSpaces();
			if (text[at] !== '.') return parts;
			at++;
		}
	};

	const value = (): TomlValue => {
		const char = text[at];
		if (text.startsWith('"""', at)) return multilineBasic();
		if (char === '"') return basicString();
		if (text.startsWith("'''", at)) return multilineLiteral();
		if (char === "'") return literalString();
		if (char === '[') {
			at++;
			const items: TomlValue[] = [];
			skipAll();
			while (text[at] !== ']') {
				if (at >= text.length) fail('unterminated array');
				items.push(value());
				skipAll();
				if (text[at] === ',') {
					at++;
					skipAll();
				} else if (text[at] !== ']') {
					fail(`expected "," or "]" in the array, found ${JSON.stringify(text[at] ?? '')}`);
				}
			}

			at++;
			return items;
		}

		if (char === '{') {
			at++;
			const table = newTable();
			skipAll();
			while (text[at] !== '}') {
				if (at >= text.length) fail('unterminated inline table');
				keyValue(table, []);
				skipAll();
				if (text[at] === ',') {
					at++;
					skipAll();
				} else if (text[at] !== '}') {
					fail(`expected "," or "}" in the inline table, found ${JSON.stringify(text[at] ?? '')}`);
				}
			}

			at++;
			sealed.add(table);
			return table;
		}

		const rest = text.slice(at, at + 128);
		const date = dateTime.exec(rest);
		if (date !== null) {
			at += date[0].length;
			return date[0];
		}

		const word = /^[+-]?(?:inf|nan)|^true|^false|^[+-]?[0-9A-Za-z_.+-]+/.exec(rest);
		if (word === null) return fail(`expected a value, found ${at >= text.length ? 'the end of the line' : JSON.stringify(char)}`);
		at += word[0].length;
		return scalar(word[0], at - word[0].length);
	};

	const scalar = (word: string, start: number): TomlValue => {
		if (word === 'true') return true;
		if (word === 'false') return false;
		if (/^[+-]?inf$/.test(word)) return word.startsWith('-') ? Number.NEGATIVE_INFINITY : Number.POSITIVE_INFINITY;
		if (/^[+-]?nan$/.test(word)) return Number.NaN;
		const digits = (pattern: string) => new RegExp(`^${pattern}(?:_?${pattern})*$`);
		const prefixed = /^0([xob])(.+)$/.exec(word);
		if (prefixed !== null) {
			const [radix, pattern] = prefixed[1] === 'x' ? [16, '[0-9A-Fa-f]'] : prefixed[1] === 'o' ? [8, '[0-7]'] : [2, '[01]'];
			if (!digits(pattern).test(prefixed[2]!)) fail(`invalid number "${word}"`, start);
			return Number.parseInt(prefixed[2]!.replaceAll('_', ''), radix);
		}

		const decimal = /^[+-]?(?:0|[1-9](?:_?\d)*)(?:\.\d(?:_?\d)*)?(?:[eE][+-]?\d(?:_?\d)*)?$/;
		if (!decimal.test(word)) fail(`invalid value "${word}" (strings need quotes)`, start);
		return Number(word.replaceAll('_', ''));
	};

	/** Descends `path` from `table`, creating tables; `what` words the error when a step is a value. */
	const descend = (table: TomlTable, path: readonly string[], start: number, implicitOk: boolean): TomlTable => {
		let current = table;
		for (const part of path) {
			let next = current[part];
			if (next === undefined) {
				next = newTable();
				current[part] = next;
			} else if (Array.isArray(next) && implicitOk && next.length > 0 && isTable(next.at(-1))) {
				next = next.at(-1)!;
			}

			if (!isTable(next) || sealed.has(next)) fail(`key "${path.join('.')}" is already defined as a value`, start);
			current = next as TomlTable;
		}

		return current;
	};

	const keyValue = (table: TomlTable, tablePath: string[]) => {
		const start = at;
		const path = key();
		if (text[at] !== '=') fail(`expected "=" after the key "${path.join('.')}"`);
		at++;
		skipSpaces();
		const parent = descend(table, path.slice(0, -1), start, false);
		const last = path.at(-1)!;
		if (last in parent) fail(`duplicate key "${path.join('.')}"`, start);
		parent[last] = value();
		entries.push({table: tablePath, key: path, start, end: at});
	};

	let current = root;
	let currentPath: string[] = [];
	let section: TomlSection | undefined;
	while (at < text.length) {
		skipSpaces();
		const lineStart = text.lastIndexOf('\n', at - 1) + 1;
		const char = text[at];
		if (char === '\n' || char === '\r' || char === '#' || char === undefined) {
			endOfLine();
			continue;
		}

		if (char === '[') {
			const arrayItem = text[at + 1] === '[';
			at += arrayItem ? 2 : 1;
			const path = key();
			if (!text.startsWith(arrayItem ? ']]' : ']', at)) fail(`expected "${arrayItem ? ']]' : ']'}" after the table name`);
			at += arrayItem ? 2 : 1;
			endOfLine();
			if (section !== undefined) section.end = lineStart;
			section = {path, arrayItem, start: lineStart, end: text.length};
			sections.push(section);
			if (arrayItem) {
				const parent = descend(root, path.slice(0, -1), lineStart, true);
				const name = path.at(-1)!;
				const list = parent[name] ?? [];
				if (!Array.isArray(list)) fail(`"${path.join('.')}" is already a table, not an array of tables`, lineStart);
				current = newTable();
				(list as TomlValue[]).push(current);
				parent[name] = list;
			} else {
				current = descend(root, path, lineStart, true);
				if (headed.has(current)) fail(`table [${path.join('.')}] is defined twice`, lineStart);
				headed.add(current);
			}

			currentPath = path;
			continue;
		}

		keyValue(current, currentPath);
		endOfLine();
	}

	return {value: root, sections, entries};
}

/** A string as a TOML basic string. */
export function tomlString(value: string): string {
	return JSON.stringify(value).replaceAll('\u007F', '\\u007F');
}

/** A key as TOML writes it: bare when it can be, quoted otherwise. */
export function tomlKey(name: string): string {
	return /^[A-Za-z0-9_-]+$/.test(name) ? name : tomlString(name);
}
