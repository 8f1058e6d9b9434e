/**
 * Tasks (2025-11-25) through hangar, against the real server-everything,
 * whose `simulate-research-query` is a task tool (`execution.taskSupport:
 * "required"`, four stages of a second each): the same SDK client gets the
 * same from hangar as from server-everything itself, with task ids of
 * hangar's own; tasks/list merges upstreams; a task belongs to the session
 * that created it; a crash fails its tasks, saying why; an upstream with a
 * live task is not idle-stopped; the calls log shows the task's status.
 */
import {afterEach, describe, expect, it} from 'vitest';
import {Client} from '@modelcontextprotocol/sdk/client/index.js';
import {StdioClientTransport} from '@modelcontextprotocol/sdk/client/stdio.js';
import {InMemoryTaskStore} from '@modelcontextprotocol/sdk/experimental/tasks';
import {
	CallToolResultSchema,
	CreateMessageRequestSchema,
	ElicitRequestSchema,
	CreateTaskResultSchema,
	GetTaskResultSchema,
	ListTasksResultSchema,
	TaskStatusNotificationSchema,
	type Progress,
	type Task,
} from '@modelcontextprotocol/sdk/types.js';
import {everything, everythingPath, fastHangar, fixture, fixturePath, rpcError, runCli, statusOf, tempDir, waitFor, writeConfig} from '../support/hangar.js';
import {connectHttp, serveHttp, stopHttpHangars, type HttpClient} from '../support/http-hangar.js';

const direct: Client[] = [];
const httpClients: HttpClient[] = [];

afterEach(async () => {
	await Promise.all([...direct.splice(0).map(async client => client.close()), ...httpClients.splice(0).map(async ({client}) => client.close())]);
	await stopHttpHangars();
});

const relatedTask = 'io.modelcontextprotocol/related-task';

async function everythingDirect(): Promise<Client> {
	const client = new Client({name: 'hangar-test', version: '1.0.0'});
	await client.connect(new StdioClientTransport({command: process.execPath, args: [everythingPath, 'stdio'], stderr: 'pipe'}));
	direct.push(client);
	return client;
}

/**
 * A client that runs sampling as a task when asked to (2025-11-25: the
 * server polls tasks/get, then fetches tasks/result), answering after a
 * short while with a fixed completion.
 */
function samplingTaskClient(): Client {
	const client = new Client(
		{name: 'hangar-test', version: '1.0.0'},
		{capabilities: {sampling: {}, tasks: {list: {}, cancel: {}, requests: {sampling: {createMessage: {}}}}}, taskStore: new InMemoryTaskStore()},
	);
	client.setRequestHandler(CreateMessageRequestSchema, async (request, extra) => {
		const completion = {role: 'assistant' as const, content: {type: 'text' as const, text: `sampled: ${JSON.stringify(request.params.messages[0]?.content)}`}, model: 'test-model', stopReason: 'endTurn'};
		if (request.params.task === undefined) return completion;
		const task = await extra.taskStore!.createTask({ttl: 60_000, pollInterval: 100});
		setTimeout(() => void extra.taskStore!.storeTaskResult(task.taskId, 'completed', completion), 300);
		return {task};
	});
	return client;
}

/** A client of hangar's HTTP endpoint that records the task status notifications it gets. */
async function session(url: string, client?: Client): Promise<{client: Client; statuses: Task[]}> {
	const connected = await connectHttp(url, client === undefined ? {} : {client});
	httpClients.push(connected);
	const statuses: Task[] = [];
	connected.client.setNotificationHandler(TaskStatusNotificationSchema, notification => {
		statuses.push(notification.params);
	});
	return {client: connected.client, statuses};
}

async function startTask(client: Client, name: string, topic: string): Promise<Task> {
	const created = await client.request({method: 'tools/call', params: {name, arguments: {topic}, task: {ttl: 60_000}}}, CreateTaskResultSchema);
	return created.task;
}

async function getTask(client: Client, taskId: string): Promise<Task> {
	return client.request({method: 'tasks/get', params: {taskId}}, GetTaskResultSchema);
}

