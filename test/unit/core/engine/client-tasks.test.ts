import {describe, expect, it} from 'vitest';
import {ClientRegistry} from '../../../../source/core/engine/clients/clients.js';
import {ClientTaskBook, clientTaskLimit} from '../../../../source/core/engine/clients/client-tasks.js';

const asTask = {messages: [], maxTokens: 1, task: {ttl: 1000}};
const created = (taskId: string) => ({task: {taskId, status: 'working'}});

describe('ClientTaskBook: whose task an upstream polls', () => {
	it('knows the client that answered a task-augmented request with a task, for tasks/get, tasks/result and tasks/cancel only', () => {
		const registry = new ClientRegistry();
		const a = registry.add('socket', 'socket#a');
		const book = new ClientTaskBook();
		book.answered(asTask, created('t1'), a);
		// Answered as a plain request, or a request that did not ask for a task: nothing to remember.
		book.answered(asTask, {role: 'assistant'}, a);
		book.answered({messages: []}, created('t2'), a);
		for (const method of ['tasks/get', 'tasks/result', 'tasks/cancel'] as const) expect(book.ownerOf(method, {taskId: 't1'})).toBe(a);
		expect(book.ownerOf('tasks/list', {})).toBeUndefined();
		expect(book.ownerOf('tasks/get', {taskId: 't2'})).toBeUndefined();
		expect(book.size).toBe(1);
	});

	it('gives an id two clients handed out to neither, and forgets the oldest past clientTaskLimit', () => {
		const registry = new ClientRegistry();
		const a = registry.add('socket', 'socket#a');
		const b = registry.add('socket', 'socket#b');
		const book = new ClientTaskBook();
		book.answered(asTask, created('task-1'), a);
		book.answered(asTask, created('task-1'), a);
		expect(book.ownerOf('tasks/get', {taskId: 'task-1'})).toBe(a);
		book.answered(asTask, created('task-1'), b);
		expect(book.ownerOf('tasks/get', {taskId: 'task-1'})).toBeUndefined();
		for (let index = 0; index < clientTaskLimit; index++) book.answered(asTask, created(`n${index}`), b);
		expect(book.size).toBe(clientTaskLimit);
		expect(book.ownerOf('tasks/get', {taskId: 'n0'})).toBe(b);
		book.answered(asTask, created('last'), a);
		expect(book.ownerOf('tasks/get', {taskId: 'n0'})).toBeUndefined();
		expect(book.ownerOf('tasks/get', {taskId: 'last'})).toBe(a);
	});
});
