/**
 * `"instances": "per-client"` through the built binary: one `mcp-hangar
 * serve` with two attached `--stdio` clients. Each client session gets its
 * own upstream process, that process's requests for its client reach only
 * that client, closing a client stops its instance (the process is gone)
 * while the other keeps working, a shared upstream beside it stays one
 * process, and a person's stop or quarantine applies to every instance.
 */
import {Client} from '@modelcontextprotocol/sdk/client/index.js';
import {ListRootsRequestSchema, ResourceUpdatedNotificationSchema, type CallToolResult} from '@modelcontextprotocol/sdk/types.js';
import {afterEach, describe, expect, it} from 'vitest';
import {closeHangars, everything, fastHangar, fixture, isAlive, openHangar, runCli, statusOf, tempDir, waitFor, writeConfig} from '../support/hangar.js';
import {startDaemon, stopDaemons} from '../support/serve.js';
import {connectHttp, serveHttp, stopHttpHangars} from '../support/http-hangar.js';

afterEach(async () => {
	await closeHangars();
	await stopHttpHangars();
	await stopDaemons('SIGKILL');
});

/** An SDK client that declares roots and answers roots/list with its own folder. */
function rootsClient(name: string): {client: Client; asked: number[]} {
	const client = new Client({name, version: '1.0.0'}, {capabilities: {roots: {listChanged: true}}});
	const asked: number[] = [];
	client.setRequestHandler(ListRootsRequestSchema, () => {
		asked.push(Date.now());
		return {roots: [{uri: `file:///work/${name}`, name: `${name}'s project`}]};
	});
	return {client, asked};
}

function text(result: unknown): string {
	const content = (result as CallToolResult).content[0];
	return content?.type === 'text' ? content.text : '';
}

function structured(result: unknown): Record<string, unknown> {
	return (result as CallToolResult).structuredContent!;
}

async function pidOf(client: Client, tool: string): Promise<number> {
	return Number(text(await client.callTool({name: tool, arguments: {}})));
}

/** A daemon serving `fs` (per-client, asks its client for roots) and `shared` (one process for everyone), with two clients attached. */
async function twoClients() {
	const file = writeConfig(
		tempDir(),
		{
			fs: fixture('normal', ['--client-features'], {instances: 'per-client'}),
			shared: fixture('normal'),
		},
		fastHangar,
	);
	await startDaemon(file);
	const a = rootsClient('a');
	const b = rootsClient('b');
	const handleA = await openHangar(file, {client: a.client, shared: true});
	const handleB = await openHangar(file, {client: b.client, shared: true});
	return {a, b, handleA, handleB, file};
}

