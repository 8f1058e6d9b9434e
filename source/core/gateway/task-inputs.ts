/**
 * A 2025-11-25 upstream's task that asks its client for input mid-task,
 * served to a 2026-07-28 client through the tasks extension
 * (`io.modelcontextprotocol/tasks`): the questions are the task's
 * `inputRequests` on tasks/get, the answers come with tasks/update.
 *
 * A 2025 task that needs input goes `input_required` and sends its requests
 * (elicitation, sampling) with the task named in their `related-task`
 * `_meta`, while its client waits on `tasks/result`. A modern client has no
 * tasks/result and cannot be sent requests, so hangar stands in for it: when
 * tasks/get finds the upstream's task `input_required`, hangar sends the
 * 2025 `tasks/result` itself, as a request of its own (a `TaskInput`, held
 * in the owner's record like an MRTR held call), and holds what the upstream
 * asks during it:
 *
 *   client ─ tasks/get ─► hangar ─ tasks/get ─► upstream: input_required
 *                         hangar ─ tasks/result (kept open) ─► upstream
 *                         hangar ◄─ elicitation/create (related-task) ─ upstream: held
 *   client ◄─ {status: "input_required", inputRequests: {<key>: {method, params}}}
 *   client ─ tasks/update {inputResponses: {<key>: result}} ─► the held request answered ─► upstream
 *   client ─ tasks/get … ─► completed: the result the kept tasks/result brought back, inlined
 *
 * - Only the task's owner reaches it: tasks/get and tasks/update find a task
 *   for the client that created it alone (task-book.ts), and the relays hand
 *   an upstream's request that names the task to this holder and no other
 *   (client-relay.ts). Nothing crosses clients.
 * - Keys are unique over the task's life and random per task. An answer
 *   under a key this task never issued (another task's, a made-up one) or
 *   not shaped as a result of the request it answers is refused, and nothing
 *   of that update is taken; a key already answered is ignored (a retried
 *   update), as the extension asks.
 * - Collected once tasks/get sees `input_required`, as the 2025 spec has a
 *   client do (the v1 server SDK queues a task's requests for tasks/result):
 *   never before, so a task's kept tasks/result does not make every other
 *   call on a shared instance ambiguous for the relay for the task's life.
 * - Bounded: held requests per task, in all, and bytes per client. Each held
 *   request expires after hangar.inputRequiredSeconds; a cancel of the task,
 *   or its client's connection closing, frees them too. Either way the
 *   upstream gets an error that names hangar and why.
 */
import {randomBytes} from 'node:crypto';
import {JsonRpcCode, JsonRpcError} from '../base/errors.js';
import {Wakeups} from '../base/wakeups.js';
import type {HeldCallPeer} from '../engine/clients/clients.js';
import {LiveRequest, type RequestContext} from '../engine/request-context.js';
import {taskInputUnanswered} from '../engine/refusals.js';
import type {TaskEntry} from '../engine/routing/task-book.js';
import type {Supervisor} from '../engine/supervisor.js';
import {relayedRequests, type RelayedMethod} from '../link/client-side.js';
import {relatedTaskKey, UpstreamRpcError} from '../link/connection.js';
import {isPlainObject} from '../wire/message-classifier.js';
import {heldInputsOf} from './held-inputs.js';
import {toRpcError} from './request-params.js';

/** How a finished 2025 task ended, as its tasks/result said: its result, or the protocol error it answered. */
export type Outcome = {result: Record<string, unknown>} | {error: {code: number; message: string; data?: unknown}};

/** One of the extension's input requests: a server-to-client request without its JSON-RPC id. */
export type InputRequest = {method: RelayedMethod; params: Record<string, unknown>};

export type TaskInputsOptions = {
	/** How long a held request waits for the client's answer (hangar.inputRequiredSeconds). */
	ttlMs: number;
	/** Held requests of one task at once. */
	maxPerTask?: number;
	/** Held requests of all tasks at once. */
	maxInAll?: number;
	/** Bytes of held requests (their params as JSON) for one client at once. */
	maxBytesPerClient?: number;
	/** How long the tasks/get that starts collecting waits for the upstream's first question. */
	firstAskWaitMs?: number;
};

/** A held request's states, and the events that move it: any other move is an error. */
type AskState = 'held' | 'answered' | 'expired' | 'freed';
type AskEvent = 'answer' | 'expire' | 'free';
const askTransitions: Readonly<Record<AskState, Partial<Record<AskEvent, AskState>>>> = {
	held: {answer: 'answered', expire: 'expired', free: 'freed'},
	answered: {},
	expired: {},
	freed: {},
};

