/**
 * `serve --http` as the 2025-11-25 Streamable HTTP transport describes it:
 * SSE event ids, a priming event with `retry`, resumption of a broken stream
 * with Last-Event-ID within a bounded window, JSON-RPC batches for sessions
 * that negotiated 2025-03-26 (refused for later versions), and the Origin
 * check on a non-loopback bind. Driven by raw fetch, whose SSE the test
 * parses itself, and by the SDK v1 client's StreamableHTTPClientTransport.
 */
import {CallToolResultSchema} from '@modelcontextprotocol/sdk/types.js';
import {afterEach, describe, expect, it} from 'vitest';
import {everything, fastHangar, fixture, tempDir, waitFor, writeConfig} from '../support/hangar.js';
import {connectHttp, post, serveHttp, stopHttpHangars} from '../support/http-hangar.js';

type SseEvent = {id?: string; retry?: number; event?: string; data: string};

/** Reads the events of an SSE body one at a time, as they arrive. */
class SseReader {
	private buffer = '';
	private readonly decoder = new TextDecoder();
	constructor(private readonly reader: ReadableStreamDefaultReader<Uint8Array>) {}

	async next(): Promise<SseEvent | undefined> {
		for (;;) {
			const end = this.buffer.indexOf('\n\n');
			if (end !== -1) {
				const block = this.buffer.slice(0, end);
				this.buffer = this.buffer.slice(end + 2);
				const parsed = parseEvent(block);
				if (parsed !== undefined) return parsed;
				continue;
			}

			const {value, done} = await this.reader.read();
			if (done) return undefined;
			this.buffer += this.decoder.decode(value, {stream: true});
		}
	}

	/** Drops the connection, as a network failure would. */
	async cancel(): Promise<void> {
		await this.reader.cancel();
	}

	async rest(): Promise<SseEvent[]> {
		const events: SseEvent[] = [];
		for (let next = await this.next(); next !== undefined; next = await this.next()) events.push(next);
		return events;
	}
}

/** One event block; undefined for a comment-only block (keep-alive). */
function parseEvent(block: string): SseEvent | undefined {
	const event: SseEvent = {data: ''};
	let fields = 0;
	const data: string[] = [];
	for (const line of block.split('\n')) {
		if (line.startsWith(':')) continue;
		const colon = line.indexOf(':');
		const name = colon === -1 ? line : line.slice(0, colon);
		const value = colon === -1 ? '' : line.slice(colon + 1).replace(/^ /, '');
		fields += 1;
		if (name === 'id') event.id = value;
		else if (name === 'retry') event.retry = Number(value);
		else if (name === 'event') event.event = value;
		else if (name === 'data') data.push(value);
	}

	if (fields === 0) return undefined;
	event.data = data.join('\n');
	return event;
}

/** The step of an upstream progress notification (server-everything sends a total; hangar's start-up progress does not). */
function upstreamStep(event: SseEvent): number | undefined {
	if (event.data === '') return undefined;
	const params = json(event).params as {progress?: number; total?: number} | undefined;
	return json(event).method === 'notifications/progress' && params?.total !== undefined ? params.progress : undefined;
}

const sse = (response: Response) => new SseReader(response.body!.getReader());
const json = (event: SseEvent) => JSON.parse(event.data) as {id?: unknown; method?: string; params?: {progressToken?: unknown; progress?: number}; result?: unknown; error?: {code: number; message: string}};

/** A raw session: initialize with `version`, then notifications/initialized; returns the headers its requests carry. */
async function openSession(url: string, version: string, extra: Record<string, string> = {}): Promise<Record<string, string>> {
	const opened = await post(
		url,
		JSON.stringify({jsonrpc: '2.0', id: 0, method: 'initialize', params: {protocolVersion: version, capabilities: {}, clientInfo: {name: 'resume-test', version: '1'}}}),
		extra,
	);
	expect(opened.status).toBe(200);
	const answer = (await opened.json()) as {result: {protocolVersion: string}};
	expect(answer.result.protocolVersion).toBe(version);
	const headers = {...extra, 'Mcp-Session-Id': opened.headers.get('mcp-session-id')!, 'Mcp-Protocol-Version': version};
	expect((await post(url, '{"jsonrpc":"2.0","method":"notifications/initialized"}', headers)).status).toBe(202);
	return headers;
}

