import {describe, expect, it} from 'vitest';
import {ClientRegistry, type ClientRecord} from '../../../../source/core/engine/clients/clients.js';
import {LiveRequest, type RequestContext} from '../../../../source/core/engine/request-context.js';
import {HeldInputs, clientKeyOf} from '../../../../source/core/gateway/held-inputs.js';
import {ModernClients} from '../../../../source/core/gateway/modern-clients.js';
import type {RequestHandler} from '../../../../source/core/gateway/pipeline.js';

const envelope = (capabilities: Record<string, unknown>) => ({
	'io.modelcontextprotocol/protocolVersion': '2026-07-28',
	'io.modelcontextprotocol/clientCapabilities': capabilities,
});

/** An upstream call, as the relay sees it: asks its client through the held call its context names, then ends with what it got. */
function asking(ask: {method: 'elicitation/create' | 'roots/list'; params: Record<string, unknown>}, seen: unknown[] = []): RequestHandler {
	return async context => {
		const held = context.client!.heldCalls.get(context.id)!;
		try {
			const answer = await held.ask('every', ask.method, ask.params, context.signal);
			seen.push(answer);
			return {content: [{type: 'text', text: JSON.stringify(answer)}]};
		} catch (error) {
			seen.push((error as Error).message);
			throw error;
		}
	};
}

function requestOf(record: ClientRecord, id: number): RequestContext {
	return new LiveRequest({id, method: 'tools/call', client: record});
}

/** The session the held calls belong to. */
const scope = {};

type InputRequired = {resultType: string; inputRequests: Record<string, {method: string; params: unknown}>; requestState: string};

