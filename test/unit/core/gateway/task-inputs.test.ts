import {describe, expect, it} from 'vitest';
import {JsonRpcError} from '../../../../source/core/base/errors.js';
import {ClientRegistry, type ClientRecord} from '../../../../source/core/engine/clients/clients.js';
import {LiveRequest} from '../../../../source/core/engine/request-context.js';
import type {TaskEntry} from '../../../../source/core/engine/routing/task-book.js';
import type {Supervisor} from '../../../../source/core/engine/supervisor.js';
import {TaskInputs, type TaskInputsOptions} from '../../../../source/core/gateway/task-inputs.js';

/**
 * A supervisor as TaskInputs sees it: its tasks/result for a task stays
 * pending (as a 2025 upstream's does until the task ends) until `finish`.
 */
function fakeSupervisor() {
	const sent: string[] = [];
	let finish: ((result: Record<string, unknown>) => void) | undefined;
	const supervisor = {
		config: {hangar: {inputRequiredMs: 60_000}},
		async taskRequest(_entry: TaskEntry, _params: Record<string, unknown>, context: {method: string; signal: AbortSignal}) {
			sent.push(context.method);
			return new Promise<Record<string, unknown>>((resolve, reject) => {
				finish = resolve;
				context.signal.addEventListener('abort', () => reject(new Error('cancelled')), {once: true});
			});
		},
	} as unknown as Supervisor;
	return {supervisor, sent, finish: (result: Record<string, unknown>) => finish?.(result)};
}

function taskOf(client: ClientRecord, id = 'task-1'): TaskEntry {
	return {id, upstreamId: `up-${id}`, instance: {name: 'fx'}, server: 'fx', client, tool: 'research', task: {status: 'input_required'}} as unknown as TaskEntry;
}

function setUp(options: Partial<TaskInputsOptions> = {}) {
	const record = new ClientRegistry().add('stdio', 'stdio 2026-07-28 client #1');
	const fake = fakeSupervisor();
	const inputs = new TaskInputs(fake.supervisor, {ttlMs: 60_000, firstAskWaitMs: 5, ...options});
	const context = new LiveRequest({id: 1, method: 'tasks/get', client: record});
	return {record, inputs, context, ...fake};
}

const elicitation = {message: 'Which one?', requestedSchema: {type: 'object'}, _meta: {'io.modelcontextprotocol/related-task': {taskId: 'task-1'}, progressToken: 3}};
const signal = new AbortController().signal;

function refusedWith(action: () => void): JsonRpcError {
	try {
		action();
	} catch (error) {
		expect(error).toBeInstanceOf(JsonRpcError);
		return error as JsonRpcError;
	}

	throw new Error('not refused');
}

