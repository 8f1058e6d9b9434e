/**
 * A 2026-07-28 client over `serve --http` is one client across all its TCP
 * connections (gateway/modern-clients.ts): the v2 SDK holds
 * `subscriptions/listen` open on one connection, so its other requests come
 * on others, and an upstream that runs one instance per client ("auto",
 * learned from its first sampling request) must still serve all of them on
 * the client's one instance. Real subprocesses: hangar, the matrix fixture
 * upstream, v2 SDK clients whose fetch pools keep-alive connections.
 */
import http from 'node:http';
import path from 'node:path';
import {Client as ModernClient, StreamableHTTPClientTransport as ModernHttp} from '@modelcontextprotocol/client';
import {afterAll, describe, expect, it} from 'vitest';
import {fastHangar, root, tempDir, waitFor, writeConfig} from '../support/hangar.js';
import {serveHttp, stopHttpHangars} from '../support/http-hangar.js';
import {pooledFetch, type Carried} from '../support/pooled-fetch.js';

const upstreamScript = path.join(root, 'test', 'fixtures', 'matrix-upstream.mjs');
const open: ModernClient[] = [];

afterAll(async () => {
	await Promise.all(open.map(async client => client.close().catch(() => {})));
	await stopHttpHangars();
});

/** A pinned 2026-07-28 client with its own connection pool, answering sampling, counting what reaches it. */
async function connect(url: string, name: string) {
	const carried: Carried[] = [];
	const seen = {sampling: 0, toolChanges: 0};
	const client = new ModernClient({name, version: '1.0.0'}, {versionNegotiation: {mode: {pin: '2026-07-28'}}, capabilities: {sampling: {}}});
	open.push(client);
	client.setRequestHandler('sampling/createMessage', async () => {
		seen.sampling += 1;
		return {role: 'assistant', content: {type: 'text', text: `model of ${name}`}, model: 'test-model'};
	});
	client.setNotificationHandler('notifications/tools/list_changed', () => {
		seen.toolChanges += 1;
	});
	await client.connect(new ModernHttp(new URL(url), {fetch: pooledFetch(new http.Agent({keepAlive: true}), carried)}));
	const subscription = await client.listen({toolsListChanged: true});
	const text = async (tool: string) => {
		const result = await client.callTool({name: tool, arguments: {}});
		return (result.content as Array<{text: string}>).map(part => part.text).join('');
	};

	const tools = async () => (await client.listTools()).tools.map(tool => tool.name);
	return {client, carried, seen, subscription, text, tools};
}

/** The local ports of the connections that carried `method`. */
const portsOf = (carried: Carried[], method: string) => new Set(carried.filter(request => request.method === method).map(request => request.port));

describe('a 2026-07-28 client over HTTP is one client across its connections', () => {
	it('with listen open, sampling through MRTR makes the upstream per-client, and each tool that changes the list shows in its next tools/list', async () => {
		// The default "instances": "auto": the upstream's first sampling request moves it to one instance per client.
		const config = writeConfig(tempDir(), {legacy: {command: process.execPath, args: [upstreamScript, '--era', 'legacy']}}, fastHangar);
		const hangar = await serveHttp(config);
		const first = await connect(hangar.url, 'first-client');
		const second = await connect(hangar.url, 'second-client');

		expect(await first.text('legacy__sample')).toBe('sampled: model of first-client');
		expect(first.seen.sampling).toBe(1);
		expect(second.seen.sampling).toBe(0);

		const grownByFirst: string[] = [];
		for (let round = 0; round < 3; round++) {
			// The first client's sampling again, now on its own instance: the question reaches it alone.
			expect(await first.text('legacy__sample')).toBe('sampled: model of first-client');
			const changes = first.seen.toolChanges;
			const grown = await first.text('legacy__grow');
			grownByFirst.push(`legacy__${grown}`);
			// Its listen (on another connection) hears of the change, and its tools/list shows it, every round.
			await waitFor(() => first.seen.toolChanges > changes || undefined, `tools/list_changed on the first client's listen (round ${round})`);
			expect(await first.tools()).toEqual(expect.arrayContaining(grownByFirst));
		}

		expect(first.seen.sampling).toBe(4);
		// The listen held one connection, so its calls and lists came on others: the identity spans connections.
		const listen = portsOf(first.carried, 'subscriptions/listen');
		const calls = portsOf(first.carried, 'tools/call');
		expect(listen.size).toBe(1);
		expect([...calls].some(port => !listen.has(port))).toBe(true);
		expect(new Set(first.carried.map(request => request.port)).size).toBeGreaterThan(1);

		// The second client (another clientInfo) has an instance of its own: its sampling reaches only it, and once its
		// instance runs, its list is that instance's, none of the first one's tools. (Before its instance runs it is shown
		// the list last learned for its capability profile: client-tools.ts, not this test's concern.)
		expect(await second.text('legacy__sample')).toBe('sampled: model of second-client');
		expect(second.seen.sampling).toBe(1);
		expect(first.seen.sampling).toBe(4);
		const secondTools = await second.tools();
		expect(secondTools).toContain('legacy__grow');
		for (const name of grownByFirst) expect(secondTools).not.toContain(name);
		const secondGrown = `legacy__${await second.text('legacy__grow')}`;
		await waitFor(async () => (await second.tools()).includes(secondGrown) || undefined, 'the second client\'s grown tool in its list');
		expect((await first.tools()).filter(name => name.startsWith('legacy__grown-'))).toEqual(grownByFirst);
	}, 60_000);
});
