/**
 * Both protocol generations on one endpoint (issue 31): a v2 SDK client
 * pinned to 2026-07-28 (stateless, per-request `_meta`, no initialize) and a
 * v1 client (2025, initialize and a session) through the same hangar, on
 * `--stdio` and `serve --http`, to a legacy upstream (server-everything);
 * and to a dual-era upstream, which each reaches in its own generation (the
 * 2026-07-28 client through its era twin, a second process).
 */
import fs from 'node:fs';
import path from 'node:path';
import {Client as ModernClient} from '@modelcontextprotocol/client';
import {StdioClientTransport as ModernStdio} from '@modelcontextprotocol/client/stdio';
import {StreamableHTTPClientTransport as ModernHttp} from '@modelcontextprotocol/client';
import {afterEach, describe, expect, it} from 'vitest';
import {cliPath, closeHangars, everything, fastHangar, fixture, isAlive, openHangar, root, runCli, spawnEnv, tempDir, waitFor, writeConfig} from '../support/hangar.js';
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

/** The v2 SDK fixture as a dual-era stdio upstream whose 2026-07-28 path has one more tool, `only_modern`. */
function dualServer(startsFile: string): Record<string, unknown> {
	return {command: process.execPath, args: [path.join(root, 'dist', 'demo', 'modern-server.js'), '--legacy', 'serve', '--modern-tool', 'only_modern', '--starts-file', startsFile], namespace: false, lazy: false};
}

/** The pids the fixture wrote, one per start. */
function startedPids(file: string): number[] {
	return fs.existsSync(file) ? fs.readFileSync(file, 'utf8').split('\n').filter(line => line !== '').map(Number) : [];
}

function text(result: Record<string, unknown>): string {
	return (result['content'] as Array<{text: string}>)[0]!.text;
}

