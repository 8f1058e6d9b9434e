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
 *
 * Log messages (`notifications/message`) too: one an SDK server logs while
 * handling a call (`extra.sendNotification`, v2's `ctx.mcpReq.log`) comes
 * on that call's stream. A notification has no id, so each is noted by a
 * hash of its params (key order aside: the transport re-parses them), in
 * arrival order; two alike from different calls may swap, which no client
 * can tell. Only those on a call's stream are noted: one on the GET stream
 * belongs to no call.
 */
import {createHash} from 'node:crypto';
import {canonicalJson} from '../base/canonical-json.js';
import {isRelayedMethod} from './client-side.js';

/** Where a request came from: the call (hangar's id) whose stream carried it, or the upstream's own stream. */
export type StreamOrigin = {kind: 'call'; callId: string} | {kind: 'outside'};

/** Requests noted and not yet taken are few (one per relayed request in flight); past this, the oldest go. */
const noteLimit = 1000;
/** An SSE line longer than this is not inspected (its request, if any, is placed as if untied). */
const lineLimit = 1 << 20;

/** A log message's key among the noted ones: the hash of its params, whatever their key order. */
function logKey(params: unknown): string {
	return createHash('sha256').update(canonicalJson(params ?? null)).digest('base64url');
}

export class StreamOrigins {
	private readonly notes = new Map<string, StreamOrigin>();
	/** The calls whose streams carried log messages not yet taken, by the messages' key, oldest first. */
	private readonly logNotes = new Map<string, string[]>();
	private logCount = 0;

	/** Where the relayed request with this id came from, once; undefined when nothing tied it. */
	take(id: string | number): StreamOrigin | undefined {
		const key = JSON.stringify(id);
		const origin = this.notes.get(key);
		this.notes.delete(key);
		return origin;
	}

	/** The call whose stream carried this log message (by its params), once; undefined when none did. */
	takeLog(params: unknown): StreamOrigin | undefined {
		if (this.logCount === 0) return undefined;
		const key = logKey(params);
		const calls = this.logNotes.get(key);
		const callId = calls?.shift();
		if (callId === undefined) return undefined;
		this.logCount -= 1;
		if (calls!.length === 0) this.logNotes.delete(key);
		return {kind: 'call', callId};
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

	private noteLog(params: unknown, callId: string): void {
		if (this.logCount >= noteLimit) {
			// The oldest key's messages go: the transport has long passed them.
			const [key, calls] = this.logNotes.entries().next().value!;
			this.logCount -= calls.length;
			this.logNotes.delete(key);
		}

		const key = logKey(params);
		const calls = this.logNotes.get(key);
		if (calls === undefined) this.logNotes.set(key, [callId]);
		else calls.push(callId);
		this.logCount += 1;
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
			const message = JSON.parse(payload) as {method?: unknown; id?: unknown; params?: unknown};
			if (typeof message.method !== 'string') return;
			if (isRelayedMethod(message.method)) this.note(message.id, origin);
			else if (message.method === 'notifications/message' && origin.kind === 'call') this.noteLog(message.params, origin.callId);
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
