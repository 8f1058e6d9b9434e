/**
 * What an upstream sends its client, through the real engine and a real
 * fixture upstream, with the client side played by sessions registered in
 * the supervisor's ClientRegistry (the gateway's part is in
 * test/e2e/client-relay.test.ts): the call deadline paused while a client
 * answers, cancellation both ways, log levels asked of the upstream on
 * every start.
 */
import {afterEach, describe, expect, it} from 'vitest';
import type {ClientPeer} from '../../source/core/engine/clients/clients.js';
import type {InProcessCall, Supervisor} from '../../source/core/engine/supervisor.js';
import type {ClientCapability} from '../../source/core/link/client-side.js';
import {fixture, waitFor} from '../support/hangar.js';
import {closeAll, startSupervisor} from '../support/supervisor.js';

afterEach(closeAll);

type Asked = {method: string; params: Record<string, unknown> | undefined; signal: AbortSignal; answer: (result: Record<string, unknown>) => void};

/** A session whose requests wait until the test answers them. */
function session(supervisor: Supervisor, capabilities: ClientCapability[] = ['sampling', 'elicitation', 'roots']) {
	const record = supervisor.clients.add('socket', 'socket#test');
	record.declare(capabilities);
	const asked: Asked[] = [];
	const peer: ClientPeer = {
		request: async (method, params, options) =>
			new Promise((resolve, reject) => {
				asked.push({method, params, signal: options.signal, answer: resolve});
				options.signal.addEventListener('abort', () => reject(new Error('cancelled')), {once: true});
			}),
		canReceiveUnrelated: () => true,
		log: () => {},
		notify: () => {},
	};
	record.peer = peer;
	/** A call's context as this session's gateway would give it: while it is in flight, the upstream's requests belong to this session. */
	const calling = (context: InProcessCall = {}): InProcessCall => ({...context, client: record});
	return {record, asked, calling};
}

function structured(result: unknown): Record<string, unknown> {
	return (result as {structuredContent: Record<string, unknown>}).structuredContent;
}

describe('requests from an upstream to its client', () => {
	it('pauses the call\'s deadline while a client answers: an elicitation answered after callTimeoutSeconds completes the call', async () => {
		const t = await startSupervisor({fx: fixture('normal', ['--client-features'], {lazy: false, callTimeoutSeconds: 0.5, instances: 'shared'})});
		await t.waitForState('fx', 'ready');
		const client = session(t.supervisor);
		const call = t.supervisor.callByName('fx', 'ask', {kind: 'elicitation'}, client.calling());
		const request = await waitFor(() => client.asked[0], 'the elicitation to reach the client');
		expect(request.method).toBe('elicitation/create');
		// Three times the call's deadline passes while the person "thinks".
		await new Promise(resolve => setTimeout(resolve, 1500));
		request.answer({action: 'accept', content: {name: 'Ada'}});
		expect(structured(await call)).toEqual({result: {action: 'accept', content: {name: 'Ada'}}});

		// The deadline runs again once answered: a call with no request outstanding still times out.
		const error = await t.supervisor.callByName('fx', 'sleep', {ms: 5000}).catch((caught: unknown) => caught as Error);
		expect(error.message).toContain('no answer within 0.5 s');
	});

	it('cancels the request at the client when the caller cancels its call (the upstream cancels its own request)', async () => {
		const t = await startSupervisor({fx: fixture('normal', ['--client-features'], {lazy: false, instances: 'shared'})});
		await t.waitForState('fx', 'ready');
		const client = session(t.supervisor);
		const controller = new AbortController();
		const call = t.supervisor.callByName('fx', 'ask', {kind: 'sampling'}, client.calling({signal: controller.signal})).catch((error: unknown) => error as Error);
		const request = await waitFor(() => client.asked[0], 'the sampling request to reach the client');
		controller.abort();
		expect((await call).message).toContain('cancelled by the client');
		await waitFor(() => request.signal.aborted, 'the client\'s request to be cancelled');
	});

	it('answers the upstream with NoClientAnswer when no session declared the capability', async () => {
		const t = await startSupervisor({fx: fixture('normal', ['--client-features'], {lazy: false, instances: 'shared'})});
		await t.waitForState('fx', 'ready');
		const client = session(t.supervisor, ['roots']);
		const answer = structured(await t.supervisor.callByName('fx', 'ask', {kind: 'sampling'}, client.calling()));
		expect(answer['error']).toMatchObject({
			code: -32_013,
			message: expect.stringContaining('upstream "fx": sampling/createMessage failed: hangar relays it to one of its clients, but the client of session socket#test, whose call it belongs to, did not declare the "sampling" capability.') as unknown,
			data: {error: 'NoClientAnswer', capability: 'sampling'},
		});
	});

	it('cancels a call waiting on a start at once, and the start goes on for the next caller', async () => {
		const t = await startSupervisor({fx: fixture('slow-start', ['--delay-ms', '1500'], {tools: [{name: 'echo'}]})});
		const controller = new AbortController();
		const call = t.supervisor.callByName('fx', 'echo', {message: 'x'}, {signal: controller.signal}).catch((error: unknown) => error as Error);
		await t.waitForState('fx', 'starting');
		controller.abort();
		expect((await call).message).toContain('cancelled by the client');
		expect(t.supervisor.upstream('fx').state).toBe('starting');
		await t.waitForState('fx', 'ready');
	});
});

describe('log levels', () => {
	it('asks a running upstream for the most verbose level any session wants, and again on each start', async () => {
		const t = await startSupervisor({fx: fixture('normal', ['--client-features'], {lazy: false, instances: 'shared'})});
		await t.waitForState('fx', 'ready');
		const levelOf = async () => structured(await t.supervisor.callByName('fx', 'logging-level', {}));
		// Nothing asked while no session set a level: the upstream keeps its own default.
		expect(await levelOf()).toEqual({level: null, setLevelCount: 0});

		const a = session(t.supervisor);
		const b = session(t.supervisor);
		a.record.setLogLevel('warning');
		await waitFor(async () => (await levelOf())['level'] === 'warning', 'the upstream to be asked for warning');
		b.record.setLogLevel('debug');
		await waitFor(async () => (await levelOf())['level'] === 'debug', 'the upstream to be asked for debug');
		b.record.remove();
		await waitFor(async () => (await levelOf())['level'] === 'warning', 'the upstream to be asked for warning again');

		await t.supervisor.act('fx', 'restart', 'a test');
		await waitFor(async () => (await levelOf())['setLevelCount'] === 1, 'the restarted upstream to be asked once');
		expect((await levelOf())['level']).toBe('warning');
	});
});
