/**
 * A browser page at an origin `serve --http` allows can use it: the
 * browser's preflight is answered, and the answers name the page's origin
 * and expose Mcp-Session-Id, as CORS requires before a page may read them.
 * Raw fetch, sending what a browser sends, against the built CLI.
 */
import {afterEach, describe, expect, it} from 'vitest';
import {fastHangar, fixture, tempDir, writeConfig} from '../support/hangar.js';
import {post, serveHttp, stopHttpHangars} from '../support/http-hangar.js';

const token = 'test-token-0123456789abcdef';
const page = 'https://app.example.com';
const initialize = JSON.stringify({jsonrpc: '2.0', id: 1, method: 'initialize', params: {protocolVersion: '2025-11-25', capabilities: {}, clientInfo: {name: 'page', version: '1'}}});

afterEach(async () => {
	await stopHttpHangars();
});

/** The preflight a browser sends before a page's POST with MCP's headers. */
async function preflight(url: string, origin: string, method = 'POST'): Promise<Response> {
	return fetch(url, {
		method: 'OPTIONS',
		headers: {Origin: origin, 'Access-Control-Request-Method': method, 'Access-Control-Request-Headers': 'authorization,content-type,mcp-protocol-version,mcp-session-id'},
	});
}

describe('serve --http and a browser page at an allowed origin', () => {
	it('answers the page\'s preflight without a token, and lets it read the answers and the session id', async () => {
		const dir = tempDir();
		const hangar = await serveHttp(writeConfig(dir, {fx: fixture('normal')}, {...fastHangar, httpAllowedOrigins: [page]}), {env: {MCP_HANGAR_TOKEN: token}});

		const allowed = await preflight(hangar.url, page);
		expect(allowed.status).toBe(204);
		expect(allowed.headers.get('access-control-allow-origin')).toBe(page);
		expect(allowed.headers.get('access-control-allow-methods')).toBe('GET, POST, DELETE');
		expect(allowed.headers.get('access-control-allow-headers')).toBe('authorization,content-type,mcp-protocol-version,mcp-session-id');

		const opened = await post(hangar.url, initialize, {Origin: page, Authorization: `Bearer ${token}`});
		expect(opened.status).toBe(200);
		expect(opened.headers.get('access-control-allow-origin')).toBe(page);
		expect(opened.headers.get('access-control-expose-headers')).toContain('Mcp-Session-Id');
		const session = opened.headers.get('mcp-session-id')!;
		await opened.text();

		// An event stream (the session's GET) is readable by the page too.
		const stream = await fetch(hangar.url, {headers: {Origin: page, Authorization: `Bearer ${token}`, Accept: 'text/event-stream', 'Mcp-Session-Id': session, 'MCP-Protocol-Version': '2025-11-25'}});
		expect(stream.status).toBe(200);
		expect(stream.headers.get('access-control-allow-origin')).toBe(page);
		await stream.body?.cancel();

		// A page without the token reads why it was refused.
		const refused = await post(hangar.url, initialize, {Origin: page});
		expect(refused.status).toBe(401);
		expect(refused.headers.get('access-control-allow-origin')).toBe(page);
	});

	it('gives another origin no preflight and nothing it may read', async () => {
		const dir = tempDir();
		const hangar = await serveHttp(writeConfig(dir, {fx: fixture('normal')}, {...fastHangar, httpAllowedOrigins: [page]}));
		const evil = await preflight(hangar.url, 'https://evil.example');
		expect(evil.status).toBe(403);
		expect(evil.headers.get('access-control-allow-origin')).toBeNull();
		// On a loopback endpoint a loopback page is allowed, as for its requests.
		const local = await preflight(hangar.url, 'http://localhost:5173', 'DELETE');
		expect(local.status).toBe(204);
		expect(local.headers.get('access-control-allow-origin')).toBe('http://localhost:5173');
		// An OPTIONS that is no preflight (no Origin) is refused as before.
		expect((await fetch(hangar.url, {method: 'OPTIONS'})).status).toBe(405);
	});
});
