/**
 * `mcp-hangar serve --http` end to end: the built CLI on an ephemeral
 * loopback port, driven by the SDK's Streamable HTTP client and by raw
 * fetch for what a well-behaved client would never send.
 */
import {spawnSync} from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import {StreamableHTTPError} from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import {afterEach, describe, expect, it} from 'vitest';
import {cliPath, everything, fastHangar, fixture, memory, processesWithTag, rpcError, tempDir, waitFor, writeConfig} from '../support/hangar.js';
import {connectHttp, initializeBody, messagesOf, post, serveHttp, stopHttpHangars} from '../support/http-hangar.js';

const token = 'test-token-0123456789abcdef';
const uuid = /^[\da-f]{8}-[\da-f]{4}-[\da-f]{4}-[\da-f]{4}-[\da-f]{12}$/;

afterEach(async () => {
	await stopHttpHangars();
});

describe('serve --http', () => {
	it('serves the gateway at /mcp to the SDK Streamable HTTP client, with calls through to real upstreams', async () => {
		const dir = tempDir();
		const hangar = await serveHttp(writeConfig(dir, {everything: everything(), memory: memory(dir), fx: fixture('normal')}, fastHangar), {env: {MCP_HANGAR_TOKEN: token}});
		const {client} = await connectHttp(hangar.url, {token});
		// On a first run the upstreams start at launch to list their tools.
		const names = await waitFor(async () => {
			const listed = (await client.listTools()).tools.map(tool => tool.name);
			return listed.includes('everything__echo') && listed.includes('memory__read_graph') ? listed : undefined;
		}, 'every upstream to list its tools');
		expect(names).toEqual(expect.arrayContaining(['fx__echo', 'hangar_list']));

		expect(await client.callTool({name: 'everything__echo', arguments: {message: 'over http'}})).toEqual({content: [{type: 'text', text: 'Echo: over http'}]});
		await client.callTool({name: 'memory__create_entities', arguments: {entities: [{name: 'hangar', entityType: 'tool', observations: ['speaks HTTP']}]}});
		const graph = await client.callTool({name: 'memory__read_graph', arguments: {}});
		expect(JSON.stringify(graph)).toContain('speaks HTTP');

		// A tool failure is an isError result, an unknown tool a JSON-RPC error: never an HTTP error.
		const failed = await client.callTool({name: 'fx__fail', arguments: {}});
		expect(failed.isError).toBe(true);
		const unknown = await rpcError(client.callTool({name: 'fx__nope', arguments: {}}));
		expect(unknown.code).toBe(-32_602);

		const listed = await client.callTool({name: 'hangar_list', arguments: {}});
		expect((listed.structuredContent as {upstreams: Array<{name: string}>}).upstreams.map(upstream => upstream.name)).toEqual(['everything', 'memory', 'fx']);
		await client.close();
	});

	it('answers a missing or a wrong token with 401 and a JSON body that says which, and nothing else', async () => {
		const dir = tempDir();
		const hangar = await serveHttp(writeConfig(dir, {fx: fixture('normal')}, fastHangar), {env: {MCP_HANGAR_TOKEN: token}});
		const missing = await post(hangar.url, initializeBody);
		expect(missing.status).toBe(401);
		expect(missing.headers.get('www-authenticate')).toBe('Bearer');
		expect(await missing.json()).toEqual({error: 'missing_token', message: 'No bearer token: send the header "Authorization: Bearer <token>".'});

		const wrong = await post(hangar.url, initializeBody, {Authorization: 'Bearer not-the-right-token-at-all'});
		expect(wrong.status).toBe(401);
		expect(await wrong.json()).toEqual({error: 'invalid_token', message: 'The bearer token is not valid.'});

		const basic = await post(hangar.url, initializeBody, {Authorization: `Basic ${Buffer.from(`x:${token}`).toString('base64')}`});
		expect(basic.status).toBe(401);
		expect(((await basic.json()) as {error: string}).error).toBe('missing_token');

		// The SDK client sees the 401 too.
		const refused = await connectHttp(hangar.url, {token: 'not-the-right-token-at-all'}).catch((error: unknown) => error);
		expect(refused).toBeInstanceOf(StreamableHTTPError);
		expect((refused as StreamableHTTPError).code).toBe(401);

		// Probes need no token and say nothing but a status word.
		const health = await fetch(`${hangar.origin}/healthz`);
		expect([health.status, await health.json()]).toEqual([200, {status: 'ok'}]);
		const ready = await fetch(`${hangar.origin}/readyz`);
		expect([ready.status, await ready.json()]).toEqual([200, {status: 'ready'}]);
	});

	it('refuses at start to listen beyond loopback without a token, and to take a short token', () => {
		const dir = tempDir();
		const config = writeConfig(dir, {fx: fixture('normal', [], {lazy: false})}, fastHangar);
		const run = (args: string[], env: Record<string, string> = {}) =>
			spawnSync(process.execPath, [cliPath, 'serve', '--http', '--config', config, ...args], {env: {...process.env, MCP_HANGAR_TOKEN: '', ...env}, encoding: 'utf8', timeout: 20_000});

		const open = run(['--host', '0.0.0.0', '--port', '0']);
		expect(open.status).toBe(2);
		expect(open.stderr).toContain(
			"mcp-hangar: refusing to serve MCP over HTTP on 0.0.0.0 without a token: anyone who can reach that address could call every upstream's tools. Set MCP_HANGAR_TOKEN or pass --token-file FILE, or listen on loopback only (--host 127.0.0.1).",
		);
		expect(fs.existsSync(path.join(dir, 'state', 'state.json')), 'nothing was started').toBe(false);

		const short = run(['--port', '0'], {MCP_HANGAR_TOKEN: 'short'});
		expect(short.status).toBe(2);
		expect(short.stderr).toContain('the token from MCP_HANGAR_TOKEN must be at least 16 characters');

		const noFile = run(['--port', '0', '--token-file', path.join(dir, 'missing')]);
		expect(noFile.status).toBe(2);
		expect(noFile.stderr).toContain(`cannot read the token file ${path.join(dir, 'missing')} (no such file)`);

		const stray = spawnSync(process.execPath, [cliPath, 'serve', '--port', '8080', '--config', config], {encoding: 'utf8', timeout: 20_000});
		expect(stray.status).toBe(2);
		expect(stray.stderr).toContain('--port only applies with --http');
	});

	it('answers a body over maxMessageBytes with 413 every time, reading it first so the client sees the answer', async () => {
		const dir = tempDir();
		const hangar = await serveHttp(writeConfig(dir, {fx: fixture('normal')}, fastHangar));
		const body = JSON.stringify({jsonrpc: '2.0', id: 1, method: 'ping', params: {pad: 'x'.repeat(5 * 1024 * 1024)}});
		const outcomes: string[] = [];
		for (let attempt = 0; attempt < 20; attempt++) {
			try {
				const response = await post(hangar.url, body);
				const error = ((await response.json()) as {error: {code: number}}).error;
				outcomes.push(`${response.status} ${error.code}`);
			} catch (error) {
				outcomes.push(`failed: ${String((error as Error).cause ?? error)}`);
			}
		}

		expect(outcomes).toEqual(Array.from({length: 20}, () => '413 -32009'));
	});

	it('answers malformed requests with 400 and a JSON-RPC error that says what was wrong', async () => {
		const dir = tempDir();
		const hangar = await serveHttp(writeConfig(dir, {fx: fixture('normal')}, {...fastHangar, maxMessageBytes: 2048}));
		const expectError = async (body: string, status: number, code: number, message: string | RegExp) => {
			const response = await post(hangar.url, body);
			expect(response.status, body).toBe(status);
			const error = ((await response.json()) as {error: {code: number; message: string}}).error;
			expect(error.code, body).toBe(code);
			expect(error.message, body).toMatch(message);
		};

		await expectError('{"jsonrpc": "2.0", "id": 1, "method": ', 400, -32_700, /^Parse error: the body is not valid JSON \(.+\)\. Send one JSON-RPC 2\.0 message as a JSON object\.$/);
		await expectError('', 400, -32_700, 'Parse error: the body is empty');
		await expectError('{"invalid": "request"}', 400, -32_600, 'Invalid Request: "jsonrpc" must be "2.0"');
		await expectError('[{"jsonrpc": "2.0", "id": 1, "method": "ping"}]', 400, -32_600, 'Invalid Request: JSON-RPC batches are not supported by MCP');
		await expectError('{"jsonrpc": "2.0", "id": null, "method": "ping"}', 400, -32_600, '"id" must be a string or an integer');
		await expectError('{"jsonrpc": "2.0", "id": 1, "method": 7}', 400, -32_600, '"method" must be a non-empty string');
		await expectError('{"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": ["x"]}', 400, -32_602, 'Invalid params: "params" of "tools/call" must be an object');
		await expectError('{"jsonrpc": "2.0", "id": 1}', 400, -32_600, 'expected a request ("method" and "id"), a notification ("method") or a response');
		await expectError(JSON.stringify({jsonrpc: '2.0', id: 1, method: 'ping', params: {pad: 'x'.repeat(4000)}}), 413, -32_009, 'Message too large: the limit is 2048 bytes (hangar.maxMessageBytes)');
		// A request before initialize has no session to go to.
		await expectError('{"jsonrpc": "2.0", "id": 1, "method": "tools/list"}', 400, -32_000, /^Bad Request: no Mcp-Session-Id header\. Open a session with "initialize" first/);
		const unknown = await post(hangar.url, '{"jsonrpc": "2.0", "id": 1, "method": "tools/list"}', {'Mcp-Session-Id': 'no-such-session'});
		expect(unknown.status).toBe(404);
		expect(((await unknown.json()) as {error: {message: string}}).error.message).toContain('Session not found: session no-such-session ended');
		const stream = await fetch(hangar.url, {headers: {Accept: 'text/event-stream'}});
		expect(stream.status).toBe(400);

		// A malformed initialize opens no session.
		const refused = await post(hangar.url, JSON.stringify({jsonrpc: '2.0', id: 1, method: 'initialize', params: {protocolVersion: '2025-06-18'}}));
		expect(refused.status).toBe(400);
		expect(refused.headers.get('mcp-session-id')).toBeNull();
		expect(await refused.json()).toEqual({jsonrpc: '2.0', id: 1, error: {code: -32_602, message: expect.stringMatching(/^Invalid params for "initialize": params\.capabilities: .*; params\.clientInfo: /) as string}});
	});

	it('refuses a Host or Origin that is not loopback (DNS rebinding) on a loopback endpoint', async () => {
		const dir = tempDir();
		const hangar = await serveHttp(writeConfig(dir, {fx: fixture('normal')}, fastHangar));
		const port = new URL(hangar.url).port;
		// fetch does not let a page set Host; node:http does.
		const {request} = await import('node:http');
		const status = async (headers: Record<string, string>) =>
			new Promise<{status: number; body: string}>((resolve, reject) => {
				const req = request({host: '127.0.0.1', port, path: '/mcp', method: 'POST', headers: {'Content-Type': 'application/json', Accept: 'application/json, text/event-stream', ...headers}}, res => {
					let body = '';
					res.on('data', (chunk: Buffer) => {
						body += chunk.toString();
					});
					res.on('end', () => resolve({status: res.statusCode ?? 0, body}));
				});
				req.on('error', reject);
				req.end(initializeBody);
			});

		const evilHost = await status({Host: `evil.example.com:${port}`});
		expect(evilHost.status).toBe(403);
		expect(JSON.parse(evilHost.body)).toMatchObject({error: 'forbidden_host'});
		const evilOrigin = await status({Origin: 'http://evil.example.com'});
		expect(evilOrigin.status).toBe(403);
		expect(JSON.parse(evilOrigin.body)).toMatchObject({error: 'forbidden_origin'});
		for (const host of [`localhost:${port}`, `127.0.0.1:${port}`, `[::1]:${port}`]) {
			expect((await status({Host: host, Origin: `http://${host}`})).status, host).toBe(200);
		}
	});

	it('puts X-Correlation-ID on every response and the same id in the log lines of the request and of its upstream call', async () => {
		const dir = tempDir();
		const logFile = path.join(dir, 'hangar.log');
		const hangar = await serveHttp(writeConfig(dir, {fx: fixture('normal', [], {lazy: false})}, fastHangar), {
			args: ['--log-file', logFile, '--log-level', 'debug'],
			env: {MCP_HANGAR_TOKEN: token},
		});
		const seen: Array<{sent: string; got: string | null}> = [];
		let next = 0;
		const tagging: typeof fetch = async (input, init) => {
			const sent = `corr-${++next}`;
			const headers = new Headers(init?.headers);
			headers.set('X-Correlation-ID', sent);
			const response = await fetch(input, {...init, headers});
			seen.push({sent, got: response.headers.get('x-correlation-id')});
			return response;
		};

		const {client} = await connectHttp(hangar.url, {token, fetch: tagging});
		await client.callTool({name: 'fx__echo', arguments: {message: 'hi', token: 'sk-never-logged'}});
		const call = seen.at(-1)!;
		expect(call.got).toBe(call.sent);
		expect(seen.every(entry => entry.got === entry.sent)).toBe(true);
		await client.close();

		const log = await waitFor(() => {
			const text = fs.readFileSync(logFile, 'utf8');
			return text.includes(`[http] POST /mcp tools/call fx__echo -> 200`) ? text : undefined;
		}, 'the request log line');
		const lines = log.split('\n').filter(line => line.includes(`correlationId="${call.sent}"`));
		expect(lines.some(line => /info \[http\] POST \/mcp tools\/call fx__echo -> 200 in \d+ ms/.test(line)), lines.join('\n')).toBe(true);
		expect(lines.some(line => /debug \[fx\] tools\/call "echo" answered in \d+ ms/.test(line)), lines.join('\n')).toBe(true);
		// Bodies only at debug level, with secrets masked.
		expect(lines.some(line => line.includes('request body') && line.includes(String.raw`\"token\":\"***\"`))).toBe(true);
		expect(log).not.toContain('sk-never-logged');
		expect(log).not.toContain(token);

		// Without the header, and on refusals too, the id is a new one.
		for (const response of [await fetch(`${hangar.origin}/healthz`), await post(hangar.url, initializeBody), await post(hangar.url, '{', {Authorization: `Bearer ${token}`})]) {
			expect(response.headers.get('x-correlation-id')).toMatch(uuid);
		}

		const bad = await fetch(`${hangar.origin}/healthz`, {headers: {'X-Correlation-ID': 'has spaces\tand tabs'}});
		expect(bad.headers.get('x-correlation-id')).toMatch(uuid);
	});

	it('answers a call past httpCallTimeoutSeconds with an error naming the upstream, long before the upstream\'s own timeout, and cancels it upstream', async () => {
		const dir = tempDir();
		const hangar = await serveHttp(writeConfig(dir, {stuck: fixture('hang', [], {lazy: false, callTimeoutSeconds: 120})}, {...fastHangar, httpCallTimeoutSeconds: 1}));
		const {client} = await connectHttp(hangar.url);
		await waitFor(async () => (await client.listTools()).tools.some(tool => tool.name === 'stuck__echo'), 'stuck to list its tools');
		const began = Date.now();
		const error = await rpcError(client.callTool({name: 'stuck__echo', arguments: {message: 'x'}}, undefined, {timeout: 60_000}));
		expect(Date.now() - began).toBeLessThan(20_000);
		expect(error.code).toBe(-32_007);
		expect(error.message).toContain(
			'upstream "stuck": tools/call "echo" failed: no answer within 1 s, the deadline set by hangar.httpCallTimeoutSeconds (timed out waiting for the upstream to answer); the request was cancelled upstream. Raise "httpCallTimeoutSeconds" in the "hangar" settings',
		);
		expect(error.data).toMatchObject({error: 'CallTimeout', upstream: 'stuck', phase: 'call', timeoutMs: 1000});
		// The fixture logs the cancellation it received on its stderr, which hangar keeps in the upstream's log.
		await waitFor(async () => {
			const details = (await client.callTool({name: 'hangar_details', arguments: {server: 'stuck'}})).structuredContent as {stderr: Array<{text: string}>};
			return details.stderr.some(line => line.text.startsWith('cancelled '));
		}, 'the upstream to see notifications/cancelled');
		await client.close();
	});

	it('sends progress while a cold upstream starts, and says the cold start was slow when it outlasts the deadline', async () => {
		const dir = tempDir();
		const hangar = await serveHttp(
			writeConfig(
				dir,
				{
					slow: fixture('slow-start', ['--delay-ms', '1500'], {tools: [{name: 'echo'}]}),
					glacial: fixture('slow-start', ['--delay-ms', '30000'], {tools: [{name: 'echo'}]}),
				},
				{...fastHangar, httpCallTimeoutSeconds: 4},
			),
		);
		const {client} = await connectHttp(hangar.url);
		const progress: Array<{progress: number; message?: string | undefined}> = [];
		const result = await client.callTool({name: 'slow__echo', arguments: {message: 'warm now'}}, undefined, {onprogress: update => progress.push(update)});
		expect(result.content).toEqual([{type: 'text', text: 'warm now'}]);
		expect(progress[0]).toMatchObject({progress: 1, message: 'starting upstream "slow"'});

		const error = await rpcError(client.callTool({name: 'glacial__echo', arguments: {message: 'x'}}, undefined, {onprogress: () => {}}));
		expect(error.code).toBe(-32_007);
		expect(error.message).toContain('upstream "glacial": tools/call "echo" failed: no answer within 4 s, the deadline set by hangar.httpCallTimeoutSeconds (timed out during the upstream\'s cold start)');
		await client.close();
	});

	it('closes a session left without a request for httpSessionIdleSeconds, and keeps one whose client is still connected', async () => {
		const dir = tempDir();
		const hangar = await serveHttp(writeConfig(dir, {fx: fixture('normal', [], {lazy: false})}, {...fastHangar, httpSessionIdleSeconds: 0.5}));
		// An abandoned session: initialize, then nothing.
		const opened = await post(hangar.url, initializeBody);
		const abandoned = opened.headers.get('mcp-session-id')!;
		expect((await messagesOf(opened))[0]).toMatchObject({id: 1, result: {serverInfo: {name: 'mcp-hangar'}}});
		await waitFor(() => hangar.stderr().includes('closing the session: no request for 0.5 s (hangar.httpSessionIdleSeconds)'), 'the idle session to be closed');
		const after = await post(hangar.url, '{"jsonrpc": "2.0", "id": 2, "method": "ping"}', {'Mcp-Session-Id': abandoned, 'Mcp-Protocol-Version': '2025-06-18'});
		expect(after.status).toBe(404);

		const reaped = (id: string): boolean => hangar.stderr().split('\n').some(line => line.includes('closing the session') && line.includes(id));

		// A connected SDK client holds its event stream open: its session stays past the idle time. The idle time
		// must pass to show that: a session abandoned once the client is connected idles from later on, so once
		// it is reaped, the client's session has been without a request for longer than that.
		const {client, transport} = await connectHttp(hangar.url);
		const live = transport.sessionId!;
		const later = await post(hangar.url, initializeBody);
		const laterId = later.headers.get('mcp-session-id')!;
		await messagesOf(later);
		await waitFor(() => reaped(laterId), 'the session abandoned after the client connected to be closed');
		expect(await client.callTool({name: 'fx__echo', arguments: {message: 'still here'}})).toEqual({content: [{type: 'text', text: 'still here'}]});
		// Gone without a DELETE: its streams close, and the session is reaped.
		await client.close();
		await waitFor(() => reaped(live), 'the closed client\'s session to be reaped');
	});

	it('answers a request answered at once as one JSON body, and streams one with progress or a long one, its headers first', async () => {
		const dir = tempDir();
		const hangar = await serveHttp(writeConfig(dir, {fx: fixture('normal', ['--client-features'])}, fastHangar));
		const opened = await post(hangar.url, initializeBody);
		const session = opened.headers.get('mcp-session-id')!;
		expect(session).toMatch(uuid);
		expect((await messagesOf(opened))[0]).toMatchObject({id: 1, result: {serverInfo: {name: 'mcp-hangar'}}});
		const headers = {'Mcp-Session-Id': session, 'Mcp-Protocol-Version': '2025-06-18'};
		expect((await post(hangar.url, '{"jsonrpc":"2.0","method":"notifications/initialized"}', headers)).status).toBe(202);

		// A ping is answered by hangar in the same turn of the event loop: always within the hold.
		const quick = await post(hangar.url, '{"jsonrpc":"2.0","id":2,"method":"ping"}', headers);
		expect(quick.headers.get('content-type')).toBe('application/json');
		expect(quick.headers.get('content-length')).toBe('36');
		expect(quick.headers.get('mcp-session-id')).toBe(session);
		expect(await quick.text()).toBe('{"result":{},"jsonrpc":"2.0","id":2}');

		// tools/list is written as hangar serialized it, in either form.
		const listed = await messagesOf(await post(hangar.url, '{"jsonrpc":"2.0","id":"list","method":"tools/list"}', headers));
		expect(listed).toEqual([expect.objectContaining({id: 'list', result: {tools: expect.arrayContaining([expect.objectContaining({name: 'fx__echo'})]) as unknown}})]);

		// Progress comes before the answer, so the answer cannot be a lone JSON body.
		const call = (id: number, name: string, args: unknown, meta?: unknown) =>
			JSON.stringify({jsonrpc: '2.0', id, method: 'tools/call', params: {name, arguments: args, ...(meta === undefined ? {} : {_meta: meta})}});
		const burst = await post(hangar.url, call(3, 'fx__progress-burst', {steps: 3}, {progressToken: 'p'}), headers);
		expect(burst.headers.get('content-type')).toBe('text/event-stream');
		const streamed = await messagesOf(burst);
		expect(streamed.map(message => message['method'] ?? message['id'])).toEqual(['notifications/progress', 'notifications/progress', 'notifications/progress', 3]);

		// A call that outlasts the hold gets its headers (an event stream) before its answer.
		const slow = await post(hangar.url, call(4, 'fx__sleep', {ms: 3000}), headers);
		expect(slow.headers.get('content-type')).toBe('text/event-stream');
		const answer = await messagesOf(slow);
		expect(answer).toEqual([expect.objectContaining({id: 4, result: expect.objectContaining({content: expect.any(Array) as unknown}) as unknown})]);
	});

	it('ends a session on DELETE', async () => {
		const dir = tempDir();
		const hangar = await serveHttp(writeConfig(dir, {fx: fixture('normal')}, fastHangar));
		const {client, transport} = await connectHttp(hangar.url);
		const id = transport.sessionId!;
		await transport.terminateSession();
		const after = await post(hangar.url, '{"jsonrpc": "2.0", "id": 9, "method": "ping"}', {'Mcp-Session-Id': id});
		expect(after.status).toBe(404);
		await client.close();
	});

	it('serves the local socket alongside, and on SIGTERM closes the HTTP sessions before the upstreams stop, leaving no process behind', async () => {
		const dir = tempDir();
		const config = writeConfig(dir, {fx: fixture('normal', [], {lazy: false}), everything: everything({lazy: false})}, fastHangar);
		const hangar = await serveHttp(config);
		const {client} = await connectHttp(hangar.url);
		await client.callTool({name: 'fx__echo', arguments: {message: 'x'}});

		const status = spawnSync(process.execPath, [cliPath, 'status', '--json', '--config', config], {encoding: 'utf8', timeout: 20_000});
		expect(status.status, status.stderr).toBe(0);
		expect((JSON.parse(status.stdout) as {live: boolean}).live).toBe(true);

		expect(await hangar.stop()).toEqual({code: 0, signal: null});
		const log = hangar.stderr();
		expect(log.indexOf('http#1: session closed')).toBeGreaterThan(-1);
		expect(log.indexOf('http#1: session closed')).toBeLessThan(log.indexOf('shutting down: received SIGTERM'));
		await waitFor(() => processesWithTag(hangar.tag).length === 0, 'every process of this hangar to exit');
		await client.close();
	});
});