async function taskResult(client: Client, taskId: string) {
	return client.request({method: 'tasks/result', params: {taskId}}, CallToolResultSchema);
}

/** A hangar serving `servers` over HTTP, every server shared (one instance, like the one direct server it is compared with), once all are ready. */
async function hangarWith(servers: Record<string, Record<string, unknown>>, settings: Record<string, unknown> = {}): Promise<{url: string; config: string}> {
	const dir = tempDir();
	const config = writeConfig(dir, servers, {...fastHangar, ...settings});
	const hangar = await serveHttp(config);
	const probe = await connectHttp(hangar.url);
	httpClients.push(probe);
	for (const name of Object.keys(servers)) await waitFor(async () => (await statusOf(probe.client, name)).state === 'ready', `${name} to be ready`);
	return {url: hangar.url, config};
}

describe('tasks through hangar, compared with server-everything itself', () => {
	it('offers tasks and the task tool as server-everything does, and runs it to the same result under an id of its own', async () => {
		const {url} = await hangarWith({everything: everything({lazy: false, instances: 'shared'})});
		const own = await everythingDirect();
		const via = await session(url);

		expect(via.client.getServerCapabilities()?.tasks).toEqual(own.getServerCapabilities()?.tasks);
		const ownTool = (await own.listTools()).tools.find(tool => tool.name === 'simulate-research-query');
		expect(ownTool?.execution).toEqual({taskSupport: 'required'});
		const viaTool = (await via.client.listTools()).tools.find(tool => tool.name === 'everything__simulate-research-query');
		expect(viaTool).toEqual({...ownTool, name: 'everything__simulate-research-query'});

		const [ownTask, viaTask] = await Promise.all([startTask(own, 'simulate-research-query', 'tides'), startTask(via.client, 'everything__simulate-research-query', 'tides')]);
		expect(viaTask).toMatchObject({status: ownTask.status, ttl: ownTask.ttl, pollInterval: ownTask.pollInterval});
		expect(viaTask.taskId).not.toBe(ownTask.taskId);

		// Status notifications reach the client under hangar's id, as they came otherwise.
		await waitFor(() => via.statuses.some(task => task.status === 'completed'), 'the task to complete');
		expect(via.statuses.every(task => task.taskId === viaTask.taskId)).toBe(true);
		expect(via.statuses.map(task => task.statusMessage)).toContain('Gathering sources...');

		const [ownResult, viaResult] = await Promise.all([taskResult(own, ownTask.taskId), taskResult(via.client, viaTask.taskId)]);
		expect(viaResult.content).toEqual(ownResult.content);
		expect(viaResult._meta?.[relatedTask]).toEqual({taskId: viaTask.taskId});
		expect(await getTask(via.client, viaTask.taskId)).toMatchObject({taskId: viaTask.taskId, status: 'completed'});
	}, 30_000);

	it('shows server-everything\'s async sampling tool to a client that runs sampling as tasks, and relays the upstream\'s polling of that task', async () => {
		const {url} = await hangarWith({everything: everything({lazy: false, instances: 'shared'})});
		const own = samplingTaskClient();
		await own.connect(new StdioClientTransport({command: process.execPath, args: [everythingPath, 'stdio'], stderr: 'pipe'}));
		direct.push(own);
		const via = await session(url, samplingTaskClient());

		const ownTools = (await own.listTools()).tools.map(tool => tool.name);
		expect(ownTools).toContain('trigger-sampling-request-async');
		// The shared instance was told what hangar can relay (sampling and elicitation as tasks among it): it lists the tool.
		expect((await via.client.listTools()).tools.map(tool => tool.name)).toContain('everything__trigger-sampling-request-async');
		const args = {prompt: 'the tide', maxTokens: 10};
		const ownResult = await own.callTool({name: 'trigger-sampling-request-async', arguments: args});
		const viaResult = await via.client.callTool({name: 'everything__trigger-sampling-request-async', arguments: args});
		// The text names the client's own task id and how many polls it took: equal once those are masked.
		const masked = (result: typeof ownResult) => JSON.stringify(result.content).replaceAll(/[0-9a-f]{32}/g, 'ID').replaceAll(/Poll \d+/g, 'Poll N');
		expect(masked(viaResult)).toContain('[COMPLETED] Async sampling completed!');
		expect(masked(viaResult)).toContain('test-model');
		expect(masked(viaResult).replaceAll(/(\\nPoll N: working)+/g, '')).toEqual(masked(ownResult).replaceAll(/(\\nPoll N: working)+/g, ''));
	}, 30_000);

	it('relays the elicitation of an input_required task to its client during tasks/result, tied to the task by hangar\'s id', async () => {
		const {url} = await hangarWith({everything: everything({lazy: false, instances: 'shared'})});
		const asked: Array<Record<string, unknown> | undefined> = [];
		const answering = (): Client => {
			const client = new Client({name: 'hangar-test', version: '1.0.0'}, {capabilities: {elicitation: {}}});
			client.setRequestHandler(ElicitRequestSchema, async request => {
				asked.push(request.params._meta);
				return {action: 'accept', content: {interpretation: 'historical'}};
			});
			return client;
		};

		const own = answering();
		await own.connect(new StdioClientTransport({command: process.execPath, args: [everythingPath, 'stdio'], stderr: 'pipe'}));
		direct.push(own);
		const via = await session(url, answering());
		const run = async (client: Client, name: string, statuses?: Task[]) => {
			const created = await client.request({method: 'tools/call', params: {name, arguments: {topic: 'ships', ambiguous: true}, task: {ttl: 60_000}}}, CreateTaskResultSchema);
			if (statuses !== undefined) await waitFor(() => statuses.some(status => status.status === 'input_required'), 'the task to need input');
			else await waitFor(async () => (await getTask(client, created.task.taskId)).status === 'input_required', 'the task to need input');
			return {taskId: created.task.taskId, result: await taskResult(client, created.task.taskId)};
		};

		const [mine, theirs] = await Promise.all([run(own, 'simulate-research-query'), run(via.client, 'everything__simulate-research-query', via.statuses)]);
		expect(theirs.result.content).toEqual(mine.result.content);
		expect(JSON.stringify(theirs.result.content)).toContain('historical');
		expect(asked).toHaveLength(2);
		expect(asked).toContainEqual({[relatedTask]: {taskId: theirs.taskId}});
		expect(asked).toContainEqual({[relatedTask]: {taskId: mine.taskId}});
	}, 30_000);

	it('lists a session\'s tasks across upstreams, cancels one, and keeps them from every other session', async () => {
		const {url} = await hangarWith({a: everything({lazy: false, instances: 'shared'}), b: everything({lazy: false, instances: 'shared'})});
		const first = await session(url);
		const second = await session(url);
		// Started before the tasks: a task runs about 4 s, and a process start on a busy machine must not eat into it.
		const own = await everythingDirect();
		const onA = await startTask(first.client, 'a__simulate-research-query', 'one');
		const onB = await startTask(first.client, 'b__simulate-research-query', 'two');

		const listed = await first.client.request({method: 'tasks/list', params: {}}, ListTasksResultSchema);
		expect(listed.tasks.map(task => task.taskId)).toEqual([onA.taskId, onB.taskId]);
		expect(listed.nextCursor).toBeUndefined();

		// Cancel, as server-everything answers it directly: the task, cancelled.
		const cancelled = await first.client.request({method: 'tasks/cancel', params: {taskId: onA.taskId}}, GetTaskResultSchema);
		const ownTask = await startTask(own, 'simulate-research-query', 'three');
		const ownCancelled = await own.request({method: 'tasks/cancel', params: {taskId: ownTask.taskId}}, GetTaskResultSchema);
		expect(cancelled).toMatchObject({taskId: onA.taskId, status: ownCancelled.status});
		expect(await getTask(first.client, onA.taskId)).toMatchObject({status: 'cancelled'});
		// The upstream's refusal names the task: by the id its client knows, never the upstream's own.
		const ownRefused = await rpcError(own.request({method: 'tasks/result', params: {taskId: ownTask.taskId}}, CallToolResultSchema));
		const refused = await rpcError(first.client.request({method: 'tasks/result', params: {taskId: onA.taskId}}, CallToolResultSchema));
		expect(ownRefused.message).toContain(`Task ${ownTask.taskId} has no result stored`);
		expect(refused.code).toBe(ownRefused.code);
		expect(refused.message).toContain(`Task ${onA.taskId} has no result stored`);

		// Another session cannot see, read, wait on or cancel them: to it they do not exist.
		expect((await second.client.request({method: 'tasks/list', params: {}}, ListTasksResultSchema)).tasks).toEqual([]);
		for (const method of ['tasks/get', 'tasks/result', 'tasks/cancel']) {
			const error = await rpcError(second.client.request({method, params: {taskId: onB.taskId}} as never, GetTaskResultSchema));
			expect(error.code).toBe(-32_602);
		}

		await waitFor(() => first.statuses.some(task => task.taskId === onB.taskId && task.status === 'completed'), 'the task on b to complete');
		expect(second.statuses).toEqual([]);
		// A cursor hangar did not hand out is refused.
		expect((await rpcError(first.client.request({method: 'tasks/list', params: {cursor: 'nope'}}, ListTasksResultSchema))).code).toBe(-32_602);
	}, 30_000);

	it('reports a task failed, naming the upstream and its crash, when the upstream dies under it', async () => {
		const {url} = await hangarWith({everything: everything({lazy: false, instances: 'shared'})});
		const via = await session(url);
		const task = await startTask(via.client, 'everything__simulate-research-query', 'crash');
		const {pid} = await statusOf(via.client, 'everything');
		process.kill(pid!, 'SIGKILL');

		await waitFor(() => via.statuses.some(status => status.status === 'failed'), 'the task to be reported failed');
		const failed = await getTask(via.client, task.taskId);
		expect(failed).toMatchObject({taskId: task.taskId, status: 'failed'});
		expect(failed.statusMessage).toMatch(/upstream "everything" crashed .*the task was lost/);
		const error = await rpcError(taskResult(via.client, task.taskId));
		expect(error.message).toMatch(/everything/);
		expect(error.message).toMatch(/crashed/);
	}, 30_000);

	it('does not idle-stop an upstream while it holds a task, and shows the task as one call with its status', async () => {
		const {url, config} = await hangarWith({everything: everything({lazy: false, instances: 'shared', idleTimeoutSeconds: 1})});
		const via = await session(url);
		const task = await startTask(via.client, 'everything__simulate-research-query', 'idle');
		// Four seconds of work, four times the idle timeout, without a call.
		await waitFor(() => via.statuses.some(status => status.status === 'completed'), 'the task to complete');
		expect((await statusOf(via.client, 'everything')).state).toBe('ready');
		// Not execFileSync: a blocked event loop lets the HTTP client's kept-alive socket go stale.
		const calls = (await runCli(['logs', '--calls', '--config', config])).stdout;
		expect(calls).toMatch(/everything\/simulate-research-query .*task completed/);

		await taskResult(via.client, task.taskId);
		// Its result fetched, nothing holds it: it goes cold after the idle timeout.
		await waitFor(async () => (await statusOf(via.client, 'everything')).state === 'cold', 'the idle stop once the result was fetched');
	}, 30_000);

	it('relays the progress an upstream sends for a task after its CreateTaskResult to the session that owns the task, as it comes directly', async () => {
		const {url} = await hangarWith({fx: fixture('normal', ['--tasks'], {lazy: false})});
		const own = new Client({name: 'hangar-test', version: '1.0.0'});
		await own.connect(new StdioClientTransport({command: process.execPath, args: [fixturePath, '--tasks'], stderr: 'pipe'}));
		direct.push(own);
		const via = await session(url);
		const other = await session(url);
		const otherProgress: unknown[] = [];
		other.client.fallbackNotificationHandler = async notification => {
			if (notification.method === 'notifications/progress') otherProgress.push(notification.params);
		};

		/** Runs task-steps as a task; the progress its token got, and whether any came before the CreateTaskResult. */
		const run = async (client: Client, name: string) => {
			const seen: Progress[] = [];
			const created = await client.request({method: 'tools/call', params: {name, arguments: {steps: 3, stepMs: 30}, task: {ttl: 60_000}}}, CreateTaskResultSchema, {onprogress: progress => seen.push(progress)});
			const early = seen.length;
			await waitFor(() => seen.length === 3, `three steps of ${name}'s progress after its CreateTaskResult`);
			return {created: created.task, seen, early};
		};

		const [ownRun, viaRun] = await Promise.all([run(own, 'task-steps'), run(via.client, 'fx__task-steps')]);
		expect(ownRun.early).toBe(0);
		expect(viaRun.early).toBe(0);
		expect(ownRun.seen).toEqual([1, 2, 3].map(step => ({progress: step, total: 3, message: `step ${step}`, _meta: {'fixture/step': step}})));
		expect(viaRun.seen).toEqual(ownRun.seen);
		expect(viaRun.created.taskId).not.toBe(ownRun.created.taskId);
		const viaResult = await taskResult(via.client, viaRun.created.taskId);
		expect(viaResult.content).toEqual((await taskResult(own, ownRun.created.taskId)).content);
		// The other session of the same hangar got none of it.
		expect(otherProgress).toEqual([]);
	}, 30_000);

	it('lets tasks/result wait for its task past callTimeoutSeconds, up to hangar.taskResultTimeoutSeconds, whose end it names', async () => {
		// Calls get one second; the task takes about two; tasks/get still answers at once.
		const {url} = await hangarWith({fx: fixture('normal', ['--tasks'], {lazy: false, callTimeoutSeconds: 1})}, {taskResultTimeoutSeconds: 30});
		const via = await session(url);
		const start = async () => (await via.client.request({method: 'tools/call', params: {name: 'fx__task-steps', arguments: {steps: 4, stepMs: 500}, task: {ttl: 60_000}}}, CreateTaskResultSchema)).task;
		const task = await start();
		expect((await getTask(via.client, task.taskId)).status).toBe('working');
		expect((await taskResult(via.client, task.taskId)).content).toEqual([{type: 'text', text: 'done after 4 steps'}]);

		const {url: short} = await hangarWith({fx: fixture('normal', ['--tasks'], {lazy: false})}, {taskResultTimeoutSeconds: 1});
		const hurried = await session(short);
		const slow = (await hurried.client.request({method: 'tools/call', params: {name: 'fx__task-steps', arguments: {steps: 4, stepMs: 500}, task: {ttl: 60_000}}}, CreateTaskResultSchema)).task;
		const error = await rpcError(taskResult(hurried.client, slow.taskId));
		expect(error.message).toMatch(/tasks\/result .*no answer within 1 s, the deadline set by hangar\.taskResultTimeoutSeconds/);
	}, 30_000);

	it('offers tasks to the first session of a first run (nothing cached yet), having waited for the upstreams\' first start', async () => {
		const dir = tempDir();
		const hangar = await serveHttp(writeConfig(dir, {fx: fixture('normal', ['--tasks'])}, fastHangar));
		// The first client connects at once: fx (lazy, never run) is starting to learn what it serves.
		const first = await session(hangar.url);
		expect(first.client.getServerCapabilities()?.tasks).toEqual({list: {}, cancel: {}, requests: {tools: {call: {}}}});
		const created = await first.client.request({method: 'tools/call', params: {name: 'fx__task-steps', arguments: {steps: 1, stepMs: 10}, task: {ttl: 60_000}}}, CreateTaskResultSchema);
		expect((await taskResult(first.client, created.task.taskId)).content).toEqual([{type: 'text', text: 'done after 1 steps'}]);
		expect((await first.client.request({method: 'tasks/list', params: {}}, ListTasksResultSchema)).tasks.map(task => task.taskId)).toEqual([created.task.taskId]);
	}, 30_000);
});
