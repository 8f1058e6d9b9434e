/**
 * A client's request or notification read from its bytes, for the
 * `--stdio` bridge (endpoints/bridge.ts), which must know of each line only
 * its id and method and whether the JSON-RPC rule (message-classifier.ts)
 * lets it pass. Parsing and checking the whole line for that was about a
 * quarter of the bridge's instructions per call (docs/performance.md, "the
 * bridge reads a client's request from its bytes").
 *
 * `scanRequest` checks that the bytes are one well-formed JSON object, in
 * one pass that builds nothing, and reads its top-level `id` and `method`.
 * It answers only for a line the rule certainly passes as a request or a
 * notification: `"jsonrpc":"2.0"`, a non-empty method, an id that is a
 * string or an integer written as JSON.stringify writes it and within
 * ±(2^53 − 1), params (when present) an object without `_meta`, no
 * top-level key written twice. For anything else (a response, a problem, a
 * key written with escapes, a `_meta` whose members the rule checks, nesting
 * deeper than 64, a line longer than `maxScannedBytes`) it answers
 * undefined, and the caller checks the line in full as before: what the
 * scan decides is always what the full check would have decided.
 *
 * Bytes of a multi-byte UTF-8 character are all 0x80 or above, so they are
 * never a quote, a backslash or a control character: inside a string they
 * are accepted as the decoder would accept them (an invalid sequence
 * decodes to U+FFFD, which JSON allows); outside one they are not JSON.
 */
import type {Id} from './message-classifier.js';
import {notificationPrefix} from './protocol.js';

/** What the bridge needs of a line the rule passes as a request (`id` set) or a notification. */
export type ScannedRequest = {id: Id | undefined; method: string};

/**
 * Past this many bytes a line is left to JSON.parse: the scan reads every
 * byte in JavaScript, which costs more per byte than the parser's native
 * loop; it wins on what a call usually is, a few hundred bytes.
 */
export const maxScannedBytes = 8 * 1024;

/** Containers deeper than this are left to the full check. */
const maxDepth = 64;

const quote = 0x22;
const backslash = 0x5c;
const comma = 0x2c;
const colon = 0x3a;
const openBrace = 0x7b;
const closeBrace = 0x7d;
const openBracket = 0x5b;
const closeBracket = 0x5d;
const minus = 0x2d;
const zero = 0x30;
const nine = 0x39;

const keyJsonrpc = 1;
const keyId = 2;
const keyMethod = 4;
const keyParams = 8;

/** The open containers of skipValue, innermost last (a module's scratch: the scan never re-enters). */
const containers = new Uint8Array(maxDepth);

/** The byte at `index`, or -1 at and past `end` (the line may sit inside a larger read). */
function byteAt(bytes: Uint8Array, index: number, end: number): number {
	return index < end ? bytes[index]! : -1;
}

function isSpace(byte: number): boolean {
	return byte === 0x20 || byte === 0x0a || byte === 0x0d || byte === 0x09;
}

function skipSpace(bytes: Uint8Array, at: number, end: number): number {
	while (at < end && isSpace(bytes[at]!)) at++;
	return at;
}

function isHex(byte: number): boolean {
	return (byte >= zero && byte <= nine) || (byte >= 0x61 && byte <= 0x66) || (byte >= 0x41 && byte <= 0x46);
}

/** Whether the last string skipString read holds an escape (so its bytes are not its text). */
let sawEscape = false;

/** The index past the string token at `at` (its opening quote), or -1 when it is malformed or does not end before `end`. */
function skipString(bytes: Uint8Array, at: number, end: number): number {
	sawEscape = false;
	for (let index = at + 1; index < end; index++) {
		const byte = bytes[index]!;
		if (byte === quote) return index + 1;
		if (byte === backslash) {
			sawEscape = true;
			index += 1;
			if (index >= end) return -1;
			const escaped = bytes[index]!;
			if (escaped === 0x75 /* u */) {
				if (index + 4 >= end || !isHex(bytes[index + 1]!) || !isHex(bytes[index + 2]!) || !isHex(bytes[index + 3]!) || !isHex(bytes[index + 4]!)) return -1;
				index += 4;
			} else if (escaped !== quote && escaped !== backslash && escaped !== 0x2f && escaped !== 0x62 && escaped !== 0x66 && escaped !== 0x6e && escaped !== 0x72 && escaped !== 0x74) {
				return -1;
			}
		} else if (byte < 0x20) {
			return -1;
		}
	}

	return -1;
}

function skipDigits(bytes: Uint8Array, at: number, end: number): number {
	while (at < end && bytes[at]! >= zero && bytes[at]! <= nine) at++;
	return at;
}

