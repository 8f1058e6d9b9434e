import {describe, expect, it} from 'vitest';
import {silentLogger} from '../../../../source/core/base/logger.js';
import {CallLog} from '../../../../source/core/engine/call-log.js';
import {ClientRegistry, type ClientPeer} from '../../../../source/core/engine/clients/clients.js';
import {TaskBook, tasksPerClient} from '../../../../source/core/engine/routing/task-book.js';
import type {Upstream} from '../../../../source/core/engine/upstream/upstream.js';
import {callLine} from '../../../../source/cli/supervisor-verbs.js';
import {outcomeCell} from '../../../../source/tui/components/call-lines.js';

/** A session that records the notifications it gets. */
function session(registry: ClientRegistry, name: string) {
	const record = registry.add('socket', `socket#${name}`);
	const heard: Array<{method: string; params: Record<string, unknown> | undefined}> = [];
	const peer: ClientPeer = {
		request: async () => ({}),
		canReceiveUnrelated: () => true,
		log: () => {},
		notify: (method, params) => heard.push({method, params}),
	};
	record.peer = peer;
	return {record, heard};
}

/** The part of an instance the book uses: its name and the idle hold, counted. */
function instance(name: string) {
	const held = {count: 0};
	const upstream = {
		name,
		capabilities: {tasks: {cancel: {}}},
		readyConnection: undefined,
		holdIdle: () => {
			held.count += 1;
			return () => {
				held.count -= 1;
			};
		},
	} as unknown as Upstream;
	return {upstream, held};
}

const task = (taskId: string, status = 'working') => ({taskId, status, createdAt: '2026-11-27T00:00:00Z', lastUpdatedAt: '2026-11-27T00:00:00Z', ttl: null});

function book() {
	const calls = new CallLog();
	return {calls, tasks: new TaskBook(calls, silentLogger)};
}

