/**
 * Codex's ~/.codex/config.toml, the one client config that is not JSON.
 * `smol-toml` (TOML 1.0) reads it. Dates become their ISO text and integers
 * too large for a JavaScript number become the nearest number: nothing
 * hangar imports is either, and a file with them elsewhere still imports.
 *
 * `setup` rewrites the file without the person's `[mcp_servers.*]` tables.
 * A TOML library writes a document from values and loses every comment and
 * the layout (smol-toml's `stringify` does), so the rewrite cuts text
 * instead: `tomlLayout` finds where each table header and each root-level
 * key starts. A line that looks like a header (`[x]`) can also be the inside
 * of a multi-line string or array; it is taken as a header only when the
 * text before it is a whole TOML document by itself, which smol-toml
 * decides. So the parsing is the library's, and what is here only finds
 * line starts.
 */
import {parse, TomlDate, TomlError as LibraryTomlError} from 'smol-toml';

export type TomlTable = {[key: string]: TomlValue};
export type TomlValue = string | number | boolean | TomlValue[] | TomlTable;

/** A `[table]` or `[[array.table]]` header and the text it governs: from its line to the next header's line. */
export type TomlSection = {path: string[]; arrayItem: boolean; start: number; end: number};
/** A root-level `key = value` statement (before the first header): its (dotted) key and its text span, whole lines. */
export type TomlEntry = {key: string[]; start: number; end: number};

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

function plain(value: unknown): TomlValue {
	if (value instanceof TomlDate) return value.toISOString();
	if (typeof value === 'bigint') return Number(value);
	if (Array.isArray(value)) return value.map(item => plain(item));
	if (typeof value === 'object' && value !== null) {
		// smol-toml's tables have no prototype, so a "__proto__" key stays an ordinary key; so do these.
		const out = Object.create(null) as TomlTable;
		for (const [key, item] of Object.entries(value)) out[key] = plain(item);
		return out;
	}

	return value as TomlValue;
}

/** The document's values. Throws TomlError with the line and column of the first problem. */
export function parseToml(text: string): TomlTable {
	try {
		return plain(parse(text, {integersAsBigInt: 'asNeeded'})) as TomlTable;
	} catch (error) {
		if (!(error instanceof LibraryTomlError)) throw error;
		// smol-toml's message is "Invalid TOML document: <problem>" and a code excerpt; the problem and the place are enough.
		const problem = error.message.split('\n')[0]!.replace(/^Invalid TOML document: /, '');
		throw new TomlError(error.line, error.column, problem);
	}
}

function isDocument(text: string): boolean {
	try {
		parse(text, {integersAsBigInt: 'asNeeded'});
		return true;
	} catch {
		return false;
	}
}

/** The parts of a dotted key or a header's key: bare, "basic" or 'literal'. Undefined when it is not one. */
function keyParts(key: string): string[] | undefined {
	try {
		// The key is read by the library, as the key of a one-line document.
		const value = parse(`${key} = 0`) as Record<string, unknown>;
		const parts: string[] = [];
		let table: unknown = value;
		for (;;) {
			const entries = Object.entries(table as Record<string, unknown>);
			if (entries.length !== 1) return undefined;
			parts.push(entries[0]![0]);
			table = entries[0]![1];
			if (table === 0) return parts;
		}
	} catch {
		return undefined;
	}
}

/**
 * Where the tables and the root-level keys of a valid document start and
 * end, in the text. Throws TomlError when the text is not valid TOML.
 */
export function tomlLayout(text: string): {sections: TomlSection[]; entries: TomlEntry[]} {
	parseToml(text);
	const lineStarts = [0];
	for (let at = text.indexOf('\n'); at !== -1; at = text.indexOf('\n', at + 1)) if (at + 1 < text.length) lineStarts.push(at + 1);
	const lineAt = (start: number) => text.slice(start, (text.indexOf('\n', start) + 1 || text.length + 1) - 1).replace(/\r$/, '');

	const headers: Array<{start: number; path: string[]; arrayItem: boolean}> = [];
	for (const start of lineStarts) {
		const header = /^[ \t]*(\[\[?)(.*?)(\]\]?)[ \t]*(?:#.*)?$/.exec(lineAt(start));
		if (header === null) continue;
		const arrayItem = header[1] === '[[';
		if (arrayItem !== (header[3] === ']]')) continue;
		const path = keyParts(header[2]!.trim());
		if (path !== undefined && isDocument(text.slice(0, start))) headers.push({start, path, arrayItem});
	}

	const sections = headers.map((header, index) => ({...header, end: headers[index + 1]?.start ?? text.length}));

	// Root-level statements: every line before the first header that starts one (the text before it is a document).
	const rootEnd = headers[0]?.start ?? text.length;
	const statementStarts = lineStarts.filter(start => start < rootEnd && /^[ \t]*[^\s#]/.test(lineAt(start)) && isDocument(text.slice(0, start)));
	const entries: TomlEntry[] = [];
	for (const [index, start] of statementStarts.entries()) {
		const key = /^[ \t]*((?:[A-Za-z0-9_-]+|"(?:[^"\\]|\\.)*"|'[^']*')(?:[ \t]*\.[ \t]*(?:[A-Za-z0-9_-]+|"(?:[^"\\]|\\.)*"|'[^']*'))*)[ \t]*=/.exec(lineAt(start));
		const parts = key === null ? undefined : keyParts(key[1]!);
		if (parts === undefined) continue;
		// It ends where the next statement starts, or at the first header; comment and blank lines after it are not its own.
		let end = statementStarts[index + 1] ?? rootEnd;
		while (end > start) {
			const previous = lineStarts.findLast(line => line < end)!;
			if (previous === start || /^[ \t]*(?:#.*)?\r?$/.test(lineAt(previous)) === false) break;
			end = previous;
		}

		entries.push({key: parts, start, end});
	}

	return {sections, entries};
}

/** A string as a TOML basic string. */
export function tomlString(value: string): string {
	return JSON.stringify(value).replaceAll('\u007F', '\\u007F');
}
