/**
 * Several clients on one shared upstream, and the requests an upstream sends
 * about a task (2025-11-25 tasks): one that names its task in the
 * `related-task` `_meta` belongs to the client that created that task, and
 * reaches that client only, whatever other clients have in flight on the
 * instance. Real SDK clients on `--stdio` bridges attached to
 * `mcp-hangar serve`, the real server-everything (whose
 * `simulate-research-query` asks its client through the task's
 * tasks/result stream).
 */
import path from 'node:path';
import {Client} from '@modelcontextprotocol/sdk/client/index.js';
import {InMemoryTaskStore} from '@modelcontextprotocol/sdk/experimental/tasks';
import {CallToolResultSchema, CreateMessageRequestSchema, CreateTaskResultSchema, ElicitRequestSchema, GetTaskResultSchema} from '@modelcontextprotocol/sdk/types.js';
import {afterEach, describe, expect, it} from 'vitest';
import {closeHangars, everything, fastHangar, openHangar, root, statusOf, tempDir, waitFor, writeConfig} from '../support/hangar.js';
import {startDaemon, stopDaemons} from '../support/serve.js';

afterEach(async () => {
	await closeHangars();
	await stopDaemons('SIGKILL');
});

/** An SDK client that answers elicitation with its own name, and notes what it was asked. */
function answering(name: string): {client: Client; asked: Array<Record<string, unknown> | undefined>} {
	const client = new Client({name, version: '1.0.0'}, {capabilities: {elicitation: {}}});
	const asked: Array<Record<string, unknown> | undefined> = [];
	client.setRequestHandler(ElicitRequestSchema, async request => {
		asked.push(request.params._meta);
		return {action: 'accept', content: {interpretation: `${name}'s answer`}};
	});
	return {client, asked};
}

/**
 * Ada and bob on the task asker (test/fixtures/task-asker.mjs): ada creates
 * a task, and the task asks its client during bob's call, which ends once
 * that request is answered.
 */
async function taskAskedDuringBobsCall(entry: Record<string, unknown>) {
	const asker = {command: process.execPath, args: [path.join(root, 'test', 'fixtures', 'task-asker.mjs')], ...entry};
	const file = writeConfig(tempDir(), {asker}, fastHangar);
	await startDaemon(file);
	const ada = answering('ada');
	const bob = answering('bob');
	await openHangar(file, {client: ada.client, shared: true});
	await openHangar(file, {client: bob.client, shared: true});
	const created = await ada.client.request({method: 'tools/call', params: {name: 'asker__ask-later', arguments: {}, task: {ttl: 60_000}}}, CreateTaskResultSchema);
	await bob.client.callTool({name: 'asker__wait', arguments: {}});
	return {ada, bob, created};
}

describe('a shared upstream asks about one client\'s task while another client\'s call is in flight', () => {
	it('sends the request that names the task to the task\'s owner, not to the other client, and does not refuse it', async () => {
		const file = writeConfig(tempDir(), {everything: everything({lazy: false, instances: 'shared'})}, fastHangar);
		await startDaemon(file);
		const ada = answering('ada');
		const bob = answering('bob');
		await openHangar(file, {client: ada.client, shared: true});
		await openHangar(file, {client: bob.client, shared: true});
		await waitFor(async () => (await statusOf(ada.client, 'everything')).state === 'ready', 'everything to be ready');

		const created = await ada.client.request({method: 'tools/call', params: {name: 'everything__simulate-research-query', arguments: {topic: 'ships', ambiguous: true}, task: {ttl: 60_000}}}, CreateTaskResultSchema);
		const taskId = created.task.taskId;
		await waitFor(async () => (await ada.client.request({method: 'tasks/get', params: {taskId}}, GetTaskResultSchema)).status === 'input_required', 'the task to need input');
		// Bob's call is in flight on the same instance for as long as ada's tasks/result waits for her answer.
		const bobsCall = bob.client.callTool({name: 'everything__trigger-long-running-operation', arguments: {duration: 4, steps: 4}});
		await waitFor(async () => (await statusOf(ada.client, 'everything')).inFlight === 1 || undefined, 'bob\'s call to be in flight');
		const result = await ada.client.request({method: 'tasks/result', params: {taskId}}, CallToolResultSchema);
		await bobsCall;

		expect(bob.asked).toEqual([]);
		expect(ada.asked).toEqual([{'io.modelcontextprotocol/related-task': {taskId}}]);
		expect(JSON.stringify(result.content)).toContain('ada\'s answer');
	}, 60_000);

	it('sends it to the task\'s owner when only another client has a call in flight: never to that other client', async () => {
		// Ada has nothing in flight once her task is created; bob's call is what the upstream serves when it asks about ada's task.
		const {ada, bob, created} = await taskAskedDuringBobsCall({instances: 'shared'});
		const result = await ada.client.request({method: 'tasks/result', params: {taskId: created.task.taskId}}, CallToolResultSchema);

		expect(bob.asked).toEqual([]);
		expect(ada.asked).toEqual([{'io.modelcontextprotocol/related-task': {taskId: created.task.taskId}}]);
		expect(result.structuredContent).toEqual({outcome: {action: 'accept', content: {interpretation: 'ada\'s answer'}}});
	}, 60_000);
});