type Ask = InputRequest & {
	state: AskState;
	server: string;
	bytes: number;
	resolve: (result: Record<string, unknown>) => void;
	reject: (error: Error) => void;
	dispose: () => void;
};

/** Why `response` is not a result of a `method` request, or undefined when it could be (the upstream judges the rest). */
function answerProblem(method: RelayedMethod, response: unknown): string | undefined {
	if (!isPlainObject(response)) return 'it is not an object';
	if (method === 'elicitation/create') {
		if (!['accept', 'decline', 'cancel'].includes(response['action'] as string)) return 'an elicitation result needs "action": "accept", "decline" or "cancel"';
		if (response['content'] !== undefined && !isPlainObject(response['content'])) return 'an elicitation result\'s "content" must be an object';
	}

	if (method === 'sampling/createMessage' && (typeof response['role'] !== 'string' || response['content'] === undefined || typeof response['model'] !== 'string')) return 'a sampling result needs "role", "content" and "model"';
	if (method === 'roots/list' && !Array.isArray(response['roots'])) return 'a roots/list result needs a "roots" array';
	return undefined;
}

/**
 * The keys a task's input requests get: a random prefix of the task's own
 * and a count, so a key names one request of one task; and the latest keys
 * whose request ended unanswered (expired, freed), so a late answer hears
 * why rather than being dropped.
 */
type Keys = {prefix: string; issued: number; unanswered: Map<string, string>; collected: boolean};

/** Keys of requests that ended unanswered, remembered per task. */
const unansweredKept = 64;

/** Notes that the request of `key` ended unanswered, and why. */
function endedUnanswered(keys: Keys, key: string, why: string): void {
	keys.unanswered.set(key, why);
	if (keys.unanswered.size > unansweredKept) keys.unanswered.delete(keys.unanswered.keys().next().value!);
}

function wasIssued(keys: Keys | undefined, key: string): boolean {
	if (keys === undefined || !key.startsWith(keys.prefix)) return false;
	const count = Number(key.slice(keys.prefix.length));
	return Number.isInteger(count) && count >= 1 && count <= keys.issued;
}

/** An upstream's request as the extension embeds it: no progress token, no `related-task` (tasks/get names the task). */
function embedded(raw: Record<string, unknown> | undefined): Record<string, unknown> {
	const {_meta: meta, task: _task, ...rest} = raw ?? {};
	const {progressToken: _token, [relatedTaskKey]: _related, ...kept} = isPlainObject(meta) ? meta : {};
	return Object.keys(kept).length === 0 ? rest : {...rest, _meta: kept};
}

/** An inlined result carries no `related-task` `_meta` (the task id is at the root of tasks/get). */
function withoutRelatedTask(result: Record<string, unknown>): Record<string, unknown> {
	const meta = result['_meta'];
	if (!isPlainObject(meta) || !(relatedTaskKey in meta)) return result;
	const {[relatedTaskKey]: _related, ...rest} = meta;
	const {_meta: _old, ...bare} = result;
	return Object.keys(rest).length === 0 ? bare : {...bare, _meta: rest};
}

/** Hangar's kept tasks/result of one task, and the upstream's requests held for the task's client. */
class TaskInput implements HeldCallPeer {
	readonly id = `hangar-task-input-${randomBytes(8).toString('hex')}`;
	readonly task: {id: string; instance: string};
	readonly who: string;
	readonly roundId = undefined;
	capabilities: Readonly<Record<string, unknown>>;
	readonly asked = new Map<string, Ask>();
	/** How the kept tasks/result ended: the task's outcome, or undefined when it failed otherwise (a timeout, a cancel). */
	ended: Promise<Outcome | undefined> = Promise.resolve(undefined);
	private readonly context: LiveRequest;
	private readonly wakeups = new Wakeups();
	private done = false;

	constructor(
		private readonly owner: TaskInputs,
		readonly entry: TaskEntry,
		first: RequestContext,
		capabilities: Readonly<Record<string, unknown>>,
		/** The session whose request started it: a connection that is its client ends it when it closes. */
		readonly scope: object,
	) {
		const record = entry.client;
		this.task = {id: entry.id, instance: entry.instance.name};
		this.who = `the 2026-07-28 client ${record.name === null ? `of ${record.label}` : `"${record.name}" (${record.label})`}`;
		this.capabilities = capabilities;
		this.context = new LiveRequest({id: this.id, method: 'tasks/result', client: record, correlationId: first.correlationId, audience: first.audience});
	}

