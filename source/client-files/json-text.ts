/**
 * JSON files as text: a parser that remembers where every value sits, and
 * edits that change one value and leave every other byte alone. Clients'
 * config files are edited in place (hangar's own, Claude Code's ~/.claude.json
 * full of unrelated state, VS Code's settings.json with comments), so a
 * rewrite through JSON.stringify, which would drop comments and reflow the
 * whole file, is not an option.
 *
 * It reads JSON with comments and trailing commas (JSONC, what VS Code,
 * Cursor and Gemini CLI accept) when asked to, and strict JSON otherwise.
 */

export type JsonNode =
	| {kind: 'object'; start: number; end: number; properties: JsonProperty[]}
	| {kind: 'array'; start: number; end: number; items: JsonNode[]}
	| {kind: 'string'; start: number; end: number; value: string}
	| {kind: 'number'; start: number; end: number; value: number}
	| {kind: 'boolean'; start: number; end: number; value: boolean}
	| {kind: 'null'; start: number; end: number};

export type JsonProperty = {key: string; keyStart: number; value: JsonNode; comma: number | undefined};

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

/** Parses `text` into a tree of nodes with their offsets. Throws JsonTextError with the line and column. */
export function parseJsonText(text: string, options: JsonTextOptions = {}): JsonNode {
	let at = text.startsWith('\uFEFF') ? 1 : 0;
	const jsonc = options.jsonc ?? false;

	const fail = (problem: string, offset = at): never => {
		const before = text.slice(0, offset);
		const line = before.split('\n').length;
		throw new JsonTextError(offset, line, offset - before.lastIndexOf('\n'), problem);
	};

	const skip = () => {
		for (;;) {
			const char = text[at];
			if (char === ' ' || char === '\t' || char === '\n' || char === '\r') {
				at++;
			} else if (jsonc && char === '/' && text[at + 1] === '/') {
				const end = text.indexOf('\n', at);
				at = end === -1 ? text.length : end;
			} else if (jsonc && char === '/' && text[at + 1] === '*') {
				const end = text.indexOf('*/', at + 2);
				if (end === -1) fail('unterminated comment');
				at = end + 2;
			} else {
				return;
			}
		}
	};

	const describe = (offset: number) => (offset >= text.length ? 'the end of the file' : JSON.stringify(text[offset]));

	const readString = (): string => {
		const start = at;
		at++;
		for (;;) {
			const char = text[at];
			if (char === undefined || char === '\n') fail('unterminated string', start);
			if (char === '"') break;
			if (char === '\\') at++;
			at++;
		}

		at++;
		try {
			return JSON.parse(text.slice(start, at)) as string;
		} catch {
			return fail('invalid escape in string', start);
		}
	};

	const value = (): JsonNode => {
		skip();
		const start = at;
		const char = text[at];
		if (char === '{') {
			at++;
			const properties: JsonProperty[] = [];
			skip();
			while (text[at] !== '}') {
				if (text[at] !== '"') fail(`expected a property name in double quotes or "}", found ${describe(at)}`);
				const keyStart = at;
				const key = readString();
				skip();
				if (text[at] !== ':') fail(`expected ":" after the property name "${key}", found ${describe(at)}`);
				at++;
				const property: JsonProperty = {key, keyStart, value: value(), comma: undefined};
				properties.push(property);
				skip();
				if (text[at] === ',') {
					property.comma = at;
					at++;
					skip();
					if (text[at] === '}' && !jsonc) fail('trailing comma before "}"');
				} else if (text[at] !== '}') {
					fail(`expected "," or "}" after the value of "${key}", found ${describe(at)}`);
				}
			}

			at++;
			return {kind: 'object', start, end: at, properties};
		}

		if (char === '[') {
			at++;
			const items: JsonNode[] = [];
			skip();
			while (text[at] !== ']') {
				items.push(value());
				skip();
				if (text[at] === ',') {
					at++;
					skip();
					if (text[at] === ']' && !jsonc) fail('trailing comma before "]"');
				} else if (text[at] !== ']') {
					fail(`expected "," or "]" in the array, found ${describe(at)}`);
				}
			}

			at++;
			return {kind: 'array', start, end: at, items};
		}

		if (char === '"') {
			const string = readString();
			return {kind: 'string', start, end: at, value: string};
		}

		const word = /^(?:true|false|null|-?(?:0|[1-9]\d*)(?:\.\d+)?(?:[eE][+-]?\d+)?)/.exec(text.slice(at, at + 400));
		if (word === null) return fail(`expected a value, found ${describe(at)}`);
		at += word[0].length;
		if (word[0] === 'null') return {kind: 'null', start, end: at};
		if (word[0] === 'true' || word[0] === 'false') return {kind: 'boolean', start, end: at, value: word[0] === 'true'};
		return {kind: 'number', start, end: at, value: Number(word[0])};
	};

	const root = value();
	skip();
	if (at < text.length) fail(`unexpected ${describe(at)} after the end of the JSON value`);
	return root;
}

