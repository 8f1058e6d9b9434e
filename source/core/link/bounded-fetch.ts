/**
 * hangar.maxUpstreamMessageBytes for remote upstreams: a `fetch` wrapper
 * for the SDK's HTTP transports that bounds every message a remote upstream
 * sends, as the child-process transport bounds every line of a stdio one.
 *
 * - A JSON answer (`application/json`) is read here, counting bytes; past
 *   the limit the rest is not read, and the request is answered at once with
 *   hangar's -32009 error naming the limit and the setting (its id from the
 *   answer's first or last kilobyte, else the request's own).
 * - An event stream (`text/event-stream`, a POST's or the standalone GET's)
 *   passes through event by event; an event longer than the limit is
 *   discarded as it streams in (memory stays bounded) and, when it is an
 *   answer, replaced by an event carrying the same error for its id. The
 *   stream itself may run as long as it likes: the limit is per message.
 */
import {answerIdOfEnds} from '../wire/message-classifier.js';
import {tooLargeAnswer} from './connection-errors.js';
import type {LogBuffer} from './log-buffer.js';

/** How much of an over-long message's start and end is kept to find its id. */
const endBytes = 1024;

export function boundedFetch(base: typeof fetch, upstream: string, limit: number, log: LogBuffer): typeof fetch {
	return async (input, init) => {
		const response = await base(input, init);
		if (response.body === null) return response;
		const type = response.headers.get('content-type') ?? '';
		if (type.includes('text/event-stream')) return new Response(response.body.pipeThrough(eventLimiter(upstream, limit, log)), response);
		if (type.includes('application/json')) return boundedJson(response, upstream, limit, requestIdOf(init?.body));
		return response;
	};
}

/** Reads a JSON answer within the limit, or answers its request with hangar's error instead. */
async function boundedJson(response: Response, upstream: string, limit: number, requestId: string | number | undefined): Promise<Response> {
	const declared = Number(response.headers.get('content-length'));
	const reader = response.body!.getReader();
	const chunks: Uint8Array[] = [];
	let bytes = 0;
	let head: string | undefined;
	let tail = '';
	const decoder = new TextDecoder();
	for (;;) {
		const {done, value} = await reader.read();
		if (done) break;
		bytes += value.byteLength;
		if (bytes <= limit) {
			chunks.push(value);
			continue;
		}

		// Over the limit: keep only the ends, to find the answer's id, and read on without keeping the rest.
		if (head === undefined) {
			head = decoder.decode(Buffer.concat([...chunks, value]).subarray(0, endBytes));
			chunks.length = 0;
		}

		tail = (tail + decoder.decode(value.subarray(Math.max(0, value.byteLength - endBytes)))).slice(-endBytes);
		if (Number.isFinite(declared) && declared > limit) {
			await reader.cancel();
			bytes = declared;
			break;
		}
	}

	if (bytes <= limit) return jsonOrLines(Buffer.concat(chunks), response);
	const id = answerIdOfEnds(head ?? '', tail) ?? requestId ?? null;
	const headers = new Headers(response.headers);
	headers.delete('content-length');
	return new Response(JSON.stringify(tooLargeAnswer(upstream, id, bytes, limit)), {status: 200, headers});
}

/**
 * A JSON answer as it came, unless it is several JSON-RPC messages on
 * lines of their own (the conformance suite's reference server answers a
 * 2026-07-28 call so: its progress, then its result, which the suite's own
 * client reads): then the same messages as an event stream, which the SDK
 * reads message by message, as a client that reached it directly would.
 */
function jsonOrLines(body: Buffer, response: Response): Response {
	const same = (): Response => new Response(body, {status: response.status, statusText: response.statusText, headers: response.headers});
	const text = body.toString('utf8').trim();
	if (!text.includes('\n')) return same();
	const lines = text.split(/\r?\n/).filter(line => line.trim() !== '');
	try {
		JSON.parse(text);
		return same();
	} catch {}

	const messages: string[] = [];
	for (const line of lines) {
		try {
			const value: unknown = JSON.parse(line);
			if (typeof value !== 'object' || value === null || Array.isArray(value)) return same();
			messages.push(JSON.stringify(value));
		} catch {
			return same();
		}
	}

	const headers = new Headers(response.headers);
	headers.set('content-type', 'text/event-stream');
	headers.delete('content-length');
	return new Response(messages.map(message => `event: message\ndata: ${message}\n\n`).join(''), {status: response.status, statusText: response.statusText, headers});
}

/**
 * An event stream, event by event: an event over `limit` bytes is dropped
 * as it streams in and, if its start or end names an answer's id, replaced
 * by an event with hangar's error for that id.
 */
function eventLimiter(upstream: string, limit: number, log: LogBuffer): TransformStream<Uint8Array, Uint8Array> {
	const encoder = new TextEncoder();
	const decoder = new TextDecoder();
	/** The current event's text while it is within the limit; undefined once it is not (then only its ends are kept). */
	let event: string | undefined = '';
	let bytes = 0;
	let head = '';
	let tail = '';
	return new TransformStream({
		transform(chunk, controller) {
			let text = decoder.decode(chunk, {stream: true});
			while (text !== '') {
				const boundary = /\r?\n\r?\n/.exec(text);
				const part = boundary === null ? text : text.slice(0, boundary.index + boundary[0].length);
				text = boundary === null ? '' : text.slice(part.length);
				bytes += Buffer.byteLength(part);
				if (event !== undefined && bytes > limit) {
					head = dataOf(event + part).slice(0, endBytes);
					event = undefined;
				}

				if (event === undefined) tail = (tail + part).slice(-endBytes - 4);
				else event += part;
				if (boundary === null) continue;
				// One event ends here.
				if (event !== undefined) controller.enqueue(encoder.encode(event));
				else {
					const id = answerIdOfEnds(head, dataOf(tail).trimEnd());
					if (id === undefined) log.push('hangar', `dropped an event of ${bytes} bytes from the upstream's stream: it is over the limit of ${limit} bytes (hangar.maxUpstreamMessageBytes), and not an answer hangar could name`);
					else controller.enqueue(encoder.encode(`event: message\ndata: ${JSON.stringify(tooLargeAnswer(upstream, id, bytes, limit))}\n\n`));
				}

				event = '';
				bytes = 0;
				head = '';
				tail = '';
			}
		},
		flush(controller) {
			if (event !== undefined && event !== '') controller.enqueue(encoder.encode(event));
		},
	});
}

/** An event's text from its first `data:` field on (the message's JSON starts there). */
function dataOf(text: string): string {
	const at = text.indexOf('data:');
	if (at === -1) return '';
	const start = text[at + 5] === ' ' ? at + 6 : at + 5;
	return text.slice(start);
}

/** The id of the one request a POST body carries, if it is one. */
function requestIdOf(body: unknown): string | number | undefined {
	if (typeof body !== 'string') return undefined;
	try {
		const message = JSON.parse(body) as {id?: unknown; method?: unknown};
		return (typeof message.id === 'string' || typeof message.id === 'number') && typeof message.method === 'string' ? message.id : undefined;
	} catch {
		return undefined;
	}
}