describe('TaskInputs: a 2025 task\'s questions for a 2026-07-28 client', () => {
	it('sends tasks/result once, shows what the upstream asks during it as inputRequests, and answers it from the client\'s update', async () => {
		const {record, inputs, context, sent} = setUp();
		const entry = taskOf(record);
		expect(await inputs.pending(entry, context, {elicitation: {}}, {})).toEqual({});
		expect(sent).toEqual(['tasks/result']);
		const holder = record.heldCalls.values().next().value!;
		expect(holder.task).toEqual({id: 'task-1', instance: 'fx'});
		const answer = holder.ask('fx', 'elicitation/create', elicitation, signal);
		const shown = await inputs.pending(entry, context, {elicitation: {}}, {});
		expect(sent).toEqual(['tasks/result']);
		const [key, request] = Object.entries(shown)[0]!;
		// Embedded without its JSON-RPC id, progress token or related-task (tasks/get names the task).
		expect(request).toEqual({method: 'elicitation/create', params: {message: 'Which one?', requestedSchema: {type: 'object'}}});
		inputs.answer(entry, {[key]: {action: 'accept', content: {pick: 'a'}}});
		await expect(answer).resolves.toEqual({action: 'accept', content: {pick: 'a'}});
		expect(await inputs.pending(entry, context, {elicitation: {}}, {})).toEqual({});
	});

	it('takes a partial answer: the answered key goes, the other stays open until its own answer', async () => {
		const {record, inputs, context} = setUp();
		const entry = taskOf(record);
		await inputs.pending(entry, context, {elicitation: {}}, {});
		const holder = record.heldCalls.values().next().value!;
		const first = holder.ask('fx', 'elicitation/create', elicitation, signal);
		const second = holder.ask('fx', 'elicitation/create', {...elicitation, message: 'And this?'}, signal);
		const [one, two] = Object.keys(await inputs.pending(entry, context, {}, {}));
		expect(one).not.toBe(two);
		inputs.answer(entry, {[one!]: {action: 'decline'}});
		await expect(first).resolves.toEqual({action: 'decline'});
		expect(Object.keys(await inputs.pending(entry, context, {}, {}))).toEqual([two]);
		inputs.answer(entry, {[one!]: {action: 'accept'}, [two!]: {action: 'cancel'}});
		await expect(second).resolves.toEqual({action: 'cancel'});
		expect(await inputs.pending(entry, context, {}, {})).toEqual({});
	});

	it('refuses an update under a key it never issued, or an answer of the wrong shape, and takes nothing of it', async () => {
		const {record, inputs, context} = setUp();
		const entry = taskOf(record);
		const other = taskOf(record, 'task-2');
		await inputs.pending(entry, context, {elicitation: {}}, {});
		await inputs.pending(other, context, {elicitation: {}}, {});
		const [first, second] = [...record.heldCalls.values()];
		const asked = [first!.ask('fx', 'elicitation/create', elicitation, signal), second!.ask('fx', 'elicitation/create', elicitation, signal)];
		const key = Object.keys(await inputs.pending(entry, context, {}, {}))[0]!;
		const otherKey = Object.keys(await inputs.pending(other, context, {}, {}))[0]!;
		expect(key).not.toBe(otherKey);
		const foreign = refusedWith(() => inputs.answer(entry, {[key]: {action: 'accept'}, [otherKey]: {action: 'accept'}}));
		expect(foreign.message).toContain(`never asked under ${JSON.stringify(otherKey)}`);
		expect(foreign.message).toContain('Nothing of this update was taken');
		const malformed = refusedWith(() => inputs.answer(entry, {[key]: {action: 'maybe'}}));
		expect(malformed.message).toContain('an elicitation result needs "action"');
		// Both questions are still open.
		expect(Object.keys(await inputs.pending(entry, context, {}, {}))).toEqual([key]);
		expect(Object.keys(await inputs.pending(other, context, {}, {}))).toEqual([otherKey]);
		// Cancelled, they end now, not when their 60 s run out in whatever test file runs then.
		inputs.cancelled(entry);
		inputs.cancelled(other);
		for (const question of asked) await expect(question).rejects.toThrow(/but the client cancelled the task/);
	});

	it('frees a question the client does not answer in time with an error naming hangar and the setting, and says so to a late answer', async () => {
		const {record, inputs, context} = setUp({ttlMs: 20});
		const entry = taskOf(record);
		await inputs.pending(entry, context, {elicitation: {}}, {});
		const holder = record.heldCalls.values().next().value!;
		const answer = holder.ask('fx', 'elicitation/create', elicitation, signal);
		const key = Object.keys(await inputs.pending(entry, context, {}, {}))[0]!;
		await expect(answer).rejects.toThrow(/hangar held it for a 2026-07-28 client, which it asks as an input request of the task on tasks\/get, but the client did not answer in time \(it had 0\.02 s, hangar\.inputRequiredSeconds\)/);
		expect(await inputs.pending(entry, context, {}, {})).toEqual({});
		expect(refusedWith(() => inputs.answer(entry, {[key]: {action: 'accept'}})).message).toContain('is no longer open: it expired');
	});

	it('holds at most maxPerTask questions of a task; a cancel frees the rest and ends its tasks/result', async () => {
		const {record, inputs, context} = setUp({maxPerTask: 1});
		const entry = taskOf(record);
		await inputs.pending(entry, context, {elicitation: {}}, {});
		const holder = record.heldCalls.values().next().value!;
		const first = holder.ask('fx', 'elicitation/create', elicitation, signal);
		await expect(holder.ask('fx', 'elicitation/create', elicitation, signal)).rejects.toThrow(/the most it holds per task/);
		inputs.cancelled(entry);
		await expect(first).rejects.toThrow(/but the client cancelled the task/);
		expect(inputs.size).toBe(0);
		expect(record.heldCalls.size).toBe(0);
	});

	it('takes the task\'s outcome from its kept tasks/result, without another', async () => {
		const {record, inputs, context, sent, finish} = setUp();
		const entry = taskOf(record);
		await inputs.pending(entry, context, {}, {});
		finish({content: [{type: 'text', text: 'done'}], _meta: {'io.modelcontextprotocol/related-task': {taskId: 'task-1'}}});
		expect(await inputs.outcomeOf(entry, context)).toEqual({result: {content: [{type: 'text', text: 'done'}]}});
		expect(sent).toEqual(['tasks/result']);
		expect(record.heldCalls.size).toBe(0);
	});
});
