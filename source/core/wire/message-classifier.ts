/**
 * The one JSON-RPC rule. Every message hangar reads (from a client over
 * stdio, the local socket, HTTP or the `--stdio` bridge, and from an upstream
 * child process) is classified here into a request, a notification, a
 * response, or a problem that says what is wrong in words a client's author
 * can act on. The SDK only ever sees what its own schemas accept: what they
 * refuse it drops without a word, so a `ping` with id 1.5 or with a `_meta`
 * that is not an object used to get no answer at all.
 *
 * - One JSON object per message: batches were removed from MCP (2025-06-18).
 *   A UTF-8 byte order mark before it is ignored (RFC 8259 allows that).
 * - `"jsonrpc"` is `"2.0"`.
 * - An id is a string, or an integer written the way JSON.stringify writes it
 *   and within ±(2^53 − 1). Anything else (1.5, 1.0, 1e300, -0,
 *   9007199254740993) is refused with -32600, and a number is echoed back
 *   exactly as it was received: JSON.parse turns 9007199254740993 into
 *   ...992, which may be the id of another request. Other ids (null, true,
 *   objects) are answered with id null.
 * - A request's method is a non-empty string, its params an object, and
 *   `params._meta` an object whose `progressToken` is a string or an integer.
 * - A `notifications/...` method sent with an id is refused with -32601 and
 *   not acted on: a notification has no id, and a request by that name does
 *   not exist.
 * - Members JSON-RPC does not define are ignored: they are dropped before the
 *   SDK, whose schemas would refuse the whole message for them.
 * - A notification or a response is never answered, even when it is wrong
 *   (JSON-RPC answers neither; two peers answering each other's bad answers
 *   could go on forever): its problem is only reported. Input that cannot be
 *   read as a message at all is answered with id null.
 *
 * Requests that reuse the id of a request still in flight are refused at
 * each transport's edge, with `duplicateIdProblem`, since only the edge
 * knows what is in flight.
 */
import {ErrorCode, JsonRpcCode} from '../base/errors.js';
import {parseExactMessage} from '../base/exact-json.js';
import {notificationPrefix} from './protocol.js';

export type Id = string | number;

export type MessageProblem = {
	code: number;
	message: string;
	/** The id as read when it is a string or a number (a refused number too), else null. */
	id: Id | null;
	/** The id's JSON text as received, when JSON.stringify(id) would write something else (1e300, 9007199254740993). */
	idText?: string;
	/** The problem of a notification or a response: JSON-RPC answers neither, so it is only reported (HTTP still refuses the POST). */
	silent?: true;
};

export type CheckedMessage = {
	kind: 'request' | 'notification' | 'response';
	method: string | undefined;
	id: Id | undefined;
	params: Record<string, unknown> | undefined;
	/** The message to pass on: as parsed, less the members JSON-RPC does not define. */
	value: Record<string, unknown>;
};

/** A JSON object: not null, not an array. */
export function isPlainObject(value: unknown): value is Record<string, unknown> {
	return typeof value === 'object' && value !== null && !Array.isArray(value);
}

export function isProblem(checked: CheckedMessage | MessageProblem): checked is MessageProblem {
	return 'code' in checked;
}

/** One newline-delimited message (stdio, the local socket, an upstream's stdout). */
export function checkJsonRpcLine(text: string): CheckedMessage | MessageProblem {
	return classify(text, 'line');
}

/** One HTTP POST body. */
export function checkJsonRpcBody(text: string): CheckedMessage | MessageProblem {
	return classify(text, 'body');
}

function classify(text: string, frame: 'line' | 'body'): CheckedMessage | MessageProblem {
	const json = text.charCodeAt(0) === 0xfe_ff ? text.slice(1) : text;
	let value: unknown;
	try {
		value = parseExactMessage(json);
	} catch (error) {
		const detail = json.trim() === '' ? `the ${frame} is empty` : `the ${frame} is not valid JSON (${(error as Error).message})`;
		return {code: JsonRpcCode.ParseError, message: `Parse error: ${detail}. Send one JSON-RPC 2.0 message as a JSON object.`, id: null};
	}

	return checkJsonRpcMessage(value, json);
}

