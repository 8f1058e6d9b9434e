/**
 * The gateway's request pipeline without a process: a transport in memory,
 * the method table, the connection state gate in front of it, and the one
 * request context each request gets (its signal, deadline, client and
 * record). The session tests use a real supervisor whose upstreams stay
 * cold: nothing is spawned.
 */
import path from 'node:path';
import type {JSONRPCMessage} from '@modelcontextprotocol/sdk/types.js';
import {afterEach, describe, expect, it, vi} from 'vitest';
import {JsonRpcCode, JsonRpcError} from '../../../../source/core/base/errors.js';
import {silentLogger} from '../../../../source/core/base/logger.js';
import {parseConfig} from '../../../../source/core/config/read-config.js';
import {CallLog} from '../../../../source/core/engine/call-log.js';
import {ClientRegistry} from '../../../../source/core/engine/clients/clients.js';
import {LiveRequest, RequestAbort, type RequestContext} from '../../../../source/core/engine/request-context.js';
import {StateStore} from '../../../../source/core/engine/state-store.js';
import {Supervisor} from '../../../../source/core/engine/supervisor.js';
import {installAdminMethods} from '../../../../source/core/gateway/admin-methods.js';
import {Pipeline, Serialized, type SessionTransport} from '../../../../source/core/gateway/pipeline.js';
import {GatewaySession} from '../../../../source/core/gateway/session.js';
import {fixture, tempDir} from '../../../support/hangar.js';

type Answer = {id?: unknown; result?: Record<string, unknown>; error?: {code: number; message: string; data?: Record<string, unknown>}};

/** A transport in memory: what the client sends is delivered at once, what hangar sends is kept in order. */
class MemoryTransport implements SessionTransport {
	onmessage?: (message: JSONRPCMessage) => void;
	onclose?: () => void;
	onerror?: (error: Error) => void;
	readonly sent: Answer[] = [];
	private readonly waiters: Array<() => void> = [];

	async start(): Promise<void> {}

	async send(message: JSONRPCMessage): Promise<void> {
		this.sent.push(message as Answer);
		for (const wake of this.waiters.splice(0)) wake();
	}

	async sendSerialized(line: string): Promise<void> {
		await this.send(JSON.parse(line) as JSONRPCMessage);
	}

	async close(): Promise<void> {
		this.onclose?.();
	}

	request(id: string | number, method: string, params?: Record<string, unknown>): void {
		this.onmessage?.({jsonrpc: '2.0', id, method, ...(params === undefined ? {} : {params})} as JSONRPCMessage);
	}

	notification(method: string, params?: Record<string, unknown>): void {
		this.onmessage?.({jsonrpc: '2.0', method, ...(params === undefined ? {} : {params})} as JSONRPCMessage);
	}

	/** Resolves with the first answer to `id`, when it is sent. */
	async answerTo(id: string | number): Promise<Answer> {
		for (;;) {
			const found = this.sent.find(message => message.id === id && (message.result !== undefined || message.error !== undefined));
			if (found !== undefined) return found;
			await new Promise<void>(resolve => {
				this.waiters.push(resolve);
			});
		}
	}

	answersTo(id: string | number): Answer[] {
		return this.sent.filter(message => message.id === id && (message.result !== undefined || message.error !== undefined));
	}
}

const initialize = {protocolVersion: '2025-06-18', capabilities: {}, clientInfo: {name: 'unit', version: '1'}};

async function pipeline(options: {deadlineMs?: number} = {}) {
	const transport = new MemoryTransport();
	const clients = new ClientRegistry();
	const client = clients.add('stdio', 'unit');
	const deadline = options.deadlineMs === undefined ? undefined : {ms: options.deadlineMs, setting: 'httpCallTimeoutSeconds'};
	const served = new Pipeline({transport, subject: 'unit', logger: silentLogger, client, deadline});
	served.handle('initialize', () => ({protocolVersion: initialize.protocolVersion}));
	served.handle('ping', () => ({}));
	await served.start();
	return {transport, pipeline: served, client};
}

