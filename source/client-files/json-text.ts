/**
 * JSON files as text: read with `jsonc-parser` (the parser VS Code uses for
 * its own settings), and edits that change one value and leave every other
 * byte alone. Clients' config files are edited in place (hangar's own,
 * Claude Code's ~/.claude.json full of unrelated state, VS Code's
 * settings.json with comments), so a rewrite through JSON.stringify, which
 * would drop comments and reflow the whole file, is not an option.
 *
 * It reads JSON with comments and trailing commas (JSONC, what VS Code,
 * Cursor and Gemini CLI accept) when asked to, and strict JSON otherwise.
 *
 * Where an edit goes is decided here, on jsonc-parser's tree, rather than by
 * its `modify`: measured on the cases in test/unit/client-files/json-text.test.ts,
 * `modify` removes the comments between a removed entry and its neighbour
 * (a `// note` after the kept entry's comma, the comment line above the next
 * entry), and its formatter re-lays out the whole lines around an edit, so
 * adding a server reflowed the one-line entry before it. Here a removed
 * entry takes its own lines and its own end-of-line comment with it and
 * nothing else; an added entry goes on a line of its own, after the last
 * entry's end-of-line comment, in the file's indentation and line ends.
 */
import {parseTree, printParseErrorCode, visit, type Node, type ParseError} from 'jsonc-parser';

export class JsonTextError extends Error {
	constructor(
		readonly offset: number,
		readonly line: number,
		readonly column: number,
		problem: string,
	) {
		super(`${problem} at line ${line}, column ${column}`);
		this.name = 'JsonTextError';
	}
}

export type JsonTextOptions = {
	/** Accept // and /* *\/ comments and trailing commas. */
	jsonc?: boolean;
};

const problems: Record<string, string> = {
	InvalidSymbol: 'unexpected character',
	InvalidNumberFormat: 'invalid number',
	PropertyNameExpected: 'expected a property name in double quotes',
	ValueExpected: 'expected a value',
	ColonExpected: 'expected ":" after the property name',
	CommaExpected: 'expected "," between two entries',
	CloseBraceExpected: 'expected "}"',
	CloseBracketExpected: 'expected "]"',
	EndOfFileExpected: 'unexpected text after the end of the JSON value',
	InvalidCommentToken: 'comments are not allowed in JSON',
	UnexpectedEndOfComment: 'unterminated comment',
	UnexpectedEndOfString: 'unterminated string',
	UnexpectedEndOfNumber: 'unterminated number',
	InvalidUnicode: 'invalid \\u escape in string',
	InvalidEscapeCharacter: 'invalid escape in string',
	InvalidCharacter: 'control character in string',
};

function parseOptions(options: JsonTextOptions) {
	const jsonc = options.jsonc ?? false;
	return {disallowComments: !jsonc, allowTrailingComma: jsonc, allowEmptyContent: false};
}

function textError(text: string, error: ParseError): JsonTextError {
	const before = text.slice(0, error.offset);
	const line = before.split('\n').length;
	const found = error.offset >= text.length ? 'the end of the file' : JSON.stringify(text[error.offset]);
	const problem = problems[printParseErrorCode(error.error)] ?? printParseErrorCode(error.error);
	return new JsonTextError(error.offset, line, error.offset - before.lastIndexOf('\n'), `${problem}, found ${found}`);
}

/** Parses `text` into jsonc-parser's tree (nodes with offsets). Throws JsonTextError with the line and column of the first problem. */
function parseJsonTree(text: string, options: JsonTextOptions): Node {
	const errors: ParseError[] = [];
	// A byte order mark is read as a space: the offsets stay those of the text.
	const root = parseTree(text.replace(/^\uFEFF/, ' '), errors, parseOptions(options));
	if (errors.length > 0 || root === undefined) throw textError(text, errors[0] ?? {error: 4, offset: 0, length: 0});
	return root;
}

/** The plain JavaScript value of a node. Keys keep the file's order; the last of two equal keys wins, as in JSON.parse. */
function nodeValue(node: Node): unknown {
	switch (node.type) {
		case 'object': {
			// A null-prototype object: a key named "__proto__" in a file stays an ordinary key.
			const out = Object.create(null) as Record<string, unknown>;
			for (const property of node.children ?? []) out[property.children![0]!.value as string] = nodeValue(property.children![1]!);
			return out;
		}

		case 'array': {
			return (node.children ?? []).map(item => nodeValue(item));
		}

		default: {
			return node.value as unknown;
		}
	}
}

/** Parses text into a plain value. Throws JsonTextError with the line and column. */
export function parseJson(text: string, options: JsonTextOptions = {}): unknown {
	return nodeValue(parseJsonTree(text, options));
}