	get bytes(): number {
		let total = 0;
		for (const asked of this.asked.values()) total += asked.bytes;
		return total;
	}

	/** Sends the 2025 tasks/result; what the upstream asks during it comes to `ask`. */
	start(): void {
		this.entry.client.heldCalls.set(this.id, this);
		this.ended = this.owner.fetch(this.entry, this.context).catch(() => undefined);
		void this.ended.then(outcome => this.owner.drop(this, outcome === undefined ? 'hangar\'s tasks/result for the task ended without the task\'s result' : 'the task ended'));
	}

	ask(server: string, method: RelayedMethod, raw: Record<string, unknown> | undefined, signal: AbortSignal): Promise<Record<string, unknown>> {
		const params = embedded(raw);
		const bytes = JSON.stringify(params).length;
		const refusal = this.done ? 'the task it belongs to is no longer collected' : this.owner.roomFor(this, bytes);
		if (refusal !== undefined) return Promise.reject(taskInputUnanswered(server, method, relayedRequests[method], refusal, {task: this.task.id}));
		const keys = this.owner.keysOf(this.entry);
		const key = `${keys.prefix}${++keys.issued}`;
		const seconds = this.owner.ttlMs / 1000;
		return new Promise((resolve, reject) => {
			const expire = () => {
				const why = `the client did not answer in time (it had ${seconds} s, hangar.inputRequiredSeconds)`;
				endedUnanswered(keys, key, `it expired: ${why}, and the upstream was told so`);
				this.settle(key, 'expire', taskInputUnanswered(server, method, relayedRequests[method], why, {task: this.task.id}));
			};

			const timer = setTimeout(expire, this.owner.ttlMs);
			timer.unref();
			// The upstream withdrew it (notifications/cancelled): nothing is sent back.
			const onAbort = () => {
				endedUnanswered(keys, key, 'the upstream withdrew it (notifications/cancelled)');
				this.settle(key, 'free', new Error('cancelled by the upstream'));
			};

			signal.addEventListener('abort', onAbort, {once: true});
			const dispose = () => {
				clearTimeout(timer);
				signal.removeEventListener('abort', onAbort);
			};

			this.asked.set(key, {method, params, state: 'held', server, bytes, resolve, reject, dispose});
			this.wake();
		});
	}

	/** Moves the held request `key` by `event`, and answers the upstream with `outcome`. */
	private settle(key: string, event: AskEvent, outcome: Record<string, unknown> | Error): void {
		const asked = this.asked.get(key);
		if (asked === undefined) return;
		const next = askTransitions[asked.state][event];
		if (next === undefined) throw new Error(`a held ${asked.method} cannot ${event} once ${asked.state}`);
		asked.state = next;
		this.asked.delete(key);
		asked.dispose();
		if (outcome instanceof Error) asked.reject(outcome);
		else asked.resolve(outcome);
	}

	/** The input requests held now, by key. */
	pending(): Record<string, InputRequest> {
		return Object.fromEntries([...this.asked].map(([key, asked]) => [key, {method: asked.method, params: asked.params}]));
	}

	/** Resolves once the upstream has asked something, the tasks/result ended, `ms` passed, or `signal` aborted. */
	async firstAsk(ms: number, signal: AbortSignal): Promise<void> {
		if (this.asked.size > 0 || this.done) return;
		await this.wakeups.wait(ms, signal);
	}

	private wake(): void {
		this.wakeups.wake();
	}

	/** The client's answers: all taken, or none (see the module's notes). */
	answer(responses: Record<string, unknown>): void {
		const problems = new Problems(this.owner.keysOf(this.entry));
		const taking: Array<[string, Record<string, unknown>]> = [];
		for (const [key, response] of Object.entries(responses)) {
			const asked = this.asked.get(key);
			if (asked === undefined) {
				problems.notOutstanding(key);
				continue;
			}

			const problem = answerProblem(asked.method, response);
			if (problem === undefined) taking.push([key, response as Record<string, unknown>]);
			else problems.malformed.push(`the answer to ${JSON.stringify(key)} (${asked.method}): ${problem}`);
		}

		problems.refuse(this.entry, Object.keys(this.pending()));
		for (const [key, response] of taking) this.settle(key, 'answer', response);
	}