/** The index past the number token at `at` (`-?(0|[1-9]\d*)(\.\d+)?([eE][+-]?\d+)?`), or -1. */
function skipNumber(bytes: Uint8Array, at: number, end: number): number {
	let index = byteAt(bytes, at, end) === minus ? at + 1 : at;
	const first = byteAt(bytes, index, end);
	if (first === zero) index += 1;
	else if (first > zero && first <= nine) index = skipDigits(bytes, index, end);
	else return -1;
	if (byteAt(bytes, index, end) === 0x2e /* . */) {
		const digits = index + 1;
		index = skipDigits(bytes, digits, end);
		if (index === digits) return -1;
	}

	const exponent = byteAt(bytes, index, end);
	if (exponent === 0x65 || exponent === 0x45 /* e E */) {
		index += 1;
		const sign = byteAt(bytes, index, end);
		if (sign === 0x2b || sign === minus) index += 1;
		const digits = index;
		index = skipDigits(bytes, digits, end);
		if (index === digits) return -1;
	}

	return index;
}

const literals = [Buffer.from('true'), Buffer.from('false'), Buffer.from('null')];

function skipLiteral(bytes: Uint8Array, at: number, end: number): number {
	for (const literal of literals) {
		if (byteAt(bytes, at, end) !== literal[0] || at + literal.length > end) continue;
		for (let index = 1; index < literal.length; index++) if (bytes[at + index] !== literal[index]) return -1;
		return at + literal.length;
	}

	return -1;
}

/** The index past `"key"` and its colon (and the space around them) at `at`, or -1. */
function skipKey(bytes: Uint8Array, at: number, end: number): number {
	at = skipSpace(bytes, at, end);
	if (byteAt(bytes, at, end) !== quote) return -1;
	at = skipString(bytes, at, end);
	if (at === -1) return -1;
	at = skipSpace(bytes, at, end);
	return byteAt(bytes, at, end) === colon ? at + 1 : -1;
}

/** The index past the JSON value at `at` (space before it skipped), checked to be well-formed; -1 when it is not, or nests too deep. */
function skipValue(bytes: Uint8Array, at: number, end: number): number {
	let depth = 0;
	let index = at;
	for (;;) {
		// A value starts here.
		index = skipSpace(bytes, index, end);
		if (index >= end) return -1;
		const byte = bytes[index]!;
		if (byte === quote) {
			index = skipString(bytes, index, end);
		} else if (byte === openBrace || byte === openBracket) {
			const close = byte === openBrace ? closeBrace : closeBracket;
			const inside = skipSpace(bytes, index + 1, end);
			if (byteAt(bytes, inside, end) === close) {
				index = inside + 1;
			} else {
				if (depth === maxDepth) return -1;
				containers[depth++] = byte;
				index = byte === openBrace ? skipKey(bytes, inside, end) : inside;
				if (index === -1) return -1;
				continue;
			}
		} else if (byte === minus || (byte >= zero && byte <= nine)) {
			index = skipNumber(bytes, index, end);
		} else {
			index = skipLiteral(bytes, index, end);
		}

		if (index === -1) return -1;
		// After a value: the containers it ends, then the next member or element.
		for (;;) {
			if (depth === 0) return index;
			index = skipSpace(bytes, index, end);
			const open = containers[depth - 1];
			const next = byteAt(bytes, index, end);
			if (next === comma) {
				index = open === openBrace ? skipKey(bytes, index + 1, end) : index + 1;
				if (index === -1) return -1;
				break;
			}

			if (next !== (open === openBrace ? closeBrace : closeBracket)) return -1;
			depth -= 1;
			index += 1;
		}
	}
}

/** Whether the bytes from `at` to `end` are `name` (ASCII). */
function isWord(bytes: Uint8Array, at: number, end: number, name: Uint8Array): boolean {
	if (end - at !== name.length) return false;
	for (let index = 0; index < name.length; index++) if (bytes[at + index] !== name[index]) return false;
	return true;
}

const word = (text: string): Uint8Array => Buffer.from(text, 'latin1');
const idWord = word('id');
const jsonrpcWord = word('jsonrpc');
const methodWord = word('method');
const paramsWord = word('params');
const metaWord = word('_meta');
const versionWord = word('"2.0"');

/** Which of the members the rule reads a top-level key (its text from `at` to `end`, quotes excluded, just read by skipString) is: a bit, 0 for another, -1 when written with escapes. */
function topLevelKey(bytes: Uint8Array, at: number, end: number): number {
	if (sawEscape) return -1;
	const length = end - at;
	if (length === 2 && isWord(bytes, at, end, idWord)) return keyId;
	if (length === 7 && isWord(bytes, at, end, jsonrpcWord)) return keyJsonrpc;
	if (length === 6 && bytes[at] === 0x6d /* m */ && isWord(bytes, at, end, methodWord)) return keyMethod;
	if (length === 6 && bytes[at] === 0x70 /* p */ && isWord(bytes, at, end, paramsWord)) return keyParams;
	return 0;
}

/** The methods clients send most, read from their bytes without decoding them. */
const commonMethods = ['tools/call', 'tools/list', 'ping', 'resources/read', 'resources/list', 'resources/templates/list', 'prompts/get', 'prompts/list', 'completion/complete', 'notifications/initialized', 'notifications/progress', 'notifications/roots/list_changed'];

const commonMethodWords = commonMethods.map(method => [method, word(method)] as const);

