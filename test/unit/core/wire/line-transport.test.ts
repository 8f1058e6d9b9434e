import {PassThrough} from 'node:stream';
import type {JSONRPCMessage} from '@modelcontextprotocol/sdk/types.js';
import {describe, expect, it, vi} from 'vitest';
import {LineTransport} from '../../../../source/core/wire/line-transport.js';

/** A LineTransport on in-memory streams: what it passes on, what it writes, what it reports. */
async function transport(maxMessageBytes = 1024 * 1024, maxLargeInFlight?: number) {
	const input = new PassThrough();
	const output = new PassThrough();
	const written: string[] = [];
	let rest = '';
	output.setEncoding('utf8');
	output.on('data', (chunk: string) => {
		const parts = (rest + chunk).split('\n');
		rest = parts.pop()!;
		written.push(...parts);
	});
	const line = new LineTransport(input, output, maxMessageBytes, undefined, undefined, undefined, maxLargeInFlight);
	const received: JSONRPCMessage[] = [];
	const errors: string[] = [];
	line.onmessage = message => received.push(message);
	line.onerror = error => errors.push(error.message);
	await line.start();
	/** Writes `lines` and waits until what they cause has been written out (the writer flushes once per turn). */
	const send = async (...lines: string[]) => {
		input.write(lines.map(text => `${text}\n`).join(''));
		await new Promise(resolve => setImmediate(resolve));
		await new Promise(resolve => setImmediate(resolve));
	};

	return {line, input, written, received, errors, send};
}

const ping = (id: string) => `{"jsonrpc":"2.0","id":${id},"method":"ping"}`;
/** A tools/call of about `kib` KiB. */
const large = (id: number, kib = 20) => `{"jsonrpc":"2.0","id":${id},"method":"tools/call","params":{"name":"x","arguments":{"text":"${'z'.repeat(kib * 1024)}"}}}`;

describe('LineTransport', () => {
	it('passes a checked message on, less the members JSON-RPC does not define', async () => {
		const {received, send} = await transport();
		await send('\uFEFF{"jsonrpc":"2.0","id":1,"method":"ping","extra":true}');
		expect(received).toEqual([{jsonrpc: '2.0', id: 1, method: 'ping'}]);
	});

	it('answers a request that breaks the rule itself, with its id as received, and passes nothing on', async () => {
		const {received, written, send} = await transport();
		await send(ping('9007199254740993'), '{"jsonrpc":"2.0","id":"m","method":"ping","params":{"_meta":1}}', 'nope');
		expect(received).toEqual([]);
		// Each line as written, up to its error's code.
		expect(written.map(text => /^.*"code":-?\d+/.exec(text)?.[0])).toEqual([
			'{"jsonrpc":"2.0","id":9007199254740993,"error":{"code":-32600',
			'{"jsonrpc":"2.0","id":"m","error":{"code":-32602',
			'{"jsonrpc":"2.0","id":null,"error":{"code":-32700',
		]);
	});

	it('reports a notification or a response that breaks the rule, and never answers it', async () => {
		const {received, written, errors, send} = await transport();
		await send('{"jsonrpc":"2.0","method":"notifications/x","params":1}', '{"jsonrpc":"2.0","id":null,"result":{}}');
		expect([received, written]).toEqual([[], []]);
		expect(errors).toHaveLength(2);
		expect(errors[0]).toContain('"params" of "notifications/x" must be an object');
	});

	it('refuses a request whose id is in flight, until that request is answered', async () => {
		const {line, received, written, send} = await transport();
		await send(ping('"a"'), ping('"a"'));
		expect(received).toHaveLength(1);
		expect(written).toHaveLength(1);
		expect(JSON.parse(written[0]!)).toMatchObject({id: 'a', error: {code: -32_600}});

		await line.send({jsonrpc: '2.0', id: 'a', result: {}});
		await send(ping('"a"'));
		expect(received).toHaveLength(2);
	});

	it('frees an id when its answer is written pre-serialized, or when its request is cancelled', async () => {
		const {line, received, send} = await transport();
		await send(ping('1'), ping('2'));
		await line.sendSerialized('{"jsonrpc":"2.0","id":1,"result":{"big":"answer"}}\n');
		await send('{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":2}}', ping('1'), ping('2'));
		expect(received.map(message => (message as {id?: unknown}).id ?? (message as {method?: unknown}).method)).toEqual([1, 2, 'notifications/cancelled', 1, 2]);
	});

	it('frees an id when its answer is written pre-serialized with the id it answers given, without reading the line', async () => {
		const {line, received, written, send} = await transport();
		await send(ping('"s"'));
		// A line whose own id could not be read cheaply: the id given is the one freed.
		await line.sendSerialized('{"jsonrpc":"2.0", "id":"s","result":{}}\n', 's');
		await send(ping('"s"'));
		expect(received).toHaveLength(2);
		expect(written).toEqual(['{"jsonrpc":"2.0", "id":"s","result":{}}']);
	});

	it('refuses a large request while the large ones in flight would pass their limit, and takes large ones again as they are answered', async () => {
		const {line, received, written, send} = await transport(1024 * 1024, 64 * 1024);
		// Three of about 20 KiB fit in 64 KiB; the fourth does not, however many small ones are in flight beside them.
		await send(large(1), large(2), large(3), large(4), ping('5'));
		expect(received.map(message => (message as {id: number}).id)).toEqual([1, 2, 3, 5]);
		expect(written.map(text => JSON.parse(text) as {id?: number; error?: {code: number; message: string}})).toMatchObject([
			{id: 4, error: {code: -32_015, message: expect.stringMatching(/requests in flight already take 0\.1 MiB.*wait for answers/)}},
		]);

		// Answered or cancelled, a large request frees its share.
		await line.send({jsonrpc: '2.0', id: 1, result: {}});
		await line.sendSerialized('{"jsonrpc":"2.0","id":2,"result":{}}\n');
		await send('{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":3}}', large(7), large(8), large(9), large(10));
		expect(received.map(message => (message as {id?: number}).id).filter(id => id !== undefined)).toEqual([1, 2, 3, 5, 7, 8, 9]);
		// One larger than the whole limit passes when no other large one is in flight.
		for (const id of [7, 8, 9]) await line.send({jsonrpc: '2.0', id, result: {}});
		await send(large(11, 100));
		expect(received.at(-1)).toMatchObject({id: 11});
	});

	it('counts the requests of a large batch by their share of its line', async () => {
		const {line, received, written, send} = await transport(1024 * 1024, 64 * 1024);
		await send('{"jsonrpc":"2.0","id":0,"method":"initialize","params":{}}');
		await line.send({jsonrpc: '2.0', id: 0, result: {protocolVersion: '2025-03-26', capabilities: {}, serverInfo: {name: 'x', version: '1'}}});
		// Four requests of about 20 KiB in one batch line: three fit in 64 KiB, the fourth is refused in the batch's answer.
		await send(`[${[1, 2, 3, 4].map(id => large(id)).join(',')}]`);
		expect(received.map(message => (message as {id: number}).id)).toEqual([0, 1, 2, 3]);
		for (const id of [1, 2, 3]) await line.send({jsonrpc: '2.0', id, result: {}});
		await new Promise(resolve => setImmediate(resolve));
		const batch = JSON.parse(written.at(-1)!) as Array<{id: number; error?: {code: number}}>;
		expect(batch.map(answer => [answer.id, answer.error?.code])).toEqual([[4, -32_015], [1, undefined], [2, undefined], [3, undefined]]);
	});

	it('answers an oversized line with -32009 and the id it can find at its start', async () => {
		const {written, send} = await transport(200);
		const big = `{"jsonrpc":"2.0","id":1.5,"method":"ping","params":{"pad":"${'x'.repeat(500)}"}}`;
		await send(big);
		expect(JSON.parse(written[0]!)).toMatchObject({id: 1.5, error: {code: -32_009, message: `message of ${big.length} bytes refused: the limit is 200 bytes (hangar.maxMessageBytes)`}});
	});

	it('reads a last line that ends without a newline when the input ends', async () => {
		const {input, received} = await transport();
		// Registered after the transport's own listener, so it runs once the transport has read the end.
		const ended = new Promise(resolve => input.once('end', resolve));
		input.end(ping('"last"'));
		await ended;
		expect(received).toEqual([{jsonrpc: '2.0', id: 'last', method: 'ping'}]);
	});
});

