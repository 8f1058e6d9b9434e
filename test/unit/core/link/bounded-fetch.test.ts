import {describe, expect, it} from 'vitest';
import {boundedFetch} from '../../../../source/core/link/bounded-fetch.js';
import {LogBuffer} from '../../../../source/core/link/log-buffer.js';

/** A fetch that answers every request with `body` as `application/json`. */
function answering(body: string): typeof fetch {
	return async () => new Response(body, {status: 200, headers: {'content-type': 'application/json'}});
}

describe('boundedFetch, a remote upstream\'s JSON answer', () => {
	it('passes one JSON answer on as it came', async () => {
		const body = '{"jsonrpc":"2.0","id":1,"result":{"content":[]}}';
		const response = await boundedFetch(answering(body), 'up', 1_000_000, new LogBuffer(10))('http://127.0.0.1:1/mcp', {method: 'POST', body: '{}'});
		expect(response.headers.get('content-type')).toBe('application/json');
		expect(await response.text()).toBe(body);
	});

	it('reads several JSON-RPC messages on lines of their own (a progress, then the result) as an event stream of them', async () => {
		const progress = '{"jsonrpc":"2.0","method":"notifications/progress","params":{"progressToken":"t","progress":1}}';
		const result = '{"jsonrpc":"2.0","id":3,"result":{"content":[{"type":"text","text":"done"}]}}';
		const response = await boundedFetch(answering(`${progress}\n${result}`), 'up', 1_000_000, new LogBuffer(10))('http://127.0.0.1:1/mcp', {method: 'POST', body: '{}'});
		expect(response.headers.get('content-type')).toBe('text/event-stream');
		expect(await response.text()).toBe(`event: message\ndata: ${progress}\n\nevent: message\ndata: ${result}\n\n`);
	});

	it('leaves a body that is not JSON lines as it came (the SDK reports it)', async () => {
		const body = '{"jsonrpc":"2.0"}\nnot json';
		const response = await boundedFetch(answering(body), 'up', 1_000_000, new LogBuffer(10))('http://127.0.0.1:1/mcp', {method: 'POST', body: '{}'});
		expect(response.headers.get('content-type')).toBe('application/json');
		expect(await response.text()).toBe(body);
	});
});