async function ready(transport: MemoryTransport): Promise<void> {
	transport.request('init', 'initialize', initialize);
	await transport.answerTo('init');
	transport.notification('notifications/initialized');
}

/** A handler that hands out each context it gets and answers when `release` is called. */
function held() {
	const contexts: RequestContext[] = [];
	let release: (value: unknown) => void = () => {};
	const answer = new Promise(resolve => {
		release = resolve;
	});
	const arrived: Array<() => void> = [];
	return {
		contexts,
		release: (value: unknown) => release(value),
		handler: async (context: RequestContext) => {
			contexts.push(context);
			for (const wake of arrived.splice(0)) wake();
			return answer;
		},
		async next(): Promise<RequestContext> {
			if (contexts.length === 0) await new Promise<void>(resolve => arrived.push(resolve));
			return contexts.at(-1)!;
		},
	};
}

describe('the method table', () => {
	it('answers a method no handler serves with -32601, naming it', async () => {
		const {transport} = await pipeline();
		await ready(transport);
		transport.request(1, 'tools/frobnicate');
		const answer = await transport.answerTo(1);
		expect(answer.error?.code).toBe(-32_601);
		expect(answer.error?.message).toContain('"tools/frobnicate"');
	});

	it('puts the connection state in front of it: before initialize only initialize and ping reach a handler', async () => {
		const {transport, pipeline: served} = await pipeline();
		const listed = vi.fn(() => ({tools: []}));
		served.handle('tools/list', listed);
		transport.request(1, 'tools/list');
		expect((await transport.answerTo(1)).error).toMatchObject({code: -32_003, data: {state: 'awaiting_initialize', method: 'tools/list'}});
		transport.request(2, 'ping');
		expect((await transport.answerTo(2)).result).toEqual({});
		expect(listed).not.toHaveBeenCalled();
		await ready(transport);
		transport.request(3, 'tools/list');
		expect((await transport.answerTo(3)).result).toEqual({tools: []});
		transport.request(4, 'initialize', initialize);
		expect((await transport.answerTo(4)).error?.code).toBe(-32_003);
	});

	it('lets a refused initialize be sent again', async () => {
		const {transport, pipeline: served} = await pipeline();
		served.handle('initialize', (_context, params) => {
			if (params?.['protocolVersion'] === undefined) throw new JsonRpcError(JsonRpcCode.InvalidParams, 'no protocolVersion');
			return {};
		});
		transport.request(1, 'initialize', {});
		expect((await transport.answerTo(1)).error).toMatchObject({code: -32_602, message: 'no protocolVersion'});
		expect(served.machine.state).toBe('awaiting_initialize');
		transport.request(2, 'initialize', initialize);
		expect((await transport.answerTo(2)).result).toEqual({});
		expect(served.machine.state).toBe('initializing');
	});

	it('writes a serialized result as it is', async () => {
		const {transport, pipeline: served} = await pipeline();
		await ready(transport);
		served.handle('tools/list', () => new Serialized('{"tools":[{"name":"a","inputSchema":{"type":"object"}}]}'));
		transport.request('l', 'tools/list');
		expect((await transport.answerTo('l')).result).toEqual({tools: [{name: 'a', inputSchema: {type: 'object'}}]});
	});

	it('refuses a request whose id is in flight, and answers the first one once', async () => {
		const {transport, pipeline: served} = await pipeline();
		await ready(transport);
		const slow = held();
		served.handle('tools/call', slow.handler);
		transport.request('busy', 'tools/call', {name: 'x'});
		await slow.next();
		transport.request('busy', 'ping');
		expect((await transport.answerTo('busy')).error?.code).toBe(-32_600);
		slow.release({content: []});
		await served.drain(1000);
		expect(transport.answersTo('busy')).toHaveLength(2);
		expect(transport.answersTo('busy')[1]).toMatchObject({result: {content: []}});
	});
});