	/** Ends it: its held requests are freed with `why`, and the tasks/result, when it still runs, is cancelled. */
	end(why: string): void {
		if (this.done) return;
		this.done = true;
		const keys = this.owner.keysOf(this.entry);
		for (const [key, asked] of [...this.asked]) {
			endedUnanswered(keys, key, `it was withdrawn: ${why}, and the upstream was told so`);
			this.settle(key, 'free', taskInputUnanswered(asked.server, asked.method, relayedRequests[asked.method], why, {task: this.task.id}));
		}

		this.context.abort('cancelled');
		this.context.end();
		const record = this.entry.client;
		record.heldCalls.delete(this.id);
		if (record.heldCalls.size === 0) this.owner.released(record);
		this.wake();
	}
}

/** What is wrong with a tasks/update's answers: refused as a whole when anything is. */
class Problems {
	readonly malformed: string[] = [];
	private readonly unknown: string[] = [];
	private readonly late: string[] = [];

	constructor(private readonly keys: Keys | undefined) {}

	/** `key` is not outstanding: answered already (ignored, a retried update), ended unanswered, or never asked. */
	notOutstanding(key: string): void {
		const ended = this.keys?.unanswered.get(key);
		if (ended !== undefined) this.late.push(`the request ${JSON.stringify(key)} is no longer open: ${ended}`);
		else if (!wasIssued(this.keys, key)) this.unknown.push(key);
	}

	refuse(entry: TaskEntry, outstanding: string[]): void {
		const parts = [...(this.unknown.length === 0 ? [] : [`the task never asked under ${this.unknown.map(key => JSON.stringify(key)).join(', ')}`]), ...this.late, ...this.malformed];
		if (parts.length === 0) return;
		const waiting = outstanding.length === 0 ? `it has no input request open (its status is ${String(entry.task['status'])})` : `its open input requests are ${outstanding.map(key => JSON.stringify(key)).join(', ')}`;
		throw new JsonRpcError(JsonRpcCode.InvalidParams, `Invalid params for "tasks/update" "${entry.id}": ${parts.join('; ')}; ${waiting}, as tasks/get shows them. Nothing of this update was taken.`, {taskId: entry.id, outstanding});
	}
}

/** The kept tasks/results and held requests of this hangar process's tasks (one store: over HTTP every request is a session of its own). */
export class TaskInputs {
	private readonly byTask = new Map<TaskEntry, TaskInput>();
	private readonly outcomes = new WeakMap<TaskEntry, Outcome>();
	private readonly keys = new WeakMap<TaskEntry, Keys>();
	readonly ttlMs: number;
	private readonly maxPerTask: number;
	private readonly maxInAll: number;
	private readonly maxBytesPerClient: number;
	private readonly firstAskWaitMs: number;

	constructor(
		private readonly supervisor: Supervisor,
		options: TaskInputsOptions,
	) {
		this.ttlMs = options.ttlMs;
		this.maxPerTask = options.maxPerTask ?? 16;
		this.maxInAll = options.maxInAll ?? 4096;
		this.maxBytesPerClient = options.maxBytesPerClient ?? 1024 * 1024;
		this.firstAskWaitMs = options.firstAskWaitMs ?? 2000;
	}

	/** Tasks whose questions are collected now, for tests and status. */
	get size(): number {
		return this.byTask.size;
	}

	has(entry: TaskEntry): boolean {
		return this.byTask.has(entry);
	}

	keysOf(entry: TaskEntry): Keys {
		let keys = this.keys.get(entry);
		if (keys === undefined) {
			keys = {prefix: `hangar-input-${randomBytes(6).toString('hex')}-`, issued: 0, unanswered: new Map(), collected: false};
			this.keys.set(entry, keys);
		}

		return keys;
	}

	/**
	 * What the task asks its client now. Starts hangar's tasks/result for it
	 * when none runs (and, the task's first time, waits a little for the
	 * upstream's first question). `capabilities`: what the client declared
	 * on this request, the only kinds of request it is asked.
	 */
	async pending(entry: TaskEntry, context: RequestContext, capabilities: Readonly<Record<string, unknown>>, scope: object): Promise<Record<string, InputRequest>> {
		let input = this.byTask.get(entry);
		const keys = this.keysOf(entry);
		const fresh = input === undefined && !keys.collected;
		keys.collected = true;
		if (input === undefined) {
			input = new TaskInput(this, entry, context, capabilities, scope);
			this.byTask.set(entry, input);
			input.start();
		}

		input.capabilities = capabilities;
		if (fresh) await input.firstAsk(this.firstAskWaitMs, context.signal);
		return input.pending();
	}

	/** The client's tasks/update: its answers taken, or refused with what is wrong. */
	answer(entry: TaskEntry, responses: Record<string, unknown>): void {
		const input = this.byTask.get(entry);
		if (input !== undefined) {
			input.answer(responses);
			return;
		}

		// Nothing is held: keys it issued before are answered already (ignored) or ended unanswered; any other is refused.
		const problems = new Problems(this.keys.get(entry));
		for (const key of Object.keys(responses)) problems.notOutstanding(key);
		problems.refuse(entry, []);
	}

