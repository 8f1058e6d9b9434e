/**
 * Both protocol generations on one endpoint (issue 31): a v2 SDK client
 * pinned to 2026-07-28 (stateless, per-request `_meta`, no initialize) and a
 * v1 client (2025, initialize and a session) through the same hangar, on
 * `--stdio` and `serve --http`, to a legacy upstream (server-everything).
 */
import {Client as ModernClient} from '@modelcontextprotocol/client';
import {StdioClientTransport as ModernStdio} from '@modelcontextprotocol/client/stdio';
import {StreamableHTTPClientTransport as ModernHttp} from '@modelcontextprotocol/client';
import {afterEach, describe, expect, it} from 'vitest';
import {cliPath, closeHangars, everything, fastHangar, fixture, openHangar, spawnEnv, tempDir, writeConfig} from '../support/hangar.js';
import {connectHttp, post, serveHttp, stopHttpHangars} from '../support/http-hangar.js';

const modern = '2026-07-28';
const envelope = {'io.modelcontextprotocol/protocolVersion': modern, 'io.modelcontextprotocol/clientCapabilities': {}, 'io.modelcontextprotocol/clientInfo': {name: 'raw', version: '1'}};

function pinned(): ModernClient {
	return new ModernClient({name: 'modern-test', version: '1.0.0'}, {versionNegotiation: {mode: {pin: modern}}});
}

afterEach(async () => {
	await closeHangars();
	await stopHttpHangars();
});

