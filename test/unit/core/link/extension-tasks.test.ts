import {describe, expect, it} from 'vitest';
import {ConnectionLostError, RequestCancelledError, UpstreamRpcError, UpstreamTimeoutError} from '../../../../source/core/link/connection-errors.js';
import {ExtensionTasks, followedLimit, tasksExtensionId} from '../../../../source/core/link/extension-tasks.js';

const offering = {tools: {}, extensions: {[tasksExtensionId]: {}}};
const declared = {_meta: {'io.modelcontextprotocol/clientCapabilities': {extensions: {[tasksExtensionId]: {}}}}};

function flat(taskId: string, status: string, extra: Record<string, unknown> = {}): Record<string, unknown> {
	return {taskId, status, createdAt: 'then', lastUpdatedAt: 'now', ttlMs: 60_000, pollIntervalMs: 50, ...extra};
}

/** An ExtensionTasks whose upstream answers tasks/get from `states` (by task id), recording what it was sent and told. */
function harness(options: {modern?: boolean; capabilities?: Record<string, unknown>} = {}) {
	const states = new Map<string, Record<string, unknown>>();
	const sent: Array<{method: string; params: Record<string, unknown>}> = [];
	const statuses: Array<Record<string, unknown>> = [];
	const tasks = new ExtensionTasks({
		name: 'ext',
		capabilities: () => options.capabilities ?? offering,
		modern: () => options.modern ?? true,
		send: async (method, params) => {
			sent.push({method, params});
			const state = states.get(params['taskId'] as string);
			if (state === undefined) throw new UpstreamRpcError(-32_602, 'Task not found', undefined);
			return {resultType: 'complete', ...state};
		},
		clientSide: undefined,
		events: {onTaskStatus: params => statuses.push(params)},
	});
	return {tasks, states, sent, statuses};
}