const requestMembers = ['jsonrpc', 'id', 'method', 'params'];
const notificationMembers = ['jsonrpc', 'method', 'params'];
const resultMembers = ['jsonrpc', 'id', 'result'];
const errorMembers = ['jsonrpc', 'id', 'error'];

/** The message key the SDK reads a request's task from (MCP 2025-11-25). */
const relatedTaskKey = 'io.modelcontextprotocol/related-task';

/**
 * Checks a parsed value; `text`, the JSON it was parsed from, lets a numeric
 * id be checked and echoed as it was written.
 */
export function checkJsonRpcMessage(value: unknown, text?: string): CheckedMessage | MessageProblem {
	if (Array.isArray(value)) return invalid('JSON-RPC batches are not supported by MCP; send one message per request');
	if (!isPlainObject(value)) return invalid(`expected a JSON-RPC 2.0 message object, got ${value === null ? 'null' : typeof value}`);

	const rawId = value['id'];
	const hasId = 'id' in value;
	let id: Id | null = null;
	let idText: string | undefined;
	let usable = false;
	if (typeof rawId === 'string') {
		id = rawId;
		usable = true;
	} else if (typeof rawId === 'number') {
		id = rawId;
		const written = text === undefined ? undefined : numericIdText(text, rawId);
		if (written !== undefined && written !== String(rawId)) idText = written;
		usable = Number.isSafeInteger(rawId) && idText === undefined;
	}

	/** The id to echo: every string or number, as written (built only for a problem). */
	const echo = (): Echo => (idText === undefined ? {id} : {id, idText});
	const isResponse = !('method' in value) && ('result' in value || 'error' in value);
	const silent = isResponse ? quiet : undefined;
	if (value['jsonrpc'] !== '2.0') return invalid('"jsonrpc" must be "2.0"', echo(), silent);
	if (hasId && !usable && !isResponse) return invalid(idProblem(rawId, idText), echo());

	if ('method' in value) {
		const method = value['method'];
		if (typeof method !== 'string' || method === '') return invalid('"method" must be a non-empty string', echo());
		const params = value['params'];
		const paramsProblem = checkParams(method, params);
		if (paramsProblem !== undefined) return {code: JsonRpcCode.InvalidParams, message: `Invalid params: ${paramsProblem}`, ...echo(), ...(hasId ? {} : quiet)};
		if (!hasId) return {kind: 'notification', method, id: undefined, params: params as CheckedMessage['params'], value: known(value, notificationMembers)};
		if (method.startsWith(notificationPrefix)) {
			return {code: JsonRpcCode.MethodNotFound, message: `Method not found: "${method}" is a notification and was not acted on; send it without an "id"`, ...echo()};
		}

		return {kind: 'request', method, id: id!, params: params as CheckedMessage['params'], value: known(value, requestMembers)};
	}

	if (isResponse) {
		if (!usable) return invalid(hasId && id !== null ? idProblem(rawId, idText) : 'a response needs the "id" of the request it answers', echo(), silent);
		if ('result' in value && 'error' in value) return invalid('a response has "result" or "error", not both', echo(), silent);
		if ('result' in value) {
			if (!isPlainObject(value['result'])) return invalid('"result" must be an object', echo(), silent);
			return {kind: 'response', method: undefined, id: id!, params: undefined, value: known(value, resultMembers)};
		}

		const error = value['error'];
		if (!isPlainObject(error) || !Number.isInteger(error['code']) || typeof error['message'] !== 'string') {
			return invalid('"error" must be an object with an integer "code" and a string "message"', echo(), silent);
		}

		return {kind: 'response', method: undefined, id: id!, params: undefined, value: known(value, errorMembers)};
	}

	return invalid('expected a request ("method" and "id"), a notification ("method") or a response ("result" or "error")', echo());
}

type Echo = {id: Id | null; idText?: string};
const quiet = {silent: true} as const;

