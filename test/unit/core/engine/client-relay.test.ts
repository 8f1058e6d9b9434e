import {describe, expect, it} from 'vitest';
import {HangarError} from '../../../../source/core/base/errors.js';
import {silentLogger} from '../../../../source/core/base/logger.js';
import {ClientRegistry, type ClientPeer, type ClientRecord} from '../../../../source/core/engine/clients/clients.js';
import {CallersInFlight, cancelledLimit} from '../../../../source/core/engine/clients/calls-in-flight.js';
import {ElicitationBook, SessionRelay, SharedRelay, pendingElicitationLimit, sessionCapabilities, type SharedHost} from '../../../../source/core/engine/clients/client-relay.js';
import type {InstancesSetting} from '../../../../source/core/engine/clients/instance-mode.js';
import type {ClientCapability, LoggingLevel} from '../../../../source/core/link/client-side.js';

/** A session as the engine sees it: records what reaches it, answers requests with its own name. */
function session(registry: ClientRegistry, name: string, capabilities: ClientCapability[], declared?: Record<string, unknown>) {
	const record = registry.add('socket', `socket#${name}`);
	record.identify(name, '1.0.0');
	record.declare(capabilities, declared);
	const asked: Array<{method: string; relatedRequestId: string | number | undefined}> = [];
	const logs: Array<Record<string, unknown>> = [];
	/** The calls the log messages it got were tied to. */
	const logCalls: Array<string | number> = [];
	const notified: Array<{method: string; params: unknown}> = [];
	const peer: ClientPeer = {
		async request(method, _params, requestOptions) {
			asked.push({method, relatedRequestId: requestOptions.relatedRequestId});
			return {answeredBy: name};
		},
		canReceiveUnrelated: () => true,
		log: (params, _server, requestId) => {
			logs.push(params);
			if (requestId !== undefined) logCalls.push(requestId);
		},
		notify: (method, params) => notified.push({method, params}),
	};
	record.peer = peer;
	record.touch();
	return {record, asked, logs, logCalls, notified};
}

/** A shared instance's host: its setting, its calls in flight, and what it learned. */
function shared(setting: InstancesSetting = 'shared') {
	const callers = new CallersInFlight();
	const learned: string[] = [];
	/** The 2025 tasks hangar handed out on this instance, by its id: their sessions (the task book's answer). */
	const tasks = new Map<string, ClientRecord>();
	const host: SharedHost = {setting, callers, runsPerClient: () => setting === 'per-client' || learned.length > 0, clientScoped: method => learned.push(method), taskOwner: taskId => tasks.get(taskId)};
	return {host, callers, learned, tasks};
}

const signal = new AbortController().signal;
/** What a shared instance is told of tasks: sampling and elicitation may come as tasks, and its tasks/* about them are relayed. */
const tasksRelayed = {list: {}, cancel: {}, requests: {sampling: {createMessage: {}}, elicitation: {create: {}}}};

async function refusal(promise: Promise<unknown>): Promise<HangarError> {
	const error = await promise.catch((caught: unknown) => caught);
	expect(error).toBeInstanceOf(HangarError);
	return error as HangarError;
}