describe('a per-client upstream', () => {
	it('runs one process per client session, sends each instance\'s requests to its own client, and stops an instance with its session', async () => {
		const {a, b, handleA} = await twoClients();
		const pidA = await pidOf(a.client, 'fs__pid');
		const pidB = await pidOf(b.client, 'fs__pid');
		expect(pidA).not.toBe(pidB);
		expect(await pidOf(a.client, 'fs__pid')).toBe(pidA);
		// The shared upstream beside it is one process for both.
		expect(await pidOf(a.client, 'shared__pid')).toBe(await pidOf(b.client, 'shared__pid'));

		// Roots asked for by an instance come from its own client, in a call and outside one.
		expect(structured(await a.client.callTool({name: 'fs__ask', arguments: {kind: 'roots'}}))['result']).toEqual({roots: [{uri: 'file:///work/a', name: 'a\'s project'}]});
		expect(structured(await b.client.callTool({name: 'fs__ask', arguments: {kind: 'roots'}}))['result']).toEqual({roots: [{uri: 'file:///work/b', name: 'b\'s project'}]});
		// The template ran at launch only to learn the tools; it is cold again, so only instances hear of roots.
		await waitFor(async () => (await statusOf(b.client, 'fs')).state === 'cold', 'the template to stop after learning the tools');
		await b.client.sendRootsListChanged();
		await waitFor(async () => JSON.stringify(structured(await b.client.callTool({name: 'fs__roots-seen', arguments: {}}))['roots']).includes('file:///work/b'), 'b\'s instance to fetch b\'s roots');
		// b's change reached b's instance only.
		expect(structured(await a.client.callTool({name: 'fs__roots-seen', arguments: {}}))['changes']).toBe(0);
		expect(a.asked).toHaveLength(1);
		expect(b.asked).toHaveLength(2);

		// hangar_list groups the instances under the server.
		const listed = await statusOf(b.client, 'fs');
		expect(listed.instances?.map(instance => instance.pid).sort()).toEqual([pidA, pidB].sort());
		expect(listed.instances?.map(instance => instance.name)).toEqual([expect.stringMatching(/^fs#\d+$/), expect.stringMatching(/^fs#\d+$/)]);
		expect((await statusOf(b.client, 'shared')).instances).toBeUndefined();

		await handleA.close();
		await waitFor(() => !isAlive(pidA), 'a\'s instance to exit with a\'s session');
		expect(await pidOf(b.client, 'fs__pid')).toBe(pidB);
		expect((await statusOf(b.client, 'fs')).instances?.map(instance => instance.pid)).toEqual([pidB]);
	});

	it('counts every instance\'s calls in the server\'s row, in hangar_list and status --json, and keeps them when a client leaves', async () => {
		const {a, b, handleA, file} = await twoClients();
		const pidA = await pidOf(a.client, 'fs__pid');
		for (let index = 0; index < 2; index++) await pidOf(a.client, 'fs__pid');
		for (let index = 0; index < 2; index++) await pidOf(b.client, 'fs__pid');
		/** The fs row as status --json (through the running daemon) gives it. */
		const cliRow = async (): Promise<{calls: number; failures: number; inFlight: number}> => {
			const run = await runCli(['status', '--json', '--config', file]);
			expect(run.code).toBe(0);
			return (JSON.parse(run.stdout) as {upstreams: Array<{name: string; calls: number; failures: number; inFlight: number}>}).upstreams.find(row => row.name === 'fs')!;
		};

		const listed = await statusOf(b.client, 'fs');
		expect(listed).toMatchObject({calls: 5, failures: 0, inFlight: 0});
		expect(listed.instances?.map(instance => instance.calls).sort()).toEqual([2, 3]);
		expect(listed.latencyMs.p50).not.toBeNull();
		expect(await cliRow()).toMatchObject({calls: 5, failures: 0, inFlight: 0});

		await handleA.close();
		await waitFor(() => !isAlive(pidA), 'a\'s instance to exit with a\'s session');
		await waitFor(async () => (await statusOf(b.client, 'fs')).instances?.length === 1, 'a\'s instance to leave the list');
		expect(await statusOf(b.client, 'fs')).toMatchObject({calls: 5, failures: 0, inFlight: 0});
		expect(await cliRow()).toMatchObject({calls: 5, failures: 0});
		await pidOf(b.client, 'fs__pid');
		expect(await statusOf(b.client, 'fs')).toMatchObject({calls: 6, failures: 0});
		expect(await cliRow()).toMatchObject({calls: 6});
	});

	it('serves a call no client session made (a one-shot `mcp-hangar call`) from its template, every time, and leaves no process', async () => {
		const file = writeConfig(tempDir(), {fs: fixture('normal', ['--client-features'], {instances: 'per-client'})}, fastHangar);
		for (const run of [1, 2]) {
			const called = await runCli(['call', 'fs', 'pid', '--config', file]);
			expect(called.stderr, `run ${run}`).not.toContain('failed');
			expect(called.code, `run ${run}: ${called.stderr}`).toBe(0);
			const pid = Number(called.stdout.trim());
			expect(pid).toBeGreaterThan(0);
			expect(isAlive(pid)).toBe(false);
		}
	});

	it('takes a person\'s stop and quarantine for every instance', async () => {
		const {a, b} = await twoClients();
		const pids = [await pidOf(a.client, 'fs__pid'), await pidOf(b.client, 'fs__pid')];
		const stopped = structured(await a.client.callTool({name: 'hangar_stop', arguments: {server: 'fs', waitSeconds: 30}}));
		expect(stopped['message']).toMatch(/stopped "fs".*\(2 instances stopped\)/);
		for (const pid of pids) expect(isAlive(pid)).toBe(false);
		const refused = await b.client.callTool({name: 'hangar_call', arguments: {server: 'fs', tool: 'pid'}}).catch((error: unknown) => error as Error);
		expect(refused).toBeInstanceOf(Error);
		expect((refused as Error).message).toContain('stopped');

		await a.client.callTool({name: 'hangar_start', arguments: {server: 'fs', waitSeconds: 30}});
		const again = await pidOf(b.client, 'fs__pid');
		expect(pids).not.toContain(again);
		const quarantined = structured(await a.client.callTool({name: 'hangar_quarantine', arguments: {server: 'fs', waitSeconds: 30}}));
		expect(quarantined['message']).toMatch(/quarantined "fs".*\(1 instance stopped\)/);
		expect(isAlive(again)).toBe(false);
		const refusedAgain = await a.client.callTool({name: 'hangar_call', arguments: {server: 'fs', tool: 'pid'}}).catch((error: unknown) => error as Error);
		expect((refusedAgain as Error).message).toContain('quarantined');
		expect((await statusOf(a.client, 'fs')).instances).toEqual([]);
	});

	it('gives each HTTP session its own instance, whose requests reach that session, and stops it when the session ends', async () => {
		const file = writeConfig(tempDir(), {fs: fixture('normal', ['--client-features'], {instances: 'per-client'})}, fastHangar);
		const hangar = await serveHttp(file);
		const a = rootsClient('a');
		const b = rootsClient('b');
		const httpA = await connectHttp(hangar.url, {client: a.client});
		await connectHttp(hangar.url, {client: b.client});
		const pidA = await pidOf(a.client, 'fs__pid');
		const pidB = await pidOf(b.client, 'fs__pid');
		expect(pidA).not.toBe(pidB);
		// A request the instance sends in a call travels on that call's own stream, to its own session.
		expect(structured(await a.client.callTool({name: 'fs__ask', arguments: {kind: 'roots'}}))['result']).toEqual({roots: [{uri: 'file:///work/a', name: 'a\'s project'}]});
		expect(structured(await b.client.callTool({name: 'fs__ask', arguments: {kind: 'roots'}}))['result']).toEqual({roots: [{uri: 'file:///work/b', name: 'b\'s project'}]});
		// The server's own history counts its instances' calls (the table's and the details' sparklines).
		const details = (await b.client.callTool({name: 'hangar_details', arguments: {server: 'fs'}})).structuredContent as {history: {calls: number[]}};
		expect(details.history.calls.reduce((sum, calls) => sum + calls, 0)).toBeGreaterThanOrEqual(4);

		// DELETE ends a's session: its instance stops, b's keeps working.
		await httpA.transport.terminateSession();
		await waitFor(() => !isAlive(pidA), 'the ended session\'s instance to stop');
		expect(await pidOf(b.client, 'fs__pid')).toBe(pidB);
		expect(isAlive(pidB)).toBe(true);
	});

	it('watches a resource on the subscribing session\'s own instance, and sends its updates to that session only', async () => {
		const hangar = await serveHttp(writeConfig(tempDir(), {everything: everything({instances: 'per-client'})}, fastHangar));
		const a = await connectHttp(hangar.url);
		const b = await connectHttp(hangar.url);
		const [uri] = (await a.client.listResources()).resources.map(resource => resource.uri);
		const heard = {a: [] as string[], b: [] as string[]};
		a.client.setNotificationHandler(ResourceUpdatedNotificationSchema, notification => {
			heard.a.push(notification.params.uri);
		});
		b.client.setNotificationHandler(ResourceUpdatedNotificationSchema, notification => {
			heard.b.push(notification.params.uri);
		});
		expect(await a.client.subscribeResource({uri: uri!})).toEqual({});
		expect(await b.client.subscribeResource({uri: uri!})).toEqual({});

		// server-everything sends an update for every URI its client watches, now and every 5 s, once
		// toggled on: toggled on a's instance only, only a hears.
		await a.client.callTool({name: 'everything__toggle-subscriber-updates', arguments: {}});
		await waitFor(() => heard.a.length > 0, 'a to hear about its resource');
		expect(new Set(heard.a)).toEqual(new Set([uri]));
		expect(heard.b).toEqual([]);
		await b.client.callTool({name: 'everything__toggle-subscriber-updates', arguments: {}});
		await waitFor(() => heard.b.length > 0, 'b to hear about its resource from its own instance');
		expect(new Set(heard.b)).toEqual(new Set([uri]));
		await a.client.callTool({name: 'everything__toggle-subscriber-updates', arguments: {}});
		await b.client.callTool({name: 'everything__toggle-subscriber-updates', arguments: {}});
	});

	it('refuses a new session\'s instance past hangar.maxInstancesPerServer and maxInstances, naming the limit, and stops no other session\'s instance', async () => {
		const perClient = fixture('normal', ['--client-features'], {instances: 'per-client'});
		const file = writeConfig(tempDir(), {fs: perClient, fs2: perClient, fs3: perClient}, {...fastHangar, maxInstancesPerServer: 1, maxInstances: 2});
		const hangar = await serveHttp(file);
		const [a, b, c] = [await connectHttp(hangar.url), await connectHttp(hangar.url), await connectHttp(hangar.url)];
		const pidA = await pidOf(a.client, 'fs__pid');
		const refused = await b.client.callTool({name: 'fs__pid', arguments: {}}).catch((error: unknown) => error as Error);
		expect(refused).toBeInstanceOf(Error);
		const message = (refused as Error).message;
		expect(message).toContain('upstream "fs": tools/call "pid" failed');
		expect(message).toContain('the limit of 1 instances of this server is reached (hangar.maxInstancesPerServer)');
		expect(message).toMatch(/Close client sessions you no longer use .*raise hangar\.maxInstancesPerServer/);
		// Nobody else's instance went to make room, and the refused session is not counted.
		expect(isAlive(pidA)).toBe(true);
		expect(await pidOf(a.client, 'fs__pid')).toBe(pidA);
		expect((await statusOf(a.client, 'fs')).instances?.map(instance => instance.pid)).toEqual([pidA]);
		expect((await statusOf(a.client, 'fs')).instanceMode).toMatchObject({runs: 'per-client', limit: 1});
		const status = await runCli(['status', '--config', file]);
		expect(status.stdout).toMatch(/^fs +cold +.* per-client 1\/1 /m);

		// Across servers: fs's one and fs2's one make maxInstances (2); a third anywhere is refused.
		await pidOf(b.client, 'fs2__pid');
		const total = await c.client.callTool({name: 'fs3__pid', arguments: {}}).catch((error: unknown) => error as Error);
		expect((total as Error).message).toMatch(/upstream "fs3": tools\/call "pid" failed: .*the limit of 2 instances of all per-client servers together is reached \(hangar\.maxInstances\)/);

		// Once a's session ends its instance stops, and the next session gets one.
		await a.transport.terminateSession();
		await waitFor(() => !isAlive(pidA), 'the ended session\'s instance to stop');
		await waitFor(async () => (await statusOf(b.client, 'fs')).instances?.length === 0, 'a\'s instance to leave the list');
		expect(isAlive(await pidOf(c.client, 'fs__pid'))).toBe(true);
	});
});
