/**
 * Tasks on a 2026-07-28-only upstream that offers the tasks extension
 * (`io.modelcontextprotocol/tasks`, SEP-2663): test/fixtures/
 * tasks-extension-upstream.mjs, a real process speaking the extension's
 * wire. Hangar declares the extension to it on the requests that run or
 * reach a task, and
 *
 * - 2025-11-25 clients (the v1 SDK, and the v2 SDK in its 2025 mode) get
 *   2025 core tasks: the `tasks` capability, a CreateTaskResult with
 *   hangar's id, tasks/get, tasks/result, tasks/cancel, tasks/list and
 *   notifications/tasks/status, translated from the extension;
 * - 2026-07-28 clients that declare the extension get it through hangar,
 *   with hangar's ids (raw JSON-RPC: the v2 client SDK 2.4 refuses
 *   `resultType: "task"`);
 * - a task is reachable only by the client that created it,
 *
 * over `--stdio` and `serve --http`.
 */
import fs from 'node:fs';
import path from 'node:path';
import {afterEach, describe, expect, it} from 'vitest';
import {z} from 'zod';
import {Client} from '@modelcontextprotocol/sdk/client/index.js';
import {ElicitRequestSchema, TaskStatusNotificationSchema} from '@modelcontextprotocol/sdk/types.js';
import {Client as ModernClient, StreamableHTTPClientTransport as ModernHttp, type Transport as ModernTransport} from '@modelcontextprotocol/client';
import {StdioClientTransport as ModernStdio} from '@modelcontextprotocol/client/stdio';
import {cliPath, closeHangars, fastHangar, openHangar, root, spawnEnv, statusOf, tempDir, waitFor, writeConfig, type ServerEntry} from '../support/hangar.js';
import {connectHttp, serveHttp, stopHttpHangars} from '../support/http-hangar.js';
import {declaringTasks, modernHttpClient, modernStdioClient, tasksExtension, type ModernSend} from '../support/modern-wire.js';

const fixturePath = path.join(root, 'test', 'fixtures', 'tasks-extension-upstream.mjs');
const relatedTask = 'io.modelcontextprotocol/related-task';
const anyResult = z.looseObject({});

const closers: Array<() => Promise<void>> = [];

afterEach(async () => {
	await Promise.all(closers.splice(0).map(async close => close().catch(() => {})));
	await closeHangars();
	await stopHttpHangars();
});

/** A hangar config with the fixture as `ext` (shared, started at once), and the file the fixture logs its wire to. */
function setup(extra: Record<string, ServerEntry> = {}): {config: string; wire: string} {
	const dir = tempDir();
	const wire = path.join(dir, 'wire.jsonl');
	const config = writeConfig(dir, {ext: {command: process.execPath, args: [fixturePath, '--log', wire], namespace: false, lazy: false, instances: 'shared'}, ...extra}, fastHangar);
	return {config, wire};
}

type WireLine = {method?: string; declares?: boolean; task?: boolean; created?: string};

function wireOf(file: string): WireLine[] {
	return fs.existsSync(file) ? fs.readFileSync(file, 'utf8').split('\n').filter(line => line !== '').map(line => JSON.parse(line) as WireLine) : [];
}

/** A 2025-era client as the tests drive it: raw requests, its capabilities, the status notifications it got. */
type LegacyClient = {
	request: (method: string, params: Record<string, unknown>) => Promise<Record<string, unknown>>;
	capabilities: () => Record<string, unknown> | undefined;
	statuses: Array<Record<string, unknown>>;
};

function v1(client: Client): LegacyClient {
	const statuses: Array<Record<string, unknown>> = [];
	client.setNotificationHandler(TaskStatusNotificationSchema, notification => {
		statuses.push(notification.params);
	});
	return {request: async (method, params) => client.request({method, params} as never, anyResult), capabilities: () => client.getServerCapabilities(), statuses};
}

/** The v2 client SDK in its 2025 mode, over `transport`. */
async function v2(transport: ModernTransport): Promise<LegacyClient> {
	const client = new ModernClient({name: 'v2-in-2025-mode', version: '1.0.0'}, {versionNegotiation: {mode: 'legacy'}});
	const statuses: Array<Record<string, unknown>> = [];
	client.fallbackNotificationHandler = async notification => {
		if (notification.method === 'notifications/tasks/status') statuses.push(notification.params as Record<string, unknown>);
	};
	await client.connect(transport);
	closers.push(async () => client.close());
	expect(client.getNegotiatedProtocolVersion()).toBe('2025-11-25');
	return {request: async (method, params) => client.request({method, params} as never, anyResult) as Promise<Record<string, unknown>>, capabilities: () => client.getServerCapabilities() as Record<string, unknown>, statuses};
}