function invalid(problem: string, echo: Echo = {id: null}, silent?: typeof quiet): MessageProblem {
	return {code: JsonRpcCode.InvalidRequest, message: `Invalid Request: ${problem}`, ...echo, ...silent};
}

function idProblem(id: unknown, idText: string | undefined): string {
	const written = idText ?? (typeof id === 'number' ? JSON.stringify(id) : undefined);
	if (written !== undefined && /^-?\d+$/.test(written) && !Number.isSafeInteger(Number(written))) {
		return `"id" ${written} is beyond the integers hangar can echo exactly (-9007199254740991 to 9007199254740991); use a smaller integer or a string`;
	}

	return '"id" must be a string or an integer (MCP does not allow null ids)';
}

/** What is wrong with a request's or a notification's params, or undefined. */
function checkParams(method: string, params: unknown): string | undefined {
	if (params === undefined) return undefined;
	if (!isPlainObject(params)) return `"params" of "${method}" must be an object`;
	const meta = params['_meta'];
	if (meta === undefined) return undefined;
	if (!isPlainObject(meta)) return `"params._meta" of "${method}" must be an object`;
	const token = meta['progressToken'];
	if (token !== undefined && typeof token !== 'string' && !Number.isSafeInteger(token)) {
		return `"params._meta.progressToken" of "${method}" must be a string or an integer`;
	}

	const task = meta[relatedTaskKey];
	if (task !== undefined && !(isPlainObject(task) && typeof task['taskId'] === 'string')) {
		return `"params._meta" of "${method}" has "${relatedTaskKey}" without a string "taskId"`;
	}

	return undefined;
}

/** `value` with only the `members` JSON-RPC defines; the same object when it has no others (the usual case). */
function known(value: Record<string, unknown>, members: readonly string[]): Record<string, unknown> {
	let extra = false;
	for (const key in value) {
		if (!members.includes(key)) {
			extra = true;
			break;
		}
	}

	if (!extra) return value;
	const kept: Record<string, unknown> = {};
	for (const key of members) if (key in value) kept[key] = value[key];
	return kept;
}

// ---------------------------------------------------------------------------
// Ids as written

const numberPattern = '-?\\d+(?:\\.\\d+)?(?:[eE][+-]?\\d+)?';
/** `{"jsonrpc":"2.0","id":N` or `{"id":N` at the start: a top-level member. */
const headNumericId = new RegExp(`^\\s*\\{\\s*(?:"jsonrpc"\\s*:\\s*"2\\.0"\\s*,\\s*)?"id"\\s*:\\s*(${numberPattern})\\s*[,}]`);
/** `"id":N}` at the very end, after a comma: in valid JSON only the last member of the top-level object can end there. */
const tailNumericId = new RegExp(`"id"\\s*:\\s*(${numberPattern})\\s*\\}\\s*$`, 'y');

/**
 * How the top-level numeric id `id` was written in `text`. The layouts
 * clients write (id first, or last as the SDK does) are read with an
 * anchored pattern; anything else is scanned.
 */
function numericIdText(text: string, id: number): string | undefined {
	const head = headNumericId.exec(text)?.[1];
	// A second "id" later in the object would be the one JSON.parse kept.
	if (head !== undefined && Object.is(Number(head), id)) return head;
	const tail = tailIdText(text);
	if (tail !== undefined) return tail;
	return topLevelIdText(text, false);
}

/** The id of the tail layout, found from the last `"id"` (nothing can follow a last member but its value and `}`). */
function tailIdText(text: string): string | undefined {
	const at = text.lastIndexOf('"id"');
	if (at <= 0) return undefined;
	let before = at - 1;
	while (before > 0 && isSpace(text.charCodeAt(before))) before -= 1;
	if (text.charCodeAt(before) !== 0x2c /* , */) return undefined;
	tailNumericId.lastIndex = at;
	return tailNumericId.exec(text)?.[1];
}

/**
 * The JSON text of a request's id from the first bytes of its line (a line
 * too long to read whole), or "null". Only a key of the outermost object
 * counts (an `"id"` inside `params` is not the request's), and only a value
 * known to be complete (one cut off by the end of the prefix could be another
 * id).
 */