describe('a request\'s context', () => {
	it('carries the id as written, the method, the client and its progress', async () => {
		const {transport, pipeline: served, client} = await pipeline();
		await ready(transport);
		const call = held();
		served.handle('tools/call', call.handler);
		transport.request('c-1', 'tools/call', {name: 'x', _meta: {progressToken: 7, trace: 'kept'}});
		const context = await call.next();
		expect(context).toMatchObject({id: 'c-1', method: 'tools/call', meta: {trace: 'kept'}, deadline: undefined, audience: 'mcp'});
		expect(context.client).toBe(client);
		expect(context.record).toMatchObject({caller: 'unit', upstream: undefined, written: false});
		context.onProgress?.({progress: 1, message: 'starting'});
		expect(transport.sent.at(-1)).toEqual({jsonrpc: '2.0', method: 'notifications/progress', params: {progressToken: 7, progress: 1, message: 'starting'}});
		call.release({content: []});
		await transport.answerTo('c-1');
	});

	it('is aborted by the client\'s notifications/cancelled, and the cancelled request gets no answer', async () => {
		const {transport, pipeline: served} = await pipeline();
		await ready(transport);
		const call = held();
		served.handle('tools/call', call.handler);
		transport.request(5, 'tools/call', {name: 'x'});
		const context = await call.next();
		transport.notification('notifications/cancelled', {requestId: 5, reason: 'test'});
		expect(context.signal.aborted).toBe(true);
		expect(context.abortedBy).toBe('cancelled');
		expect(context.signal.reason).toBeInstanceOf(RequestAbort);
		call.release({content: []});
		await served.drain(1000);
		expect(transport.answersTo(5)).toEqual([]);
	});

	it('frees a cancelled request\'s id at once: a new request with it is served (its progress only its own), and the drain waits for both', async () => {
		const {transport, pipeline: served} = await pipeline();
		await ready(transport);
		const call = held();
		served.handle('tools/call', call.handler);
		transport.request(77, 'tools/call', {name: 'x', _meta: {progressToken: 'old'}});
		const cancelled = await call.next();
		transport.notification('notifications/cancelled', {requestId: 77, reason: 'user gave up'});
		expect((cancelled.signal.reason as RequestAbort).notice).toEqual({requestId: 77, reason: 'user gave up'});
		transport.request(77, 'tools/call', {name: 'x', _meta: {progressToken: 'new'}});
		const reused = await call.next();
		expect(reused).not.toBe(cancelled);
		expect(served.inFlight).toBe(2);
		cancelled.onProgress?.({progress: 1});
		reused.onProgress?.({progress: 2});
		expect(transport.sent.filter(message => (message as {method?: string}).method === 'notifications/progress')).toEqual([{jsonrpc: '2.0', method: 'notifications/progress', params: {progressToken: 'new', progress: 2}}]);
		call.release({content: []});
		await served.drain(1000);
		expect(served.inFlight).toBe(0);
		expect(transport.answersTo(77)).toEqual([{jsonrpc: '2.0', id: 77, result: {content: []}}]);
	});

	it('refuses a request whose id is in flight with -32600 and the hint to give each its own id', async () => {
		const {transport, pipeline: served} = await pipeline();
		await ready(transport);
		const call = held();
		served.handle('tools/call', call.handler);
		transport.request(8, 'tools/call', {name: 'x'});
		await call.next();
		transport.request(8, 'tools/call', {name: 'x'});
		expect((await transport.answerTo(8)).error).toEqual({code: -32_600, message: 'Invalid Request: request id 8 is already in use by a request in flight; give each request its own id'});
		call.release({content: []});
		await served.drain(1000);
	});

	it('is aborted when the session closes', async () => {
		const {transport, pipeline: served} = await pipeline();
		await ready(transport);
		const call = held();
		served.handle('tools/call', call.handler);
		transport.request(6, 'tools/call', {name: 'x'});
		const context = await call.next();
		await served.close();
		expect(context.abortedBy).toBe('closed');
		expect(served.machine.state).toBe('closed');
	});

	it('carries the session\'s deadline from its arrival, with the setting it came from, and keeps its signal for cancels', async () => {
		const {transport, pipeline: served} = await pipeline({deadlineMs: 30_000});
		await ready(transport);
		const call = held();
		served.handle('tools/call', call.handler);
		transport.request(7, 'tools/call', {name: 'x'});
		const context = await call.next();
		expect(context.deadline?.deadline).toEqual({ms: 30_000, setting: 'httpCallTimeoutSeconds'});
		expect(context.deadline!.remainingMs).toBeLessThanOrEqual(30_000);
		expect(context.signal.aborted).toBe(false);
		call.release({content: [{type: 'text', text: 'done'}]});
		expect((await transport.answerTo(7)).result).toEqual({content: [{type: 'text', text: 'done'}]});
	});

	it('follows an in-process caller\'s signal, and names the caller', () => {
		const outer = new AbortController();
		const context = new LiveRequest({id: 'in-process-1', method: 'tools/call', caller: 'demo traffic', signal: outer.signal});
		expect(context.record.caller).toBe('demo traffic');
		outer.abort();
		expect(context.abortedBy).toBe('cancelled');
		context.end();
	});
});