describe('a modern upstream\'s tasks extension, driven as 2025 tasks', () => {
	it('is driven only for a modern upstream that advertises the extension, which then offers the 2025 tasks capability', () => {
		expect(harness().tasks.capabilities(offering)).toEqual({...offering, tasks: {list: {}, cancel: {}, requests: {tools: {call: {}}}}});
		for (const other of [harness({modern: false}), harness({capabilities: {tools: {}}})]) {
			expect(other.tasks.handles('tasks/get')).toBe(false);
			expect(other.tasks.capabilities({tools: {}})).toEqual({tools: {}});
			const params: Record<string, unknown> = {name: 'slow', task: {}};
			other.tasks.outgoing('tools/call', params);
			expect(params).toEqual({name: 'slow', task: {}});
		}
	});

	it('declares the extension on a task-augmented call and the tasks methods, dropping the 2025 task param, and leaves a plain call alone', () => {
		const {tasks} = harness();
		const call: Record<string, unknown> = {name: 'slow', task: {ttl: 1}, _meta: {'io.modelcontextprotocol/clientCapabilities': {sampling: {}}}};
		tasks.outgoing('tools/call', call);
		expect(call).toEqual({name: 'slow', _meta: {'io.modelcontextprotocol/clientCapabilities': {sampling: {}, extensions: {[tasksExtensionId]: {}}}}});
		const plain: Record<string, unknown> = {name: 'slow'};
		tasks.outgoing('tools/call', plain);
		expect(plain).toEqual({name: 'slow'});
		const get: Record<string, unknown> = {taskId: 't'};
		tasks.outgoing('tasks/get', get);
		expect(get).toEqual({taskId: 't', ...declared});
	});

	it('reads resultType "task" as a 2025 CreateTaskResult only for a request that declared the extension', () => {
		const {tasks} = harness();
		expect(tasks.incoming('tools/call', declared, {resultType: 'task', ...flat('t1', 'working')})).toEqual({
			task: {taskId: 't1', status: 'working', createdAt: 'then', lastUpdatedAt: 'now', ttl: 60_000, pollInterval: 50},
		});
		const undeclared = {resultType: 'task', ...flat('t2', 'working')};
		expect(tasks.incoming('tools/call', {}, undeclared)).toBe(undeclared);
		expect(() => tasks.incoming('tools/call', declared, {resultType: 'task', status: 'working'})).toThrow(UpstreamRpcError);
		tasks.clear();
	});

	it('answers tasks/result once polling sees the task end, and tells each change of status once', async () => {
		const {tasks, states, statuses} = harness();
		states.set('t1', flat('t1', 'working'));
		tasks.incoming('tools/call', declared, {resultType: 'task', ...flat('t1', 'working')});
		const result = tasks.request('tasks/result', {taskId: 't1'}, {timeoutMs: 10_000});
		states.set('t1', flat('t1', 'completed', {result: {content: [{type: 'text', text: 'done'}]}}));
		expect(await result).toEqual({content: [{type: 'text', text: 'done'}], _meta: {'io.modelcontextprotocol/related-task': {taskId: 't1'}}});
		expect(statuses.map(status => status['status'])).toEqual(['completed']);
		// A failed task's tasks/result is its JSON-RPC error.
		states.set('t2', flat('t2', 'failed', {error: {code: -32_000, message: 'no', data: {x: 1}}}));
		await expect(tasks.request('tasks/result', {taskId: 't2'}, {timeoutMs: 1000})).rejects.toMatchObject({code: -32_000, message: 'no', data: {x: 1}});
	});

	it('fails a tasks/result whose task asks for input when there is no client to ask, and asks again on the next one', async () => {
		const {tasks, states, sent} = harness();
		const asking = flat('q', 'input_required', {inputRequests: {name: {method: 'elicitation/create', params: {message: 'Your name?'}}}});
		states.set('q', asking);
		for (let attempt = 0; attempt < 2; attempt++) {
			await expect(tasks.request('tasks/result', {taskId: 'q'}, {timeoutMs: 1000})).rejects.toThrow(/relays no requests to clients/);
		}

		expect(sent.filter(request => request.method === 'tasks/update')).toEqual([]);
		tasks.clear();
	});

	it('stops following a task whose poll is answered with what is not a task, failing a tasks/result that waits, naming the upstream', async () => {
		const {tasks, states} = harness();
		states.set('odd', flat('odd', 'working'));
		tasks.incoming('tools/call', declared, {resultType: 'task', ...flat('odd', 'working')});
		const waiting = tasks.request('tasks/result', {taskId: 'odd'}, {timeoutMs: 10_000});
		states.set('odd', {taskId: 'odd', status: 'sleeping'});
		await expect(waiting).rejects.toThrow(/upstream "ext" answered tasks\/get with a task without a string taskId and a known status/);
		tasks.clear();
	});

	it('ends a waiting tasks/result at its deadline, on its signal, or when the connection closes', async () => {
		const {tasks, states} = harness();
		for (const id of ['a', 'b', 'c']) {
			states.set(id, flat(id, 'working', {pollIntervalMs: 5000}));
			tasks.incoming('tools/call', declared, {resultType: 'task', ...flat(id, 'working', {pollIntervalMs: 5000})});
		}

		await expect(tasks.request('tasks/result', {taskId: 'a'}, {timeoutMs: 20})).rejects.toBeInstanceOf(UpstreamTimeoutError);
		const abort = new AbortController();
		const cancelled = tasks.request('tasks/result', {taskId: 'b'}, {timeoutMs: 10_000, signal: abort.signal});
		abort.abort();
		await expect(cancelled).rejects.toBeInstanceOf(RequestCancelledError);
		const lost = tasks.request('tasks/result', {taskId: 'c'}, {timeoutMs: 10_000});
		await new Promise(resolve => setImmediate(resolve));
		tasks.clear();
		await expect(lost).rejects.toBeInstanceOf(ConnectionLostError);
	});

	it(`follows at most ${followedLimit} tasks per connection, the oldest ended ones forgotten first`, async () => {
		const {tasks} = harness();
		tasks.incoming('tools/call', declared, {resultType: 'task', ...flat('live', 'working', {pollIntervalMs: 5000})});
		for (let index = 0; index < followedLimit; index++) tasks.incoming('tools/call', declared, {resultType: 'task', ...flat(`done-${index}`, 'completed')});
		const listed = (await tasks.request('tasks/list', {}, {timeoutMs: 1000}))['tasks'] as Array<{taskId: string}>;
		expect(listed).toHaveLength(followedLimit);
		expect(listed.map(task => task.taskId)).toContain('live');
		expect(listed.map(task => task.taskId)).not.toContain('done-0');
		tasks.clear();
	});
});