describe('an "auto" upstream that learns from a task\'s request that it runs per client', () => {
	it('keeps the shared instance, and the task it runs, until the task\'s result is fetched', async () => {
		// The task's elicitation (during bob's call) teaches "auto" the per-client verdict; the shared instance still runs ada's task.
		const {ada, bob, created} = await taskAskedDuringBobsCall({});
		expect((await statusOf(ada.client, 'asker')).instanceMode?.runs).toBe('per-client');
		const result = await ada.client.request({method: 'tasks/result', params: {taskId: created.task.taskId}}, CallToolResultSchema);

		expect(result.structuredContent).toEqual({outcome: {action: 'accept', content: {interpretation: 'ada\'s answer'}}});
		expect(bob.asked).toEqual([]);
		// Its result fetched, the shared instance is no longer needed: it stops.
		await waitFor(async () => (await statusOf(ada.client, 'asker')).state === 'cold' || undefined, 'the shared instance to stop');
	}, 60_000);
});

describe('a shared upstream polls the task a client runs for it while another client\'s call is in flight', () => {
	it('sends its tasks/get and tasks/result to the client that created the task, so the call that asked completes', async () => {
		const file = writeConfig(tempDir(), {everything: everything({lazy: false, instances: 'shared'})}, fastHangar);
		await startDaemon(file);
		// Ada runs sampling as a task, finishing only once bob's call is in flight: every poll of it comes while bob's call is.
		let bobInFlight: () => void = () => {};
		const bobStarted = new Promise<void>(resolve => {
			bobInFlight = resolve;
		});
		let sampled: () => void = () => {};
		const adaSampled = new Promise<void>(resolve => {
			sampled = resolve;
		});
		const ada = new Client({name: 'ada', version: '1.0.0'}, {capabilities: {sampling: {}, tasks: {list: {}, cancel: {}, requests: {sampling: {createMessage: {}}}}}, taskStore: new InMemoryTaskStore()});
		ada.setRequestHandler(CreateMessageRequestSchema, async (request, extra) => {
			const completion = {role: 'assistant' as const, content: {type: 'text' as const, text: 'ada sampled it'}, model: 'ada-model', stopReason: 'endTurn'};
			if (request.params.task === undefined) return completion;
			const task = await extra.taskStore!.createTask({ttl: 60_000, pollInterval: 100});
			sampled();
			void bobStarted.then(() => setTimeout(() => void extra.taskStore!.storeTaskResult(task.taskId, 'completed', completion), 1500));
			return {task};
		});
		const bob = new Client({name: 'bob', version: '1.0.0'}, {capabilities: {sampling: {}, tasks: {list: {}, cancel: {}, requests: {sampling: {createMessage: {}}}}}, taskStore: new InMemoryTaskStore()});
		const bobAsked: string[] = [];
		bob.fallbackRequestHandler = async request => {
			bobAsked.push(request.method);
			throw new Error(`bob was asked ${request.method}`);
		};

		await openHangar(file, {client: ada, shared: true});
		await openHangar(file, {client: bob, shared: true});
		await waitFor(async () => (await statusOf(ada, 'everything')).state === 'ready', 'everything to be ready');
		const adasCall = ada.callTool({name: 'everything__trigger-sampling-request-async', arguments: {prompt: 'the tide', maxTokens: 10}});
		await adaSampled;
		const bobsCall = bob.callTool({name: 'everything__trigger-long-running-operation', arguments: {duration: 4, steps: 4}});
		await waitFor(async () => (await statusOf(bob, 'everything')).inFlight === 2 || undefined, 'bob\'s call to be in flight beside ada\'s');
		bobInFlight();
		const result = await adasCall;
		await bobsCall;

		expect(bobAsked).toEqual([]);
		expect(JSON.stringify(result.content)).toContain('[COMPLETED] Async sampling completed!');
		expect(JSON.stringify(result.content)).toContain('ada sampled it');
	}, 60_000);
});