const longCall = (id: number, token: string, steps: number, duration: number) =>
	JSON.stringify({jsonrpc: '2.0', id, method: 'tools/call', params: {name: 'everything__trigger-long-running-operation', arguments: {duration, steps}, _meta: {progressToken: token}}});

const resume = async (url: string, headers: Record<string, string>, lastEventId: string) =>
	fetch(url, {method: 'GET', headers: {...headers, Accept: 'text/event-stream', 'Last-Event-ID': lastEventId}});

afterEach(async () => {
	await stopHttpHangars();
});

describe('serve --http event streams (MCP 2025-11-25)', () => {
	it('opens every event stream of a 2025-11-25 session with a priming event (an id, retry, empty data), and gives every event a unique id', async () => {
		const dir = tempDir();
		const hangar = await serveHttp(writeConfig(dir, {everything: everything({lazy: false})}, fastHangar));
		const headers = await openSession(hangar.url, '2025-11-25');
		await (await post(hangar.url, JSON.stringify({jsonrpc: '2.0', id: 9, method: 'tools/call', params: {name: 'everything__echo', arguments: {message: 'warm'}}}), headers)).text();
		const response = await post(hangar.url, longCall(1, 'tok', 3, 0.3), headers);
		expect(response.headers.get('content-type')).toBe('text/event-stream');
		const events = await sse(response).rest();
		expect(events[0]).toEqual({id: expect.stringMatching(/^\d+-\d+$/) as unknown, retry: 1000, data: ''});
		// Progress (the upstream's three, and hangar's own while an instance starts, if one does), then the answer.
		const kinds = events.slice(1).map(event => json(event).method ?? json(event).id);
		expect(kinds.at(-1)).toBe(1);
		expect(kinds.slice(0, -1).every(kind => kind === 'notifications/progress')).toBe(true);
		expect(kinds.length).toBeGreaterThanOrEqual(4);
		const ids = events.map(event => event.id);
		expect(ids.every(id => typeof id === 'string')).toBe(true);
		expect(new Set(ids).size).toBe(ids.length);

		// The session's GET stream is primed too, with an id no other stream of the session has.
		const get = await fetch(hangar.url, {headers: {...headers, Accept: 'text/event-stream'}});
		const getReader = sse(get);
		const priming = await getReader.next();
		expect(priming).toMatchObject({retry: 1000, data: ''});
		expect(ids).not.toContain(priming!.id);
		await getReader.cancel();

		// A 2025-06-18 client may fail on empty data: its streams carry ids but no priming event.
		const older = await openSession(hangar.url, '2025-06-18');
		const olderEvents = await sse(await post(hangar.url, longCall(1, 'tok', 2, 0.2), older)).rest();
		expect(olderEvents.length).toBeGreaterThanOrEqual(3);
		expect(olderEvents.every(event => event.data !== '' && event.id !== undefined)).toBe(true);
		expect(json(olderEvents.at(-1)!)).toMatchObject({id: 1, result: expect.anything() as unknown});
	});

	it('replays to a dropped stream resumed with Last-Event-ID the events it missed, then the rest, and nothing of another session', async () => {
		const dir = tempDir();
		const hangar = await serveHttp(writeConfig(dir, {everything: everything({lazy: false})}, fastHangar));
		const a = await openSession(hangar.url, '2025-11-25');
		const b = await openSession(hangar.url, '2025-11-25');
		// Each session's upstream instance warm first, so no cold-start progress mixes in.
		const echo = JSON.stringify({jsonrpc: '2.0', id: 1, method: 'tools/call', params: {name: 'everything__echo', arguments: {message: 'warm'}}});
		await Promise.all([a, b].map(async headers => (await post(hangar.url, echo, headers)).text()));
		const steps = 8;
		const inA = await post(hangar.url, longCall(7, 'session-a', steps, 1.6), a);
		const inB = post(hangar.url, longCall(7, 'session-b', steps, 1.6), b);
		const reader = sse(inA);
		const priming = (await reader.next())!;
		// The upstream's first step (hangar's own progress while an instance starts, if one does, has no total,
		// and comes first: the upstream's steps are then numbered after hangar's, see ProgressRelay).
		let hangarNotes = 0;
		let firstProgress = (await reader.next())!;
		while (upstreamStep(firstProgress) === undefined) {
			if (firstProgress.data !== '' && json(firstProgress).method === 'notifications/progress') hangarNotes += 1;
			firstProgress = (await reader.next())!;
		}

		expect(upstreamStep(firstProgress)).toBe(hangarNotes + 1);
		// The client's connection breaks after the first progress; the call goes on.
		await reader.cancel();
		await new Promise(resolve => setTimeout(resolve, 600));

		const resumed = await resume(hangar.url, a, firstProgress.id!);
		expect(resumed.status).toBe(200);
		expect(resumed.headers.get('content-type')).toBe('text/event-stream');
		const replayed = await sse(resumed).rest();
		const messages = replayed.map(event => json(event));
		// Progress 2..steps (those sent while no connection was open among them), then the answer: no gap, no repeat.
		expect(replayed.map(event => upstreamStep(event)).filter(step => step !== undefined)).toEqual(
			Array.from({length: steps - 1}, (_, index) => hangarNotes + index + 2),
		);
		expect(messages.every(message => message.method === undefined || message.params?.progressToken === 'session-a')).toBe(true);
		expect(messages.at(-1)).toMatchObject({id: 7, result: {content: expect.any(Array) as unknown}});
		expect(replayed.every(event => event.id !== priming.id && event.id !== firstProgress.id)).toBe(true);

		// Session b's own stream got its own events only.
		const ofB = (await sse(await inB).rest()).filter(event => event.data !== '').map(event => json(event));
		expect(ofB.every(message => message.method === undefined || message.params?.progressToken === 'session-b')).toBe(true);
		expect(ofB.at(-1)).toMatchObject({id: 7});

		// A finished stream with nothing left to replay ends the client's polling with 204.
		const done = await resume(hangar.url, a, replayed.at(-1)!.id!);
		expect(done.status).toBe(204);
		// An id this session never sent gets 400 saying so, not another session's events.
		const foreign = await resume(hangar.url, a, 'not-an-id');
		expect(foreign.status).toBe(400);
		expect(((await foreign.json()) as {error: {message: string}}).error.message).toContain('Last-Event-ID "not-an-id" is not an event id this endpoint sent');
	});

	it('refuses a resume from before events that left the bounded window, and replays from within it', async () => {
		const dir = tempDir();
		const hangar = await serveHttp(writeConfig(dir, {fx: fixture('normal', ['--client-features'])}, fastHangar));
		const headers = await openSession(hangar.url, '2025-11-25');
		// 1200 progress notifications in one write: more than the window's 1000 events.
		const response = await post(
			hangar.url,
			JSON.stringify({jsonrpc: '2.0', id: 3, method: 'tools/call', params: {name: 'fx__progress-burst', arguments: {steps: 1200}, _meta: {progressToken: 'burst'}}}),
			headers,
		);
		const reader = sse(response);
		const priming = (await reader.next())!;
		let at: SseEvent | undefined;
		for (let index = 0; index < 300; index++) at = await reader.next();
		await reader.cancel();

		const tooOld = await resume(hangar.url, headers, priming.id!);
		expect(tooOld.status).toBe(400);
		expect(((await tooOld.json()) as {error: {message: string}}).error.message).toMatch(/too old: events after it left the resume window \(the last 1000 events or 4194304 bytes of this session\)/);

		const within = await sse(await resume(hangar.url, headers, at!.id!)).rest();
		expect(within.length).toBe(1200 - 300 + 1);
		expect(json(within[0]!).params?.progress).toBe(301);
		expect(json(within.at(-1)!)).toMatchObject({id: 3, result: expect.anything() as unknown});
	});

	it('lets the SDK client resume a call whose event stream broke mid-call, and the call completes with every progress step', async () => {
		const dir = tempDir();
		const hangar = await serveHttp(writeConfig(dir, {everything: everything({lazy: false})}, fastHangar));
		const gets: string[] = [];
		let broken = false;
		// Cuts the first event stream of a tools/call after two events (the priming event and one progress), as a network failure would.
		const breaking: typeof fetch = async (input, init) => {
			const response = await fetch(input, init);
			if (init?.method === 'GET') gets.push(new Headers(init.headers).get('last-event-id') ?? '');
			const isCall = typeof init?.body === 'string' && init.body.includes('tools/call');
			if (broken || !isCall || !(response.headers.get('content-type') ?? '').includes('text/event-stream')) return response;
			broken = true;
			const source = response.body!.getReader();
			let seen = 0;
			const body = new ReadableStream<Uint8Array>({
				async pull(controller) {
					const {value, done} = await source.read();
					if (done) {
						controller.close();
						return;
					}

					controller.enqueue(value);
					seen += new TextDecoder().decode(value).split('\n\n').length - 1;
					if (seen >= 2) {
						await source.cancel();
						controller.error(new Error('connection reset (test)'));
					}
				},
			});
			return new Response(body, {status: response.status, headers: response.headers});
		};

		const {client} = await connectHttp(hangar.url, {fetch: breaking});
		const progress: number[] = [];
		const result = await client.request(
			{method: 'tools/call', params: {name: 'everything__trigger-long-running-operation', arguments: {duration: 2.5, steps: 5}}},
			CallToolResultSchema,
			{onprogress: update => progress.push(update.progress), timeout: 20_000},
		);
		expect(broken).toBe(true);
		expect(result.content[0]).toMatchObject({type: 'text', text: expect.stringContaining('completed') as unknown});
		// It came back with GET and the last event id it had.
		expect(gets.some(id => /^\d+-\d+$/.test(id))).toBe(true);
		// No step twice and none lost but (per the SDK) possibly the last, which races the answer.
		expect(progress).toEqual([...new Set(progress)].sort((x, y) => x - y));
		expect(progress.length).toBeGreaterThanOrEqual(4);
		await client.close();
	});
});