/** The plain JavaScript value of a node. Keys keep the file's order. */
export function nodeValue(node: JsonNode): unknown {
	switch (node.kind) {
		case 'object': {
			// A null-prototype object: a key named "__proto__" in a file stays an ordinary key.
			const out = Object.create(null) as Record<string, unknown>;
			for (const property of node.properties) out[property.key] = nodeValue(property.value);
			return out;
		}

		case 'array': {
			return node.items.map(item => nodeValue(item));
		}

		case 'null': {
			return null;
		}

		default: {
			return node.value;
		}
	}
}

/** Parses text into a plain value (see parseJsonText). */
export function parseJson(text: string, options: JsonTextOptions = {}): unknown {
	return nodeValue(parseJsonText(text, options));
}

/** The node at `path` (object keys), or undefined when a step is missing or not an object. */
export function nodeAt(root: JsonNode, path: readonly string[]): JsonNode | undefined {
	let node: JsonNode | undefined = root;
	for (const key of path) {
		if (node?.kind !== 'object') return undefined;
		node = node.properties.findLast(property => property.key === key)?.value;
	}

	return node;
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

/**
 * Sets the value at `path` (object keys from the root), or deletes it when
 * `value` is undefined. A new key goes after the object's last one, in the
 * file's own indentation; missing parent objects are created. Everything
 * outside the changed value stays byte for byte. Returns the new text.
 */
export function setJsonValue(text: string, path: readonly string[], value: unknown, options: JsonTextOptions = {}): string {
	if (path.length === 0) throw new TypeError('setJsonValue needs a non-empty path');
	const root = parseJsonText(text, options);
	const unit = detectIndent(text);
	// Files written on Windows keep their CRLF line ends.
	const eol = text.includes('\r\n') ? '\r\n' : '\n';

	// Walk down as far as the path exists.
	let parent: JsonNode = root;
	let depth = 0;
	for (; depth < path.length - 1; depth++) {
		if (parent.kind !== 'object') throw new TypeError(`cannot set ${path.join('.')}: ${path.slice(0, depth).join('.') || 'the file'} is not an object`);
		const next = parent.properties.findLast(property => property.key === path[depth])?.value;
		if (next === undefined) break;
		parent = next;
	}

	if (parent.kind !== 'object') throw new TypeError(`cannot set ${path.join('.')}: ${path.slice(0, depth).join('.') || 'the file'} is not an object`);
	const key = path[depth]!;
	const rest = path.slice(depth + 1);
	// What goes under `key`: the value itself, or the chain of objects still missing.
	const wrapped = rest.reduceRight<unknown>((inner, name) => ({[name]: inner}), value);
	const existing = depth === path.length - 1 ? parent.properties.findLast(property => property.key === key) : undefined;

	if (value === undefined) {
		if (existing === undefined) return text;
		return removeProperty(text, parent, existing);
	}

	if (existing !== undefined) {
		const indent = lineIndent(text, existing.keyStart);
		return text.slice(0, existing.value.start) + serialize(value, unit, indent, eol) + text.slice(existing.value.end);
	}

	const last = parent.properties.at(-1);
	if (last === undefined) {
		const indent = lineIndent(text, parent.start);
		const inner = indent + unit;
		return `${text.slice(0, parent.start)}{${eol}${inner}${JSON.stringify(key)}: ${serialize(wrapped, unit, inner, eol)}${eol}${indent}}${text.slice(parent.end)}`;
	}

	// Same line as the last key when the object is written on one line, a new line otherwise.
	const oneLine = !text.slice(parent.start, parent.end).includes('\n');
	const indent = oneLine ? '' : lineIndent(text, last.keyStart);
	const separator = oneLine ? ' ' : `${eol}${indent}`;
	const entry = `${JSON.stringify(key)}: ${serialize(wrapped, oneLine ? '' : unit, indent, eol)}`;
	if (last.comma !== undefined) {
		// A trailing comma (JSONC): the new entry goes after it and keeps one.
		return `${text.slice(0, last.comma + 1)}${separator}${entry},${text.slice(last.comma + 1)}`;
	}

	return `${text.slice(0, last.value.end)},${separator}${entry}${text.slice(last.value.end)}`;
}

function removeProperty(text: string, parent: Extract<JsonNode, {kind: 'object'}>, property: JsonProperty): string {
	const index = parent.properties.indexOf(property);
	if (parent.properties.length === 1) return `${text.slice(0, parent.start)}{}${text.slice(parent.end)}`;
	if (index < parent.properties.length - 1) {
		// From the start of its line (when only indentation precedes it) through its comma and the rest of that line.
		const before = text.slice(lineStart(text, property.keyStart), property.keyStart);
		const from = /^[ \t]*$/.test(before) ? lineStart(text, property.keyStart) : property.keyStart;
		let to = property.comma! + 1;
		const restOfLine = /^[ \t]*\r?\n/.exec(text.slice(to));
		if (restOfLine !== null && from === lineStart(text, property.keyStart)) to += restOfLine[0].length;
		else to += /^[ \t]*/.exec(text.slice(to))![0].length;
		return text.slice(0, from) + text.slice(to);
	}

	// The last one: from the previous entry's comma, so no comma is left dangling.
	const previous = parent.properties[index - 1]!;
	const to = property.comma === undefined ? property.value.end : property.comma + 1;
	return text.slice(0, previous.comma!) + (property.comma === undefined ? '' : ',') + text.slice(to);
}
