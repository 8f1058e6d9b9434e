/**
 * What hangar keeps for a 2026-07-28 (sessionless) client: a stable identity
 * per client (so a per-client upstream runs one instance for it, not one per
 * request, and two clients never share one), `subscriptions/listen` carrying
 * a legacy upstream's list_changed and resources/updated, the per-request log
 * level, and trace context in `_meta` passed through to the upstream. Real v2
 * SDK clients pinned to 2026-07-28 against the built CLI's `--stdio` and
 * `serve --http`, with real upstream processes.
 */
import http from 'node:http';
import {Client as ModernClient} from '@modelcontextprotocol/client';
import {StdioClientTransport as ModernStdio} from '@modelcontextprotocol/client/stdio';
import {StreamableHTTPClientTransport as ModernHttp} from '@modelcontextprotocol/client';
import {afterEach, describe, expect, it} from 'vitest';
import {cliPath, closeHangars, fastHangar, fixture, processesWithTag, spawnEnv, tempDir, waitFor, writeConfig} from '../support/hangar.js';
import {serveHttp, stopHttpHangars} from '../support/http-hangar.js';
import {pooledFetch, type Carried} from '../support/pooled-fetch.js';
import {metaEchoServer} from '../support/trace-upstreams.js';

const modern = '2026-07-28';
const open: ModernClient[] = [];

function pinned(name = 'modern-test', capabilities: Record<string, unknown> = {}): ModernClient {
	const client = new ModernClient({name, version: '1.0.0'}, {versionNegotiation: {mode: {pin: modern}}, capabilities});
	open.push(client);
	return client;
}

function stdioTransport(config: string): ModernStdio {
	return new ModernStdio({command: process.execPath, args: [cliPath, '--stdio', '--config', config, '--standalone'], env: spawnEnv(), stderr: 'pipe'});
}

const text = (result: {content?: unknown}) => (result.content as Array<{text: string}>)[0]!.text;

afterEach(async () => {
	await Promise.all(open.splice(0).map(async client => client.close().catch(() => {})));
	await closeHangars();
	await stopHttpHangars();
});

