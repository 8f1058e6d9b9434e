import {describe, expect, it} from 'vitest';
import {HangarError} from '../../../../source/core/base/errors.js';
import {silentLogger} from '../../../../source/core/base/logger.js';
import {ClientRegistry, type ClientPeer} from '../../../../source/core/engine/clients/clients.js';
import {ClientRelay} from '../../../../source/core/engine/clients/client-relay.js';
import type {ClientCapability, LoggingLevel} from '../../../../source/core/link/client-side.js';

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

const signal = new AbortController().signal;

describe('ClientRelay', () => {
	it('relays a request to the chosen session, with the call it belongs to', async () => {
		const registry = new ClientRegistry();
		const relay = new ClientRelay(registry, silentLogger);
		const a = session(registry, 'a', ['sampling']);
		a.record.callBegan('fx', 42);
		await expect(relay.request('fx', 'sampling/createMessage', {maxTokens: 1}, {signal})).resolves.toEqual({answeredBy: 'a'});
		expect(a.asked).toEqual([{method: 'sampling/createMessage', relatedRequestId: 42}]);
	});

	it('refuses with NoClientAnswer naming the capability and what to do when nobody can answer', async () => {
		const registry = new ClientRegistry();
		const relay = new ClientRelay(registry, silentLogger);
		const none = await relay.request('fx', 'elicitation/create', {}, {signal}).catch((error: unknown) => error);
		expect(none).toBeInstanceOf(HangarError);
		expect((none as HangarError).code).toBe(-32_013);
		expect((none as HangarError).message).toBe(
			'upstream "fx": elicitation/create failed: hangar relays it to one of its clients, but no MCP client is connected to hangar. ' +
				'Call this server\'s tools from an MCP client that supports elicitation (asking its user for input).',
		);

		session(registry, 'cursor', ['roots']);
		const undeclared = (await relay.request('fx', 'sampling/createMessage', {}, {signal}).catch((error: unknown) => error)) as HangarError;
		expect(undeclared.message).toContain('none of the connected clients ("cursor") declared the "sampling" capability');
		expect(undeclared.toData()).toMatchObject({error: 'NoClientAnswer', upstream: 'fx', capability: 'sampling', clients: 1, capableClients: 0});
	});

	it('logs to each session whose level admits the message, naming the upstream as logger', () => {
		const registry = new ClientRegistry();
		const relay = new ClientRelay(registry, silentLogger);
		const quiet = session(registry, 'quiet', []);
		const verbose = session(registry, 'verbose', []);
		const silent = session(registry, 'silent', []);
		quiet.record.setLogLevel('error');
		verbose.record.setLogLevel('debug');
		relay.log('fx', {level: 'info', logger: 'db', data: 'connected'});
		relay.log('fx', {level: 'critical', data: 'on fire'});
		relay.log('fx', {level: 'chatty', data: 'not a level'});
		expect(verbose.logs).toEqual([
			{level: 'info', logger: 'fx/db', data: 'connected'},
			{level: 'critical', logger: 'fx', data: 'on fire'},
		]);
		expect(quiet.logs).toEqual([{level: 'critical', logger: 'fx', data: 'on fire'}]);
		// A session that never set a level gets nothing.
		expect(silent.logs).toEqual([]);
	});

	it('asks for the most verbose level any session wants, and tells when that changes', () => {
		const registry = new ClientRegistry();
		const relay = new ClientRelay(registry, silentLogger);
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

	it('tells every listener when a client\'s roots changed', () => {
		const registry = new ClientRegistry();
		const relay = new ClientRelay(registry, silentLogger);
		let told = 0;
		const stop = relay.onRootsChanged(() => told++);
		relay.onRootsChanged(() => told++);
		registry.rootsChanged();
		stop();
		registry.rootsChanged();
		expect(told).toBe(3);
	});
});