/** The indentation unit the file uses (a tab or N spaces), guessed from its first indented line; two spaces for a one-line file. */
export function detectIndent(text: string): string {
	const match = /\n([ \t]+)\S/.exec(text);
	if (match === null) return '  ';
	return match[1]!.startsWith('\t') ? '\t' : ' '.repeat(Math.min(match[1]!.length, 8));
}

function lineStart(text: string, offset: number): number {
	return text.lastIndexOf('\n', offset - 1) + 1;
}

function lineIndent(text: string, offset: number): string {
	return /^[ \t]*/.exec(text.slice(lineStart(text, offset)))![0];
}

/** `value` as JSON whose first line goes at the cursor and whose later lines start with `baseIndent`, ending lines with `eol`. */
function serialize(value: unknown, unit: string, baseIndent: string, eol = '\n'): string {
	const json = JSON.stringify(value, null, unit);
	if (json === undefined) throw new TypeError('cannot write undefined as a JSON value');
	return json.replaceAll('\n', `${eol}${baseIndent}`);
}

/** Where the text after `offset` holds only spaces and at most one comment before the line ends: that line end's offset (before any \r), else undefined. */
function restOfLineEnd(text: string, offset: number): number | undefined {
	const rest = /^[ \t]*(?:\/\/[^\n]*?|\/\*(?:[^*\n]|\*(?!\/))*\*\/[ \t]*)?(?=\r?\n|$)/.exec(text.slice(offset));
	if (rest === null) return undefined;
	return offset + rest[0].length;
}

function endOf(node: Node): number {
	return node.offset + node.length;
}

type Edit = {from: number; to: number; insert: string};

function applyTextEdits(text: string, edits: Edit[]): string {
	let out = text;
	for (const edit of edits.sort((a, b) => b.from - a.from)) out = out.slice(0, edit.from) + edit.insert + out.slice(edit.to);
	return out;
}

/**
 * Sets the value at `path` (object keys from the root), or deletes it when
 * `value` is undefined. A new key goes after the object's last one, in the
 * file's own indentation; missing parent objects are created. Everything
 * outside the changed entry stays byte for byte, comments included. Returns
 * the new text.
 */
export function setJsonValue(text: string, path: readonly string[], value: unknown, options: JsonTextOptions = {}): string {
	if (path.length === 0) throw new TypeError('setJsonValue needs a non-empty path');
	const root = parseJsonTree(text, options);
	// The separators of every object and array, to find the comma after an entry (commas inside strings are not separators).
	const commas: number[] = [];
	visit(
		text.replace(/^\uFEFF/, ' '),
		{
			onSeparator(character, offset) {
				if (character === ',') commas.push(offset);
			},
		},
		parseOptions(options),
	);
	const unit = detectIndent(text);
	// Files written on Windows keep their CRLF line ends.
	const eol = text.includes('\r\n') ? '\r\n' : '\n';

	const notObject = (depth: number) => new TypeError(`cannot set ${path.join('.')}: ${path.slice(0, depth).join('.') || 'the file'} is not an object`);
	const find = (object: Node, key: string) => object.children?.findLast(property => property.children![0]!.value === key);

	// Walk down as far as the path exists.
	let parent: Node = root;
	let depth = 0;
	for (; depth < path.length - 1; depth++) {
		if (parent.type !== 'object') throw notObject(depth);
		const next = find(parent, path[depth]!)?.children![1];
		if (next === undefined) break;
		parent = next;
	}

	if (parent.type !== 'object') throw notObject(depth);
	const key = path[depth]!;
	const rest = path.slice(depth + 1);
	// What goes under `key`: the value itself, or the chain of objects still missing.
	const wrapped = rest.reduceRight<unknown>((inner, name) => ({[name]: inner}), value);
	const existing = depth === path.length - 1 ? find(parent, key) : undefined;
	const properties = parent.children ?? [];
	/** The comma after entry `index` of the parent, if it has one. */
	const commaAfter = (index: number): number | undefined => {
		const limit = properties[index + 1]?.offset ?? endOf(parent);
		return commas.find(comma => comma >= endOf(properties[index]!) && comma < limit);
	};

	if (value === undefined) {
		if (existing === undefined) return text;
		return applyTextEdits(text, removal(text, parent, properties.indexOf(existing), commaAfter));
	}

	if (existing !== undefined) {
		const valueNode = existing.children![1]!;
		const indent = lineIndent(text, existing.offset);
		return applyTextEdits(text, [{from: valueNode.offset, to: endOf(valueNode), insert: serialize(value, unit, indent, eol)}]);
	}

	const close = endOf(parent) - 1;
	const indent = lineIndent(text, parent.offset);
	const last = properties.at(-1);
	if (last === undefined) {
		// An empty object: the entry goes on its own line before "}", after anything (a comment) already inside.
		const inner = indent + unit;
		const contentEnd = parent.offset + 1 + text.slice(parent.offset + 1, close).trimEnd().length;
		return applyTextEdits(text, [{from: contentEnd, to: close, insert: `${eol}${inner}${JSON.stringify(key)}: ${serialize(wrapped, unit, inner, eol)}${eol}${indent}`}]);
	}

	const comma = commaAfter(properties.length - 1);
	const oneLine = !text.slice(parent.offset, endOf(parent)).includes('\n');
	if (oneLine) {
		// Same line as the last key when the object is written on one line.
		const entry = `${JSON.stringify(key)}: ${serialize(wrapped, '', '', eol)}`;
		if (comma !== undefined) return applyTextEdits(text, [{from: comma + 1, to: comma + 1, insert: ` ${entry},`}]);
		return applyTextEdits(text, [{from: endOf(last), to: endOf(last), insert: `, ${entry}`}]);
	}

	const entryIndent = lineIndent(text, last.offset);
	const entry = `${eol}${entryIndent}${JSON.stringify(key)}: ${serialize(wrapped, unit, entryIndent, eol)}`;
	// After the last entry's comma and its end-of-line comment (which describes it, not the new one).
	const after = comma === undefined ? endOf(last) : comma + 1;
	const at = restOfLineEnd(text, after) ?? after;
	const edits: Edit[] = [{from: at, to: at, insert: comma === undefined ? entry : `${entry},`}];
	if (comma === undefined) edits.push({from: endOf(last), to: endOf(last), insert: ','});
	return applyTextEdits(text, edits);
}

