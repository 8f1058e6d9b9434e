/**
 * Audit of `serve --http` for 2026-07-28 clients, with raw HTTP: what a
 * modern client sends besides requests, and what it is answered.
 */
import {afterEach, describe, expect, it} from 'vitest';
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