describe('a dual-era upstream behind hangar', () => {
	it('serves a 2025 client from its 2025 mode and a 2026-07-28 client from its 2026-07-28 mode (a second process, started on demand), both at once; a stop ends both', async () => {
		const dir = tempDir();
		const startsFile = path.join(dir, 'starts');
		const config = writeConfig(dir, {dual: dualServer(startsFile)}, fastHangar);
		const hangar = await serveHttp(config);
		const stateFile = path.join(dir, 'state', 'state.json');
		const era = () => (fs.existsSync(stateFile) ? (JSON.parse(fs.readFileSync(stateFile, 'utf8')) as {upstreams: Record<string, {era?: {era: string}}>}).upstreams['dual']?.era : undefined);
		// The first start probes: server/discover answered, then the 2025 initialize answered too: saved as dual-era.
		await waitFor(() => era()?.era === 'dual' || undefined, 'the dual-era verdict to be saved');
		const legacy = await connectHttp(hangar.url);
		const legacyPid = Number(text(await legacy.client.callTool({name: 'pid', arguments: {}})));
		expect(text(await legacy.client.callTool({name: 'era', arguments: {}}))).toBe('2025');
		expect((await legacy.client.listTools()).tools.map(tool => tool.name)).not.toContain('only_modern');
		// The probe's process and the 2025 mode's: no 2026-07-28 process before a 2026-07-28 client asks.
		expect(startedPids(startsFile)).toHaveLength(2);
		expect(startedPids(startsFile).filter(pid => isAlive(pid))).toEqual([legacyPid]);

		const modernClient = pinned();
		await modernClient.connect(new ModernHttp(new URL(hangar.url)));
		try {
			const {tools} = await modernClient.listTools();
			expect(tools.map(tool => tool.name)).toContain('only_modern');
			expect(text(await modernClient.callTool({name: 'only_modern', arguments: {}}))).toBe('only_modern');
			const modernPid = Number(text(await modernClient.callTool({name: 'pid', arguments: {}})));
			expect(modernPid).not.toBe(legacyPid);
			expect(startedPids(startsFile)).toEqual([expect.any(Number), legacyPid, modernPid]);

			// Both at once, each in its own generation.
			const [old, now] = await Promise.all([legacy.client.callTool({name: 'era', arguments: {}}), modernClient.callTool({name: 'era', arguments: {}})]);
			expect([text(old), text(now)]).toEqual(['2025', '2026-07-28']);
			// The 2025 client still cannot see or call what only the 2026-07-28 path has.
			expect((await legacy.client.listTools()).tools.map(tool => tool.name)).not.toContain('only_modern');
			const refused = await legacy.client.callTool({name: 'only_modern', arguments: {}}).catch((error: Error) => error);
			expect(String(refused instanceof Error ? refused.message : JSON.stringify(refused))).toMatch(/only_modern/);

			// A tool the 2026-07-28 path adds: its list_changed reaches the 2026-07-28 client's list, not the 2025 one's.
			await modernClient.callTool({name: 'add-tool', arguments: {name: 'made_modern'}});
			await waitFor(async () => (await modernClient.listTools()).tools.some(tool => tool.name === 'made_modern') || undefined, 'the 2026-07-28 list to show made_modern');
			expect((await legacy.client.listTools()).tools.map(tool => tool.name)).not.toContain('made_modern');

			// status tells the truth: dual-era, and its era twin's process.
			type Status = {upstreams: Array<{name: string; calls: number; era: {era: string}; eraTwin?: {pid: number | null; state: string; calls: number}}>};
			const statusOfDual = async () => (JSON.parse((await runCli(['status', '--json', '--config', config])).stdout) as Status).upstreams.find(upstream => upstream.name === 'dual')!;
			const entry = await statusOfDual();
			expect(entry.era.era).toBe('dual');
			expect(entry.eraTwin).toMatchObject({pid: modernPid, state: 'ready'});
			// The server's calls are its twin's too (only_modern, pid, era, add-tool) besides the 2025 client's.
			expect(entry.eraTwin!.calls).toBeGreaterThanOrEqual(4);
			expect(entry.calls).toBeGreaterThanOrEqual(entry.eraTwin!.calls + 1);

			// A person's stop applies to both: no process of it is left.
			const stopped = await runCli(['stop', 'dual', '--config', config]);
			expect(stopped.code, stopped.stderr).toBe(0);
			await waitFor(() => !isAlive(legacyPid) && !isAlive(modernPid), 'both processes to exit');
			expect(startedPids(startsFile).filter(pid => isAlive(pid))).toEqual([]);
			// Stopped, its twin's calls stay counted.
			expect((await statusOfDual()).calls).toBeGreaterThanOrEqual(entry.calls);
			const after = await modernClient.callTool({name: 'era', arguments: {}}).catch((error: Error) => error);
			expect(String(after instanceof Error ? after.message : JSON.stringify(after))).toMatch(/stopped/);
		} finally {
			await modernClient.close();
			await legacy.client.close();
		}
	});

	it('per client: a 2026-07-28 client\'s own instance is opened in its 2026-07-28 mode, over --stdio too, and a 2025 client\'s in its 2025 mode', async () => {
		const dir = tempDir();
		const startsFile = path.join(dir, 'starts');
		// lingerSeconds: the shared supervisor the clients attach to ends soon after the last one leaves, with every process of it.
		const config = writeConfig(dir, {dual: {...dualServer(startsFile), instances: 'per-client', lazy: true}}, {...fastHangar, lingerSeconds: 1});
		const stateFile = path.join(dir, 'state', 'state.json');
		const legacy = await openHangar(config, {shared: true});
		try {
			expect(text(await legacy.client.callTool({name: 'era', arguments: {}}))).toBe('2025');
			await waitFor(() => (JSON.parse(fs.readFileSync(stateFile, 'utf8')) as {upstreams: Record<string, {era?: {era: string}}>}).upstreams['dual']?.era?.era === 'dual' || undefined, 'the dual-era verdict');
			// A 2026-07-28 client on --stdio, attached to the same supervisor.
			const modernClient = pinned();
			await modernClient.connect(new ModernStdio({command: process.execPath, args: [cliPath, '--stdio', '--config', config], env: spawnEnv(), stderr: 'pipe'}));
			try {
				expect((await modernClient.listTools()).tools.map(tool => tool.name)).toContain('only_modern');
				expect(text(await modernClient.callTool({name: 'era', arguments: {}}))).toBe('2026-07-28');
				expect(text(await modernClient.callTool({name: 'only_modern', arguments: {}}))).toBe('only_modern');
				const [modernPid, legacyPid] = await Promise.all([modernClient.callTool({name: 'pid', arguments: {}}), legacy.client.callTool({name: 'pid', arguments: {}})]);
				expect(text(modernPid)).not.toBe(text(legacyPid));
				expect((await legacy.client.listTools()).tools.map(tool => tool.name)).not.toContain('only_modern');
			} finally {
				await modernClient.close();
			}
		} finally {
			await legacy.close();
		}

		await waitFor(() => startedPids(startsFile).every(pid => !isAlive(pid)) || undefined, 'every process of it to exit with hangar');
	});
});