/** The edits that remove entry `index` of `parent`: its own lines (its end-of-line comment included), and the comma it leaves dangling. */
function removal(text: string, parent: Node, index: number, commaAfter: (index: number) => number | undefined): Edit[] {
	const properties = parent.children!;
	const property = properties[index]!;
	const comma = commaAfter(index);
	const isLast = index === properties.length - 1;
	const start = lineStart(text, property.offset);
	const ownsLine = /^[ \t]*$/.test(text.slice(start, property.offset));
	const end = comma === undefined ? endOf(property) : comma + 1;

	if (ownsLine) {
		const lineEnd = restOfLineEnd(text, end);
		if (lineEnd !== undefined) {
			// The whole line goes, with its line end.
			const to = text.startsWith('\r\n', lineEnd) ? lineEnd + 2 : text.startsWith('\n', lineEnd) ? lineEnd + 1 : lineEnd;
			const edits: Edit[] = [{from: start, to, insert: ''}];
			// The last entry of strict JSON had no comma: the previous entry's comma would now dangle.
			const previousComma = isLast && comma === undefined && index > 0 ? commaAfter(index - 1) : undefined;
			if (previousComma !== undefined) edits.push({from: previousComma, to: previousComma + 1, insert: ''});
			return collapseIfEmpty(text, parent, edits);
		}
	}

	if (!isLast || comma !== undefined) {
		// Written on a line with others: the entry, its comma and the spaces after it.
		const to = end + /^[ \t]*/.exec(text.slice(end))![0].length;
		return collapseIfEmpty(text, parent, [{from: property.offset, to, insert: ''}]);
	}

	if (index === 0) return collapseIfEmpty(text, parent, [{from: property.offset, to: endOf(property), insert: ''}]);
	// The last of several on a line, without a comma of its own: from the previous entry's comma.
	const previousComma = commaAfter(index - 1)!;
	const between = text.slice(previousComma + 1, property.offset);
	if (/^\s*$/.test(between)) return [{from: previousComma, to: endOf(property), insert: ''}];
	return [
		{from: previousComma, to: previousComma + 1, insert: ''},
		{from: property.offset, to: endOf(property), insert: ''},
	];
}

/** When the edits leave nothing but spaces inside the object, it becomes `{}`. */
function collapseIfEmpty(text: string, parent: Node, edits: Edit[]): Edit[] {
	const inside = applyTextEdits(text, edits.map(edit => ({...edit}))).slice(parent.offset + 1);
	const removed = edits.reduce((sum, edit) => sum + (edit.to - edit.from) - edit.insert.length, 0);
	const innerAfter = inside.slice(0, parent.length - 2 - removed);
	if (/^\s*$/.test(innerAfter)) return [{from: parent.offset, to: endOf(parent), insert: '{}'}];
	return edits;
}
