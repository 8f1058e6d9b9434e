/**
 * Audit of `serve --http` for 2026-07-28 clients, with raw HTTP: what a
 * modern client sends besides requests, and what it is answered.
 */
import {afterEach, describe, expect, it, vi} from 'vitest';
import {fastHangar, fixture, tempDir, writeConfig} from '../support/hangar.js';
import {post, serveHttp, stopHttpHangars} from '../support/http-hangar.js';

const modern = '2026-07-28';

afterEach(async () => {
	await stopHttpHangars();
});

describe('serve --http and a 2026-07-28 client\'s notifications', () => {
	it('accepts a modern client\'s notification without a session (202), as the era\'s servers do, instead of telling it to initialize', async () => {
		const hangar = await serveHttp(writeConfig(tempDir(), {fx: fixture('normal')}, fastHangar));
		// What the v2 SDK client POSTs when it closes a subscriptions/listen (it also closes that stream).
		const cancelled = await post(hangar.url, JSON.stringify({jsonrpc: '2.0', method: 'notifications/cancelled', params: {requestId: 'listen:0'}}), {
			'MCP-Protocol-Version': modern,
			'Mcp-Method': 'notifications/cancelled',
		});
		expect(cancelled.status).toBe(202);
		expect(await cancelled.text()).toBe('');
		// A 2025 client's notification without its session is still refused, with the 2025 advice.
		const legacy = await post(hangar.url, JSON.stringify({jsonrpc: '2.0', method: 'notifications/initialized'}), {'MCP-Protocol-Version': '2025-11-25'});
		expect(legacy.status).toBe(400);
		expect(await legacy.text()).toContain('no Mcp-Session-Id');
	});
});

describe('serve --http and a 2026-07-28 client\'s subscriptions/listen', () => {
	it('a listen is answered on an event stream even when the client\'s Accept names only JSON, as the SDK\'s servers do: its acknowledgement is not dropped', async () => {
		const hangar = await serveHttp(writeConfig(tempDir(), {fx: fixture('normal', [], {namespace: false})}, fastHangar));
		const ending = new AbortController();
		const response = await fetch(hangar.url, {
			method: 'POST',
			signal: ending.signal,
			headers: {'Content-Type': 'application/json', Accept: 'application/json', 'MCP-Protocol-Version': modern, 'Mcp-Method': 'subscriptions/listen'},
			body: JSON.stringify({
				jsonrpc: '2.0',
				id: 'listen-1',
				method: 'subscriptions/listen',
				params: {
					notifications: {toolsListChanged: true},
					_meta: {'io.modelcontextprotocol/protocolVersion': modern, 'io.modelcontextprotocol/clientCapabilities': {}, 'io.modelcontextprotocol/clientInfo': {name: 'json-only', version: '1'}},
				},
			}),
		});
		try {
			expect(response.status).toBe(200);
			expect(response.headers.get('content-type')).toContain('text/event-stream');
			const reader = response.body!.getReader();
			let text = '';
			while (!text.includes('\n\n')) {
				const {value, done} = await reader.read();
				if (done) break;
				text += new TextDecoder().decode(value);
			}

			expect(text).toContain('notifications/subscriptions/acknowledged');
		} finally {
			ending.abort();
		}
	});
});

/** An open listen's messages as they arrive, and how to end it. */
function openListen(url: string, client: string, notifications: Record<string, unknown>): {messages: Array<{method?: string; params?: {uri?: string}}>; end: () => void} {
	const ending = new AbortController();
	const messages: Array<{method?: string; params?: {uri?: string}}> = [];
	void (async () => {
		const response = await fetch(url, {
			method: 'POST',
			signal: ending.signal,
			headers: {'Content-Type': 'application/json', Accept: 'application/json, text/event-stream', 'MCP-Protocol-Version': modern, 'Mcp-Method': 'subscriptions/listen'},
			body: JSON.stringify({
				jsonrpc: '2.0',
				id: `listen-${client}`,
				method: 'subscriptions/listen',
				params: {notifications, _meta: {'io.modelcontextprotocol/protocolVersion': modern, 'io.modelcontextprotocol/clientCapabilities': {}, 'io.modelcontextprotocol/clientInfo': {name: client, version: '1'}}},
			}),
		});
		let text = '';
		for await (const chunk of response.body!) {
			text += new TextDecoder().decode(chunk as Uint8Array);
			const events = text.split('\n\n');
			text = events.pop()!;
			for (const event of events) for (const line of event.split('\n')) if (line.startsWith('data: ')) messages.push(JSON.parse(line.slice(6)) as {method?: string});
		}
	})().catch(() => {});
	return {messages, end: () => ending.abort()};
}

