/**
 * The 2026-07-28 tasks extension (`io.modelcontextprotocol/tasks`, SEP-2663)
 * served to modern clients in front of a 2025-11-25 upstream
 * (server-everything, whose `simulate-research-query` runs only as a task,
 * four stages of a second each): hangar drives the upstream with 2025 core
 * tasks and presents them as the extension expects. The v2 SDK client (2.4)
 * refuses `resultType: "task"` itself, so these tests speak the extension's
 * JSON-RPC over the v2 SDK's stdio transport and over plain HTTP, against
 * the built CLI's `--stdio` and `serve --http`. Its ambiguous query asks
 * its client (elicitation, during the 2025 tasks/result) at its third
 * stage: hangar shows that as the task's `inputRequests` on tasks/get and
 * answers it with the client's tasks/update.
 */
import {fileURLToPath} from 'node:url';
import {afterEach, describe, expect, it} from 'vitest';
import {everything, fastHangar, fixture, runCli, tempDir, writeConfig} from '../support/hangar.js';
import {serveHttp, stopHttpHangars} from '../support/http-hangar.js';
import {declaringTasks as withTasks, modernHttpClient, modernStdioClient, tasksExtension as extension, type ModernSend as Send} from '../support/modern-wire.js';
import {spawnServe} from '../support/serve.js';

const taskTool = 'everything__simulate-research-query';
/** A 2026-07-28 upstream with the tasks extension (test/fixtures/tasks-extension-upstream.mjs). */
const extensionFixture = fileURLToPath(new URL('../fixtures/tasks-extension-upstream.mjs', import.meta.url));
/** A client that can answer elicitations, as it declares on each request. */
const withElicitation = {elicitation: {}, ...withTasks};

const closers: Array<() => Promise<void>> = [];

afterEach(async () => {
	await Promise.all(closers.splice(0).map(async close => close().catch(() => {})));
	await stopHttpHangars();
});

/**
 * A modern client over `--stdio`: the v2 SDK's stdio transport, requests
 * written as the extension words them (test/support/modern-wire.ts).
 * Standalone, or attached to a running `serve` (`attach`); `close` ends its
 * connection.
 */
async function stdioClient(config: string, attach = false): Promise<Send & {close: () => Promise<void>}> {
	return modernStdioClient(config, closers, 'stdio-client', attach);
}

/** A modern client over HTTP with connections of its own (its own keep-alive agent), named `name`. */
function httpClient(url: string, name = 'http-client'): Send {
	return modernHttpClient(url, closers, name);
}

function hangarConfig(hangar: Record<string, unknown> = {}): string {
	return writeConfig(tempDir(), {everything: everything({lazy: false, instances: 'shared'})}, {...fastHangar, ...hangar});
}

/**
 * `send`, declaring elicitation on every request by default. (A 2026-07-28
 * client's identity includes the capabilities it declares, so a client that
 * declared elicitation when it created its task declares it on the task's
 * other requests too: docs/protocol.md.)
 */
function answering(send: Send): Send {
	return async (method, params, capabilities = withElicitation) => send(method, params, capabilities);
}

/** Polls tasks/get until the task asks for input; returns that answer. The task must not end first. */
async function inputRequired(send: Send, taskId: string): Promise<Record<string, unknown>> {
	const began = Date.now();
	while (Date.now() - began < 20_000) {
		const got = await send('tasks/get', {taskId}, withElicitation);
		expect(got.error).toBeUndefined();
		const status = got.result!['status'] as string;
		// input_required with nothing held yet for the client (hangar's first look waits only so long for the question): look again.
		if (status === 'input_required' && Object.keys(got.result!['inputRequests'] as object).length > 0) return got.result!;
		expect(got.result).not.toHaveProperty('result');
		expect(['working', 'input_required']).toContain(status);
		await new Promise(resolve => setTimeout(resolve, 200));
	}

	throw new Error(`task ${taskId} did not ask for input within 20 s`);
}

