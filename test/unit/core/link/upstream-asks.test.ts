import {describe, expect, it} from 'vitest';
import type {ClientSide} from '../../../../source/core/link/client-side.js';
import {LogBuffer} from '../../../../source/core/link/log-buffer.js';
import {UpstreamAsks, maxRelayedAsks} from '../../../../source/core/link/upstream-asks.js';

/** An upstream connection's asks, relayed to a client that never answers; what is sent back to the upstream is kept. */
function silentClient() {
	const sent: Array<Record<string, unknown>> = [];
	let asked = 0;
	const clientSide = {
		capabilities: {elicitation: {}},
		async request(_server: string, _method: string, _params: unknown, options: {signal: AbortSignal}) {
			asked += 1;
			// Never answered; settled only by a cancel, as a session settles it.
			return new Promise<Record<string, unknown>>((_resolve, reject) => {
				options.signal.addEventListener('abort', () => reject(new Error('cancelled')));
			});
		},
	} as unknown as ClientSide;
	const asks = new UpstreamAsks({
		name: 'evil',
		log: new LogBuffer(50),
		clientSide,
		events: {},
		callsInFlight: () => 0,
		origin: () => undefined,
		logOrigin: () => undefined,
		async send(message) {
			sent.push(message);
		},
		isClosed: () => false,
		async ping() {},
	});
	return {asks, sent, asked: () => asked};
}

describe('UpstreamAsks: what an upstream asks its client', () => {
	it('relays at most maxRelayedAsks unanswered requests, and refuses the rest at once, saying why', () => {
		const {asks, sent, asked} = silentClient();
		for (let id = 0; id < maxRelayedAsks + 10; id++) asks.relay(id, 'elicitation/create', {message: 'again?', requestedSchema: {}});
		expect(asked()).toBe(maxRelayedAsks);
		expect(sent).toHaveLength(10);
		expect(sent[0]).toMatchObject({jsonrpc: '2.0', id: maxRelayedAsks, error: {code: -32_013}});
		expect((sent[0]!['error'] as {message: string}).message).toContain(`upstream "evil": elicitation/create failed: ${maxRelayedAsks} of its requests to clients are still waiting for their answers`);
	});

	it('makes room again once the upstream cancels one', async () => {
		const {asks, sent, asked} = silentClient();
		for (let id = 0; id <= maxRelayedAsks; id++) asks.relay(id, 'sampling/createMessage', {messages: [], maxTokens: 1});
		expect(sent).toHaveLength(1);
		expect(asks.cancel(0)).toBe(true);
		await new Promise(resolve => setImmediate(resolve));
		asks.relay('again', 'sampling/createMessage', {messages: [], maxTokens: 1});
		expect(asked()).toBe(maxRelayedAsks + 1);
		expect(sent).toHaveLength(1);
	});
});