describe('SharedRelay: a request reaches only the client whose call caused it', () => {
	it('relays to the only session with calls in flight, tied to its latest call, even when another session is more recently active', async () => {
		const registry = new ClientRegistry();
		const {host, callers} = shared();
		const relay = new SharedRelay(registry, host, silentLogger);
		const a = session(registry, 'a', ['sampling']);
		const b = session(registry, 'b', ['sampling']);
		callers.begin(a.record, 41);
		callers.begin(a.record, 42);
		b.record.touch();
		await expect(relay.request('fx', 'sampling/createMessage', {maxTokens: 1}, {signal})).resolves.toEqual({answeredBy: 'a'});
		expect(a.asked).toEqual([{method: 'sampling/createMessage', relatedRequestId: 42}]);
		expect(b.asked).toEqual([]);
	});

	it('refuses, naming why, when calls of two clients are in flight: it never guesses', async () => {
		const registry = new ClientRegistry();
		const {host, callers} = shared();
		const relay = new SharedRelay(registry, host, silentLogger);
		const a = session(registry, 'a', ['sampling']);
		const b = session(registry, 'b', ['sampling']);
		callers.begin(a.record, 1);
		callers.begin(b.record, 1);
		const error = await refusal(relay.request('fx', 'sampling/createMessage', {}, {signal}));
		expect(error.message).toContain('hangar cannot tell which client it belongs to: calls of 2 clients (MCP client "a" (socket#a), MCP client "b" (socket#b)) are in flight on its shared instance');
		expect(error.message).toContain('Set "instances": "auto" or "per-client" for "fx"');
		expect(error.toData()).toMatchObject({error: 'NoClientAnswer', upstream: 'fx', operation: 'sampling/createMessage'});
		expect([...a.asked, ...b.asked]).toEqual([]);
	});

	it('refuses, never guesses, when one modern client has several calls in flight and one is held for its answers', async () => {
		const registry = new ClientRegistry();
		const {host, callers} = shared();
		const relay = new SharedRelay(registry, host, silentLogger);
		const a = session(registry, 'a', ['sampling']);
		const asked: string[] = [];
		a.record.heldCalls.set('held-1', {capabilities: {sampling: {}}, who: 'the 2026-07-28 client "a"', roundId: 1, ask: async (_server, method) => (asked.push(method), {})});
		callers.begin(a.record, 'held-1');
		const second = callers.begin(a.record, 'held-2');
		const error = await refusal(relay.request('fx', 'sampling/createMessage', {}, {signal}));
		expect(error.message).toContain('2 calls of MCP client "a" (socket#a) are in flight on its shared instance, and nothing in the request says which one it belongs to');
		// Named by its transport, or alone in flight: the held call it came during gets it.
		await relay.request('fx', 'sampling/createMessage', {}, {signal, origin: {kind: 'call', caller: {client: a.record, requestId: 'held-1'}}});
		callers.end(second);
		await relay.request('fx', 'sampling/createMessage', {}, {signal});
		expect(asked).toEqual(['sampling/createMessage', 'sampling/createMessage']);
	});

	it('hands a request that names a task in its related-task _meta to the holder of that task, on that instance, whatever else is in flight', async () => {
		const registry = new ClientRegistry();
		const {host, callers} = shared();
		const relay = new SharedRelay(registry, host, silentLogger);
		const a = session(registry, 'a', ['elicitation']);
		const b = session(registry, 'b', ['elicitation']);
		const asked: string[] = [];
		const holder = (id: string, instance: string) => ({capabilities: {elicitation: {}}, who: 'the 2026-07-28 client "a"', roundId: undefined, task: {id, instance}, ask: async () => (asked.push(`${id}@${instance}`), {})});
		a.record.heldCalls.set('input-1', holder('task-a', 'fx'));
		b.record.heldCalls.set('input-2', holder('task-b', 'other'));
		// Calls of two clients in flight: without the task named, refused; with it, the task's holder gets it.
		callers.begin(a.record, 'input-1');
		callers.begin(b.record, 7);
		const naming = (taskId: string) => ({message: 'which?', requestedSchema: {type: 'object'}, _meta: {'io.modelcontextprotocol/related-task': {taskId}}});
		await relay.request('fx', 'elicitation/create', naming('task-a'), {signal});
		expect(asked).toEqual(['task-a@fx']);
		// Another instance's task, or an id no holder has: not a holder's; placed (here: refused) as any request.
		await refusal(relay.request('fx', 'elicitation/create', naming('task-b'), {signal}));
		await refusal(relay.request('fx', 'elicitation/create', naming('task-x'), {signal}));
		expect(asked).toEqual(['task-a@fx']);
		expect([...a.asked, ...b.asked]).toEqual([]);
	});

	it('hands a request that names a 2025 task of a client\'s to that client, never to the one whose call is in flight', async () => {
		const registry = new ClientRegistry();
		const {host, callers, tasks} = shared();
		const relay = new SharedRelay(registry, host, silentLogger);
		const a = session(registry, 'a', ['elicitation']);
		const b = session(registry, 'b', ['elicitation']);
		tasks.set('task-a', a.record);
		const naming = (taskId: string) => ({message: 'which?', requestedSchema: {type: 'object'}, _meta: {'io.modelcontextprotocol/related-task': {taskId}}});
		// Only b has a call in flight: a request about a's task is still a's, sent on its own (no call of a's to tie it to).
		const bobs = callers.begin(b.record, 7);
		await expect(relay.request('fx', 'elicitation/create', naming('task-a'), {signal})).resolves.toEqual({answeredBy: 'a'});
		expect(a.asked).toEqual([{method: 'elicitation/create', relatedRequestId: undefined}]);
		// Both in flight (a waits in tasks/result): a's, tied to a's call.
		callers.begin(a.record, 3);
		await expect(relay.request('fx', 'elicitation/create', naming('task-a'), {signal})).resolves.toEqual({answeredBy: 'a'});
		expect(a.asked[1]).toEqual({method: 'elicitation/create', relatedRequestId: 3});
		expect(b.asked).toEqual([]);
		// A task no session created here is placed as any request: with two clients in flight, refused.
		await refusal(relay.request('fx', 'elicitation/create', naming('task-x'), {signal}));
		callers.end(bobs);
		expect(b.asked).toEqual([]);
	});

	it('sends the upstream\'s polls of a task a client runs for it to that client, whatever else is in flight', async () => {
		const registry = new ClientRegistry();
		const {host, callers} = shared();
		const relay = new SharedRelay(registry, host, silentLogger);
		const a = session(registry, 'a', ['sampling', 'tasks']);
		const b = session(registry, 'b', ['sampling', 'tasks']);
		a.record.peer = {...a.record.peer!, request: async (method, _params, requestOptions) => (a.asked.push({method, relatedRequestId: requestOptions.relatedRequestId}), method === 'sampling/createMessage' ? {task: {taskId: 'client-task', status: 'working'}} : {status: 'working'})};
		const adas = callers.begin(a.record, 5);
		await relay.request('fx', 'sampling/createMessage', {messages: [], maxTokens: 1, task: {ttl: 1000}}, {signal});
		// Bob's call begins (and ada's ends): the polls of ada's task are still ada's.
		callers.begin(b.record, 9);
		await relay.request('fx', 'tasks/get', {taskId: 'client-task'}, {signal});
		callers.end(adas);
		await relay.request('fx', 'tasks/result', {taskId: 'client-task'}, {signal});
		expect(a.asked.map(ask => ask.method)).toEqual(['sampling/createMessage', 'tasks/get', 'tasks/result']);
		// tasks/list names no task: placed as any request (here bob alone is in flight).
		await relay.request('fx', 'tasks/list', {}, {signal});
		expect(b.asked.map(ask => ask.method)).toEqual(['tasks/list']);
	});

	it('refuses a request outside any call, even with a capable client connected', async () => {
		const registry = new ClientRegistry();
		const {host} = shared();
		const relay = new SharedRelay(registry, host, silentLogger);
		const a = session(registry, 'a', ['elicitation']);
		const error = await refusal(relay.request('fx', 'elicitation/create', {}, {signal}));
		expect(error.message).toContain('no client has a call to "fx" in flight, so no client caused it');
		expect(a.asked).toEqual([]);
	});

	it('follows the transport where it ties the request to a call, and refuses one from the upstream\'s own stream', async () => {
		const registry = new ClientRegistry();
		const {host, callers} = shared();
		const relay = new SharedRelay(registry, host, silentLogger);
		const a = session(registry, 'a', ['sampling']);
		const b = session(registry, 'b', ['sampling']);
		callers.begin(a.record, 1);
		callers.begin(b.record, 2);
		await expect(relay.request('fx', 'sampling/createMessage', {}, {signal, origin: {kind: 'call', caller: {client: b.record, requestId: 2}}})).resolves.toEqual({answeredBy: 'b'});
		expect(a.asked).toEqual([]);
		const error = await refusal(relay.request('fx', 'sampling/createMessage', {}, {signal, origin: {kind: 'outside'}}));
		expect(error.message).toContain('outside any call');
	});

	it('does not ask the caller for what it did not declare, and never asks another client instead', async () => {
		const registry = new ClientRegistry();
		const {host, callers} = shared();
		const relay = new SharedRelay(registry, host, silentLogger);
		const a = session(registry, 'a', ['sampling']);
		const b = session(registry, 'b', ['sampling', 'elicitation']);
		callers.begin(a.record, 5);
		const error = await refusal(relay.request('fx', 'elicitation/create', {}, {signal}));
		expect(error.message).toContain('MCP client "a" (socket#a), whose call it belongs to, did not declare the "elicitation" capability');
		expect(b.asked).toEqual([]);
	});

	it('never answers roots/list on an instance every client shares', async () => {
		const registry = new ClientRegistry();
		const {host, callers} = shared('shared');
		const relay = new SharedRelay(registry, host, silentLogger);
		const a = session(registry, 'a', ['roots']);
		callers.begin(a.record, 5);
		const error = await refusal(relay.request('fx', 'roots/list', {}, {signal}));
		expect(error.message).toContain('one client\'s roots would scope it for all of them');
		expect(a.asked).toEqual([]);
		expect(relay.capabilities).toEqual({sampling: {tools: {}}, elicitation: {form: {}, url: {}}, tasks: tasksRelayed});
	});

	it('with "auto", learns from the first client-scoped request and answers it when its caller is known', async () => {
		const registry = new ClientRegistry();
		const {host, callers, learned} = shared('auto');
		const relay = new SharedRelay(registry, host, silentLogger);
		expect(relay.capabilities).toEqual({sampling: {tools: {}}, elicitation: {form: {}, url: {}}, roots: {listChanged: true}, tasks: tasksRelayed});
		const a = session(registry, 'a', ['roots']);
		const inFlight = callers.begin(a.record, 9);
		await expect(relay.request('fx', 'roots/list', {}, {signal})).resolves.toEqual({answeredBy: 'a'});
		expect(learned).toEqual(['roots/list']);
		callers.end(inFlight);
		const error = await refusal(relay.request('fx', 'roots/list', {}, {signal}));
		expect(error.message).toContain('Each client session gets its own instance of "fx"');
	});

	it('with "auto", a request it cannot place teaches the verdict and tells the upstream to retry', async () => {
		const registry = new ClientRegistry();
		const {host, learned} = shared('auto');
		const relay = new SharedRelay(registry, host, silentLogger);
		const error = await refusal(relay.request('fx', 'sampling/createMessage', {}, {signal}));
		expect(learned).toEqual(['sampling/createMessage']);
		expect(error.message).toContain('"fx" runs one instance per client session from now on ("instances": "auto" learned it from this request); retry the call that caused it');
	});

	it('logs an untied message to the only session, when its level admits it, naming the upstream as logger', () => {
		const registry = new ClientRegistry();
		const relay = new SharedRelay(registry, shared().host, silentLogger);
		const only = session(registry, 'only', []);
		only.record.setLogLevel('info');
		relay.log('fx', {level: 'info', logger: 'db', data: 'connected'});
		relay.log('fx', {level: 'debug', data: 'below its level'});
		relay.log('fx', {level: 'critical', data: 'on fire'});
		relay.log('fx', {level: 'chatty', data: 'not a level'});
		expect(only.logs).toEqual([
			{level: 'info', logger: 'fx/db', data: 'connected'},
			{level: 'critical', logger: 'fx', data: 'on fire'},
		]);
		// A session that never set a level gets nothing, even as the only one.
		only.record.remove();
		const silent = session(registry, 'silent', []);
		relay.log('fx', {level: 'critical', data: 'on fire'});
		expect(silent.logs).toEqual([]);
	});

	it('logs an untied message to the session whose calls are the only ones in flight, and to no one when nothing tells whose it is', () => {
		const registry = new ClientRegistry();
		const {host, callers} = shared();
		const relay = new SharedRelay(registry, host, silentLogger);
		const a = session(registry, 'a', []);
		const b = session(registry, 'b', []);
		a.record.setLogLevel('debug');
		b.record.setLogLevel('debug');
		// Two sessions, no call in flight: it could be about either one's last call, so neither gets it.
		relay.log('fx', {level: 'info', data: 'idle'});
		const call = callers.begin(a.record, 1);
		relay.log('fx', {level: 'info', data: 'during a\'s call'});
		const other = callers.begin(b.record, 2);
		relay.log('fx', {level: 'info', data: 'during both'});
		callers.end(call);
		relay.log('fx', {level: 'info', data: 'during b\'s call'});
		callers.end(other);
		expect(a.logs.map(log => log.data)).toEqual(['during a\'s call']);
		expect(b.logs.map(log => log.data)).toEqual(['during b\'s call']);
	});

	it('places an untied message by every request in flight: a call cancelled that may still run, or a request of hangar\'s own, keeps it from the only busy or the only session', () => {
		const registry = new ClientRegistry();
		let now = 1000;
		const callers = new CallersInFlight(() => now);
		const host: SharedHost = {setting: 'shared', callers, runsPerClient: () => false, clientScoped: () => {}, taskOwner: () => undefined};
		const relay = new SharedRelay(registry, host, silentLogger);
		const a = session(registry, 'a', []);
		const b = session(registry, 'b', []);
		a.record.setLogLevel('debug');
		b.record.setLogLevel('debug');
		const own = callers.begin(a.record, 1);
		const cancelled = callers.begin(b.record, 2);
		// b cancelled its call with 5 s of its deadline left: the upstream may still be running it.
		callers.cancelled(cancelled, 5000);
		relay.log('fx', {level: 'info', data: 'maybe about b\'s cancelled call'});
		now += 5000;
		relay.log('fx', {level: 'info', data: 'a\'s, b\'s deadline passed'});
		const answered = callers.begin(b.record, 3);
		callers.cancelled(answered, 60_000);
		callers.end(answered); // The upstream answered it anyway (or the connection closed): it runs no more.
		relay.log('fx', {level: 'info', data: 'a\'s, b\'s answered'});
		// Hangar's own request (an unsubscribe for a session that left), counted here or by the link.
		callers.beginOwn();
		relay.log('fx', {level: 'info', data: 'maybe about hangar\'s own request'});
		callers.endOwn();
		relay.log('fx', {level: 'info', data: 'maybe about the link\'s ping'}, undefined, 1);
		callers.end(own);
		registry.remove(b.record);
		// a is the only session now and nothing runs, but b's request was the last to run here: it may be about b.
		relay.log('fx', {level: 'info', data: 'maybe about b\'s last request'});
		callers.end(callers.begin(a.record, 4));
		relay.log('fx', {level: 'info', data: 'a alone'});
		callers.beginOwn();
		relay.log('fx', {level: 'info', data: 'maybe about b\'s unsubscribe on leaving'});
		callers.endOwn();
		expect(a.logs.map(log => log.data)).toEqual(['a\'s, b\'s deadline passed', 'a\'s, b\'s answered', 'a alone']);
		expect(b.logs).toEqual([]);
	});

	it('keeps an untied message from the only session after a call of hangar\'s own: while it may still run (cancelled, timed out), and as the last request to run', () => {
		const registry = new ClientRegistry();
		let now = 0;
		const callers = new CallersInFlight(() => now);
		const host: SharedHost = {setting: 'shared', callers, runsPerClient: () => false, clientScoped: () => {}, taskOwner: () => undefined};
		const relay = new SharedRelay(registry, host, silentLogger);
		const c = session(registry, 'c', []);
		c.record.setLogLevel('debug');
		callers.end(callers.begin(c.record, 1));
		relay.log('fx', {level: 'info', data: 'c alone'});
		// A one-shot `mcp-hangar call` on the same instance, answered: what comes next may be about its arguments.
		callers.beginOwn();
		callers.endOwn();
		relay.log('fx', {level: 'info', data: 'maybe about the own call'});
		// Then c's call, during which an own call timed out: it may run on for that long.
		const call = callers.begin(c.record, 2);
		callers.beginOwn();
		callers.endOwn(60_000);
		relay.log('fx', {level: 'info', data: 'maybe the timed-out own call\'s'});
		now += 60_000;
		relay.log('fx', {level: 'info', data: 'c\'s'});
		callers.end(call);
		expect(c.logs.map(log => log.data)).toEqual(['c alone', 'c\'s']);
	});

	it('refuses a request while another client\'s cancelled call may still run, and keeps counting cancelled calls past its limit by their deadline', async () => {
		const registry = new ClientRegistry();
		let now = 0;
		const callers = new CallersInFlight(() => now);
		const host: SharedHost = {setting: 'shared', callers, runsPerClient: () => false, clientScoped: () => {}, taskOwner: () => undefined};
		const relay = new SharedRelay(registry, host, silentLogger);
		const a = session(registry, 'a', ['sampling']);
		const b = session(registry, 'b', ['sampling']);
		callers.begin(a.record, 1);
		for (let id = 0; id <= cancelledLimit; id++) callers.cancelled(callers.begin(b.record, `b${id}`), 1000 + id);
		const error = await refusal(relay.request('fx', 'sampling/createMessage', {}, {signal}));
		expect(error.message).toContain('hangar cannot tell which client it belongs to: a call MCP client "b" (socket#b) cancelled may still be running on it');
		// The oldest was dropped to stay within the limit, but its deadline still counts; the last ends at 1000 + limit.
		now = 1000 + cancelledLimit - 1;
		await refusal(relay.request('fx', 'sampling/createMessage', {}, {signal}));
		now = 1000 + cancelledLimit;
		await expect(relay.request('fx', 'sampling/createMessage', {}, {signal, hangarRequests: 1})).rejects.toThrow(/a request hangar sent it on its own, not for a client, is in flight/);
		await expect(relay.request('fx', 'sampling/createMessage', {}, {signal})).resolves.toEqual({answeredBy: 'a'});
		expect(b.asked).toEqual([]);
	});

	it('logs a message its transport tied to a call to that call\'s client only, tied to the call, at its level', () => {
		const registry = new ClientRegistry();
		const relay = new SharedRelay(registry, shared().host, silentLogger);
		const caller = session(registry, 'caller', []);
		const bystander = session(registry, 'bystander', []);
		caller.record.setLogLevel('info');
		bystander.record.setLogLevel('debug');
		relay.log('fx', {level: 'info', data: 'for the caller'}, {client: caller.record, requestId: 7});
		relay.log('fx', {level: 'debug', data: 'below its level'}, {client: caller.record, requestId: 7});
		expect(caller.logs).toEqual([{level: 'info', logger: 'fx', data: 'for the caller'}]);
		expect(caller.logCalls).toEqual([7]);
		expect(bystander.logs).toEqual([]);
	});

	it('asks for the most verbose level any session wants, and tells when that changes', () => {
		const registry = new ClientRegistry();
		const relay = new SharedRelay(registry, shared().host, silentLogger);
		const seen: Array<LoggingLevel | undefined> = [];
		const unsubscribe = relay.onLogLevel(level => seen.push(level));
		const a = session(registry, 'a', []);
		const b = session(registry, 'b', []);
		expect(relay.logLevel).toBeUndefined();
		a.record.setLogLevel('warning');
		b.record.setLogLevel('info');
		a.record.setLogLevel('error');
		expect(relay.logLevel).toBe('info');
		b.record.remove();
		expect(relay.logLevel).toBe('error');
		a.record.remove();
		expect(relay.logLevel).toBeUndefined();
		expect(seen).toEqual(['warning', 'info', 'error', undefined]);
		unsubscribe();
		session(registry, 'c', []).record.setLogLevel('debug');
		expect(seen).toHaveLength(4);
	});
});