describe('a request\'s record', () => {
	it('is written to the calls log once, however often it is written', () => {
		const log = new CallLog();
		const context = new LiveRequest({id: 1, method: 'tools/call', caller: 'unit'});
		context.record.upstream = 'fx';
		context.record.target = 'echo';
		log.write(context, {message: 'hi'}, {result: {content: []}});
		log.write(context, {message: 'hi'}, {error: new Error('again')});
		expect(log.size).toBe(1);
		expect(log.after(0)[0]).toMatchObject({client: 'unit', upstream: 'fx', tool: 'echo', outcome: 'ok'});
	});
});

const supervisors: Supervisor[] = [];
afterEach(async () => {
	await Promise.all(supervisors.splice(0).map(async supervisor => supervisor.shutdown('test finished')));
});

async function coldSupervisor(): Promise<Supervisor> {
	const dir = tempDir();
	// Never started: nothing to discover, so initialize need not wait the usual 2 s for discovery.
	const config = parseConfig({hangar: {stateDir: path.join(dir, 'state'), firstListWaitSeconds: 0}, mcpServers: {fx: fixture('normal')}}, path.join(dir, 'mcp-hangar.json'));
	const supervisor = new Supervisor(config, await StateStore.open(config.hangar.stateDir, silentLogger, 10), silentLogger);
	supervisors.push(supervisor);
	return supervisor;
}

