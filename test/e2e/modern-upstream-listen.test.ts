/**
 * A 2026-07-28 upstream's changes behind hangar (issue 31): that era has no
 * unsolicited list_changed and no resources/subscribe, so hangar opens
 * `subscriptions/listen` toward it and routes what arrives as a 2025
 * upstream's notifications are routed: list_changed to every client (a 2025
 * client as `notifications/tools/list_changed`, a 2026-07-28 client on its
 * own listen), resources/updated only to the clients that subscribed. And
 * the caching hints of hangar's aggregated lists, merged from the parts.
 * Real subprocesses: the v2 server SDK fixture (source/demo/modern-server.ts)
 * pinned to 2026-07-28, `serve --http`, v1 and v2 SDK clients.
 */
import path from 'node:path';
import {afterEach, describe, expect, it} from 'vitest';
import {Client as ModernClient, StreamableHTTPClientTransport as ModernHttp} from '@modelcontextprotocol/client';
import {LoggingMessageNotificationSchema, ResourceUpdatedNotificationSchema, ToolListChangedNotificationSchema} from '@modelcontextprotocol/sdk/types.js';
import {closeHangars, fastHangar, fixture, root, tempDir, waitFor, writeConfig, type ServerEntry} from '../support/hangar.js';
import {connectHttp, serveHttp, stopHttpHangars, type HttpClient} from '../support/http-hangar.js';

const modernServerPath = path.join(root, 'dist', 'demo', 'modern-server.js');
const counter = 'demo://counter';

/** The fixture as a 2026-07-28-only server (it refuses the 2025 initialize). */
function modernOnly(args: string[] = [], extra: ServerEntry = {namespace: false}): ServerEntry {
	return {command: process.execPath, args: [modernServerPath, '--legacy', 'reject', ...args], ...extra};
}

/** The same with its tools under prefixed names, beside others of its kind. */
const prefixed = (args: string[]) => modernOnly(args, {});

const modernClients: ModernClient[] = [];
const legacyClients: HttpClient[] = [];

async function modernClient(url: string): Promise<ModernClient> {
	const client = new ModernClient({name: `modern-${modernClients.length}`, version: '1.0.0'}, {versionNegotiation: {mode: {pin: '2026-07-28'}}});
	modernClients.push(client);
	await client.connect(new ModernHttp(new URL(url)));
	return client;
}

async function legacyClient(url: string): Promise<HttpClient> {
	const connected = await connectHttp(url);
	legacyClients.push(connected);
	return connected;
}

afterEach(async () => {
	await Promise.all(modernClients.splice(0).map(async client => client.close().catch(() => {})));
	await Promise.all(legacyClients.splice(0).map(async ({client}) => client.close().catch(() => {})));
	await closeHangars();
	await stopHttpHangars();
});