describe('HeldInputs', () => {
	it('answers a call whose upstream asks with input_required, and its retry with the upstream\'s result', async () => {
		const record = new ClientRegistry().add('stdio', 'stdio');
		const held = new HeldInputs({ttlMs: 60_000});
		const call = held.wrap(asking({method: 'elicitation/create', params: {message: 'Name?', requestedSchema: {type: 'object'}, _meta: {progressToken: 7}}}), scope);
		const first = (await call(requestOf(record, 1), {name: 'ask', _meta: envelope({elicitation: {}})})) as InputRequired;
		expect(first.resultType).toBe('input_required');
		const [key, request] = Object.entries(first.inputRequests)[0]!;
		// The upstream's progress token is its own: not part of what the client is asked.
		expect(request).toEqual({method: 'elicitation/create', params: {message: 'Name?', requestedSchema: {type: 'object'}}});
		expect(held.size).toBe(1);

		const done = await call(requestOf(record, 2), {name: 'ask', _meta: envelope({elicitation: {}}), requestState: first.requestState, inputResponses: {[key]: {action: 'accept', content: {name: 'Ada'}}}});
		expect(done).toEqual({content: [{type: 'text', text: '{"action":"accept","content":{"name":"Ada"}}'}]});
		expect(held.size).toBe(0);
		expect(record.heldCalls.size).toBe(0);
	});

	it('asks a modern upstream\'s input request under the upstream\'s own key, as the client would be asked directly', async () => {
		const record = new ClientRegistry().add('stdio', 'stdio');
		const held = new HeldInputs({ttlMs: 60_000});
		const call = held.wrap(async context => {
			const peer = context.client!.heldCalls.get(context.id)!;
			const answer = await peer.ask('every', 'elicitation/create', {message: 'Name?', requestedSchema: {type: 'object'}}, context.signal, 'user_name');
			return {content: [{type: 'text', text: JSON.stringify(answer)}]};
		}, scope);
		const first = (await call(requestOf(record, 1), {name: 'ask', _meta: envelope({elicitation: {}})})) as InputRequired;
		expect(Object.keys(first.inputRequests)).toEqual(['user_name']);
		const done = await call(requestOf(record, 2), {name: 'ask', _meta: envelope({elicitation: {}}), requestState: first.requestState, inputResponses: {user_name: {action: 'accept', content: {name: 'Ada'}}}});
		expect(done).toEqual({content: [{type: 'text', text: '{"action":"accept","content":{"name":"Ada"}}'}]});
	});

	it('answers with input_required again when the upstream asks a second time, and the last retry gets the result', async () => {
		const record = new ClientRegistry().add('http', 'http 2026-07-28 #1');
		const held = new HeldInputs({ttlMs: 60_000});
		const call = held.wrap(async context => {
			const peer = context.client!.heldCalls.get(context.id)!;
			const first = await peer.ask('every', 'roots/list', {}, context.signal);
			const second = await peer.ask('every', 'elicitation/create', {message: 'Sure?', requestedSchema: {type: 'object'}}, context.signal);
			return {content: [{type: 'text', text: JSON.stringify([first, second])}]};
		}, scope);
		const meta = {_meta: envelope({roots: {}, elicitation: {}})};
		const round1 = (await call(requestOf(record, 1), meta)) as InputRequired;
		const [rootsKey] = Object.keys(round1.inputRequests);
		// Over HTTP each request is its own session, served as its client's identity: the retry's record is the same one.
		const retry = record;
		const round2 = (await call(requestOf(retry, 2), {...meta, requestState: round1.requestState, inputResponses: {[rootsKey!]: {roots: []}}})) as InputRequired;
		const [confirmKey, confirm] = Object.entries(round2.inputRequests)[0]!;
		expect(confirm.method).toBe('elicitation/create');
		const done = await call(requestOf(retry, 3), {...meta, requestState: round2.requestState, inputResponses: {[confirmKey]: {action: 'decline'}}});
		expect(done).toEqual({content: [{type: 'text', text: '[{"roots":[]},{"action":"decline"}]'}]});
	});

	it('asks again what a retry left unanswered, under a new state', async () => {
		const record = new ClientRegistry().add('stdio', 'stdio');
		const held = new HeldInputs({ttlMs: 60_000});
		const call = held.wrap(asking({method: 'roots/list', params: {}}), scope);
		const first = (await call(requestOf(record, 1), {_meta: envelope({roots: {}})})) as InputRequired;
		const again = (await call(requestOf(record, 2), {_meta: envelope({roots: {}}), requestState: first.requestState, inputResponses: {}})) as InputRequired;
		expect(again.resultType).toBe('input_required');
		expect(again.requestState).not.toBe(first.requestState);
		expect(Object.values(again.inputRequests)).toEqual([{method: 'roots/list', params: {}}]);
	});

	it('frees an expired held request with an error to the upstream, and refuses its state as expired', async () => {
		let now = 1000;
		const record = new ClientRegistry().add('stdio', 'stdio');
		const held = new HeldInputs({ttlMs: 5000, now: () => now});
		const seen: unknown[] = [];
		const call = held.wrap(asking({method: 'roots/list', params: {}}, seen), scope);
		const first = (await call(requestOf(record, 1), {_meta: envelope({roots: {}})})) as InputRequired;
		now += 5000;
		held.sweep();
		// The upstream's side learns it on the next turn.
		await new Promise(resolve => setImmediate(resolve));
		expect(seen).toHaveLength(1);
		expect(String(seen[0])).toMatch(/hangar held it for a 2026-07-28 client.*did not answer in time \(it had 5 s, hangar\.inputRequiredSeconds\)/);
		expect(held.size).toBe(0);
		await expect(call(requestOf(record, 2), {_meta: envelope({roots: {}}), requestState: first.requestState, inputResponses: {}})).rejects.toThrow(/expired/);
	});

	it('binds a state to the modern client\'s identity: any of its requests opens it, another token or clientInfo cannot', async () => {
		const registry = new ClientRegistry();
		const identities = new ModernClients({clients: registry, kind: 'http'});
		const modern = (name: string) => ({revision: '2026-07-28', capabilities: {roots: {}}, clientInfo: {name, version: '1'}, logLevel: undefined});
		const mine = identities.begin('http from 127.0.0.1 token A', modern('app'), () => {}, 1);
		const otherName = identities.begin('http from 127.0.0.1 token A', modern('other-app'), () => {}, 1);
		const otherToken = identities.begin('http from 127.0.0.1 token B', modern('app'), () => {}, 1);
		expect(new Set([clientKeyOf(mine.client), clientKeyOf(otherName.client), clientKeyOf(otherToken.client)]).size).toBe(3);
		const held = new HeldInputs({ttlMs: 60_000});
		const call = held.wrap(asking({method: 'roots/list', params: {}}), scope);
		const first = (await call(requestOf(mine.client, 1), {_meta: envelope({roots: {}})})) as InputRequired;
		await expect(call(requestOf(otherName.client, 2), {_meta: envelope({roots: {}}), requestState: first.requestState, inputResponses: {}})).rejects.toThrow(/issued to another client/);
		await expect(call(requestOf(otherToken.client, 2), {_meta: envelope({roots: {}}), requestState: first.requestState, inputResponses: {}})).rejects.toThrow(/issued to another client/);
		// The same client, even once its identity was forgotten and made anew (another record), opens it.
		identities.close();
		const again = new ModernClients({clients: registry, kind: 'http'}).begin('http from 127.0.0.1 token A', modern('app'), () => {}, 3);
		expect(again.client).not.toBe(mine.client);
		const [key] = Object.keys(first.inputRequests);
		expect(await call(requestOf(again.client, 3), {_meta: envelope({roots: {}}), requestState: first.requestState, inputResponses: {[key!]: {roots: []}}})).toEqual({content: [{type: 'text', text: '{"roots":[]}'}]});
	});

	it('refuses a state to another client and to another method', async () => {
		const registry = new ClientRegistry();
		const record = registry.add('stdio', 'stdio');
		const other = registry.add('socket', 'socket#2');
		expect(clientKeyOf(record)).not.toBe(clientKeyOf(other));
		const held = new HeldInputs({ttlMs: 60_000});
		const call = held.wrap(asking({method: 'roots/list', params: {}}), scope);
		const first = (await call(requestOf(record, 1), {_meta: envelope({roots: {}})})) as InputRequired;
		await expect(call(requestOf(other, 2), {_meta: envelope({roots: {}}), requestState: first.requestState})).rejects.toThrow(/issued to another client/);
		const prompt = new LiveRequest({id: 3, method: 'prompts/get', client: record});
		await expect(call(prompt, {_meta: envelope({roots: {}}), requestState: first.requestState})).rejects.toThrow(/belongs to a tools\/call request/);
	});

	it('holds a bounded number of bytes and calls per client: past them the upstream is told no', async () => {
		const record = new ClientRegistry().add('stdio', 'stdio');
		const held = new HeldInputs({ttlMs: 60_000, maxBytesPerClient: 100, maxCallsPerClient: 1});
		const seen: unknown[] = [];
		const big = held.wrap(asking({method: 'elicitation/create', params: {message: 'x'.repeat(200)}}, seen), scope);
		// The upstream's request is refused; its call ends with that error, which answers the client's call.
		await expect(big(requestOf(record, 1), {_meta: envelope({elicitation: {}})})).rejects.toThrow(/would pass the 100 it holds per client/);
		const small = held.wrap(asking({method: 'roots/list', params: {}}, seen), scope);
		expect(((await small(requestOf(record, 2), {_meta: envelope({roots: {}})})) as InputRequired).resultType).toBe('input_required');
		await expect(small(requestOf(record, 3), {_meta: envelope({roots: {}})})).rejects.toThrow(/already holds 1 calls waiting/);
	});

	it('frees the held requests at once, and cancels their calls, when the connection that started them closes', async () => {
		const record = new ClientRegistry().add('stdio', 'stdio');
		const held = new HeldInputs({ttlMs: 60_000});
		const seen: unknown[] = [];
		const call = held.wrap(asking({method: 'roots/list', params: {}}, seen), scope);
		await call(requestOf(record, 1), {_meta: envelope({roots: {}})});
		held.dropScope({}, 'another connection closed');
		expect(held.size).toBe(1);
		held.dropScope(scope, 'the client disconnected before answering');
		await new Promise(resolve => setImmediate(resolve));
		expect(String(seen[0])).toContain('the client disconnected before answering');
		expect(held.size).toBe(0);
	});

	it('cancels the upstream call when the client cancels its call while it waits', async () => {
		const record = new ClientRegistry().add('stdio', 'stdio');
		const held = new HeldInputs({ttlMs: 60_000});
		let upstreamSignal: AbortSignal | undefined;
		const call = held.wrap(async context => {
			upstreamSignal = context.signal;
			return new Promise(() => {});
		}, scope);
		const request = new LiveRequest({id: 1, method: 'tools/call', client: record});
		const answered = call(request, {_meta: envelope({})});
		await Promise.resolve();
		request.abort('cancelled');
		await expect(answered).rejects.toThrow();
		expect(upstreamSignal?.aborted).toBe(true);
		expect(held.size).toBe(0);
	});
});
