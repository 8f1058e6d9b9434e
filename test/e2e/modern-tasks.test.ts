/**
 * The 2026-07-28 tasks extension (`io.modelcontextprotocol/tasks`, SEP-2663)
 * served to modern clients in front of a 2025-11-25 upstream
 * (server-everything, whose `simulate-research-query` runs only as a task,
 * four stages of a second each): hangar drives the upstream with 2025 core
 * tasks and presents them as the extension expects. The v2 SDK client (2.4)
 * refuses `resultType: "task"` itself, so these tests speak the extension's
 * JSON-RPC over the v2 SDK's stdio transport and over plain HTTP, against
 * the built CLI's `--stdio` and `serve --http`.
 */
import {afterEach, describe, expect, it} from 'vitest';
import {everything, fastHangar, fixture, tempDir, writeConfig} from '../support/hangar.js';
import {serveHttp, stopHttpHangars} from '../support/http-hangar.js';
import {modernHttpClient, modernStdioClient, tasksExtension as extension, type ModernAnswer as Answer, type ModernSend as Send} from '../support/modern-wire.js';

const taskTool = 'everything__simulate-research-query';

const closers: Array<() => Promise<void>> = [];

afterEach(async () => {
	await Promise.all(closers.splice(0).map(async close => close().catch(() => {})));
	await stopHttpHangars();
});

/** A modern client over `--stdio`: the v2 SDK's stdio transport, requests written as the extension words them (test/support/modern-wire.ts). */
async function stdioClient(config: string): Promise<Send> {
	return modernStdioClient(config, closers);
}

/** A modern client over HTTP with connections of its own (its own keep-alive agent), named `name`. */
function httpClient(url: string, name = 'http-client'): Send {
	return modernHttpClient(url, closers, name);
}

function hangarConfig(): string {
	return writeConfig(tempDir(), {everything: everything({lazy: false, instances: 'shared'})}, fastHangar);
}

async function createTask(send: Send, topic: string): Promise<string> {
	const created = await send('tools/call', {name: taskTool, arguments: {topic}});
	expect(created.error).toBeUndefined();
	return created.result!['taskId'] as string;
}

/** Polls tasks/get until the task reaches a terminal status; every answer on the way must be a task of the same id. */
async function settled(send: Send, taskId: string): Promise<Record<string, unknown>> {
	const began = Date.now();
	while (Date.now() - began < 30_000) {
		const got = await send('tasks/get', {taskId});
		expect(got.error).toBeUndefined();
		expect(got.result).toMatchObject({taskId, resultType: 'complete'});
		if (['completed', 'failed', 'cancelled'].includes(got.result!['status'] as string)) return got.result!;
		await new Promise(resolve => setTimeout(resolve, Number(got.result!['pollIntervalMs'] ?? 200)));
	}

	throw new Error(`task ${taskId} did not end within 30 s`);
}