describe('SessionRelay: a per-client instance and its one client', () => {
	it('is told exactly what its client declared, tasks included', () => {
		const registry = new ClientRegistry();
		const a = session(registry, 'a', ['sampling', 'elicitation']);
		const declared = {sampling: {tools: {}}, elicitation: {form: {}, url: {}}, experimental: {x: {}}, tasks: {requests: {}}};
		a.record.declare(['sampling', 'elicitation'], declared);
		expect(new SessionRelay(registry, a.record, 'fx#1', silentLogger).capabilities).toEqual(declared);
		expect(sessionCapabilities({})).toEqual({});
	});

	it('puts a question into the held call it came during; with several of its client\'s calls in flight and none named, refuses', async () => {
		const registry = new ClientRegistry();
		const a = session(registry, 'a', ['sampling'], {sampling: {}});
		const relay = new SessionRelay(registry, a.record, 'fx#1', silentLogger);
		const asked: string[] = [];
		for (const id of ['held-1', 'held-2']) a.record.heldCalls.set(id, {capabilities: {sampling: {}}, who: 'the client', roundId: id, ask: async () => (asked.push(id), {})});
		a.record.callBegan('fx', 'held-1');
		const second = a.record.callBegan('fx', 'held-2');
		const error = await refusal(relay.request('fx', 'sampling/createMessage', {}, {signal}));
		expect(error.message).toContain('has 2 calls to it in flight, and nothing in the request says which one it belongs to');
		await relay.request('fx', 'sampling/createMessage', {}, {signal, origin: {kind: 'call', caller: {client: a.record, requestId: 'held-1'}}});
		second();
		await relay.request('fx', 'sampling/createMessage', {}, {signal});
		expect(asked).toEqual(['held-1', 'held-1']);
		expect(a.asked).toEqual([]);
	});

	it('tells its instance when its own client\'s roots changed, and not another\'s', () => {
		const registry = new ClientRegistry();
		const a = session(registry, 'a', ['roots']);
		const b = session(registry, 'b', ['roots']);
		const relay = new SessionRelay(registry, a.record, 'fx#1', silentLogger);
		let told = 0;
		const stop = relay.onRootsChanged(() => told++);
		registry.rootsChanged(b.record);
		registry.rootsChanged(a.record);
		stop();
		registry.rootsChanged(a.record);
		expect(told).toBe(1);
	});
});

