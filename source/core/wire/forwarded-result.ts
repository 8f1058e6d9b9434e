/**
 * An upstream's answer to one of hangar's own requests, kept as the text the
 * upstream wrote, so that hangar can pass it on to the client with only the
 * id changed instead of parsing the whole result and serializing it again.
 *
 * `scanAnswerLine` reads one line an upstream wrote: when it is a result
 * answer (`jsonrpc`, a string `id`, an object `result`, nothing else) it is
 * checked to be well-formed JSON in one pass that parses nothing but the
 * few members hangar reads (the id, `isError`, whether there is a `task` or
 * content that may carry URIs), and the result's text is sliced out of the
 * line. Anything else (requests, notifications, errors, numeric ids, a
 * line that is not JSON) is left to the full parse: undefined.
 *
 * What hangar must change in a result (a URI another upstream owns, a task
 * id) or read in full is read by `value()`, a parse on demand.
 */
import {BoundedPreview} from '../base/bounded-preview.js';
import {parseExact} from '../base/exact-json.js';
import {isSecretName, mask} from '../base/secret-mask.js';

/** Deeper nesting than this is left to JSON.parse (which has its own limit). */
const maxDepth = 512;

/** A control character, which a JSON string may not hold unescaped. */
const controlCharacter = /[\u0000-\u001F]/;
const numberToken = /-?(?:0|[1-9]\d*)(?:\.\d+)?(?:[eE][+-]?\d+)?/y;

const isSpace = (code: number): boolean => code === 0x20 || code === 0x0a || code === 0x0d || code === 0x09;

function skipSpace(text: string, at: number): number {
	while (at < text.length && isSpace(text.charCodeAt(at))) at++;
	return at;
}

/** Up to this many characters a string is read by a loop, past it by native searches. */
const shortString = 64;

/**
 * The end of the string token at `at` (its opening quote), or -1 when there
 * is none or it is malformed. A long string (a tool's text) is found with
 * indexOf rather than a loop over characters: it costs a few native searches.
 */
function stringEnd(text: string, at: number): number {
	if (text.charCodeAt(at) !== 0x22) return -1;
	// A short string without escapes (a key, a type, an id) is read by its characters: no slice, no search.
	const shortEnd = Math.min(text.length, at + 1 + shortString);
	for (let pos = at + 1; pos < shortEnd; pos++) {
		const code = text.charCodeAt(pos);
		if (code === 0x22) return pos + 1;
		if (code === 0x5c) break;
		if (code < 0x20) return -1;
	}

	let from = at + 1;
	let quote = text.indexOf('"', from);
	for (;;) {
		if (quote < 0) return -1;
		// Searched up to the quote only: a search to the end of the line for every string would be quadratic.
		const within = text.slice(from, quote).indexOf('\\');
		if (within < 0) break;
		const backslash = from + within;
		const escaped = text.charCodeAt(backslash + 1);
		if (escaped === 0x75) {
			for (let digit = backslash + 2; digit < backslash + 6; digit++) if (!isHexDigit(text.charCodeAt(digit))) return -1;
			from = backslash + 6;
		} else if (escaped === 0x22 || escaped === 0x5c || escaped === 0x2f || escaped === 0x62 || escaped === 0x66 || escaped === 0x6e || escaped === 0x72 || escaped === 0x74) {
			from = backslash + 2;
		} else {
			return -1;
		}

		// The quote found was escaped: the next one.
		if (from > quote) quote = text.indexOf('"', from);
	}

	return controlCharacter.test(text.slice(at + 1, quote)) ? -1 : quote + 1;
}

function isHexDigit(code: number): boolean {
	return (code >= 0x30 && code <= 0x39) || (code >= 0x41 && code <= 0x46) || (code >= 0x61 && code <= 0x66);
}

/** A string token's value: sliced when it has no escape, else decoded. */
function stringValue(text: string, start: number, end: number): string {
	const inner = text.slice(start + 1, end - 1);
	return inner.includes('\\') ? (JSON.parse(text.slice(start, end)) as string) : inner;
}

/**
 * The end of the JSON value that starts at `at` (no leading space), checked
 * to be well-formed; -1 when it is not (or nests deeper than `maxDepth`).
 */