describe('a 2026-07-28 upstream behind hangar: its listen stream', () => {
	it('its tool list change reaches a 2025 client as tools/list_changed and a 2026-07-28 client on its listen, and the list shows the new tool', async () => {
		const dir = tempDir();
		const {url} = await serveHttp(writeConfig(dir, {modern: modernOnly()}, fastHangar));
		const legacy = await legacyClient(url);
		const modern = await modernClient(url);
		const legacyChanges: Array<{params?: {_meta?: Record<string, unknown>}}> = [];
		const modernChanges: Array<Record<string, unknown> | undefined> = [];
		legacy.client.setNotificationHandler(ToolListChangedNotificationSchema, notification => void legacyChanges.push(notification));
		modern.setNotificationHandler('notifications/tools/list_changed', notification => void modernChanges.push(notification.params?._meta));
		expect((await legacy.client.listTools()).tools.map(tool => tool.name)).not.toContain('added_tool');
		const subscription = await modern.listen({toolsListChanged: true});
		expect(subscription.honoredFilter).toEqual({toolsListChanged: true});

		const before = legacyChanges.length;
		await legacy.client.callTool({name: 'add-tool', arguments: {name: 'added_tool'}});
		await waitFor(() => legacyChanges.length > before || undefined, 'tools/list_changed at the 2025 client');
		await waitFor(() => modernChanges.length > 0 || undefined, 'tools/list_changed on the 2026-07-28 client\'s listen');
		// Each on its own terms: the 2026-07-28 client under its listen's id; the 2025 client without the id of hangar's own listen upstream.
		expect(modernChanges[0]).toHaveProperty(['io.modelcontextprotocol/subscriptionId']);
		expect(legacyChanges.at(-1)?.params?._meta?.['io.modelcontextprotocol/subscriptionId']).toBeUndefined();
		await waitFor(async () => (await legacy.client.listTools()).tools.some(tool => tool.name === 'added_tool') || undefined, 'the 2025 client\'s list to show the new tool');
		expect((await modern.listTools()).tools.map(tool => tool.name)).toContain('added_tool');
		expect((await legacy.client.callTool({name: 'added_tool', arguments: {}})).content).toEqual([{type: 'text', text: 'added_tool'}]);
		await subscription.close();
	});

	it('resources/updated reaches only the clients subscribed to that resource, 2025 and 2026-07-28 alike', async () => {
		const dir = tempDir();
		const {url} = await serveHttp(writeConfig(dir, {modern: modernOnly()}, fastHangar));
		const subscribedLegacy = await legacyClient(url);
		const otherLegacy = await legacyClient(url);
		const subscribedModern = await modernClient(url);
		const otherModern = await modernClient(url);
		const updates = {subscribedLegacy: [] as string[], otherLegacy: [] as string[], subscribedModern: [] as string[], otherModern: [] as string[]};
		subscribedLegacy.client.setNotificationHandler(ResourceUpdatedNotificationSchema, notification => void updates.subscribedLegacy.push(notification.params.uri));
		otherLegacy.client.setNotificationHandler(ResourceUpdatedNotificationSchema, notification => void updates.otherLegacy.push(notification.params.uri));
		subscribedModern.setNotificationHandler('notifications/resources/updated', notification => void updates.subscribedModern.push(notification.params.uri));
		otherModern.setNotificationHandler('notifications/resources/updated', notification => void updates.otherModern.push(notification.params.uri));

		await subscribedLegacy.client.subscribeResource({uri: counter});
		const watching = await subscribedModern.listen({resourceSubscriptions: [counter]});
		expect(watching.honoredFilter).toEqual({resourceSubscriptions: [counter]});
		const notWatching = await otherModern.listen({toolsListChanged: true});

		await otherLegacy.client.callTool({name: 'bump', arguments: {}});
		await waitFor(() => updates.subscribedLegacy.length > 0 || undefined, 'resources/updated at the subscribed 2025 client');
		await waitFor(() => updates.subscribedModern.length > 0 || undefined, 'resources/updated on the subscribed 2026-07-28 client\'s listen');
		expect(updates.subscribedLegacy).toEqual([counter]);
		expect(updates.subscribedModern).toEqual([counter]);
		// Hangar sends one update to all its subscribers at once: an answer each other client reads after it would come after it.
		await otherLegacy.client.listTools();
		await otherModern.listTools();
		expect(updates.otherLegacy).toEqual([]);
		expect(updates.otherModern).toEqual([]);
		expect((await otherLegacy.client.readResource({uri: counter})).contents).toEqual([{uri: counter, mimeType: 'text/plain', text: '1'}]);

		// Unsubscribed: the next change reaches only the 2026-07-28 client still watching.
		await subscribedLegacy.client.unsubscribeResource({uri: counter});
		await otherLegacy.client.callTool({name: 'bump', arguments: {}});
		await waitFor(() => updates.subscribedModern.length > 1 || undefined, 'the second resources/updated on the listen');
		await subscribedLegacy.client.listTools();
		expect(updates.subscribedLegacy).toEqual([counter]);
		await watching.close();
		await notWatching.close();
	});
});

describe('a 2026-07-28 upstream\'s log messages', () => {
	it('reach the calling 2025 client when its level admits them (as a shared 2025 upstream\'s do), and no other client', async () => {
		const dir = tempDir();
		const {url} = await serveHttp(writeConfig(dir, {modern: modernOnly()}, fastHangar));
		const caller = await legacyClient(url);
		const verbose = await legacyClient(url);
		const other = await legacyClient(url);
		const seen = {caller: [] as unknown[], verbose: [] as unknown[], other: [] as unknown[]};
		verbose.client.setNotificationHandler(LoggingMessageNotificationSchema, notification => void seen.verbose.push(notification.params.data));
		caller.client.setNotificationHandler(LoggingMessageNotificationSchema, notification => void seen.caller.push(notification.params.data));
		other.client.setNotificationHandler(LoggingMessageNotificationSchema, notification => void seen.other.push(notification.params.data));
		await caller.client.setLoggingLevel('info');
		await verbose.client.setLoggingLevel('debug');
		await other.client.setLoggingLevel('error');
		await caller.client.callTool({name: 'log', arguments: {message: 'from the call'}});
		await waitFor(() => seen.caller.includes('from the call') || undefined, 'the log message at the calling client');
		// Nothing in a stdio message names its call: with the caller's the only call in flight, it was the caller's alone.
		await verbose.client.callTool({name: 'log', arguments: {message: 'from verbose\'s call'}});
		await waitFor(() => seen.verbose.includes('from verbose\'s call') || undefined, 'the log message at the client at debug');
		expect(seen.verbose).toEqual(['from verbose\'s call']);
		expect(seen.caller).toEqual(['from the call']);
		// Its own call's message at info is below its level (error).
		await other.client.callTool({name: 'log', arguments: {message: 'from other\'s call'}});
		await other.client.listTools();
		expect(seen.other).toEqual([]);
	});
});