describe('serve --http event streams that end without an answer', () => {
	it('ends the polling of a call the SDK client cancelled: its resume gets 204, not an endless stream', async () => {
		const dir = tempDir();
		const hangar = await serveHttp(writeConfig(dir, {everything: everything({lazy: false})}, fastHangar));
		const resumes: number[] = [];
		const counting: typeof fetch = async (input, init) => {
			const response = await fetch(input, init);
			if (init?.method === 'GET' && new Headers(init.headers).has('last-event-id')) resumes.push(response.status);
			return response;
		};

		const {client} = await connectHttp(hangar.url, {fetch: counting});
		const controller = new AbortController();
		const call = client.request(
			{method: 'tools/call', params: {name: 'everything__trigger-long-running-operation', arguments: {duration: 3, steps: 6}}},
			CallToolResultSchema,
			{onprogress: () => controller.abort(), signal: controller.signal},
		);
		await expect(call).rejects.toThrow();
		// The client reconnects to the ended stream (it had an event id) and is told there is nothing more.
		await waitFor(() => (resumes.includes(204) ? true : undefined), 'the cancelled stream\'s resume to get 204');
		// An absence can only be waited out: 2.5 retry intervals (retry: 1000) would see two more reconnects.
		await new Promise(resolve => setTimeout(resolve, 2500));
		expect(resumes.filter(status => status === 204)).toHaveLength(1);
		expect(resumes.length).toBeLessThanOrEqual(2);
		// The session still works.
		expect((await client.listTools()).tools.length).toBeGreaterThan(0);
		await client.close();
	});
});

