/**
 * W3C trace context between `_meta` and HTTP headers. MCP carries a
 * request's `traceparent`, `tracestate` and `baggage` in its `_meta`; over
 * HTTP the same context travels in headers of those names, which is where
 * a remote upstream's HTTP stack (and a proxy in front of it) looks.
 *
 * - `withTraceHeaders(fetch)`: the fetch a remote upstream's transport is
 *   given; a POST whose one JSON-RPC message carries a valid trace context
 *   in `params._meta` gets the same values as headers. A body without the
 *   word "traceparent" is not parsed.
 * - `metaWithTraceHeaders`: the HTTP endpoint's side: a client request whose
 *   `_meta` has no `traceparent` takes the HTTP request's headers into it.
 */
import {isPlainObject} from '../wire/message-classifier.js';

export const traceFields = ['traceparent', 'tracestate', 'baggage'] as const;

/** A W3C traceparent: version, trace id, parent id, flags (any version's first four fields). */
const validTraceparent = /^[\da-f]{2}-[\da-f]{32}-[\da-f]{16}-[\da-f]{2}(?:-.*)?$/;
/** What an HTTP header value may hold: visible ASCII, spaces and tabs (no CR, LF or NUL, nothing past 0x7E). */
const headerValue = /^[\t\x20-\x7E]*$/;

/**
 * The W3C fields of `meta` that can go in headers: a valid traceparent,
 * and the other fields that are header values. A client's `_meta` is its
 * own words: anything else stays in `_meta` only, where the upstream gets
 * it as the client sent it (a header value with CR LF would make the
 * upstream's request fail, or add a header of the client's choosing).
 */
function traceOf(meta: unknown): Array<[string, string]> {
	if (!isPlainObject(meta) || typeof meta['traceparent'] !== 'string' || !validTraceparent.test(meta['traceparent']) || !headerValue.test(meta['traceparent'])) return [];
	return traceFields.flatMap(field => {
		const value = meta[field];
		return typeof value === 'string' && headerValue.test(value) ? [[field, value] as [string, string]] : [];
	});
}

export function withTraceHeaders(base: typeof fetch): typeof fetch {
	return async (input, init) => {
		const body = init?.body;
		if (typeof body !== 'string' || !body.includes('"traceparent"')) return base(input, init);
		let fields: Array<[string, string]> = [];
		try {
			const message: unknown = JSON.parse(body);
			if (isPlainObject(message) && isPlainObject(message['params'])) fields = traceOf(message['params']['_meta']);
		} catch {}

		if (fields.length === 0) return base(input, init);
		const headers = new Headers(init?.headers);
		for (const [field, value] of fields) if (!headers.has(field)) headers.set(field, value);
		return base(input, {...init, headers});
	};
}

/**
 * A client request's message with the HTTP request's trace headers put in
 * its `params._meta`, when it has none of its own there. Returns whether it
 * changed the message.
 */
export function metaWithTraceHeaders(message: Record<string, unknown>, headers: Record<string, string | string[] | undefined>): boolean {
	const traceparent = headers['traceparent'];
	if (typeof traceparent !== 'string') return false;
	const params = isPlainObject(message['params']) ? message['params'] : {};
	const meta = isPlainObject(params['_meta']) ? params['_meta'] : {};
	if (meta['traceparent'] !== undefined) return false;
	const added: Record<string, string> = {traceparent};
	for (const field of ['tracestate', 'baggage'] as const) {
		const value = headers[field];
		if (typeof value === 'string') added[field] = value;
	}

	message['params'] = {...params, _meta: {...meta, ...added}};
	return true;
}