describe('a gateway session', () => {
	it('answers initialize with the version the client asked for when hangar supports it, else the latest, and its capabilities', async () => {
		const supervisor = await coldSupervisor();
		const transport = new MemoryTransport();
		const session = new GatewaySession({supervisor, transport, logger: silentLogger, label: 'unit', kind: 'stdio'});
		await session.start();
		transport.request(1, 'initialize', initialize);
		const answer = (await transport.answerTo(1)).result!;
		expect(answer).toMatchObject({protocolVersion: '2025-06-18', serverInfo: {name: 'mcp-hangar'}, capabilities: {tools: {listChanged: true}, logging: {}}});
		expect(typeof answer['instructions']).toBe('string');
		expect(session.client.name).toBe('unit');
		const again = new MemoryTransport();
		const other = new GatewaySession({supervisor, transport: again, logger: silentLogger, label: 'unit-2', kind: 'stdio'});
		await other.start();
		again.request(1, 'initialize', {...initialize, protocolVersion: '1999-01-01'});
		expect((await again.answerTo(1)).result?.['protocolVersion']).not.toBe('1999-01-01');
		await Promise.all([session.close(), other.close()]);
	});

	it('answers a method of the other generation with -32601 saying what that generation uses instead', async () => {
		const supervisor = await coldSupervisor();
		const transport = new MemoryTransport();
		const session = new GatewaySession({supervisor, transport, logger: silentLogger, label: 'unit', kind: 'stdio'});
		await session.start();
		const envelope = {'io.modelcontextprotocol/protocolVersion': '2026-07-28', 'io.modelcontextprotocol/clientCapabilities': {}};
		const modern = async (id: number, method: string, params: Record<string, unknown> = {}) => {
			transport.request(id, method, {...params, _meta: envelope});
			return (await transport.answerTo(id)).error;
		};

		// 2025 methods a 2026-07-28 request cannot use, each with what replaces it.
		for (const [id, method, instead] of [
			[1, 'ping', 'server/discover'],
			[2, 'logging/setLevel', 'io.modelcontextprotocol/logLevel'],
			[3, 'resources/subscribe', 'subscriptions/listen'],
			[4, 'resources/unsubscribe', 'subscriptions/listen'],
			[5, 'initialize', 'server/discover'],
		] as const) {
			const error = await modern(id, method, {uri: 'demo://x', level: 'info'});
			expect(error?.code, method).toBe(-32_601);
			expect(error?.message, method).toContain(`"${method}"`);
			expect(error?.message, method).toContain('2026-07-28');
			expect(error?.message, method).toContain(instead);
		}

		// 2026-07-28 methods sent without the envelope: before initialize too, told of the envelope, not of initialize.
		for (const [id, method] of [
			[6, 'server/discover'],
			[7, 'subscriptions/listen'],
			[8, 'tasks/update'],
		] as const) {
			transport.request(id, method, {});
			const error = (await transport.answerTo(id)).error;
			expect(error?.code, method).toBe(-32_601);
			expect(error?.message, method).toContain('io.modelcontextprotocol/protocolVersion');
		}

		await session.close();
	});

	it('serves hangar\'s own methods only where the local socket endpoint installed them', async () => {
		const supervisor = await coldSupervisor();
		const transport = new MemoryTransport();
		const session = new GatewaySession({supervisor, transport, logger: silentLogger, label: 'unit', kind: 'stdio'});
		await session.start();
		expect(session.methods.filter(method => method.startsWith('hangar/'))).toEqual([]);
		await ready(transport);
		transport.request('c', 'hangar/calls', {});
		expect((await transport.answerTo('c')).error?.code).toBe(-32_601);

		const socket = new MemoryTransport();
		const admin = new GatewaySession({supervisor, transport: socket, logger: silentLogger, label: 'socket#1', kind: 'socket'});
		installAdminMethods(admin);
		await admin.start();
		await ready(socket);
		socket.request('c', 'hangar/calls', {});
		expect((await socket.answerTo('c')).result).toMatchObject({calls: [], next: 0});
		await Promise.all([session.close(), admin.close()]);
	});

	it('records one call-log entry for a tools/call an upstream refused, with the client that called', async () => {
		const supervisor = await coldSupervisor();
		await supervisor.act('fx', 'stop', 'a unit test');
		const transport = new MemoryTransport();
		const session = new GatewaySession({supervisor, transport, logger: silentLogger, label: 'unit', kind: 'stdio'});
		await session.start();
		await ready(transport);
		transport.request('call', 'tools/call', {name: 'hangar_call', arguments: {server: 'fx', tool: 'echo', arguments: {message: 'hi'}}});
		const answer = await transport.answerTo('call');
		expect(answer.error?.data).toMatchObject({error: 'UpstreamUnavailable'});
		expect(supervisor.calls.after(0)).toEqual([expect.objectContaining({client: 'unit', upstream: 'fx', tool: 'echo', outcome: 'error', code: 'UpstreamUnavailable'})]);
		await session.close();
	});
});