/** The one input request of an ambiguous research task: its key, after checking it is server-everything's elicitation. */
function theElicitation(task: Record<string, unknown>, topic: string): string {
	const requests = task['inputRequests'] as Record<string, {method: string; params: Record<string, unknown>}>;
	const keys = Object.keys(requests);
	expect(keys).toHaveLength(1);
	const request = requests[keys[0]!]!;
	expect(request.method).toBe('elicitation/create');
	expect(request.params['message']).toContain(`"${topic}"`);
	expect(request.params).toHaveProperty('requestedSchema.properties.interpretation');
	// The task is named by tasks/get itself: no related-task _meta in what is embedded.
	expect((request.params['_meta'] as Record<string, unknown> | undefined)?.['io.modelcontextprotocol/related-task']).toBeUndefined();
	return keys[0]!;
}

/** The final report of a completed research task. */
function report(done: Record<string, unknown>): string {
	expect(done['status']).toBe('completed');
	return (done['result'] as {content: Array<{text: string}>}).content[0]!.text;
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
		// tasks/update of a task that asked nothing: an answer under a key it never issued is refused, naming it.
		const update = await send('tasks/update', {taskId, inputResponses: {'made-up': {action: 'accept', content: {}}}});
		expect(update.error).toMatchObject({code: -32602, data: {taskId, outstanding: []}});
		expect(update.error!.message).toContain('never asked under "made-up"');
		expect((await send('tasks/update', {taskId, inputResponses: 'yes'})).error).toMatchObject({code: -32602});
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

	it('--stdio: a 2025 task that asks for input mid-task shows it as inputRequests on tasks/get, takes the answer by tasks/update, and completes with it', async () => {
		const send = answering(await stdioClient(hangarConfig()));
		const created = await send('tools/call', {name: taskTool, arguments: {topic: 'python', ambiguous: true}});
		const taskId = created.result!['taskId'] as string;
		const asking = await inputRequired(send, taskId);
		expect(asking).toMatchObject({taskId, resultType: 'complete', status: 'input_required'});
		const key = theElicitation(asking, 'python');
		// Shown again until answered: the same key.
		expect(Object.keys((await send('tasks/get', {taskId})).result!['inputRequests'] as object)).toEqual([key]);

		// A tampered key, or an answer that is no elicitation result: refused, and nothing of the update taken.
		const tampered = await send('tasks/update', {taskId, inputResponses: {[`${key}0`]: {action: 'accept', content: {interpretation: 'snake'}}}});
		expect(tampered.error).toMatchObject({code: -32602, data: {taskId, outstanding: [key]}});
		expect(tampered.error!.message).toContain('never asked under');
		const malformed = await send('tasks/update', {taskId, inputResponses: {[key]: {action: 'maybe'}}});
		expect(malformed.error).toMatchObject({code: -32602});
		expect(malformed.error!.message).toContain('"action"');
		expect((await send('tasks/get', {taskId})).result).toMatchObject({status: 'input_required', inputRequests: {[key]: {method: 'elicitation/create'}}});

		const answered = await send('tasks/update', {taskId, inputResponses: {[key]: {action: 'accept', content: {interpretation: 'snake'}}}});
		expect(answered).toMatchObject({result: {resultType: 'complete'}});
		expect(answered.result).not.toHaveProperty('status');
		// A retried update of an answered key is acknowledged and ignored, as the extension asks.
		expect((await send('tasks/update', {taskId, inputResponses: {[key]: {action: 'accept', content: {interpretation: 'comedy'}}}})).result).toEqual({resultType: 'complete'});
		const done = await settled(send, taskId);
		expect(report(done)).toContain('Research Report: python (snake)');
		expect(done).not.toHaveProperty('inputRequests');
	});

	it('--stdio: with an instance of the upstream per client, the task\'s question comes from that instance and its answer goes back there', async () => {
		const send = answering(await stdioClient(writeConfig(tempDir(), {everything: everything({instances: 'per-client'})}, fastHangar)));
		const created = await send('tools/call', {name: taskTool, arguments: {topic: 'python', ambiguous: true}});
		const taskId = created.result!['taskId'] as string;
		const key = theElicitation(await inputRequired(send, taskId), 'python');
		expect((await send('tasks/update', {taskId, inputResponses: {[key]: {action: 'accept', content: {interpretation: 'programming'}}}})).result).toEqual({resultType: 'complete'});
		expect(report(await settled(send, taskId))).toContain('Research Report: python (programming)');
	});

	it('--stdio: a 2026-07-28 upstream\'s task that asks (the extension fixture) asks its 2026-07-28 client the same way, through hangar\'s ids and keys', async () => {
		const extensionUpstream = {command: process.execPath, args: [extensionFixture], namespace: false, lazy: false, instances: 'shared'};
		const send = answering(await stdioClient(writeConfig(tempDir(), {ext: extensionUpstream}, fastHangar)));
		const created = await send('tools/call', {name: 'ask', arguments: {}});
		expect(created.result).toMatchObject({resultType: 'task'});
		const taskId = created.result!['taskId'] as string;
		const asking = await inputRequired(send, taskId);
		const [key, request] = Object.entries(asking['inputRequests'] as Record<string, {method: string; params: Record<string, unknown>}>)[0]!;
		expect(request).toEqual({method: 'elicitation/create', params: {mode: 'form', message: 'Your name?', requestedSchema: {type: 'object', properties: {name: {type: 'string'}}, required: ['name']}}});
		// Hangar's key, not the upstream's ("name"): the client answers what hangar holds, and hangar answers the upstream.
		expect(key).not.toBe('name');
		expect((await send('tasks/update', {taskId, inputResponses: {[key]: {action: 'accept', content: {name: 'Ada'}}}})).result).toEqual({resultType: 'complete'});
		expect(await settled(send, taskId)).toMatchObject({status: 'completed', result: {content: [{type: 'text', text: 'hello, Ada'}]}});
	});

	it('--stdio: a task that asked is cancelled: its held question is freed, and the task ends cancelled', async () => {
		const send = answering(await stdioClient(hangarConfig()));
		const created = await send('tools/call', {name: taskTool, arguments: {topic: 'python', ambiguous: true}});
		const taskId = created.result!['taskId'] as string;
		const key = theElicitation(await inputRequired(send, taskId), 'python');
		expect(await send('tasks/cancel', {taskId})).toMatchObject({result: {resultType: 'complete'}});
		expect((await settled(send, taskId))['status']).toBe('cancelled');
		// Its question is gone with it: a late answer hears why.
		const late = await send('tasks/update', {taskId, inputResponses: {[key]: {action: 'accept', content: {interpretation: 'snake'}}}});
		expect(late.error).toMatchObject({code: -32602});
		expect(late.error!.message).toContain('the client cancelled the task');
	});

	it('--stdio: a question the client never answers expires: the upstream gets hangar\'s error and the task goes on without it', async () => {
		const send = answering(await stdioClient(hangarConfig({inputRequiredSeconds: 1})));
		const created = await send('tools/call', {name: taskTool, arguments: {topic: 'python', ambiguous: true}});
		const taskId = created.result!['taskId'] as string;
		const key = theElicitation(await inputRequired(send, taskId), 'python');
		// No answer: the held elicitation expires; server-everything takes the error and uses its default.
		const done = await settled(send, taskId);
		expect(report(done)).toContain('python (technical (default - elicitation unavailable))');
		expect(report(done)).toContain('Elicitation failed');
		const late = await send('tasks/update', {taskId, inputResponses: {[key]: {action: 'accept', content: {interpretation: 'snake'}}}});
		expect(late.error).toMatchObject({code: -32602});
		expect(late.error!.message).toContain('did not answer in time (it had 1 s, hangar.inputRequiredSeconds)');
	});

	it('serve: a client that disconnects while its task asks frees the held question with an error to the upstream', async () => {
		const config = hangarConfig();
		const {served} = await spawnServe(['serve', '--config', config], {listening: log => /serving \d+ upstreams? to MCP clients on/.test(log) || undefined});
		closers.push(async () => {
			await served.stop();
		});
		const client = await stdioClient(config, true);
		const send = answering(client);
		const taskId = (await send('tools/call', {name: taskTool, arguments: {topic: 'python', ambiguous: true}})).result!['taskId'] as string;
		theElicitation(await inputRequired(send, taskId), 'python');
		await client.close();
		// The daemon goes on; the upstream's elicitation is answered with hangar's error, naming why.
		const freed = /elicitation\/create from the upstream was answered with error -?\d+: .*but the client disconnected before answering/;
		const began = Date.now();
		let logs = '';
		while (!freed.test(logs) && Date.now() - began < 20_000) logs = (await runCli(['logs', 'everything', '--config', config])).stdout;
		expect(logs).toMatch(freed);
	});

	it('serve --http: only the owner sees and answers its task\'s questions, each answer reaches its own task, and another task\'s key is refused', async () => {
		const hangar = await serveHttp(hangarConfig());
		const owner = answering(httpClient(hangar.url));
		const stranger = answering(httpClient(hangar.url, 'another-http-client'));
		const first = (await owner('tools/call', {name: taskTool, arguments: {topic: 'python', ambiguous: true}})).result!['taskId'] as string;
		const second = (await owner('tools/call', {name: taskTool, arguments: {topic: 'tides', ambiguous: true}})).result!['taskId'] as string;
		const firstKey = theElicitation(await inputRequired(owner, first), 'python');
		const secondKey = theElicitation(await inputRequired(owner, second), 'tides');
		expect(firstKey).not.toBe(secondKey);

		// Another client: the task does not exist for it, to look at or to answer.
		for (const method of ['tasks/get', 'tasks/update']) {
			const refused = await stranger(method, {taskId: first, ...(method === 'tasks/update' ? {inputResponses: {[firstKey]: {action: 'accept', content: {interpretation: 'snake'}}}} : {})});
			expect(refused.error).toMatchObject({code: -32602, data: {error: 'UnknownTask', taskId: first}});
		}

		// The other task's key: refused for this one.
		const foreign = await owner('tasks/update', {taskId: first, inputResponses: {[secondKey]: {action: 'accept', content: {interpretation: 'historical'}}}});
		expect(foreign.error).toMatchObject({code: -32602, data: {taskId: first, outstanding: [firstKey]}});

		expect((await owner('tasks/update', {taskId: second, inputResponses: {[secondKey]: {action: 'accept', content: {interpretation: 'historical'}}}})).result).toEqual({resultType: 'complete'});
		expect((await owner('tasks/update', {taskId: first, inputResponses: {[firstKey]: {action: 'accept', content: {interpretation: 'comedy'}}}})).result).toEqual({resultType: 'complete'});
		expect(report(await settled(owner, first))).toContain('Research Report: python (comedy)');
		expect(report(await settled(owner, second))).toContain('Research Report: tides (historical)');
	});

	it('serve --http: a question the owner never answers expires with an error to the upstream', async () => {
		const config = hangarConfig({inputRequiredSeconds: 1});
		const hangar = await serveHttp(config);
		const owner = answering(httpClient(hangar.url));
		const taskId = (await owner('tools/call', {name: taskTool, arguments: {topic: 'python', ambiguous: true}})).result!['taskId'] as string;
		theElicitation(await inputRequired(owner, taskId), 'python');
		expect(report(await settled(owner, taskId))).toContain('python (technical (default - elicitation unavailable))');
		// What the upstream was answered, in its log: hangar's error, naming why.
		const logs = await runCli(['logs', 'everything', '--config', config]);
		expect(logs.stdout).toMatch(/elicitation\/create from the upstream was answered with error -?\d+: .*hangar held it for a 2026-07-28 client, which it asks as an input request of the task on tasks\/get, but the client did not answer in time \(it had 1 s, hangar\.inputRequiredSeconds\)/);
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
