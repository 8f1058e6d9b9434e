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

describe('a connection that carries 2026-07-28 clients\' requests', () => {
	it('is listed and counted only while none of its clients\' identities is kept, or once it initializes', () => {
		const clients = new ClientRegistry();
		const connection = clients.add('socket', 'socket#1');
		let kept = true;
		connection.carriesModern = () => kept;
		connection.protocolVersion = '2026-07-28';
		const identity = clients.add('socket', 'socket 2026-07-28 client #1');
		identity.identify('modern-app', '2.0.0');
		expect(clients.list().map(client => client.label)).toEqual(['socket 2026-07-28 client #1']);
		expect(clients.mcpSize).toBe(1);

		// Its client's identity went (idle): the connection, still open, is listed again rather than hidden.
		kept = false;
		identity.remove();
		expect(clients.list()).toEqual([expect.objectContaining({label: 'socket#1', name: null, protocolVersion: '2026-07-28'})]);
		expect(clients.mcpSize).toBe(1);

		// A 2025 initialize on it: listed by its name whatever its identities.
		kept = true;
		connection.identify('legacy-app', '1');
		expect(clients.list().map(client => client.name)).toEqual(['legacy-app']);
	});
});