describe('LineTransport with a peer that does not read', () => {
	it('stops reading its requests once its answers pass the backlog limit, and reads on once it has read them, losing nothing', async () => {
		const input = new PassThrough();
		// The peer's side of the output: nothing reads it until the test says so.
		const output = new PassThrough({highWaterMark: 1024});
		const line = new LineTransport(input, output, 1024 * 1024, undefined, 64 * 1024);
		const answer = 'x'.repeat(8 * 1024);
		let received = 0;
		line.onmessage = message => {
			received += 1;
			void line.send({jsonrpc: '2.0', id: (message as {id: number}).id, result: {answer}} as JSONRPCMessage);
		};
		await line.start();
		const requests = Array.from({length: 100}, (_, index) => ping(String(index + 1))).join('\n');
		input.write(`${requests}\n`);
		await new Promise(resolve => setImmediate(resolve));
		await new Promise(resolve => setImmediate(resolve));
		// All 100 came in one read, so all were taken; their answers (about 800 KB) now wait for the peer.
		expect(received).toBe(100);
		expect(input.isPaused()).toBe(true);
		// More requests while it does not read: not taken, however many.
		input.write(`${Array.from({length: 50}, (_, index) => ping(String(index + 101))).join('\n')}\n`);
		await new Promise(resolve => setImmediate(resolve));
		expect(received).toBe(100);

		// The peer reads everything: the input is read again, and every request gets its answer.
		const answered = new Set<number>();
		let rest = '';
		output.setEncoding('utf8');
		output.on('data', (chunk: string) => {
			const parts = (rest + chunk).split('\n');
			rest = parts.pop()!;
			for (const part of parts) answered.add((JSON.parse(part) as {id: number}).id);
		});
		await vi.waitFor(() => expect(answered.size).toBe(150));
		expect(received).toBe(150);
		expect(input.isPaused()).toBe(false);
	});
});