	/** How the task ended: what hangar's kept tasks/result brings, or a tasks/result of its own (`context` is one). */
	async outcomeOf(entry: TaskEntry, context: RequestContext): Promise<Outcome> {
		const input = this.byTask.get(entry);
		if (input !== undefined) {
			const ended = await untilAborted(input.ended, context.signal);
			if (ended !== undefined) return ended;
		}

		return this.fetch(entry, context);
	}

	/** The upstream's tasks/result of `entry`, once (an ended task's answers at once); a failure that is not the task's own is thrown. */
	async fetch(entry: TaskEntry, context: RequestContext): Promise<Outcome> {
		const known = this.outcomes.get(entry);
		if (known !== undefined) return known;
		let outcome: Outcome;
		try {
			const result = await this.supervisor.taskRequest(entry, {}, context);
			outcome = {result: withoutRelatedTask(result)};
		} catch (error) {
			// A protocol error of the task's own (or its upstream's crash) is how it ended; anything else (a timeout) is this request's failure.
			const rpc = toRpcError(error, `upstream "${entry.instance.name}": tasks/result "${entry.id}"`, context.audience);
			if (!(error instanceof UpstreamRpcError) && entry.lost === undefined) throw rpc;
			outcome = {error: {code: rpc.code, message: rpc.message, ...(rpc.data === undefined ? {} : {data: rpc.data})}};
		}

		this.outcomes.set(entry, outcome);
		return outcome;
	}

	/** The task was cancelled by its client: what it held is freed. */
	cancelled(entry: TaskEntry): void {
		const input = this.byTask.get(entry);
		if (input !== undefined) this.drop(input, 'the client cancelled the task');
	}

	/** A connection that is the client closed: the tasks its requests collect for stop collecting (an HTTP request's session is not one). */
	dropScope(scope: object, why: string): void {
		for (const input of [...this.byTask.values()]) if (input.scope === scope) this.drop(input, why);
	}

	/** @internal Forgets `input` and ends it. */
	drop(input: TaskInput, why: string): void {
		if (this.byTask.get(input.entry) === input) this.byTask.delete(input.entry);
		input.end(why);
	}

	/** @internal Why one more held request of `bytes` does not fit for `input`, or undefined when it does. */
	roomFor(input: TaskInput, bytes: number): string | undefined {
		if (input.asked.size >= this.maxPerTask) return `hangar already holds ${input.asked.size} requests of this task for its client (the most it holds per task)`;
		let inAll = 0;
		let held = bytes;
		for (const other of this.byTask.values()) {
			inAll += other.asked.size;
			if (other.entry.client === input.entry.client) held += other.bytes;
		}

		if (inAll >= this.maxInAll) return `hangar holds ${inAll} requests for clients' tasks, as many as it will at once`;
		if (held > this.maxBytesPerClient) return `hangar already holds ${held - bytes} bytes of requests for this client's tasks, and this one (${bytes} bytes) would pass the ${this.maxBytesPerClient} it holds per client`;
		return undefined;
	}

	/** @internal `record` holds no call any more: a closed session's record may go (held-inputs.ts whenReleased). */
	released(record: TaskEntry['client']): void {
		heldInputsOf(this.supervisor).released(record);
	}
}

/** `promise`'s value, or undefined once `signal` aborts first. */
async function untilAborted<T>(promise: Promise<T>, signal: AbortSignal): Promise<T | undefined> {
	if (signal.aborted) return undefined;
	let onAbort: (() => void) | undefined;
	const aborted = new Promise<undefined>(resolve => {
		onAbort = () => resolve(undefined);
		signal.addEventListener('abort', onAbort, {once: true});
	});
	try {
		return await Promise.race([promise, aborted]);
	} finally {
		signal.removeEventListener('abort', onAbort!);
	}
}

const bySupervisor = new WeakMap<Supervisor, TaskInputs>();

/** The task inputs of this hangar process: one store, so every session of a client (over HTTP, every request) finds its task's. */
export function taskInputsOf(supervisor: Supervisor): TaskInputs {
	let inputs = bySupervisor.get(supervisor);
	if (inputs === undefined) {
		inputs = new TaskInputs(supervisor, {ttlMs: supervisor.config.hangar.inputRequiredMs});
		bySupervisor.set(supervisor, inputs);
	}

	return inputs;
}