describe('2026-07-28 clients: identity, listen, log level and trace context', () => {
	it('serve --http: one modern client\'s calls reuse one instance of a per-client upstream on any of its connections, and another client gets its own', async () => {
		const dir = tempDir();
		const tag = `modern-identity-${process.pid}-${Date.now()}`;
		const hangar = await serveHttp(writeConfig(dir, {fx: fixture('normal', [], {namespace: false, instances: 'per-client', env: {HANGAR_TEST_TAG: tag}})}, {...fastHangar, httpSessionIdleSeconds: 5}));
		const carried: Carried[] = [];
		const first = pinned();
		await first.connect(new ModernHttp(new URL(hangar.url), {fetch: pooledFetch(new http.Agent({keepAlive: true}), carried)}));
		// Calls at once: the pool opens a connection for each; they are still one client, on one instance.
		const pids = new Set<string>();
		for (let round = 0; round < 2; round++) {
			for (const result of await Promise.all([1, 2, 3, 4].map(async () => first.callTool({name: 'pid', arguments: {}})))) pids.add(text(result));
		}

		expect(new Set(carried.filter(request => request.method === 'tools/call').map(request => request.port)).size).toBeGreaterThan(1);
		expect(pids.size).toBe(1);
		const running = processesWithTag(tag);
		expect(running).toContain(Number([...pids][0]));

		// The same clientInfo, capabilities and (no) token from the same address, on other connections: the same client,
		// as a stateless upstream would see it too.
		const same = pinned();
		await same.connect(new ModernHttp(new URL(hangar.url), {fetch: pooledFetch()}));
		expect(text(await same.callTool({name: 'pid', arguments: {}}))).toBe([...pids][0]);

		// Another clientInfo: another client, with an instance of its own.
		const secondConnections = new http.Agent({keepAlive: true});
		const second = pinned('another-modern-client');
		await second.connect(new ModernHttp(new URL(hangar.url), {fetch: pooledFetch(secondConnections)}));
		const secondPid = text(await second.callTool({name: 'pid', arguments: {}}));
		expect(secondPid).not.toBe([...pids][0]);
		expect(text(await second.callTool({name: 'pid', arguments: {}}))).toBe(secondPid);
		expect(text(await first.callTool({name: 'pid', arguments: {}}))).toBe([...pids][0]);
		expect(processesWithTag(tag).length).toBe(running.length + 1);

		// The second client gone quiet for httpSessionIdleSeconds: its instance stops, as an idle session's does.
		await second.close();
		secondConnections.destroy();
		await waitFor(() => !processesWithTag(tag).includes(Number(secondPid)) || undefined, 'the second client\'s instance to stop');
	});

	it('--stdio: a modern client\'s calls reuse one instance of a per-client upstream; another clientInfo on the connection is another client', async () => {
		const dir = tempDir();
		const tag = `modern-stdio-identity-${process.pid}-${Date.now()}`;
		const config = writeConfig(dir, {fx: fixture('normal', [], {namespace: false, instances: 'per-client', env: {HANGAR_TEST_TAG: tag}})}, fastHangar);
		const client = pinned();
		await client.connect(stdioTransport(config));
		const pids = new Set<string>();
		for (let call = 0; call < 4; call++) pids.add(text(await client.callTool({name: 'pid', arguments: {}})));
		expect(pids.size).toBe(1);
		const spawned = processesWithTag(tag).length;
		// Another clientInfo on the same connection is another client: never the first one's instance.
		const other = await client.callTool({name: 'pid', arguments: {}, _meta: {'io.modelcontextprotocol/clientInfo': {name: 'someone-else', version: '2'}}});
		expect(text(other)).not.toBe([...pids][0]);
		expect(processesWithTag(tag).length).toBe(spawned + 1);
	});

	for (const transport of ['http', 'stdio'] as const) {
		it(`${transport}: subscriptions/listen carries a legacy upstream's tools/list_changed and resources/updated, as the filter asks`, async () => {
			const dir = tempDir();
			const config = writeConfig(dir, {fx: fixture('tools-change', ['--resources-count', '2'], {namespace: false})}, fastHangar);
			const client = pinned();
			if (transport === 'http') await client.connect(new ModernHttp(new URL((await serveHttp(config)).url)));
			else await client.connect(stdioTransport(config));
			const toolChanges: unknown[] = [];
			const updates: Array<{uri: string}> = [];
			const promptChanges: unknown[] = [];
			client.setNotificationHandler('notifications/tools/list_changed', notification => void toolChanges.push(notification));
			client.setNotificationHandler('notifications/resources/updated', notification => void updates.push(notification.params));
			client.setNotificationHandler('notifications/prompts/list_changed', notification => void promptChanges.push(notification));
			const subscription = await client.listen({toolsListChanged: true, resourceSubscriptions: ['fixture://item/0']});
			expect(subscription.honoredFilter).toEqual({toolsListChanged: true, resourceSubscriptions: ['fixture://item/0']});
			// The fixture tells hangar of the resource at once after its subscribe.
			await waitFor(() => updates.length > 0 || undefined, 'resources/updated on the listen');
			expect(updates[0]!.uri).toBe('fixture://item/0');
			// Each call changes the fixture's tool set: its list_changed reaches the listen.
			const generated = async () => (await client.listTools()).tools.map(tool => tool.name).filter(name => /^gen_\d+$/.test(name));
			const listed = await generated();
			const before = toolChanges.length;
			await client.callTool({name: 'echo', arguments: {text: 'change'}});
			await waitFor(() => toolChanges.length > before || undefined, 'tools/list_changed on the listen');
			// The list read again after list_changed is the new one, not a cached copy (its ttlMs is 0).
			await waitFor(async () => ((await generated()).join() !== listed.join() ? true : undefined), 'tools/list to show the changed tool set');
			// Not asked for, never sent.
			expect(promptChanges).toEqual([]);
			await subscription.close();
			expect(await subscription.closed).toBe('local');
		});
	}

	it('serve --http: a hangar that shuts down ends each open listen with its result, gracefully', async () => {
		const dir = tempDir();
		const hangar = await serveHttp(writeConfig(dir, {fx: fixture('normal', [], {namespace: false})}, fastHangar));
		const client = pinned();
		await client.connect(new ModernHttp(new URL(hangar.url)));
		const subscription = await client.listen({toolsListChanged: true});
		await hangar.stop('SIGTERM');
		expect(await subscription.closed).toBe('graceful');
	});

	for (const transport of ['http', 'stdio'] as const) {
		it(`${transport}: an upstream's log messages reach a modern request only at or above the level in its _meta`, async () => {
			const dir = tempDir();
			const config = writeConfig(dir, {fx: fixture('normal', ['--client-features'], {namespace: false})}, fastHangar);
			const client = pinned();
			if (transport === 'http') await client.connect(new ModernHttp(new URL((await serveHttp(config)).url)));
			else await client.connect(stdioTransport(config));
			const received: string[] = [];
			client.setNotificationHandler('notifications/message', notification => void received.push(String(notification.params.level)));
			const levelKey = 'io.modelcontextprotocol/logLevel';
			await client.callTool({name: 'log', arguments: {}, _meta: {[levelKey]: 'debug'}});
			expect(received).toEqual(['debug', 'info', 'notice', 'warning', 'error', 'critical', 'alert', 'emergency']);
			// The upstream still sends every level (hangar asked it for debug): hangar itself filters by this request's level.
			received.length = 0;
			const sent = JSON.parse(text(await client.callTool({name: 'log', arguments: {}, _meta: {[levelKey]: 'error'}}))) as {sent: string[]};
			expect(sent.sent).toContain('debug');
			expect(received).toEqual(['error', 'critical', 'alert', 'emergency']);
			// No level: no log messages, as a 2025 client that never set one.
			received.length = 0;
			await client.callTool({name: 'log', arguments: {}});
			expect(received).toEqual([]);
		});
	}

	for (const transport of ['http', 'stdio'] as const) {
		it(`${transport}: traceparent, tracestate and baggage in a modern request's _meta reach the upstream`, async () => {
			const dir = tempDir();
			const config = writeConfig(dir, {echo: metaEchoServer(dir)}, fastHangar);
			const client = pinned();
			if (transport === 'http') await client.connect(new ModernHttp(new URL((await serveHttp(config)).url)));
			else await client.connect(stdioTransport(config));
			const trace = {traceparent: '00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01', tracestate: 'vendor=opaque', baggage: 'tenant=blue'};
			const {tools} = await client.listTools();
			const name = tools.find(tool => tool.name.endsWith('meta'))!.name;
			const received = JSON.parse(text(await client.callTool({name, arguments: {}, _meta: trace}))) as Record<string, unknown>;
			expect(received).toMatchObject(trace);
			// The envelope is hangar's: the upstream is told its own, not the client's.
			expect(Object.keys(received).filter(key => key.startsWith('io.modelcontextprotocol/'))).toEqual([]);
		});
	}
});