export function idTextOfPrefix(prefix: string): string {
	return topLevelIdText(prefix, true) ?? 'null';
}

/** A request's or notification's start: its `"method"` comes before anything but `"jsonrpc"` and `"id"`. */
const headMethod = /^\s*\{\s*(?:"jsonrpc"\s*:\s*"2\.0"\s*,\s*)?(?:"id"\s*:\s*(?:"(?:[^"\\]|\\.)*"|-?\d+)\s*,\s*)?(?:"jsonrpc"\s*:\s*"2\.0"\s*,\s*)?"method"\s*:/;
/** `"id":"…"` or `"id":N` as the last member of the outermost object, at the very end of the text. */
const tailId = /"id"\s*:\s*("(?:[^"\\]|\\.)*"|-?\d+)\s*\}\s*$/;

/**
 * The id of an answer too long to read whole, from its first and last
 * kilobyte: a top-level `"id"` in the first (id written first), else one that
 * ends the outermost object in the last (id written last, as the SDK does).
 * Undefined when neither holds one, or when the line starts as a request or
 * a notification does (its `"method"` first): only an answer's id is wanted.
 */
export function answerIdOfEnds(prefix: string, suffix: string): string | number | undefined {
	if (headMethod.test(prefix)) return undefined;
	const text = topLevelIdText(prefix, true) ?? tailId.exec(suffix)?.[1];
	if (text === undefined) return undefined;
	try {
		const id = JSON.parse(text) as unknown;
		return typeof id === 'string' || (typeof id === 'number' && Number.isSafeInteger(id)) ? id : undefined;
	} catch {
		return undefined;
	}
}

/**
 * The written value of the last top-level `"id"` member of `text` when it is
 * a string or a number (JSON.parse keeps the last of duplicate keys). With
 * `partial`, `text` may be cut off anywhere, and a value counts only when a
 * `,` or `}` follows it.
 */
function topLevelIdText(text: string, partial: boolean): string | undefined {
	let depth = 0;
	let found: string | undefined;
	let index = 0;
	while (index < text.length) {
		const char = text.charCodeAt(index);
		if (char === 0x22 /* " */) {
			const end = stringEnd(text, index);
			if (end === -1) return found;
			if (depth === 1 && end - index === 4 && text.startsWith('"id"', index)) {
				const colon = skipSpace(text, end);
				if (text.charCodeAt(colon) === 0x3a /* : */) {
					const value = valueText(text, skipSpace(text, colon + 1), partial);
					if (value === null) return found;
					found = value;
				}
			}

			index = end;
			continue;
		}

		if (char === 0x7b /* { */ || char === 0x5b /* [ */) depth += 1;
		else if (char === 0x7d /* } */ || char === 0x5d /* ] */) depth -= 1;
		index += 1;
	}

	return found;
}

const numberAt = new RegExp(numberPattern, 'y');

/** The string or number token at `start`; undefined for another kind of value, null when it may be cut off. */
function valueText(text: string, start: number, partial: boolean): string | undefined | null {
	let end: number;
	if (text.charCodeAt(start) === 0x22) {
		end = stringEnd(text, start);
		if (end === -1) return null;
	} else {
		numberAt.lastIndex = start;
		const number = numberAt.exec(text);
		if (number === null) return undefined;
		end = start + number[0].length;
	}

	if (partial) {
		const next = text.charCodeAt(skipSpace(text, end));
		if (next !== 0x2c /* , */ && next !== 0x7d /* } */) return null;
	}

	return text.slice(start, end);
}

/** The index just past the string token starting at `start`, or -1 when it does not end in `text`. */
function stringEnd(text: string, start: number): number {
	let from = start + 1;
	for (;;) {
		const quote = text.indexOf('"', from);
		if (quote === -1) return -1;
		let backslashes = 0;
		while (text.charCodeAt(quote - 1 - backslashes) === 0x5c) backslashes += 1;
		if (backslashes % 2 === 0) return quote + 1;
		from = quote + 1;
	}
}

