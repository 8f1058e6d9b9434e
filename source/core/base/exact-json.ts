/**
 * JSON read without changing its numbers. JSON.parse holds every number as
 * a double: 9007199254740993 becomes ...992, 1234567890123456789 becomes
 * 1234567890123456800, and 1e400 becomes Infinity, which JSON.stringify
 * writes as null. A message hangar parses and writes again (every one but a
 * plain tool result, which it passes on as text: forwarded-result.ts) would
 * carry those changed. `parseExact` keeps such a number as a `JSON.rawJSON`
 * of its own text (Node 22: JSON.parse's source text access), which
 * JSON.stringify writes back as it came; every other number stays a number.
 *
 * A raw number is a frozen object with no prototype and one member,
 * `rawJSON`: code that walks or copies parsed JSON takes it as a leaf
 * (`isRawJson`), never as an object to go into or spread.
 *
 * The reviver costs about four plain parses, so it only runs when the text
 * has sixteen digits in a row or a three-digit exponent (`mayLoseNumbers`,
 * a scan of the text): a false positive costs the slower parse, never a
 * number.
 *
 * The numbers hangar reads itself (the id, a cancellation's requestId, a
 * progress token, a progress note's progress and total, an error's code, a
 * task's ttl and pollInterval)
 * stay numbers as JSON.parse reads them, so the rules of
 * wire/message-classifier.ts (an id beyond 2^53 - 1 is refused, echoed as
 * written) hold as before.
 */

type RawJson = {readonly rawJSON: string};
type SourceContext = {source?: string};
type JsonWithSource = {
	rawJSON(text: string): RawJson;
	isRawJSON(value: unknown): value is RawJson;
	parse(text: string, reviver: (this: unknown, key: string, value: unknown, context: SourceContext) => unknown): unknown;
};

const json = JSON as unknown as JsonWithSource;

/**
 * Whether `text` may hold a number JSON.parse changes: 16 digits in a row
 * (beyond 2^53 has 16), or an exponent of three digits, where a number can
 * start (after a colon, a comma or a bracket): in a UUID or a traceparent
 * ("…e123…") the hex is inside a string, and read as one it made a quarter of
 * ordinary requests take the slower parse.
 */
const mayLose = /[:,[]\s*-?(?:\d{16}|\d[\d.]*[eE][+-]?\d{3})/;

/** Whether `value` is a number kept as its text (see above): a leaf, never an object to walk. */
export function isRawJson(value: unknown): value is RawJson {
	return typeof value === 'object' && value !== null && json.isRawJSON(value);
}

/** Whether a parsed number lost what its text said: not finite, or an integer beyond 2^53 - 1 that is not what was written. */
function lost(value: number, source: string): boolean {
	if (!Number.isFinite(value)) return true;
	if (Number.isSafeInteger(value) || !Number.isInteger(value)) return false;
	return /^-?\d+$/.test(source) && BigInt(source) !== BigInt(value);
}

/** Members hangar reads as numbers wherever they are (a task's ttl and pollInterval: a Long.MAX_VALUE ttl is "forever"). */
const readAsNumbers = new Set(['ttl', 'pollInterval']);

function keepNumbers(this: unknown, key: string, value: unknown, context: SourceContext): unknown {
	return typeof value === 'number' && context.source !== undefined && !readAsNumbers.has(key) && lost(value, context.source) ? json.rawJSON(context.source) : value;
}

/** JSON.parse, with every number JSON.parse would change kept as its text (see above). */
export function parseExact(text: string): unknown {
	return mayLose.test(text) ? json.parse(text, keepNumbers) : JSON.parse(text);
}

/** `parseExact` of a JSON-RPC message (see `numbersRead`). */
export function parseExactMessage(text: string): unknown {
	return mayLose.test(text) ? numbersRead(json.parse(text, keepNumbers)) : JSON.parse(text);
}

/** A message from `parseExact` with the members hangar reads as numbers made numbers again, as JSON.parse reads them. */
export function numbersRead(message: unknown): unknown {
	if (!isObject(message)) return message;
	asNumber(message, 'id');
	const params = message['params'];
	if (isObject(params)) {
		const meta = params['_meta'];
		if (isObject(meta)) asNumber(meta, 'progressToken');
		if (message['method'] === 'notifications/cancelled') asNumber(params, 'requestId');
		if (message['method'] === 'notifications/progress') {
			asNumber(params, 'progressToken');
			asNumber(params, 'progress');
			asNumber(params, 'total');
		}
	}

	const error = message['error'];
	if (isObject(error)) asNumber(error, 'code');
	return message;
}

function isObject(value: unknown): value is Record<string, unknown> {
	return typeof value === 'object' && value !== null && !Array.isArray(value) && !json.isRawJSON(value);
}

function asNumber(holder: Record<string, unknown>, key: string): void {
	const value = holder[key];
	if (isRawJson(value)) holder[key] = Number(value.rawJSON);
}
