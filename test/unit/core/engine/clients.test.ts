import {describe, expect, it} from 'vitest';
import {ClientRegistry, httpIdleAfterMs, type ClientPeer} from '../../../../source/core/engine/clients/clients.js';
import type {ClientCapability} from '../../../../source/core/link/client-side.js';

/** A session as the engine sees it: records what reaches it, answers requests with its own name. */
function session(registry: ClientRegistry, name: string, capabilities: ClientCapability[], options: {unrelated?: boolean} = {}) {
	const record = registry.add('socket', `socket#${name}`);
	record.identify(name, '1.0.0');
	record.declare(capabilities);
	const asked: Array<{method: string; relatedRequestId: string | number | undefined}> = [];
	const logs: Array<Record<string, unknown>> = [];
	const peer: ClientPeer = {
		async request(method, _params, requestOptions) {
			asked.push({method, relatedRequestId: requestOptions.relatedRequestId});
			return {answeredBy: name};
		},
		canReceiveUnrelated: () => options.unrelated ?? true,
		log: params => logs.push(params),
	};
	record.peer = peer;
	record.touch();
	return {record, asked, logs};
}

describe('ClientRegistry.answererFor', () => {
	it('picks the session with a call in flight to that upstream over one active more recently', () => {
		const registry = new ClientRegistry();
		const a = session(registry, 'a', ['sampling']);
		const b = session(registry, 'b', ['sampling']);
		const end = a.record.callBegan('fx', 7);
		b.record.touch();
		expect(registry.answererFor('fx', 'sampling')).toEqual({record: a.record, relatedRequestId: 7});
		end();
		expect(registry.answererFor('fx', 'sampling')).toEqual({record: b.record, relatedRequestId: undefined});
	});

	it('picks the most recent call when several sessions have calls in flight to that upstream', () => {
		const registry = new ClientRegistry();
		const a = session(registry, 'a', ['elicitation']);
		const b = session(registry, 'b', ['elicitation']);
		b.record.callBegan('fx', 'b-1');
		a.record.callBegan('fx', 'a-1');
		b.record.touch();
		expect(registry.answererFor('fx', 'elicitation')?.record).toBe(a.record);
		// A call to another upstream does not count.
		b.record.callBegan('other', 'b-2');
		expect(registry.answererFor('fx', 'elicitation')?.relatedRequestId).toBe('a-1');
	});

	it('skips sessions whose client did not declare the capability, even with a call in flight', () => {
		const registry = new ClientRegistry();
		const a = session(registry, 'a', ['sampling']);
		const b = session(registry, 'b', ['roots']);
		b.record.callBegan('fx', 1);
		expect(registry.answererFor('fx', 'roots')?.record).toBe(b.record);
		expect(registry.answererFor('fx', 'sampling')?.record).toBe(a.record);
		expect(registry.answererFor('fx', 'elicitation')).toBeUndefined();
	});

	it('sends a request outside any call only to a session that can take one (an HTTP client needs its event stream)', () => {
		const registry = new ClientRegistry();
		const stdio = session(registry, 'stdio', ['roots']);
		const http = session(registry, 'http', ['roots'], {unrelated: false});
		http.record.touch();
		expect(registry.answererFor('fx', 'roots')?.record).toBe(stdio.record);
		// Within a call it goes on the call's own stream.
		http.record.callBegan('fx', 3);
		expect(registry.answererFor('fx', 'roots')).toEqual({record: http.record, relatedRequestId: 3});
	});

	it('forgets a session once it is removed', () => {
		const registry = new ClientRegistry();
		const a = session(registry, 'a', ['sampling']);
		a.record.callBegan('fx', 1);
		a.record.remove();
		expect(registry.answererFor('fx', 'sampling')).toBeUndefined();
	});
});

describe('idle HTTP sessions', () => {
	it('an HTTP session silent for a minute with no stream open is idle, not counted as attached; any message wakes it', () => {
		const registry = new ClientRegistry();
		const http = registry.add('http', 'a3f9');
		const socket = registry.add('socket', 'socket#1');
		expect(httpIdleAfterMs).toBe(60_000);
		http.lastSeenAt = Date.now() - httpIdleAfterMs - 1;
		socket.lastSeenAt = Date.now() - httpIdleAfterMs - 1;
		expect(registry.mcpSize).toBe(1);
		expect(registry.list().map(view => view.idle ?? false)).toEqual([true, false]);
		http.touch();
		expect(registry.mcpSize).toBe(2);
		expect(registry.list()[0]?.idle).toBeUndefined();
	});

	it('a session with its GET stream open is not idle however long it is silent', () => {
		const registry = new ClientRegistry();
		const http = registry.add('http', 'b7c1');
		http.peer = {request: async () => ({}), canReceiveUnrelated: () => true, log: () => {}};
		http.lastSeenAt = Date.now() - 10 * httpIdleAfterMs;
		expect(registry.mcpSize).toBe(1);
	});
});