/** The method written from `at` to `end` (no escapes). */
function methodAt(bytes: Buffer, at: number, end: number): string {
	for (const [method, bytesOf] of commonMethodWords) if (bytesOf.length === end - at && isWord(bytes, at, end, bytesOf)) return method;
	return bytes.toString('utf8', at, end);
}

/** The index past params at `at` when they are an object without `_meta` (no key that may be it), else -1. */
function skipParams(bytes: Uint8Array, at: number, end: number): number {
	if (byteAt(bytes, at, end) !== openBrace) return -1;
	let index = skipSpace(bytes, at + 1, end);
	if (byteAt(bytes, index, end) === closeBrace) return index + 1;
	for (;;) {
		if (byteAt(bytes, index, end) !== quote) return -1;
		const keyEnd = skipString(bytes, index, end);
		if (keyEnd === -1 || sawEscape || isWord(bytes, index + 1, keyEnd - 1, metaWord)) return -1;
		index = skipSpace(bytes, keyEnd, end);
		if (byteAt(bytes, index, end) !== colon) return -1;
		index = skipValue(bytes, index + 1, end);
		if (index === -1) return -1;
		index = skipSpace(bytes, index, end);
		const next = byteAt(bytes, index, end);
		if (next === closeBrace) return index + 1;
		if (next !== comma) return -1;
		index = skipSpace(bytes, index + 1, end);
	}
}

/** The integer id at `at` written as JSON.stringify writes it, within ±(2^53 − 1), and the index past it; else undefined. */
function integerIdAt(bytes: Uint8Array, at: number, end: number): {id: number; next: number} | undefined {
	const negative = byteAt(bytes, at, end) === minus;
	const first = negative ? at + 1 : at;
	const next = skipDigits(bytes, first, end);
	// No digits, a leading zero (or -0), more digits than a safe integer has, or a fraction or an exponent after them.
	if (next === first || (bytes[first] === zero && (next > first + 1 || negative)) || next - first > 16) return undefined;
	const after = byteAt(bytes, next, end);
	if (after === 0x2e || after === 0x65 || after === 0x45) return undefined;
	let value = 0;
	for (let index = first; index < next; index++) value = value * 10 + (bytes[index]! - zero);
	// Exact below 2^53; a larger value rounds to 2^53 or above, which is not safe either.
	if (!Number.isSafeInteger(value)) return undefined;
	return {id: negative ? -value : value, next};
}

/**
 * The id and method of the line `bytes` from `start` to `end` when the
 * JSON-RPC rule passes it as a request or a notification; undefined when
 * the full check must decide (see the module comment).
 */
export function scanRequest(bytes: Buffer, start: number, end: number): ScannedRequest | undefined {
	if (end - start > maxScannedBytes) return undefined;
	let index = skipSpace(bytes, start, end);
	if (byteAt(bytes, index, end) !== openBrace) return undefined;
	index = skipSpace(bytes, index + 1, end);
	let seen = 0;
	let id: Id | undefined;
	let method: string | undefined;
	for (;;) {
		if (byteAt(bytes, index, end) !== quote) return undefined;
		const keyEnd = skipString(bytes, index, end);
		if (keyEnd === -1) return undefined;
		const key = topLevelKey(bytes, index + 1, keyEnd - 1);
		// A key written twice: JSON.parse keeps the last, the rule's own reading of ids the first; left to it.
		if (key === -1 || (seen & key) !== 0) return undefined;
		seen |= key;
		index = skipSpace(bytes, keyEnd, end);
		if (byteAt(bytes, index, end) !== colon) return undefined;
		const at = skipSpace(bytes, index + 1, end);
		if (key === keyJsonrpc) {
			index = at + 5 <= end && isWord(bytes, at, at + 5, versionWord) ? at + 5 : -1;
		} else if (key === keyId) {
			if (byteAt(bytes, at, end) === quote) {
				index = skipString(bytes, at, end);
				if (index !== -1) id = sawEscape ? (JSON.parse(bytes.toString('utf8', at, index)) as string) : bytes.toString('utf8', at + 1, index - 1);
			} else {
				const integer = integerIdAt(bytes, at, end);
				index = integer?.next ?? -1;
				id = integer?.id;
			}
		} else if (key === keyMethod) {
			index = byteAt(bytes, at, end) === quote ? skipString(bytes, at, end) : -1;
			// An empty method is refused; one written with escapes is left to the full check.
			if (index === -1 || index === at + 2 || sawEscape) return undefined;
			method = methodAt(bytes, at + 1, index - 1);
		} else if (key === keyParams) {
			index = skipParams(bytes, at, end);
		} else {
			index = skipValue(bytes, at, end);
		}

		if (index === -1) return undefined;
		index = skipSpace(bytes, index, end);
		const next = byteAt(bytes, index, end);
		if (next === comma) {
			index = skipSpace(bytes, index + 1, end);
			continue;
		}

		if (next !== closeBrace || skipSpace(bytes, index + 1, end) !== end) return undefined;
		break;
	}

	if ((seen & keyJsonrpc) === 0 || method === undefined) return undefined;
	// A notification's method sent with an id is refused by the rule.
	if (id !== undefined && method.startsWith(notificationPrefix)) return undefined;
	return {id, method};
}