describe('sampling with tools and URL elicitation: asked only of a client that declared them', () => {
	const urlElicitation = (elicitationId: string) => ({mode: 'url', elicitationId, url: 'https://example.com/consent', message: 'Open it.'});

	it('relays sampling with tools only to a caller that declared sampling.tools, and plain sampling to one that declared sampling', async () => {
		const registry = new ClientRegistry();
		const {host, callers} = shared();
		const relay = new SharedRelay(registry, host, silentLogger);
		const plain = session(registry, 'plain', ['sampling'], {sampling: {}});
		const inFlight = callers.begin(plain.record, 1);
		const error = await refusal(relay.request('fx', 'sampling/createMessage', {messages: [], maxTokens: 1, tools: [], toolChoice: {mode: 'auto'}}, {signal}));
		expect(error.message).toContain('did not declare "sampling.tools"');
		await expect(relay.request('fx', 'sampling/createMessage', {messages: [], maxTokens: 1}, {signal})).resolves.toEqual({answeredBy: 'plain'});
		callers.end(inFlight);
		const tools = session(registry, 'tools', ['sampling'], {sampling: {tools: {}}});
		callers.begin(tools.record, 2);
		await expect(relay.request('fx', 'sampling/createMessage', {messages: [], maxTokens: 1, tools: []}, {signal})).resolves.toEqual({answeredBy: 'tools'});
	});

	it('relays URL elicitation only to a client that declared elicitation.url; `elicitation: {}` is form only', async () => {
		const registry = new ClientRegistry();
		const formOnly = session(registry, 'form', ['elicitation'], {elicitation: {}});
		const relay = new SessionRelay(registry, formOnly.record, 'fx#1', silentLogger);
		const error = await refusal(relay.request('fx', 'elicitation/create', urlElicitation('e1'), {signal}));
		expect(error.message).toContain('did not declare "elicitation.url"');
		await expect(relay.request('fx', 'elicitation/create', {message: 'name?', requestedSchema: {type: 'object'}}, {signal})).resolves.toEqual({answeredBy: 'form'});
		const urlOnly = session(registry, 'url', ['elicitation'], {elicitation: {url: {}}});
		const urlRelay = new SessionRelay(registry, urlOnly.record, 'fx#2', silentLogger);
		await expect(urlRelay.request('fx', 'elicitation/create', urlElicitation('e2'), {signal})).resolves.toEqual({answeredBy: 'url'});
		expect((await refusal(urlRelay.request('fx', 'elicitation/create', {mode: 'form', message: 'x', requestedSchema: {type: 'object'}}, {signal}))).message).toContain('did not declare "elicitation.form"');
	});

	it('sends notifications/elicitation/complete to the client that got the elicitation, only that one, once', async () => {
		const registry = new ClientRegistry();
		const {host, callers} = shared();
		const relay = new SharedRelay(registry, host, silentLogger);
		const a = session(registry, 'a', ['elicitation'], {elicitation: {url: {}}});
		const b = session(registry, 'b', ['elicitation'], {elicitation: {url: {}}});
		const inFlightA = callers.begin(a.record, 1);
		await relay.request('fx', 'elicitation/create', urlElicitation('for-a'), {signal});
		callers.end(inFlightA);
		callers.begin(b.record, 2);
		await relay.request('fx', 'elicitation/create', urlElicitation('for-b'), {signal});
		relay.notify('notifications/elicitation/complete', {elicitationId: 'for-a'});
		relay.notify('notifications/elicitation/complete', {elicitationId: 'for-a'});
		relay.notify('notifications/elicitation/complete', {elicitationId: 'unknown'});
		expect(a.notified).toEqual([{method: 'notifications/elicitation/complete', params: {elicitationId: 'for-a'}}]);
		expect(b.notified).toEqual([]);
		relay.notify('notifications/elicitation/complete', {elicitationId: 'for-b'});
		expect(b.notified).toEqual([{method: 'notifications/elicitation/complete', params: {elicitationId: 'for-b'}}]);
	});

	it('remembers at most pendingElicitationLimit elicitations awaiting completion, forgetting the oldest', () => {
		const registry = new ClientRegistry();
		const a = session(registry, 'a', ['elicitation'], {elicitation: {url: {}}});
		const book = new ElicitationBook();
		for (let index = 0; index <= pendingElicitationLimit; index++) book.sent('elicitation/create', urlElicitation(`e${index}`), a.record);
		expect(book.size).toBe(pendingElicitationLimit);
		expect(book.complete({elicitationId: 'e0'})).toBeUndefined();
		expect(book.complete({elicitationId: `e${pendingElicitationLimit}`})).toBe(a.record);
	});
});