/** The JSON-RPC error a request rejects with (either SDK's error class: both carry `code`). */
async function errorOf(promise: Promise<unknown>): Promise<{code: number; message: string}> {
	try {
		await promise;
	} catch (error) {
		const {code, message} = error as {code?: unknown; message?: unknown};
		if (typeof code === 'number') return {code, message: String(message)};
		throw error;
	}

	throw new Error('expected a JSON-RPC error, but the request succeeded');
}

async function startTask(client: LegacyClient, name: string, args: Record<string, unknown> = {}): Promise<Record<string, unknown>> {
	const created = await client.request('tools/call', {name, arguments: args, task: {ttl: 60_000}});
	expect(created['task']).toMatchObject({taskId: expect.any(String) as string, status: 'working', ttl: 60_000, pollInterval: 50});
	return created['task'] as Record<string, unknown>;
}

/**
 * A 2025 client's whole task lifecycle on the extension upstream: created
 * under hangar's id, polled to completion (with a status notification),
 * its result fetched; listed; another cancelled; a failing one's error.
 */
async function legacyLifecycle(client: LegacyClient, wire: string): Promise<void> {
	expect(client.capabilities()?.['tasks']).toEqual({list: {}, cancel: {}, requests: {tools: {call: {}}}});
	const task = await startTask(client, 'slow', {ms: 150, text: 'tides'});
	const taskId = task['taskId'] as string;
	const upstreamIds = wireOf(wire).flatMap(line => (line.created === undefined ? [] : [line.created]));
	expect(upstreamIds.length).toBeGreaterThan(0);
	expect(upstreamIds).not.toContain(taskId);

	const done = await waitFor(async () => {
		const got = await client.request('tasks/get', {taskId});
		expect(got).toMatchObject({taskId, createdAt: task['createdAt']});
		return got['status'] === 'completed' && got;
	}, 'the task to complete');
	expect(done).not.toHaveProperty('ttlMs');
	const result = await client.request('tasks/result', {taskId});
	expect(result).toEqual({content: [{type: 'text', text: 'slow: tides'}], _meta: {[relatedTask]: {taskId}}});
	await waitFor(() => client.statuses.some(status => status['taskId'] === taskId && status['status'] === 'completed'), 'the completed status notification');
	expect(client.statuses.every(status => status['taskId'] === taskId || !upstreamIds.includes(status['taskId'] as string))).toBe(true);

	const forever = await startTask(client, 'forever');
	const listed = (await client.request('tasks/list', {}))['tasks'] as Array<Record<string, unknown>>;
	expect(listed.map(entry => entry['taskId'])).toEqual(expect.arrayContaining([taskId, forever['taskId']]));
	const cancelled = await client.request('tasks/cancel', {taskId: forever['taskId']});
	expect(cancelled).toMatchObject({taskId: forever['taskId'], status: 'cancelled'});
	expect((await client.request('tasks/get', {taskId: forever['taskId']}))['status']).toBe('cancelled');
	expect((await errorOf(client.request('tasks/result', {taskId: forever['taskId']}))).message).toMatch(/was cancelled .*no result/);

	const broken = await startTask(client, 'broken', {ms: 50});
	const failure = await errorOf(client.request('tasks/result', {taskId: broken['taskId']}));
	expect(failure.code).toBe(-32_603);
	expect(failure.message).toContain('broken on purpose');
	expect((await client.request('tasks/get', {taskId: broken['taskId']}))['status']).toBe('failed');

	// The upstream was told the extension on every request that runs or reaches a task, and never got the 2025 `task` param.
	const lines = wireOf(wire).filter(line => line.method !== undefined);
	expect(lines.filter(line => line.method === 'tools/call').every(line => line.declares === true && line.task === false)).toBe(true);
	expect(lines.filter(line => line.method!.startsWith('tasks/')).every(line => line.declares === true)).toBe(true);
	expect(lines.some(line => line.method === 'tasks/result' || line.method === 'tasks/list')).toBe(false);
}

