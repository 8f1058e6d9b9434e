import {describe, expect, it} from 'vitest';
import {StreamOrigins} from '../../../../source/core/link/stream-origins.js';

const event = (message: Record<string, unknown>) => `event: message\ndata: ${JSON.stringify(message)}\n\n`;
const log = (data: string, extra: Record<string, unknown> = {}) => ({jsonrpc: '2.0', method: 'notifications/message', params: {level: 'info', logger: 'x', data, ...extra}});

/** A fetch answering with these SSE bytes, cut into chunks of `chunk` characters. */
function sse(text: string, chunk = text.length): typeof fetch {
	return async () => {
		const bytes = new TextEncoder().encode(text);
		const body = new ReadableStream<Uint8Array>({
			start(controller) {
				for (let at = 0; at < bytes.length; at += chunk) controller.enqueue(bytes.slice(at, at + chunk));
				controller.close();
			},
		});
		return new Response(body, {headers: {'content-type': 'text/event-stream'}});
	};
}

/** Reads the stream a wrapped fetch returns to its end, as the transport would; returns its text. */
async function read(fetcher: typeof fetch, init: RequestInit): Promise<string> {
	const response = await fetcher('http://upstream/mcp', init);
	return response.text();
}

const call = (id: string) => ({method: 'POST', body: JSON.stringify({jsonrpc: '2.0', id, method: 'tools/call', params: {name: 'log', arguments: {}}})});

describe('StreamOrigins: the call whose stream carried a log message', () => {
	it('notes each log message on a call\'s stream by its params (whatever their key order), once, and passes the bytes on unchanged', async () => {
		const origins = new StreamOrigins();
		const text = event(log('a', {_meta: {k: 1}})) + event(log('b')) + event({jsonrpc: '2.0', id: 'h1', result: {content: []}});
		expect(await read(origins.wrap(sse(text, 7)), call('h1'))).toBe(text);
		// The transport hands the params on re-parsed: `_meta` may come first.
		expect(origins.takeLog({_meta: {k: 1}, data: 'a', logger: 'x', level: 'info'})).toEqual({kind: 'call', callId: 'h1'});
		expect(origins.takeLog({_meta: {k: 1}, data: 'a', logger: 'x', level: 'info'})).toBeUndefined();
		expect(origins.takeLog(log('b').params)).toEqual({kind: 'call', callId: 'h1'});
		expect(origins.takeLog(log('never sent').params)).toBeUndefined();
	});

	it('keeps alike messages of two calls apart, one each, and notes none from the GET stream or a call hangar did not number', async () => {
		const origins = new StreamOrigins();
		await read(origins.wrap(sse(event(log('same')))), call('h1'));
		await read(origins.wrap(sse(event(log('same')))), call('h2'));
		await read(origins.wrap(sse(event(log('outside')))), {method: 'GET'});
		await read(origins.wrap(sse(event(log('foreign')))), call('7'));
		expect([origins.takeLog(log('same').params), origins.takeLog(log('same').params), origins.takeLog(log('same').params)]).toEqual([{kind: 'call', callId: 'h1'}, {kind: 'call', callId: 'h2'}, undefined]);
		expect(origins.takeLog(log('outside').params)).toBeUndefined();
		expect(origins.takeLog(log('foreign').params)).toBeUndefined();
	});

	it('holds at most a bounded number of untaken notes: past it, the oldest go', async () => {
		const origins = new StreamOrigins();
		const text = Array.from({length: 1001}, (_, at) => event(log(`m${at}`))).join('');
		await read(origins.wrap(sse(text, 4096)), call('h1'));
		expect(origins.takeLog(log('m0').params)).toBeUndefined();
		expect(origins.takeLog(log('m1').params)).toEqual({kind: 'call', callId: 'h1'});
		expect(origins.takeLog(log('m1000').params)).toEqual({kind: 'call', callId: 'h1'});
	});
});
