/**
 * The bound on the sessions `serve --http` keeps: a client that sends
 * `initialize` in a loop, without ever ending a session, must not grow
 * hangar's memory without bound. Raw fetch against the built CLI.
 */
import {afterEach, describe, expect, it} from 'vitest';
import {maxHttpSessions} from '../../source/core/endpoints/http-session-cap.js';
import {fastHangar, fixture, tempDir, writeConfig} from '../support/hangar.js';
import {initializeBody, post, serveHttp, stopHttpHangars} from '../support/http-hangar.js';

afterEach(async () => {
	await stopHttpHangars();
});

/** Opens one session and returns its id. */
async function open(url: string): Promise<string> {
	const response = await post(url, initializeBody);
	expect(response.status).toBe(200);
	await response.text();
	return response.headers.get('mcp-session-id')!;
}

async function ping(url: string, session: string): Promise<number> {
	const response = await post(url, '{"jsonrpc":"2.0","id":7,"method":"ping"}', {'Mcp-Session-Id': session, 'MCP-Protocol-Version': '2025-06-18'});
	await response.text();
	return response.status;
}

describe('serve --http keeps a bounded number of sessions', () => {
	it('closes the least recently used idle session to open one past the bound, and keeps the sessions with a stream open', async () => {
		const dir = tempDir();
		const hangar = await serveHttp(writeConfig(dir, {fx: fixture('normal')}, fastHangar));
		// A session whose client listens on its GET stream is in use, however old.
		const listening = await open(hangar.url);
		const stream = await fetch(hangar.url, {headers: {Accept: 'text/event-stream', 'Mcp-Session-Id': listening, 'MCP-Protocol-Version': '2025-06-18'}});
		expect(stream.status).toBe(200);
		// The oldest idle one, then the rest of the bound.
		const idle = await open(hangar.url);
		const flood: string[] = [];
		while (flood.length < maxHttpSessions - 1) flood.push(...(await Promise.all(Array.from({length: 16}, async () => open(hangar.url)))));

		// Past the bound, the idle sessions went oldest first; the listening one stayed.
		expect(await ping(hangar.url, idle)).toBe(404);
		// One of the first batch (opened together) was the next oldest.
		const firstBatch = await Promise.all(flood.slice(0, 16).map(async session => ping(hangar.url, session)));
		expect(firstBatch.filter(status => status === 404)).toHaveLength(1);
		expect(await ping(hangar.url, listening)).toBe(200);
		expect(await ping(hangar.url, flood.at(-1)!)).toBe(200);
		const closed = hangar.stderr().split('\n').filter(line => line.includes('the least recently used idle one, to make room for a new session'));
		expect(closed.length).toBe(flood.length + 2 - maxHttpSessions);
		expect(closed[0]).toContain(idle);
		await stream.body?.cancel();
	});
});