describe('a 2026-07-28 upstream with the tasks extension, for 2025-11-25 clients', () => {
	it('--stdio, v1 SDK: tasks offered, a task under hangar\'s id, polled, its result fetched, listed, cancelled, failed, translated from the extension', async () => {
		const {config, wire} = setup();
		const hangar = await openHangar(config);
		await waitFor(async () => (await statusOf(hangar.client, 'ext')).state === 'ready', 'ext to be ready');
		await legacyLifecycle(v1(hangar.client), wire);
		// A plain call of the task-supporting tool stays plain: the extension is not declared for it.
		expect(await hangar.client.callTool({name: 'slow', arguments: {ms: 1, text: 'plain'}})).toEqual({content: [{type: 'text', text: 'slow: plain'}]});
		expect(wireOf(wire).filter(line => line.method === 'tools/call').at(-1)).toEqual({method: 'tools/call', declares: false, task: false});
	});

	it('--stdio, v1 SDK: a task that asks for input (input_required) asks the client during tasks/result, as a 2025 task does, and the answer goes back with tasks/update', async () => {
		const {config, wire} = setup();
		const asked: Array<Record<string, unknown>> = [];
		const client = new Client({name: 'answers', version: '1.0.0'}, {capabilities: {elicitation: {}}});
		client.setRequestHandler(ElicitRequestSchema, async request => {
			asked.push(request.params as Record<string, unknown>);
			return {action: 'accept', content: {name: 'Ada'}};
		});
		const hangar = await openHangar(config, {client});
		await waitFor(async () => (await statusOf(hangar.client, 'ext')).state === 'ready', 'ext to be ready');
		const legacy = v1(hangar.client);
		const task = await startTask(legacy, 'ask');
		await waitFor(async () => (await legacy.request('tasks/get', {taskId: task['taskId']}))['status'] === 'input_required', 'the task to ask');
		expect(await legacy.request('tasks/result', {taskId: task['taskId']})).toEqual({content: [{type: 'text', text: 'hello, Ada'}], _meta: {[relatedTask]: {taskId: task['taskId']}}});
		expect(asked).toHaveLength(1);
		expect(asked[0]).toMatchObject({message: 'Your name?', _meta: {[relatedTask]: {taskId: task['taskId']}}});
		expect(wireOf(wire).filter(line => line.method === 'tasks/update')).toEqual([{method: 'tasks/update', declares: true, task: false}]);
	});

	it('--stdio, v2 SDK in its 2025 mode: the same lifecycle as the v1 SDK\'s', async () => {
		const {config, wire} = setup();
		const client = await v2(new ModernStdio({command: process.execPath, args: [cliPath, '--stdio', '--config', config, '--standalone'], env: spawnEnv(), stderr: 'pipe'}));
		await legacyLifecycle(client, wire);
	});

	it('serve --http, v1 and v2 SDK sessions: each runs its tasks, and another session can neither see nor reach them', async () => {
		const {config, wire} = setup();
		const {url} = await serveHttp(config);
		const first = await connectHttp(url);
		closers.push(async () => first.client.close());
		await waitFor(async () => (await statusOf(first.client, 'ext')).state === 'ready', 'ext to be ready');
		const owner = v1(first.client);
		await legacyLifecycle(owner, wire);
		const other = await v2(new ModernHttp(new URL(url)));
		await legacyLifecycle(other, wire);

		const mine = await startTask(owner, 'forever');
		for (const method of ['tasks/get', 'tasks/result', 'tasks/cancel']) {
			const refused = await errorOf(other.request(method, {taskId: mine['taskId']}));
			expect(refused.code).toBe(-32_602);
		}

		const theirs = (await other.request('tasks/list', {}))['tasks'] as Array<Record<string, unknown>>;
		expect(theirs.map(entry => entry['taskId'])).not.toContain(mine['taskId']);
		// Nor do its status notifications reach the other session.
		expect((await owner.request('tasks/cancel', {taskId: mine['taskId']}))['status']).toBe('cancelled');
		expect(other.statuses.some(status => status['taskId'] === mine['taskId'])).toBe(false);
	});

	it('offers 2025 clients no tasks when no upstream can run them (a 2026-07-28 upstream without the extension)', async () => {
		const dir = tempDir();
		const modernServer = path.join(root, 'dist', 'demo', 'modern-server.js');
		const config = writeConfig(dir, {plain: {command: process.execPath, args: [modernServer, '--legacy', 'reject'], lazy: false}}, fastHangar);
		const hangar = await openHangar(config);
		await waitFor(async () => (await statusOf(hangar.client, 'plain')).state === 'ready', 'plain to be ready');
		// The capabilities a session sees are those at its initialize: a new session, now that the upstream's are known.
		const again = await openHangar(config);
		expect(again.client.getServerCapabilities()?.tasks).toBeUndefined();
	});
});