describe('2026-07-28 tasks extension in front of a 2025-11-25 upstream', () => {
	it('--stdio: advertises the extension, runs a task tool as a task, inlines its result on tasks/get, and cancels another', async () => {
		const send = await stdioClient(hangarConfig());
		const discovered = await send('server/discover', {});
		expect(discovered.result!['capabilities']).toMatchObject({extensions: {[extension]: {}}});
		expect(discovered.result!['capabilities']).not.toHaveProperty('tasks');

		const created = await send('tools/call', {name: taskTool, arguments: {topic: 'tides'}});
		// A flat CreateTaskResult with the extension's field names, never the 2025 ones or a nested task.
		expect(created.result).toMatchObject({resultType: 'task', status: 'working', ttlMs: expect.any(Number) as number, pollIntervalMs: expect.any(Number) as number});
		expect(created.result).not.toHaveProperty('task');
		expect(created.result).not.toHaveProperty('ttl');
		expect(created.result).not.toHaveProperty('pollInterval');
		expect(Date.parse(created.result!['createdAt'] as string)).not.toBeNaN();
		const taskId = created.result!['taskId'] as string;

		const done = await settled(send, taskId);
		expect(done['status']).toBe('completed');
		const result = done['result'] as {content: Array<{type: string; text: string}>; _meta?: Record<string, unknown>};
		expect(result.content[0]!.text).toContain('Research Report: tides');
		expect(result._meta?.['io.modelcontextprotocol/related-task']).toBeUndefined();
		// Fetched once, kept: a second look gives the same.
		expect((await send('tasks/get', {taskId})).result).toEqual({...done});

		const other = await createTask(send, 'moons');
		expect(await send('tasks/cancel', {taskId: other})).toMatchObject({result: {resultType: 'complete'}});
		expect((await send('tasks/cancel', {taskId: other})).result).toEqual({resultType: 'complete'});
		const cancelled = await settled(send, other);
		expect(cancelled['status']).toBe('cancelled');
		expect(cancelled).not.toHaveProperty('result');
	});

	it('--stdio: refuses what the extension removed or did not negotiate, naming why', async () => {
		const send = await stdioClient(hangarConfig());
		const taskId = await createTask(send, 'reefs');
		for (const method of ['tasks/result', 'tasks/list']) {
			const removed = await send(method, method === 'tasks/list' ? {} : {taskId});
			expect(removed.error).toMatchObject({code: -32601});
			expect(removed.error!.message).toContain('removed');
		}

		// Without the extension: the tasks methods and a task-only tool are -32021, naming the extension.
		for (const [method, params] of [['tasks/get', {taskId}], ['tasks/cancel', {taskId}], ['tools/call', {name: taskTool, arguments: {topic: 'x'}}]] as const) {
			const refused = await send(method, params, {});
			expect(refused.error).toMatchObject({code: -32021, data: {requiredCapabilities: {extensions: {[extension]: {}}}}});
			expect(refused.error!.message).toContain(extension);
		}

		// A tool that is not a task tool is called plainly.
		const plain = await send('tools/call', {name: 'everything__echo', arguments: {message: 'hi'}});
		expect(plain.result).toMatchObject({resultType: 'complete', content: [{type: 'text', text: 'Echo: hi'}]});
		// tasks/update: the 2025 upstream asks for input the 2025 way, which hangar does not translate; refused with the reason.
		const update = await send('tasks/update', {taskId, inputResponses: {}});
		expect(update.error).toMatchObject({code: -32602});
		expect(await send('tasks/cancel', {taskId})).toMatchObject({result: {resultType: 'complete'}});
	});

	it('--stdio: a tool that may run as a task (taskSupport optional) is a task for a client that declares the extension, and a plain call for one that does not', async () => {
		const send = await stdioClient(writeConfig(tempDir(), {fx: fixture('normal', ['--tasks'], {lazy: false, namespace: false})}, fastHangar));
		const created = await send('tools/call', {name: 'task-steps', arguments: {steps: 3, stepMs: 100}});
		expect(created.result).toMatchObject({resultType: 'task', status: 'working'});
		const done = await settled(send, created.result!['taskId'] as string);
		expect(done).toMatchObject({status: 'completed', result: {content: [{type: 'text', text: 'done after 3 steps'}]}});

		const plain = await send('tools/call', {name: 'task-steps', arguments: {steps: 1, stepMs: 10}}, {});
		expect(plain.result).toEqual({content: [{type: 'text', text: 'done after 1 steps'}], resultType: 'complete'});
	});

	it('--stdio: a 2025 task that asks for input mid-task is reported as such, its tasks/update refused naming why, and it can be cancelled', async () => {
		const send = await stdioClient(hangarConfig());
		// server-everything's ambiguous query asks its client (elicitation, during tasks/result) at its third stage.
		const created = await send('tools/call', {name: taskTool, arguments: {topic: 'python', ambiguous: true}});
		const taskId = created.result!['taskId'] as string;
		let got: Answer | undefined;
		const began = Date.now();
		while (Date.now() - began < 20_000) {
			got = await send('tasks/get', {taskId});
			if (got.result?.['status'] !== 'working') break;
			await new Promise(resolve => setTimeout(resolve, 200));
		}

		expect(got?.result).toMatchObject({taskId, status: 'input_required'});
		expect(got!.result!['statusMessage']).toContain('does not carry those questions');
		const update = await send('tasks/update', {taskId, inputResponses: {}});
		expect(update.error).toMatchObject({code: -32602});
		expect(update.error!.message).toContain('does not translate');
		expect(await send('tasks/cancel', {taskId})).toMatchObject({result: {resultType: 'complete'}});
		expect((await settled(send, taskId))['status']).toBe('cancelled');
	});

	it('serve --http: a task is reachable only by the client that created it', async () => {
		const hangar = await serveHttp(hangarConfig());
		const owner = httpClient(hangar.url);
		// Another client: its own clientInfo. (Over HTTP a 2026-07-28 client is its token, address, clientInfo and
		// capabilities, whatever connection a request comes on: docs/protocol.md.)
		const stranger = httpClient(hangar.url, 'another-http-client');
		const running = await createTask(owner, 'currents');
		const toCancel = await createTask(owner, 'storms');
		// The owner again, on connections of its own (a pooled client's other sockets): the same client, its task is there.
		const ownerElsewhere = httpClient(hangar.url);
		expect((await ownerElsewhere('tasks/get', {taskId: running})).result).toMatchObject({taskId: running});

		for (const method of ['tasks/get', 'tasks/cancel', 'tasks/update']) {
			const refused = await stranger(method, {taskId: running, ...(method === 'tasks/update' ? {inputResponses: {}} : {})});
			expect(refused.error).toMatchObject({code: -32602, data: {error: 'UnknownTask', taskId: running}});
		}

		// The stranger's cancel did nothing: the owner's task runs on to its result, and the owner can cancel its other one.
		expect(await owner('tasks/cancel', {taskId: toCancel})).toMatchObject({result: {resultType: 'complete'}});
		const done = await settled(owner, running);
		expect(done['status']).toBe('completed');
		expect((done['result'] as {content: Array<{text: string}>}).content[0]!.text).toContain('Research Report: currents');
		expect((await settled(owner, toCancel))['status']).toBe('cancelled');
		expect((await stranger('tasks/get', {taskId: running})).error).toMatchObject({code: -32602});
	});
});
