/**
 * Which call a Streamable HTTP upstream's request belongs to. An SDK server
 * sends a request it makes while handling a call (`extra.sendRequest`) on
 * that call's own response stream, and one made outside any call on the
 * session's standalone GET stream; the SDK's client transport hands both to
 * the same `onmessage` without saying which stream they came on. This
 * watches the streams as they pass (a `fetch` wrapper given to the
 * transport) and notes, for each relayed request, the id of the call whose
 * POST carried it, or that it came on the GET stream. The transport still
 * reads every byte itself; nothing here changes what it sees.
 */
import {isRelayedMethod} from './client-side.js';

/** Where a request came from: the call (hangar's id) whose stream carried it, or the upstream's own stream. */
export type StreamOrigin = {kind: 'call'; callId: string} | {kind: 'outside'};

/** Requests noted and not yet taken are few (one per relayed request in flight); past this, the oldest go. */
const noteLimit = 1000;
/** An SSE line longer than this is not inspected (its request, if any, is placed as if untied). */
const lineLimit = 1 << 20;

export class StreamOrigins {
	private readonly notes = new Map<string, StreamOrigin>();

	/** Where the relayed request with this id came from, once; undefined when nothing tied it. */
	take(id: string | number): StreamOrigin | undefined {
		const key = JSON.stringify(id);
		const origin = this.notes.get(key);
		this.notes.delete(key);
		return origin;
	}

	/** A fetch that notes the origin of every relayed request on the event streams it returns. */
	wrap(base: typeof fetch): typeof fetch {
		return async (input, init) => {
			const response = await base(input, init);
			const type = response.headers.get('content-type') ?? '';
			if (!response.ok || response.body === null || !type.includes('text/event-stream')) return response;
			const method = (init?.method ?? 'GET').toUpperCase();
			let origin: StreamOrigin | undefined;
			if (method === 'GET') origin = {kind: 'outside'};
			else if (method === 'POST') {
				const callId = postedCallId(init?.body);
				if (callId !== undefined) origin = {kind: 'call', callId};
			}

			if (origin === undefined) return response;
			const body = response.body.pipeThrough(this.watch(origin));
			return new Response(body, {status: response.status, statusText: response.statusText, headers: response.headers});
		};
	}

	private note(id: unknown, origin: StreamOrigin): void {
		if (typeof id !== 'string' && typeof id !== 'number') return;
		if (this.notes.size >= noteLimit) this.notes.delete(this.notes.keys().next().value!);
		this.notes.set(JSON.stringify(id), origin);
	}

	/** Passes the bytes on unchanged, noting each relayed request in the SSE events. */
	private watch(origin: StreamOrigin): TransformStream<Uint8Array, Uint8Array> {
		const decoder = new TextDecoder();
		let line = '';
		let skipping = false;
		let data: string[] = [];
		const endLine = (text: string): void => {
			if (text === '' || text === '\r') {
				if (data.length > 0) this.inspect(data.join('\n'), origin);
				data = [];
			} else if (text.startsWith('data:')) {
				data.push(text.slice(text.startsWith('data: ') ? 6 : 5).replace(/\r$/, ''));
			}
		};

		return new TransformStream({
			transform: (chunk, controller) => {
				const text = decoder.decode(chunk, {stream: true});
				let start = 0;
				for (let at = text.indexOf('\n'); at !== -1; at = text.indexOf('\n', start)) {
					const piece = text.slice(start, at);
					if (!skipping) endLine(line + piece);
					skipping = false;
					line = '';
					start = at + 1;
				}

				if (!skipping) line += text.slice(start);
				if (line.length > lineLimit) {
					skipping = true;
					line = '';
					data = [];
				}

				// After noting: the transport parses these bytes later than this.
				controller.enqueue(chunk);
			},
		});
	}

	private inspect(payload: string, origin: StreamOrigin): void {
		if (!payload.includes('"method"')) return;
		try {
			const message = JSON.parse(payload) as {method?: unknown; id?: unknown};
			if (typeof message.method === 'string' && isRelayedMethod(message.method)) this.note(message.id, origin);
		} catch {}
	}
}

/** The id of hangar's tools/call in a POST body ("h"-prefixed strings), if that is what it carries. */
function postedCallId(body: unknown): string | undefined {
	if (typeof body !== 'string' || !body.includes('"tools/call"')) return undefined;
	try {
		const message = JSON.parse(body) as {id?: unknown; method?: unknown};
		return message.method === 'tools/call' && typeof message.id === 'string' && message.id.startsWith('h') ? message.id : undefined;
	} catch {
		return undefined;
	}
}