describe('TaskBook: the tasks clients created through hangar', () => {
	it('hands out an id of its own that only the creating session can use', () => {
		const {tasks} = book();
		const registry = new ClientRegistry();
		const a = session(registry, 'a');
		const b = session(registry, 'b');
		const {upstream} = instance('fx');
		const answer = tasks.created({instance: upstream, server: 'fx', client: a.record, tool: 'slow', logSeq: undefined, began: 0}, {task: task('up-1')});
		const id = (answer['task'] as {taskId: string}).taskId;
		expect(id).not.toBe('up-1');
		expect(answer['task']).toEqual({...task('up-1'), taskId: id});
		expect(tasks.find(a.record, id)?.upstreamId).toBe('up-1');
		expect(tasks.find(b.record, id)).toBeUndefined();
		expect(tasks.find(a.record, 'up-1')).toBeUndefined();
		expect(tasks.exposedIdOf('fx', 'up-1')).toBe(id);
		expect(tasks.ofClient(b.record)).toEqual([]);
	});

	it('relays a status only to the owning session, under its id, including one that came before the task was registered', async () => {
		const {tasks} = book();
		const registry = new ClientRegistry();
		const a = session(registry, 'a');
		const b = session(registry, 'b');
		const {upstream} = instance('fx');
		tasks.statusFromUpstream('fx', {...task('up-1'), statusMessage: 'early'});
		const id = (tasks.created({instance: upstream, server: 'fx', client: a.record, tool: 'slow', logSeq: undefined, began: 0}, {task: task('up-1')})['task'] as {taskId: string}).taskId;
		await new Promise(resolve => setImmediate(resolve));
		tasks.statusFromUpstream('fx', {...task('up-1', 'completed'), _meta: {x: 1}});
		tasks.statusFromUpstream('other', task('up-1', 'failed'));
		expect(a.heard).toEqual([
			{method: 'notifications/tasks/status', params: {...task('up-1'), statusMessage: 'early', taskId: id}},
			{method: 'notifications/tasks/status', params: {...task('up-1', 'completed'), _meta: {x: 1}, taskId: id}},
		]);
		expect(b.heard).toEqual([]);
	});

	it('holds its instance off the idle stop until the result is fetched, and from a cancelled task not at all', () => {
		const {tasks} = book();
		const a = session(new ClientRegistry(), 'a');
		const {upstream, held} = instance('fx');
		const id = (tasks.created({instance: upstream, server: 'fx', client: a.record, tool: 'slow', logSeq: undefined, began: 0}, {task: task('up-1')})['task'] as {taskId: string}).taskId;
		const other = (tasks.created({instance: upstream, server: 'fx', client: a.record, tool: 'slow', logSeq: undefined, began: 0}, {task: task('up-2')})['task'] as {taskId: string}).taskId;
		expect(held.count).toBe(2);
		tasks.observed(tasks.find(a.record, id)!, task('up-1', 'completed'));
		expect(held.count).toBe(2);
		tasks.ended(tasks.find(a.record, id)!);
		expect(held.count).toBe(1);
		tasks.observed(tasks.find(a.record, other)!, task('up-2', 'cancelled'));
		expect(held.count).toBe(0);
	});

	it('reports a live task failed when its upstream is gone, saying why, to its owner and in its call row', () => {
		const {tasks, calls} = book();
		const a = session(new ClientRegistry(), 'a');
		const {upstream, held} = instance('fx');
		calls.record({at: 0, client: 'a', upstream: 'fx', tool: 'slow', ms: 1, outcome: 'ok', code: null, error: null, args: {}, result: {task: task('up-1')}, task: 'working'});
		const id = (tasks.created({instance: upstream, server: 'fx', client: a.record, tool: 'slow', logSeq: calls.lastSeq, began: 0}, {task: task('up-1')})['task'] as {taskId: string}).taskId;
		expect(callLine(calls.get(calls.lastSeq)!)).toMatch(/fx\/slow {2}1\.0ms {2}task working\n$/);
		tasks.upstreamGone('fx', 'upstream "fx" crashed (exited with code 1)');
		const entry = tasks.find(a.record, id)!;
		expect(entry.lost).toBe('upstream "fx" crashed (exited with code 1)');
		expect(entry.task).toMatchObject({status: 'failed', statusMessage: 'upstream "fx" crashed (exited with code 1); the task was lost with it'});
		expect(a.heard.at(-1)?.params).toMatchObject({taskId: id, status: 'failed'});
		expect(held.count).toBe(0);
		const row = calls.get(calls.lastSeq)!;
		expect(row).toMatchObject({task: 'failed', outcome: 'error', code: 'task failed'});
		expect(callLine(row)).toMatch(/task failed: upstream "fx" crashed/);
		expect(outcomeCell(row).text).toBe('task failed');
		// What the upstream says after that changes nothing: its tasks are gone.
		tasks.statusFromUpstream('fx', task('up-1', 'completed'));
		expect(entry.task['status']).toBe('failed');
	});

	it('keeps at most tasksPerClient per session, the oldest finished ones going first, and forgets a closed session\'s', () => {
		const {tasks} = book();
		const registry = new ClientRegistry();
		const a = session(registry, 'a');
		const {upstream, held} = instance('fx');
		const ids: string[] = [];
		for (let n = 0; n <= tasksPerClient; n++) {
			ids.push((tasks.created({instance: upstream, server: 'fx', client: a.record, tool: 'slow', logSeq: undefined, began: 0}, {task: task(`up-${n}`, n === 5 ? 'completed' : 'working')})['task'] as {taskId: string}).taskId);
		}

		expect(tasks.ofClient(a.record)).toHaveLength(tasksPerClient);
		expect(tasks.find(a.record, ids[5]!)).toBeUndefined();
		expect(tasks.find(a.record, ids[0]!)).toBeDefined();
		expect(held.count).toBe(tasksPerClient);
		tasks.dropClient(a.record);
		expect(tasks.size).toBe(0);
		expect(held.count).toBe(0);
	});
});
