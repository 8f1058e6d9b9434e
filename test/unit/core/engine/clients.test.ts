import {describe, expect, it} from 'vitest';
import {ClientRegistry, httpIdleAfterMs} from '../../../../source/core/engine/clients/clients.js';

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
		http.peer = {request: async () => ({}), canReceiveUnrelated: () => true, log: () => {}, notify: () => {}};
		http.lastSeenAt = Date.now() - 10 * httpIdleAfterMs;
		expect(registry.mcpSize).toBe(1);
	});
});