async function modernTask(send: ModernSend, name: string, args: Record<string, unknown> = {}): Promise<string> {
	const created = await send('tools/call', {name, arguments: args});
	expect(created.error).toBeUndefined();
	expect(created.result).toMatchObject({resultType: 'task', status: 'working', ttlMs: 60_000, pollIntervalMs: 50});
	expect(created.result).not.toHaveProperty('task');
	return created.result!['taskId'] as string;
}

async function modernSettled(send: ModernSend, taskId: string): Promise<Record<string, unknown>> {
	return waitFor(async () => {
		const got = await send('tasks/get', {taskId});
		expect(got.result).toMatchObject({taskId, resultType: 'complete'});
		return ['completed', 'failed', 'cancelled'].includes(got.result!['status'] as string) && got.result!;
	}, `task ${taskId} to end`);
}

/** A 2026-07-28 client's lifecycle through hangar: the extension as the upstream speaks it, under hangar's ids. */
async function modernLifecycle(send: ModernSend, wire: string): Promise<void> {
	const discovered = await send('server/discover', {});
	expect(discovered.result!['capabilities']).toMatchObject({extensions: {[tasksExtension]: {}}});
	expect(discovered.result!['capabilities']).not.toHaveProperty('tasks');

	const taskId = await modernTask(send, 'slow', {ms: 150, text: 'tides'});
	expect(wireOf(wire).map(line => line.created)).not.toContain(taskId);
	const done = await modernSettled(send, taskId);
	expect(done).toMatchObject({status: 'completed', result: {content: [{type: 'text', text: 'slow: tides'}]}});
	expect((done['result'] as Record<string, unknown>)['_meta']).toBeUndefined();

	const forever = await modernTask(send, 'forever');
	expect((await send('tasks/cancel', {taskId: forever})).result).toEqual({resultType: 'complete'});
	expect(await modernSettled(send, forever)).toMatchObject({status: 'cancelled'});

	const broken = await modernTask(send, 'broken', {ms: 50});
	expect(await modernSettled(send, broken)).toMatchObject({status: 'failed', error: {code: -32_603, message: expect.stringContaining('broken on purpose') as string}});

	// A task that asks for input: its status passes; its questions are not carried to a 2026-07-28 client (docs/protocol.md).
	const asking = await modernTask(send, 'ask');
	await waitFor(async () => (await send('tasks/get', {taskId: asking})).result!['status'] === 'input_required', 'the task to ask');
	expect((await send('tasks/cancel', {taskId: asking})).result).toEqual({resultType: 'complete'});
	expect(await modernSettled(send, asking)).toMatchObject({status: 'cancelled'});

	// Without the extension declared: a task-only tool is refused naming it, a task-supporting one is called plainly.
	const refused = await send('tools/call', {name: 'forever', arguments: {}}, {});
	expect(refused.error).toMatchObject({code: -32_021, data: {requiredCapabilities: {extensions: {[tasksExtension]: {}}}}});
	const plain = await send('tools/call', {name: 'slow', arguments: {ms: 1, text: 'plain'}}, {});
	expect(plain.result).toMatchObject({content: [{type: 'text', text: 'slow: plain'}]});
	expect(plain.result!['resultType']).not.toBe('task');
}

describe('a 2026-07-28 upstream with the tasks extension, for 2026-07-28 clients', () => {
	it('--stdio: the extension through hangar under hangar\'s ids: created, polled, its result inlined, cancelled, failed', async () => {
		const {config, wire} = setup();
		const send = await modernStdioClient(config, closers);
		await modernLifecycle(send, wire);
	});

	it('serve --http: another client can neither see nor reach a task', async () => {
		const {config, wire} = setup();
		const {url} = await serveHttp(config);
		const owner = modernHttpClient(url, closers, 'owner');
		const stranger = modernHttpClient(url, closers, 'stranger');
		await modernLifecycle(owner, wire);
		const taskId = await modernTask(owner, 'forever');
		for (const method of ['tasks/get', 'tasks/cancel', 'tasks/update']) {
			const refused = await stranger(method, {taskId, ...(method === 'tasks/update' ? {inputResponses: {}} : {})}, declaringTasks);
			expect(refused.error?.code).toBe(-32_602);
		}

		expect((await owner('tasks/cancel', {taskId})).result).toEqual({resultType: 'complete'});
	});
});