function isSpace(char: number): boolean {
	return char === 0x20 || char === 0x09 || char === 0x0a || char === 0x0d;
}

function skipSpace(text: string, index: number): number {
	while (index < text.length && isSpace(text.charCodeAt(index))) index += 1;
	return index;
}

// ---------------------------------------------------------------------------
// Answers

/** The id to write in the answer to `problem`: as received, or null. */
export function answerIdText(problem: MessageProblem): string {
	return problem.idText ?? JSON.stringify(problem.id);
}

/** A JSON-RPC error response as one line of JSON (no newline), with `idText` written as is. */
export function errorLine(idText: string, code: number, message: string, data?: unknown): string {
	return `{"jsonrpc":"2.0","id":${idText},"error":${JSON.stringify(data === undefined ? {code, message} : {code, message, data})}}`;
}

/** A request whose id is already used by a request of the same client that has not been answered. */
/** The most requests one client connection may have in flight at once (see tooManyInFlightProblem). */
export const maxInFlightPerClient = 1000;

/**
 * A request past `limit` in flight on one connection: refused at once, so
 * that what one client sends and does not wait for cannot make hangar hold
 * answers without bound (core/wire/backlog.ts stops reading a client that
 * does not read; this bounds what it sent before that).
 */
export function tooManyInFlightProblem(id: Id, limit: number): MessageProblem {
	return {
		code: ErrorCode.TooManyInFlight,
		message: `request refused: this client has ${limit} requests in flight, the most hangar takes from one client; wait for answers before sending more`,
		id,
	};
}

export function duplicateIdProblem(id: Id): MessageProblem {
	return {
		code: JsonRpcCode.InvalidRequest,
		message: `Invalid Request: request id ${JSON.stringify(id)} is already in use by a request in flight; give each request its own id`,
		id,
	};
}

// ---------------------------------------------------------------------------
// Lines from a trusted peer

/** What a relay needs to know of a line: its id, its method, and whether it is a (error) response. */
export type Peek = {id: Id | undefined; method: string | undefined; response: boolean; error: boolean};

const idPattern = '(-?\\d+|"(?:[^"\\\\]|\\\\.)*")';
/** Hangar's own writes: {"jsonrpc":"2.0","id":X,"result"|"error"... */
const headResponse = new RegExp(`^\\{"jsonrpc":"2\\.0","id":${idPattern},"(result|error)"`);
/** The SDK's: {"result"|"error":...,"jsonrpc":"2.0","id":X} (a raw `,"id":X}` at the very end can only be a top-level key). */
const tailResponseId = new RegExp(`,"id":${idPattern}\\}$`, 'y');

function parsedId(text: string): Id {
	return text.startsWith('"') ? (JSON.parse(text) as string) : Number(text);
}

/**
 * The shape of a line hangar (or the SDK inside it) wrote, read cheaply for
 * the two layouts they write and parsed otherwise; undefined when it is not
 * a JSON object. Not a check: for lines from a peer that already checked
 * what it sends.
 */
export function peekMessage(line: string): Peek | undefined {
	const head = headResponse.exec(line);
	if (head !== null) return {id: parsedId(head[1]!), method: undefined, response: true, error: head[2] === 'error'};
	if (line.startsWith('{"result":') || line.startsWith('{"error":')) {
		// `,"id":` cannot occur inside a JSON string (its quotes would be escaped): the last one is the id's.
		tailResponseId.lastIndex = Math.max(0, line.lastIndexOf(',"id":'));
		const tail = tailResponseId.exec(line);
		if (tail !== null) return {id: parsedId(tail[1]!), method: undefined, response: true, error: line.startsWith('{"error":')};
	}

	let value: unknown;
	try {
		value = JSON.parse(line);
	} catch {
		return undefined;
	}

	if (!isPlainObject(value)) return undefined;
	const id = typeof value['id'] === 'string' || typeof value['id'] === 'number' ? value['id'] : undefined;
	const method = typeof value['method'] === 'string' ? value['method'] : undefined;
	return {id, method, response: method === undefined && ('result' in value || 'error' in value), error: method === undefined && 'error' in value};
}