describe('a 2026-07-28 upstream that restarts', () => {
	it('is listened to again: a subscribed client still gets its resources/updated, and every client its list changes', async () => {
		const dir = tempDir();
		const {url} = await serveHttp(writeConfig(dir, {modern: modernOnly()}, fastHangar));
		const legacy = await legacyClient(url);
		const modern = await modernClient(url);
		const updates: string[] = [];
		const modernChanges: unknown[] = [];
		legacy.client.setNotificationHandler(ResourceUpdatedNotificationSchema, notification => void updates.push(notification.params.uri));
		modern.setNotificationHandler('notifications/tools/list_changed', notification => void modernChanges.push(notification));
		await legacy.client.subscribeResource({uri: counter});
		const subscription = await modern.listen({toolsListChanged: true});
		const pid = Number(((await legacy.client.callTool({name: 'pid', arguments: {}})).content as Array<{text: string}>)[0]!.text);
		process.kill(pid, 'SIGKILL');
		// A call after the crash starts it again (or waits for the restart hangar already began).
		const newPid = await waitFor(async () => {
			const answer = (await legacy.client.callTool({name: 'pid', arguments: {}}).catch(() => undefined))?.content as Array<{text: string}> | undefined;
			const text = answer?.[0]?.text;
			return text !== undefined && Number(text) !== pid ? Number(text) : undefined;
		}, 'the upstream to run again');
		expect(newPid).not.toBe(pid);
		// Subscribed again once it is ready: until then a change may come before the new listen watches it.
		await waitFor(async () => {
			await legacy.client.callTool({name: 'bump', arguments: {}});
			return updates.length > 0 || undefined;
		}, 'resources/updated after the restart', 20_000, 500);
		expect(updates[0]).toBe(counter);
		const before = modernChanges.length;
		await legacy.client.callTool({name: 'add-tool', arguments: {name: 'after_restart'}});
		await waitFor(() => modernChanges.length > before || undefined, 'tools/list_changed on the listen after the restart');
		await subscription.close();
	});
});

describe('caching hints of hangar\'s aggregated lists', () => {
	async function toolsListHints(servers: Record<string, ServerEntry>): Promise<{ttlMs: unknown; cacheScope: unknown}> {
		const {url} = await serveHttp(writeConfig(tempDir(), servers, {...fastHangar, managementTools: 'none'}));
		const client = await modernClient(url);
		const result = (await client.listTools()) as Record<string, unknown>;
		return {ttlMs: result['ttlMs'], cacheScope: result['cacheScope']};
	}

	it('all parts public: the smallest ttlMs (what is left of it), public', async () => {
		const hints = await toolsListHints({long: prefixed(['--cache-ttl', '600000', '--cache-scope', 'public']), short: prefixed(['--cache-ttl', '300000', '--cache-scope', 'public'])});
		expect(hints.cacheScope).toBe('public');
		expect(hints.ttlMs).toBeGreaterThan(240_000);
		expect(hints.ttlMs).toBeLessThanOrEqual(300_000);
	});

	it('one private part makes the list private, with the smallest ttlMs', async () => {
		const hints = await toolsListHints({open: prefixed(['--cache-ttl', '600000', '--cache-scope', 'public']), own: prefixed(['--cache-ttl', '450000', '--cache-scope', 'private'])});
		expect(hints.cacheScope).toBe('private');
		expect(hints.ttlMs).toBeGreaterThan(390_000);
		expect(hints.ttlMs).toBeLessThanOrEqual(450_000);
	});

	it('a 2025 upstream (no hints: ttlMs 0 as the spec says, private) makes the list immediately stale and private', async () => {
		const hints = await toolsListHints({open: prefixed(['--cache-ttl', '600000', '--cache-scope', 'public']), old: fixture('normal')});
		expect(hints).toEqual({ttlMs: 0, cacheScope: 'private'});
	});
});
