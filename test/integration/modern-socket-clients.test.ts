/**
 * A 2026-07-28 client attached over the local socket (what `mcp-hangar
 * --stdio` carries for it) is one client in the clients view, as a 2025 one
 * is: its requests are served as its identity's record
 * (gateway/modern-clients.ts), and the connection that carries them, which
 * never sends `initialize`, is not listed or counted as a second client that
 * never initialized. Each client is listed with the protocol version it
 * speaks. Real LocalEndpoint, a raw socket client writing
 * 2026-07-28 requests, a fixture upstream.
 */
import type net from 'node:net';
import {afterEach, describe, expect, it} from 'vitest';
import {silentLogger} from '../../source/core/base/logger.js';
import {LocalEndpoint} from '../../source/core/endpoints/local-endpoint.js';
import {connectSocket, socketPath} from '../../source/core/endpoints/socket-client.js';
import {fixture} from '../support/hangar.js';
import {closeAll, startSupervisor} from '../support/supervisor.js';

const endpoints: LocalEndpoint[] = [];
const sockets: net.Socket[] = [];

afterEach(async () => {
	for (const socket of sockets.splice(0)) socket.destroy();
	await Promise.all(endpoints.splice(0).map(async endpoint => endpoint.close()));
	await closeAll();
});

const envelope = (name: string) => ({
	'io.modelcontextprotocol/protocolVersion': '2026-07-28',
	'io.modelcontextprotocol/clientCapabilities': {},
	'io.modelcontextprotocol/clientInfo': {name, version: '2.0.0'},
});

/** A socket client: `send` writes one JSON-RPC message and resolves with the answer to it (by id). */
async function socketClient(stateDir: string) {
	const socket = await connectSocket(socketPath(stateDir));
	if (!('write' in socket)) throw new Error(socket.message);
	sockets.push(socket);
	const waiting = new Map<number, (answer: Record<string, unknown>) => void>();
	let buffered = '';
	socket.setEncoding('utf8');
	socket.on('data', (chunk: string) => {
		buffered += chunk;
		let end: number;
		while ((end = buffered.indexOf('\n')) !== -1) {
			const message = JSON.parse(buffered.slice(0, end)) as {id?: number};
			buffered = buffered.slice(end + 1);
			if (typeof message.id === 'number') waiting.get(message.id)?.(message);
		}
	});
	let nextId = 1;
	return async (method: string, params: Record<string, unknown>) =>
		new Promise<Record<string, unknown>>(resolve => {
			const id = nextId++;
			waiting.set(id, resolve);
			socket.write(`${JSON.stringify({jsonrpc: '2.0', id, method, params})}\n`);
		});
}

describe('2026-07-28 clients on the local socket in the clients view', () => {
	it('lists a modern client once, by its clientInfo, and counts it once; each client with its protocol version', async () => {
		const {supervisor, waitForState} = await startSupervisor({fx: fixture('normal')});
		await waitForState('fx', 'ready');
		const endpoint = await LocalEndpoint.listen({supervisor, logger: silentLogger, kind: 'serve', drainMs: 2000});
		endpoints.push(endpoint);

		const send = await socketClient(supervisor.config.hangar.stateDir);
		const answer = await send('tools/call', {name: 'fx__echo', arguments: {message: 'hi'}, _meta: envelope('modern-app')});
		expect(answer['result']).toMatchObject({resultType: 'complete'});

		const listed = supervisor.clients.list();
		expect(listed.map(client => client.name)).toEqual(['modern-app']);
		expect(listed[0]).toMatchObject({transport: 'socket', protocolVersion: '2026-07-28', calls: 1, lastTool: 'fx__echo'});
		expect(supervisor.clients.mcpSize).toBe(1);

		// A connection that initializes (a 2025 client) is listed as before.
		const legacy = await socketClient(supervisor.config.hangar.stateDir);
		await legacy('initialize', {protocolVersion: '2024-11-05', capabilities: {}, clientInfo: {name: 'legacy-app', version: '1'}});
		// Each with the protocol version it speaks: the older client's, as its initialize negotiated it.
		expect(supervisor.clients.list().map(client => [client.name, client.protocolVersion])).toEqual([
			['modern-app', '2026-07-28'],
			['legacy-app', '2024-11-05'],
		]);
		expect(supervisor.clients.mcpSize).toBe(2);
	});
});