describe('2026-07-28 clients beside 2025 ones', () => {
	it('--stdio: a client pinned to 2026-07-28 lists and calls a legacy upstream\'s tools, with no initialize', async () => {
		const dir = tempDir();
		const config = writeConfig(dir, {every: everything({namespace: false})}, fastHangar);
		const client = pinned();
		const transport = new ModernStdio({command: process.execPath, args: [cliPath, '--stdio', '--config', config, '--standalone'], env: spawnEnv(), stderr: 'pipe'});
		await client.connect(transport);
		try {
			expect(client.getServerVersion()?.name).toBe('mcp-hangar');
			const {tools} = await client.listTools();
			expect(tools.map(tool => tool.name)).toContain('echo');
			const result = await client.callTool({name: 'echo', arguments: {message: 'modern hello'}});
			expect(result.content).toEqual([{type: 'text', text: 'Echo: modern hello'}]);
			const sum = await client.callTool({name: 'get-sum', arguments: {a: 2, b: 3}});
			expect(JSON.stringify(sum.content)).toContain('5');
			const progress: number[] = [];
			await client.callTool({name: 'trigger-long-running-operation', arguments: {duration: 0.3, steps: 3}}, {onprogress: update => progress.push(update.progress)});
			// The step sent with the result can arrive after it on --stdio, for a 2025 client too (noted in the report).
			expect(progress.slice(0, 2)).toEqual([1, 2]);
		} finally {
			await client.close();
		}

		// A 2025 client on the same config still goes through initialize.
		const legacy = await openHangar(config);
		const echoed = await legacy.client.callTool({name: 'echo', arguments: {message: 'legacy hello'}});
		expect(echoed.content).toEqual([{type: 'text', text: 'Echo: legacy hello'}]);
	});

	it('serve --http: modern requests need no session, carry resultType, and their headers must mirror the body', async () => {
		const dir = tempDir();
		const hangar = await serveHttp(writeConfig(dir, {every: everything({namespace: false})}, fastHangar));

		const client = pinned();
		await client.connect(new ModernHttp(new URL(hangar.url)));
		try {
			const {tools} = await client.listTools();
			expect(tools.map(tool => tool.name)).toContain('echo');
			const result = await client.callTool({name: 'echo', arguments: {message: 'over http'}});
			expect(result.content).toEqual([{type: 'text', text: 'Echo: over http'}]);
			// Progress on the request's own stream.
			const progress: Array<{progress: number; total?: number}> = [];
			const long = await client.callTool({name: 'trigger-long-running-operation', arguments: {duration: 0.3, steps: 3}}, {onprogress: update => progress.push(update)});
			expect(JSON.stringify(long.content)).toContain('completed');
			// The upstream's three steps, all of them. "auto" may learn that server-everything runs per client (it asks
			// for roots) just before this call: then hangar's startup notes for the client's instance come first and
			// the steps are shifted past them (call-path.ts's ProgressRelay), so they are read by their distance to the total.
			const steps = progress.filter(update => update.total !== undefined);
			expect(steps.map(update => update.total! - update.progress)).toEqual([2, 1, 0]);
			expect(progress.slice(0, -3).every(update => update.total === undefined)).toBe(true);
		} finally {
			await client.close();
		}

		const call = (headers: Record<string, string>, name = 'echo') =>
			post(hangar.url, JSON.stringify({jsonrpc: '2.0', id: 7, method: 'tools/call', params: {name, arguments: {message: 'raw'}, _meta: envelope}}), headers);
		const good = await call({'MCP-Protocol-Version': modern, 'Mcp-Method': 'tools/call', 'Mcp-Name': 'echo'});
		expect(good.status).toBe(200);
		expect(good.headers.get('mcp-session-id')).toBeNull();
		expect(await good.json()).toEqual({jsonrpc: '2.0', id: 7, result: {content: [{type: 'text', text: 'Echo: raw'}], resultType: 'complete'}});

		for (const [headers, says] of [
			[{'MCP-Protocol-Version': modern, 'Mcp-Method': 'tools/call', 'Mcp-Name': 'other'}, 'the Mcp-Name header names "other"'],
			[{'MCP-Protocol-Version': modern, 'Mcp-Method': 'tools/list', 'Mcp-Name': 'echo'}, 'the Mcp-Method header names tools/list'],
			[{'MCP-Protocol-Version': modern, 'Mcp-Name': 'echo'}, 'the required Mcp-Method header is absent'],
			[{'MCP-Protocol-Version': modern, 'Mcp-Method': 'tools/call'}, 'the required Mcp-Name header is absent'],
		] as const) {
			const refused = await call(headers);
			expect(refused.status, says).toBe(400);
			const body = (await refused.json()) as {id: number; error: {code: number; message: string}};
			expect(body.id).toBe(7);
			expect(body.error.code).toBe(-32_020);
			expect(body.error.message).toContain(says);
		}

		// server/discover: both generations' versions, hangar's identity in the result's _meta.
		const discover = await post(hangar.url, JSON.stringify({jsonrpc: '2.0', id: 1, method: 'server/discover', params: {_meta: envelope}}), {'MCP-Protocol-Version': modern, 'Mcp-Method': 'server/discover'});
		const discovered = (await discover.json()) as {result: {supportedVersions: string[]; capabilities: Record<string, unknown>; resultType: string; _meta: Record<string, {name: string}>}};
		expect(discovered.result.supportedVersions).toEqual([modern, '2025-11-25', '2025-06-18', '2025-03-26', '2024-11-05', '2024-10-07']);
		expect(discovered.result.capabilities['tools']).toBeDefined();
		expect(discovered.result.resultType).toBe('complete');
		expect(discovered.result._meta['io.modelcontextprotocol/serverInfo']!.name).toBe('mcp-hangar');

		// Legacy-only methods are not found for a modern request; an unknown modern version is refused with the supported ones.
		const ping = await post(hangar.url, JSON.stringify({jsonrpc: '2.0', id: 2, method: 'ping', params: {_meta: envelope}}), {'MCP-Protocol-Version': modern, 'Mcp-Method': 'ping'});
		expect(ping.status).toBe(404);
		expect(((await ping.json()) as {error: {code: number}}).error.code).toBe(-32_601);
		// A modern MCP-Protocol-Version header with no envelope in the body: -32602, and a header that disagrees with the envelope: -32020.
		const bare = await post(hangar.url, JSON.stringify({jsonrpc: '2.0', id: 5, method: 'tools/list', params: {}}), {'MCP-Protocol-Version': modern, 'Mcp-Method': 'tools/list'});
		expect([bare.status, ((await bare.json()) as {error: {code: number}}).error.code]).toEqual([400, -32_602]);
		const disagreeing = await post(hangar.url, JSON.stringify({jsonrpc: '2.0', id: 6, method: 'tools/list', params: {_meta: envelope}}), {'MCP-Protocol-Version': '2099-01-01', 'Mcp-Method': 'tools/list'});
		expect([disagreeing.status, ((await disagreeing.json()) as {error: {code: number}}).error.code]).toEqual([400, -32_020]);
		const future = {...envelope, 'io.modelcontextprotocol/protocolVersion': '2099-01-01'};
		const unsupported = await post(hangar.url, JSON.stringify({jsonrpc: '2.0', id: 3, method: 'tools/list', params: {_meta: future}}), {'MCP-Protocol-Version': '2099-01-01', 'Mcp-Method': 'tools/list'});
		expect(unsupported.status).toBe(400);
		const error = ((await unsupported.json()) as {error: {code: number; data: {supported: string[]; requested: string}}}).error;
		expect(error.code).toBe(-32_022);
		expect(error.data.requested).toBe('2099-01-01');
		expect(error.data.supported).toContain(modern);

		// A modern resource read of an unknown URI: -32602, where a legacy client gets -32002.
		const read = await post(hangar.url, JSON.stringify({jsonrpc: '2.0', id: 4, method: 'resources/read', params: {uri: 'demo://resource/static/document/nope.md', _meta: envelope}}), {
			'MCP-Protocol-Version': modern,
			'Mcp-Method': 'resources/read',
			'Mcp-Name': 'demo://resource/static/document/nope.md',
		});
		expect(((await read.json()) as {error: {code: number}}).error.code).toBe(-32_602);

		// A 2025 client on the same endpoint still opens a session.
		const legacy = await connectHttp(hangar.url);
		const echoed = await legacy.client.callTool({name: 'echo', arguments: {message: 'legacy'}});
		expect(echoed.content).toEqual([{type: 'text', text: 'Echo: legacy'}]);
		await legacy.client.close();
	});

	it('refuses an upstream\'s sampling, elicitation and roots requests during a modern call whose _meta declares none of them, and the call goes on', async () => {
		const dir = tempDir();
		const hangar = await serveHttp(writeConfig(dir, {fx: fixture('normal', ['--client-features'], {namespace: false})}, fastHangar));
		// Declared ones are asked through input_required (test/e2e/mrtr.test.ts); undeclared ones are refused to the upstream.
		const client = pinned();
		await client.connect(new ModernHttp(new URL(hangar.url)));
		try {
			for (const kind of ['sampling', 'elicitation', 'roots']) {
				const result = await client.callTool({name: 'ask', arguments: {kind}});
				const answer = JSON.parse((result.content as Array<{text: string}>)[0]!.text) as {error?: {code: number; message: string}; result?: unknown};
				expect(answer.result, kind).toBeUndefined();
				expect(answer.error?.message, kind).toContain('clientCapabilities of its request\'s _meta');
			}
		} finally {
			await client.close();
		}
	});
});