describe('serve --http batches', () => {
	it('answers a batch of a 2025-03-26 session on one event stream, one answer per request, and refuses batches from 2025-06-18 on', async () => {
		const dir = tempDir();
		const hangar = await serveHttp(writeConfig(dir, {fx: fixture('normal', [], {lazy: false})}, fastHangar));
		const old = await openSession(hangar.url, '2025-03-26');
		const batch = JSON.stringify([
			{jsonrpc: '2.0', id: 'a', method: 'ping'},
			{jsonrpc: '2.0', method: 'notifications/roots/list_changed'},
			{jsonrpc: '2.0', id: 'b', method: 'tools/call', params: {name: 'fx__echo', arguments: {message: 'in a batch'}}},
			{jsonrpc: '2.0', id: 'c', method: 'initialize', params: {}},
			{jsonrpc: '1.0', id: 'd', method: 'ping'},
		]);
		const answered = await post(hangar.url, batch, old);
		expect(answered.status).toBe(200);
		expect(answered.headers.get('content-type')).toBe('text/event-stream');
		const messages = (await sse(answered).rest()).map(event => json(event));
		const byId = new Map(messages.map(message => [message.id, message]));
		expect([...byId.keys()].sort()).toEqual(['a', 'b', 'c', 'd']);
		expect(byId.get('a')).toMatchObject({result: {}});
		expect(JSON.stringify(byId.get('b'))).toContain('in a batch');
		expect(byId.get('c')?.error?.message).toContain('initialize must not be part of a JSON-RPC batch');
		expect(byId.get('d')?.error?.code).toBe(-32_600);

		// Only notifications: taken with 202.
		expect((await post(hangar.url, '[{"jsonrpc":"2.0","method":"notifications/roots/list_changed"}]', old)).status).toBe(202);
		const empty = await post(hangar.url, '[]', old);
		expect(empty.status).toBe(400);

		// 2025-06-18 removed batches: refused, as before.
		const newer = await openSession(hangar.url, '2025-06-18');
		const refused = await post(hangar.url, batch, newer);
		expect(refused.status).toBe(400);
		expect(((await refused.json()) as {error: {code: number; message: string}}).error).toMatchObject({code: -32_600, message: expect.stringContaining('batches') as unknown});
	});
});

