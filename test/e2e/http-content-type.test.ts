/**
 * `serve --http` refuses a POST whose Content-Type is not application/json
 * as the MCP SDK's Streamable HTTP servers do (v1's transport, v2's
 * createMcpHandler): 415 with a JSON-RPC error body, id null, before the body
 * is read, on both protocol generations' paths. Real clients (the SDK's
 * Streamable HTTP clients, v1 and a pinned 2026-07-28 v2) still connect, and
 * a media type with parameters or in other case is still JSON.
 */
import {Client as ModernClient, StreamableHTTPClientTransport as ModernHttp} from '@modelcontextprotocol/client';
import {afterEach, describe, expect, it} from 'vitest';
import {fastHangar, fixture, tempDir, writeConfig} from '../support/hangar.js';
import {connectHttp, initializeBody, messagesOf, post, serveHttp, stopHttpHangars} from '../support/http-hangar.js';
import {modernRevision} from '../support/modern-wire.js';

afterEach(async () => {
	await stopHttpHangars();
});

const unsupported = {jsonrpc: '2.0', id: null, error: {code: -32_000, message: 'Unsupported Media Type: Content-Type must be application/json'}};

const modernToolsList = JSON.stringify({
	jsonrpc: '2.0',
	id: 7,
	method: 'tools/list',
	params: {_meta: {'io.modelcontextprotocol/protocolVersion': modernRevision, 'io.modelcontextprotocol/clientCapabilities': {}, 'io.modelcontextprotocol/clientInfo': {name: 'raw', version: '1'}}},
});
const modernHeaders = {'Mcp-Protocol-Version': modernRevision, 'Mcp-Method': 'tools/list'};

/** A POST with no Content-Type header at all (fetch adds text/plain to a string body, none to bytes). */
async function postBare(url: string, body: string, headers: Record<string, string> = {}): Promise<Response> {
	return fetch(url, {method: 'POST', headers: {Accept: 'application/json, text/event-stream', ...headers}, body: new TextEncoder().encode(body)});
}

describe('serve --http: the Content-Type of a POST', () => {
	it('answers a POST that is not application/json with 415 and the SDK transport\'s JSON-RPC error, on the 2025 and the 2026-07-28 paths', async () => {
		const dir = tempDir();
		const hangar = await serveHttp(writeConfig(dir, {fx: fixture('normal')}, fastHangar));

		const refusals = [
			await post(hangar.url, initializeBody, {'Content-Type': 'text/plain'}),
			await postBare(hangar.url, initializeBody),
			await post(hangar.url, initializeBody, {'Content-Type': 'application/jsonx'}),
			await post(hangar.url, modernToolsList, {'Content-Type': 'text/plain', ...modernHeaders}),
			await postBare(hangar.url, modernToolsList, modernHeaders),
			// A 2026-07-28 notification (no session): refused as well, not accepted with 202.
			await post(hangar.url, JSON.stringify({jsonrpc: '2.0', method: 'notifications/cancelled', params: {requestId: 1}}), {'Content-Type': 'text/plain', 'Mcp-Protocol-Version': modernRevision}),
			// The media type is checked before the body is parsed, as the SDK does.
			await post(hangar.url, 'not json', {'Content-Type': 'text/plain'}),
		];
		for (const response of refusals) {
			expect(response.status).toBe(415);
			expect(response.headers.get('content-type')).toBe('application/json');
			expect(await response.json()).toEqual(unsupported);
		}

		// In a session too.
		const opened = await post(hangar.url, initializeBody);
		const session = opened.headers.get('mcp-session-id')!;
		await opened.text();
		const inSession = await post(hangar.url, JSON.stringify({jsonrpc: '2.0', id: 2, method: 'tools/list'}), {'Content-Type': 'text/plain', 'Mcp-Session-Id': session, 'Mcp-Protocol-Version': '2025-06-18'});
		expect([inSession.status, await inSession.json()]).toEqual([415, unsupported]);
	});

	it('takes application/json with parameters or in other case, and serves the SDK clients of both generations', async () => {
		const dir = tempDir();
		const hangar = await serveHttp(writeConfig(dir, {fx: fixture('normal')}, fastHangar));

		const withCharset = await post(hangar.url, initializeBody, {'Content-Type': 'application/json; charset=utf-8'});
		expect(withCharset.status).toBe(200);
		expect((await messagesOf(withCharset))[0]).toMatchObject({id: 1, result: {protocolVersion: '2025-06-18'}});
		const modern = await post(hangar.url, modernToolsList, {'Content-Type': 'Application/JSON; charset=UTF-8', ...modernHeaders});
		expect(modern.status).toBe(200);
		expect((await messagesOf(modern))[0]).toMatchObject({id: 7, result: {tools: expect.any(Array)}});

		const {client} = await connectHttp(hangar.url);
		expect((await client.listTools()).tools.map(tool => tool.name)).toContain('hangar_list');
		await client.close();

		const pinned = new ModernClient({name: 'pinned', version: '1.0.0'}, {versionNegotiation: {mode: {pin: modernRevision}}});
		await pinned.connect(new ModernHttp(new URL(hangar.url)));
		expect((await pinned.listTools()).tools.map(tool => tool.name)).toContain('hangar_list');
		await pinned.close();
	});
});