export function skipValue(text: string, at: number): number {
	// 1: in an object, 2: in an array. Iterative, so depth costs no stack.
	const open: number[] = [];
	let pos = at;
	for (;;) {
		// A value at pos.
		const code = text.charCodeAt(pos);
		if (code === 0x22) {
			pos = stringEnd(text, pos);
			if (pos < 0) return -1;
		} else if (code === 0x7b || code === 0x5b) {
			if (open.length >= maxDepth) return -1;
			const inObject = code === 0x7b;
			pos = skipSpace(text, pos + 1);
			const close = inObject ? 0x7d : 0x5d;
			if (text.charCodeAt(pos) === close) {
				pos += 1;
			} else {
				open.push(inObject ? 1 : 2);
				if (inObject) {
					pos = objectKey(text, pos);
					if (pos < 0) return -1;
				}

				continue;
			}
		} else if (code === 0x74) {
			if (!text.startsWith('true', pos)) return -1;
			pos += 4;
		} else if (code === 0x66) {
			if (!text.startsWith('false', pos)) return -1;
			pos += 5;
		} else if (code === 0x6e) {
			if (!text.startsWith('null', pos)) return -1;
			pos += 4;
		} else {
			numberToken.lastIndex = pos;
			if (!numberToken.test(text) || numberToken.lastIndex === pos) return -1;
			pos = numberToken.lastIndex;
		}

		// After a value: close containers, or move to the next member or element.
		for (;;) {
			if (open.length === 0) return pos;
			pos = skipSpace(text, pos);
			const code = text.charCodeAt(pos);
			const inObject = open.at(-1) === 1;
			if (code === 0x2c) {
				pos = skipSpace(text, pos + 1);
				if (inObject) {
					pos = objectKey(text, pos);
					if (pos < 0) return -1;
				}

				break;
			}

			if (code !== (inObject ? 0x7d : 0x5d)) return -1;
			open.pop();
			pos += 1;
		}
	}
}

/** Past `"key":` and the space after it, at the member's value; -1 when malformed. */
function objectKey(text: string, at: number): number {
	const end = stringEnd(text, at);
	if (end < 0) return -1;
	const colon = skipSpace(text, end);
	return text.charCodeAt(colon) === 0x3a ? skipSpace(text, colon + 1) : -1;
}

/**
 * Walks the members of the object at `at` (its `{`): `member` is given each
 * key and where its value starts, and returns where the value ends (-1:
 * malformed, or stop). Returns the end of the object, or -1.
 */
function eachMember(text: string, at: number, member: (key: string, start: number) => number): number {
	let pos = skipSpace(text, at + 1);
	if (text.charCodeAt(pos) === 0x7d) return pos + 1;
	for (;;) {
		const keyEnd = stringEnd(text, pos);
		if (keyEnd < 0) return -1;
		const key = stringValue(text, pos, keyEnd);
		const colon = skipSpace(text, keyEnd);
		if (text.charCodeAt(colon) !== 0x3a) return -1;
		const end = member(key, skipSpace(text, colon + 1));
		if (end < 0) return -1;
		pos = skipSpace(text, end);
		const code = text.charCodeAt(pos);
		if (code === 0x7d) return pos + 1;
		if (code !== 0x2c) return -1;
		pos = skipSpace(text, pos + 1);
	}
}

/**
 * A result as the upstream wrote it. `json` is its text, byte for byte;
 * `value()` parses it (once) for whoever must read or change it.
 */
export class ForwardedResult {
	private parsed: Record<string, unknown> | undefined;

	constructor(
		readonly json: string,
		/** Its `isError` member is `true`. */
		readonly isError: boolean,
		/** It has a `task` member (a CreateTaskResult, 2025-11-25 tasks): hangar rewrites the task's id. */
		readonly hasTask: boolean,
		/**
		 * Its `content` may hold a `resource_link` or embedded `resource` item,
		 * whose URI hangar may rewrite: judged from the text (the word, or an
		 * escape that could spell it), so a false positive costs a parse, never a
		 * missed URI.
		 */
		readonly mayCarryUris: boolean,
	) {}

	/** The result parsed (and kept: a change made to it is what the client gets once it is written from `value()`). */
	value(): Record<string, unknown> {
		this.parsed ??= parseExact(this.json) as Record<string, unknown>;
		return this.parsed;
	}
}

/**
 * A result answer to one of hangar's requests (a string id starting with
 * "h"), read without parsing its result; undefined for any other line,
 * which the caller parses as before.
 */