describe('serve --http: two 2026-07-28 clients\' listens on one shared upstream', () => {
	it('each listen gets the resources/updated of the URIs it asked for, never another client\'s', async () => {
		const hangar = await serveHttp(writeConfig(tempDir(), {fx: fixture('normal', ['--resources-count', '2'], {namespace: false, instances: 'shared'})}, fastHangar));
		const updated = (listen: ReturnType<typeof openListen>, uri: string) => listen.messages.filter(message => message.method === 'notifications/resources/updated' && message.params?.uri === uri);
		const b = openListen(hangar.url, 'b', {toolsListChanged: true, resourcesListChanged: true});
		const a = openListen(hangar.url, 'a', {resourceSubscriptions: ['fixture://item/0']});
		try {
			await vi.waitFor(() => expect(b.messages.some(message => message.method === 'notifications/subscriptions/acknowledged')).toBe(true), {timeout: 15_000});
			// The fixture tells each subscriber of a URI it changed, once subscribed.
			await vi.waitFor(() => expect(updated(a, 'fixture://item/0')).toHaveLength(1), {timeout: 15_000});
			// B then watches another URI: its update comes after anything of A's URI would have.
			const b2 = openListen(hangar.url, 'b', {resourceSubscriptions: ['fixture://item/1']});
			try {
				await vi.waitFor(() => expect(updated(b2, 'fixture://item/1')).toHaveLength(1), {timeout: 15_000});
				expect(updated(b, 'fixture://item/0')).toEqual([]);
				expect(updated(b2, 'fixture://item/0')).toEqual([]);
				expect(updated(a, 'fixture://item/1')).toEqual([]);
			} finally {
				b2.end();
			}
		} finally {
			a.end();
			b.end();
		}
	});
});

describe('serve --http and a protocol version hangar does not speak', () => {
	it('a request whose MCP-Protocol-Version header names an unknown version is refused with the versions hangar speaks, with or without a session', async () => {
		const hangar = await serveHttp(writeConfig(tempDir(), {fx: fixture('normal')}, fastHangar));
		const speaks = ['2026-07-28', '2025-11-25', '2025-06-18', '2025-03-26', '2024-11-05', '2024-10-07'];
		// No session and no envelope, only the header: a client of a later revision than hangar's.
		const future = await post(hangar.url, JSON.stringify({jsonrpc: '2.0', id: 1, method: 'tools/list', params: {}}), {'MCP-Protocol-Version': '2099-01-01', 'Mcp-Method': 'tools/list'});
		expect(future.status).toBe(400);
		const refusal = ((await future.json()) as {error: {code: number; message: string; data: {supported: string[]; requested: string}}}).error;
		expect(refusal.code).toBe(-32_022);
		expect(refusal.data).toEqual({supported: speaks, requested: '2099-01-01'});
		for (const version of speaks) expect(refusal.message).toContain(version);

		// A 2025 session whose request names 2026-07-28 in the header: hangar speaks it, not in a session, and says so.
		const opened = await post(hangar.url, JSON.stringify({jsonrpc: '2.0', id: 2, method: 'initialize', params: {protocolVersion: '2025-11-25', capabilities: {}, clientInfo: {name: 'raw', version: '1'}}}));
		const session = opened.headers.get('mcp-session-id')!;
		await opened.text();
		const mixed = await post(hangar.url, JSON.stringify({jsonrpc: '2.0', id: 3, method: 'tools/list', params: {}}), {'MCP-Protocol-Version': '2026-07-28', 'Mcp-Session-Id': session});
		expect(mixed.status).toBe(400);
		const message = ((await mixed.json()) as {error: {message: string}}).error.message;
		expect(message).not.toMatch(/Unsupported protocol version: 2026-07-28 \(supported versions: 2025/);
		expect(message).toContain('params._meta');
		expect(message).toContain('2025-11-25');
	});
});