describe('serve --http Origin check', () => {
	const token = 'origin-test-token-0123456789';

	it('refuses a browser Origin that is not allowed on a non-loopback bind, takes requests without Origin, and takes the origins of httpAllowedOrigins', async () => {
		const dir = tempDir();
		const config = writeConfig(dir, {fx: fixture('normal')}, {...fastHangar, httpAllowedOrigins: ['https://app.example.com']});
		const served = await serveHttp(config, {args: ['--host', '0.0.0.0'], env: {MCP_HANGAR_TOKEN: token}});
		const url = served.url.replace('0.0.0.0', '127.0.0.1');
		const auth = {Authorization: `Bearer ${token}`};
		const initialize = JSON.stringify({jsonrpc: '2.0', id: 1, method: 'initialize', params: {protocolVersion: '2025-11-25', capabilities: {}, clientInfo: {name: 'o', version: '1'}}});

		const evil = await post(url, initialize, {...auth, Origin: 'http://evil.example'});
		expect(evil.status).toBe(403);
		expect(await evil.json()).toEqual({error: 'forbidden_origin', message: expect.stringContaining('hangar.httpAllowedOrigins (https://app.example.com)') as unknown});
		// A loopback page is no exception beyond loopback, and neither is a rebound name equal to the Host.
		expect((await post(url, initialize, {...auth, Origin: 'http://localhost:3000'})).status).toBe(403);
		expect((await post(url, initialize, {...auth, Origin: 'null'})).status).toBe(403);

		expect((await post(url, initialize, auth)).status).toBe(200);
		expect((await post(url, initialize, {...auth, Origin: 'https://app.example.com'})).status).toBe(200);

		// The SDK client sends no Origin: it works as before.
		const {client} = await connectHttp(url, {token});
		expect((await client.listTools()).tools.map(tool => tool.name)).toContain('hangar_list');
		await client.close();
	});

	it('keeps loopback pages allowed on a loopback bind, and refuses other origins there too', async () => {
		const dir = tempDir();
		const hangar = await serveHttp(writeConfig(dir, {fx: fixture('normal')}, fastHangar));
		const initialize = JSON.stringify({jsonrpc: '2.0', id: 1, method: 'initialize', params: {protocolVersion: '2025-11-25', capabilities: {}, clientInfo: {name: 'o', version: '1'}}});
		expect((await post(hangar.url, initialize, {Origin: 'http://localhost:5173'})).status).toBe(200);
		const refused = await post(hangar.url, initialize, {Origin: 'https://app.example.com'});
		expect(refused.status).toBe(403);
		expect(((await refused.json()) as {message: string}).message).toContain('only from loopback origins or the origins in hangar.httpAllowedOrigins (none set)');
	});
});