export function scanAnswerLine(line: string): {id: string; result: ForwardedResult} | undefined {
	const start = skipSpace(line, 0);
	if (line.charCodeAt(start) !== 0x7b) return undefined;
	let id: string | undefined;
	let version = false;
	let result: ForwardedResult | undefined;
	const end = eachMember(line, start, (key, valueStart) => {
		if (key === 'result') {
			result = readResult(line, valueStart);
			return result === undefined ? -1 : valueStart + result.json.length;
		}

		const valueEnd = skipValue(line, valueStart);
		if (valueEnd < 0) return -1;
		if (key === 'jsonrpc') {
			version = line.slice(valueStart, valueEnd) === '"2.0"';
			return version ? valueEnd : -1;
		}

		if (key === 'id') {
			if (line.charCodeAt(valueStart) !== 0x22) return -1;
			id = stringValue(line, valueStart, valueEnd);
			return id.startsWith('h') ? valueEnd : -1;
		}

		return -1;
	});
	if (end < 0 || skipSpace(line, end) !== line.length || !version || id === undefined || result === undefined) return undefined;
	return {id, result};
}

/** The result object at `start`, checked in the same pass that reads its isError, task and content. */
function readResult(line: string, start: number): ForwardedResult | undefined {
	if (line.charCodeAt(start) !== 0x7b) return undefined;
	let isError = false;
	let hasTask = false;
	let mayCarryUris = false;
	const end = eachMember(line, start, (key, valueStart) => {
		const valueEnd = skipValue(line, valueStart);
		if (key === 'isError') {
			isError = valueEnd - valueStart === 4 && line.startsWith('true', valueStart);
		} else if (key === 'task') {
			hasTask = true;
		} else if (key === 'content' && valueEnd > 0) {
			const content = line.slice(valueStart, valueEnd);
			// "resource" and "resource_link" as written, or spelled with \u escapes.
			mayCarryUris = content.includes('resource') || content.includes('\\u00');
		}

		return valueEnd;
	});
	return end < 0 ? undefined : new ForwardedResult(line.slice(start, end), isError, hasTask, mayCarryUris);
}

/**
 * The call log's preview of a result kept as text (see call-log.ts
 * `maskedPreview`, which this matches for parsed values): secret-looking
 * keys' values masked, `secrets` masked in strings, cut to `limit`
 * characters, the walk stopping once the bound is reached. Strings are
 * decoded and quoted again, so the preview reads as the parsed one did;
 * numbers are shown as the upstream wrote them.
 */
export function maskedPreviewOfJson(text: string, limit: number, secrets: readonly string[] = []): string {
	const preview = new BoundedPreview(limit, secrets);
	const putString = (start: number, end: number): void => {
		let raw = text.slice(start + 1, Math.min(end - 1, start + 1 + limit + 6));
		// Without an escape the text is the value, and quoting it gives the text back.
		if (!raw.includes('\\')) {
			const value = raw.length > limit ? raw.slice(0, limit) : raw;
			preview.put(preview.hasSecrets ? JSON.stringify(preview.scrub(value)) : `"${value}"`);
			return;
		}

		// Only the part that can still be shown is decoded (an escape cut in half is dropped).
		let value: string | undefined;
		for (let trim = 0; value === undefined && trim <= 6; trim++) {
			try {
				value = JSON.parse(`"${raw}"`) as string;
			} catch {
				raw = raw.slice(0, -1);
			}
		}

		value ??= '';
		preview.put(JSON.stringify(preview.scrub(value.length > limit ? value.slice(0, limit) : value)));
	};

	const walk = (at: number): number => {
		if (preview.cut) return -1;
		const code = text.charCodeAt(at);
		if (code === 0x22) {
			const end = stringEnd(text, at);
			if (end < 0) return -1;
			putString(at, end);
			return end;
		}

		if (code === 0x7b) {
			preview.put('{');
			let first = true;
			// Each member is walked, not skipped first: the walk stops where the preview is cut.
			const end = eachMember(text, at, (key, start) => {
				if (!first) preview.put(',');
				first = false;
				preview.put(`${JSON.stringify(key)}:`);
				if (!isSecretName(key)) return walk(start);
				preview.put(JSON.stringify(mask));
				return preview.cut ? -1 : skipValue(text, start);
			});
			if (end >= 0) preview.put('}');
			return end;
		}

		if (code === 0x5b) {
			preview.put('[');
			let pos = skipSpace(text, at + 1);
			if (text.charCodeAt(pos) !== 0x5d) {
				for (let index = 0; ; index++) {
					if (index > 0) preview.put(',');
					const end = walk(pos);
					if (end < 0) return -1;
					pos = skipSpace(text, end);
					if (text.charCodeAt(pos) !== 0x2c) break;
					pos = skipSpace(text, pos + 1);
				}
			}

			preview.put(']');
			return pos + 1;
		}

		const end = skipValue(text, at);
		if (end < 0) return -1;
		preview.put(text.slice(at, end));
		return end;
	};

	walk(skipSpace(text, 0));
	return preview.text();
}
