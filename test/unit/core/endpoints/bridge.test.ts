/**
 * The `--stdio` bridge in process: the client's stdin and stdout and each
 * connection to "the supervisor" are in-memory streams, and the test plays
 * the supervisor line by line. A supervisor restart is a connection the test
 * closes; the reconnect's backoff and the held requests' deadlines run on a
 * ManualClock the test moves by hand. The same
 * behaviour through real processes is in test/e2e/attach.test.ts.
 */
import {Duplex, PassThrough} from 'node:stream';
import {afterEach, describe, expect, it, vi} from 'vitest';
import {Logger} from '../../../../source/core/base/logger.js';
import {StdioBridge} from '../../../../source/core/endpoints/bridge.js';
import {ErrorCode} from '../../../../source/core/base/errors.js';
import {ManualClock} from '../../../support/manual-clock.js';

type Message = {jsonrpc: '2.0'; id?: string | number; method?: string; params?: Record<string, unknown>; result?: unknown; error?: {code: number; message: string}};

/** Lines written to a stream, parsed, as they arrive. */
class Lines {
	readonly all: Message[] = [];
	private buffer = '';
	private waiters: Array<() => void> = [];

	constructor(stream: NodeJS.ReadableStream) {
		stream.setEncoding('utf8');
		stream.on('data', (chunk: string) => {
			this.buffer += chunk;
			let newline: number;
			while ((newline = this.buffer.indexOf('\n')) !== -1) {
				const line = this.buffer.slice(0, newline);
				this.buffer = this.buffer.slice(newline + 1);
				if (line !== '') this.all.push(JSON.parse(line) as Message);
			}

			for (const wake of this.waiters.splice(0)) wake();
		});
	}

	/** Resolves with the first message (from the start) that matches, once it has arrived. */
	async next(match: (message: Message) => boolean): Promise<Message> {
		for (;;) {
			const found = this.all.find(match);
			if (found !== undefined) return found;
			await new Promise<void>(resolve => this.waiters.push(resolve));
		}
	}
}

/** One connection to the supervisor, seen from the supervisor's side. */
type SupervisorEnd = {lines: Lines; send(message: Message): void; sendRaw(bytes: Buffer): void; close(): void};

function connectionPair(): {bridgeSide: Duplex; supervisor: SupervisorEnd} {
	const toSupervisor = new PassThrough();
	const toBridge = new PassThrough();
	const bridgeSide = Duplex.from({readable: toBridge, writable: toSupervisor});
	return {
		bridgeSide,
		supervisor: {
			lines: new Lines(toSupervisor),
			send: message => toBridge.write(`${JSON.stringify(message)}\n`),
			sendRaw: bytes => toBridge.write(bytes),
			// The supervisor's process ends: its side of the socket closes.
			close: () => bridgeSide.destroy(),
		},
	};
}

const bridges: StdioBridge[] = [];
const inputs: PassThrough[] = [];

afterEach(async () => {
	for (const input of inputs.splice(0)) input.end();
	await Promise.all(bridges.splice(0).map(async bridge => bridge.exited));
});

/** What every bridge of these tests is given: in-memory stdio, a silent log, no real socket. */
function memoryOptions(input: PassThrough, output: PassThrough) {
	return {
		socketPath: '/nonexistent/hangar.sock',
		stateDir: '/nonexistent',
		input,
		output,
		logger: new Logger(() => {}, 'silent'),
		maxMessageBytes: 1024 * 1024,
		requestTimeoutMs: 60_000,
		drainMs: 100,
	};
}

/** A bridge on in-memory stdio whose every connect gets a new in-memory supervisor connection. */
function bridgeOnMemory(clock = new ManualClock()) {
	/** While set, a connect finds no supervisor listening, as when its socket is gone. */
	const away = {now: false, tries: 0};
	const input = new PassThrough();
	const output = new PassThrough();
	const client = new Lines(output);
	const connections: SupervisorEnd[] = [];
	const bridge = new StdioBridge({
		...memoryOptions(input, output),
		backoff: {initialMs: 100, maxMs: 1000},
		clock,
		connect: async () => {
			away.tries += 1;
			if (away.now) return {kind: 'temporary' as const, code: 'ENOENT', message: 'no supervisor is listening'};
			const {bridgeSide, supervisor} = connectionPair();
			connections.push(supervisor);
			return bridgeSide;
		},
	});
	bridges.push(bridge);
	inputs.push(input);
	bridge.start();
	const send = (message: Message) => input.write(`${JSON.stringify(message)}\n`);
	let raw = '';
	output.on('data', (chunk: Buffer | string) => {
		raw += chunk.toString();
	});
	return {bridge, client, connections, send, clock, away, raw: () => raw};
}

const initialize: Message = {jsonrpc: '2.0', id: 1, method: 'initialize', params: {protocolVersion: '2025-11-25', capabilities: {}, clientInfo: {name: 'unit', version: '1'}}};

/** Waits for the nth connection to exist. */
async function connection(connections: SupervisorEnd[], index: number): Promise<SupervisorEnd> {
	await vi.waitFor(() => expect(connections.length).toBeGreaterThan(index), {interval: 1});
	return connections[index]!;
}

/** After a lost connection and a ping (id 3) the client sent: the next supervisor gets the ping, and no answer of the client's. */
async function expectNoAnswerReachesTheNext(connections: Parameters<typeof connection>[0], clock: {advance(ms: number): Promise<void>}, bridge: {state: string}): Promise<void> {
	await clock.advance(200);
	const second = await connection(connections, 1);
	const replay = await second.lines.next(message => message.method === 'initialize');
	second.send({jsonrpc: '2.0', id: replay.id!, result: {protocolVersion: '2025-11-25', capabilities: {}, serverInfo: {name: 'hangar', version: '1'}}});
	await second.lines.next(message => message.id === 3);
	expect(second.lines.all.filter(message => message.result !== undefined)).toEqual([]);
	expect(bridge.state).toBe('open');
}

describe('the --stdio bridge', () => {
	it('passes the client\'s session through to the supervisor and back, unchanged', async () => {
		const {client, connections, send, bridge} = bridgeOnMemory();
		const first = await connection(connections, 0);
		send(initialize);
		const received = await first.lines.next(message => message.method === 'initialize');
		expect(received).toEqual(initialize);
		first.send({jsonrpc: '2.0', id: 1, result: {protocolVersion: '2025-11-25', capabilities: {}, serverInfo: {name: 'hangar', version: '0'}}});
		expect((await client.next(message => message.id === 1)).result).toMatchObject({serverInfo: {name: 'hangar'}});
		expect(bridge.state).toBe('open');
	});

	it('replays the client\'s initialize on a new supervisor, keeps its answer from the client, and sends what was held in order', async () => {
		const {client, connections, send, bridge, clock} = bridgeOnMemory();
		const first = await connection(connections, 0);
		send(initialize);
		await first.lines.next(message => message.id === 1);
		first.send({jsonrpc: '2.0', id: 1, result: {protocolVersion: '2025-11-25', capabilities: {}, serverInfo: {name: 'hangar', version: '0'}}});
		await client.next(message => message.id === 1);
		send({jsonrpc: '2.0', method: 'notifications/initialized'});
		send({jsonrpc: '2.0', id: 2, method: 'tools/list'});
		send({jsonrpc: '2.0', id: 3, method: 'tools/call', params: {name: 'fx__echo', arguments: {}}});
		await first.lines.next(message => message.id === 3);

		// The supervisor restarts with both requests in flight.
		first.close();
		const callAnswer = await client.next(message => message.id === 3);
		expect(callAnswer.error?.code).toBe(ErrorCode.SupervisorUnavailable);
		expect(callAnswer.error?.message).toContain('may or may not have run');
		expect(bridge.state).toBe('backoff');
		await clock.advance(200);

		const second = await connection(connections, 1);
		const replay = await second.lines.next(message => message.method === 'initialize');
		expect(replay.id).not.toBe(1);
		expect(replay.params).toEqual(initialize.params);
		expect(bridge.state).toBe('replaying');
		second.send({jsonrpc: '2.0', id: replay.id!, result: {protocolVersion: '2025-11-25', capabilities: {}, serverInfo: {name: 'hangar', version: '1'}}});
		const list = await second.lines.next(message => message.id === 2);
		expect(second.lines.all.map(message => message.method)).toEqual(['initialize', 'notifications/initialized', 'tools/list']);
		expect(list.method).toBe('tools/list');
		second.send({jsonrpc: '2.0', id: 2, result: {tools: []}});
		await client.next(message => message.id === 2);
		await client.next(message => message.method === 'notifications/tools/list_changed');

		// The client saw one answer per request it sent, and never the replay's.
		expect(client.all.filter(message => message.id !== undefined).map(message => message.id)).toEqual([1, 3, 2]);
		expect(bridge.state).toBe('open');
	});

	it('sets a new supervisor\'s session up as the client had it: the last level the supervisor took, the subscriptions still held; their answers stay with the bridge', async () => {
		const {client, connections, send, clock} = bridgeOnMemory();
		const first = await connection(connections, 0);
		send(initialize);
		await first.lines.next(message => message.id === 1);
		first.send({jsonrpc: '2.0', id: 1, result: {protocolVersion: '2025-11-25', capabilities: {}, serverInfo: {name: 'hangar', version: '0'}}});
		send({jsonrpc: '2.0', method: 'notifications/initialized'});
		const setUp: Message[] = [
			{jsonrpc: '2.0', id: 2, method: 'logging/setLevel', params: {level: 'warning'}},
			{jsonrpc: '2.0', id: 3, method: 'logging/setLevel', params: {level: 'loud'}},
			{jsonrpc: '2.0', id: 4, method: 'resources/subscribe', params: {uri: 'a://1'}},
			{jsonrpc: '2.0', id: 5, method: 'resources/subscribe', params: {uri: 'a://2'}},
			{jsonrpc: '2.0', id: 6, method: 'resources/unsubscribe', params: {uri: 'a://2'}},
			{jsonrpc: '2.0', id: 7, method: 'resources/subscribe', params: {uri: 'a://3'}},
		];
		for (const message of setUp) send(message);
		await first.lines.next(message => message.id === 7);
		for (const id of [2, 4, 5, 6]) first.send({jsonrpc: '2.0', id, result: {}});
		// The supervisor refused the level and the third subscription: neither holds.
		first.send({jsonrpc: '2.0', id: 3, error: {code: -32_602, message: 'Invalid level'}});
		first.send({jsonrpc: '2.0', id: 7, error: {code: -32_602, message: 'Unknown resource'}});
		await client.next(message => message.id === 7);

		first.close();
		await clock.advance(200);
		const second = await connection(connections, 1);
		const replay = await second.lines.next(message => message.method === 'initialize');
		second.send({jsonrpc: '2.0', id: replay.id!, result: {protocolVersion: '2025-11-25', capabilities: {}, serverInfo: {name: 'hangar', version: '1'}}});
		const subscribed = await second.lines.next(message => message.method === 'resources/subscribe');
		expect(second.lines.all.map(message => [message.method, message.params])).toEqual([
			['initialize', initialize.params],
			['notifications/initialized', undefined],
			['logging/setLevel', {level: 'warning'}],
			['resources/subscribe', {uri: 'a://1'}],
		]);
		const level = second.lines.all[2]!;
		second.send({jsonrpc: '2.0', id: level.id!, result: {}});
		second.send({jsonrpc: '2.0', id: subscribed.id!, result: {}});
		send({jsonrpc: '2.0', id: 8, method: 'ping'});
		await second.lines.next(message => message.id === 8);
		second.send({jsonrpc: '2.0', id: 8, result: {}});
		await client.next(message => message.id === 8);
		// The client saw one answer per request it sent, none of the bridge's own.
		expect(client.all.filter(message => message.id !== undefined).map(message => message.id)).toEqual([1, 2, 4, 5, 6, 3, 7, 8]);
	});

	it('passes the supervisor\'s lines on byte for byte however they are laid out or split, knows which requests they answer, and hides its draining notice', async () => {
		const {client, connections, send, bridge, raw} = bridgeOnMemory();
		const first = await connection(connections, 0);
		send(initialize);
		send({jsonrpc: '2.0', id: 2, method: 'tools/list'});
		send({jsonrpc: '2.0', id: 'c☃', method: 'tools/call', params: {name: 'x', arguments: {id: 3}}});
		send({jsonrpc: '2.0', id: 3, method: 'tools/call', params: {name: 'y'}});
		await first.lines.next(message => message.id === 3);
		// hangar's layout (id first), the SDK's (id last, an "id" nested in the result), a notification, then the notice.
		const answers = [
			'{"jsonrpc":"2.0","id":1,"result":{"protocolVersion":"2025-11-25","capabilities":{},"serverInfo":{"name":"hangar","version":"0"}}}',
			'{"result":{"content":[{"type":"text","text":"☃ \\n \\",\\"id\\":3}"}],"id":3},"jsonrpc":"2.0","id":"c☃"}',
			'{"method":"notifications/progress","params":{"progressToken":"t","progress":1},"jsonrpc":"2.0"}',
		];
		const bytes = Buffer.from(`${answers.join('\n')}\n{"jsonrpc":"2.0","method":"notifications/hangar/draining"}\n`);
		// Cut inside the snowman of the second answer.
		const cut = bytes.indexOf(Buffer.from('☃')) + 1;
		first.sendRaw(bytes.subarray(0, cut));
		first.sendRaw(bytes.subarray(cut));
		await client.next(message => message.method === 'notifications/progress');
		expect(raw()).toBe(`${answers.join('\n')}\n`);
		expect(bridge.state).toBe('draining');

		// The supervisor goes: of what was sent, only id 3 is unanswered and not read-only (tools/list is sent again).
		first.close();
		const lost = await client.next(message => message.id === 3);
		expect(lost.error?.code).toBe(ErrorCode.SupervisorUnavailable);
		expect(client.all.filter(message => message.error !== undefined).map(message => message.id)).toEqual([3]);
	});

	it('cancels at the client the supervisor\'s requests it has not answered when the connection is lost, and drops a late answer to one', async () => {
		const {client, connections, send, bridge, clock} = bridgeOnMemory();
		const first = await connection(connections, 0);
		send(initialize);
		await first.lines.next(message => message.id === 1);
		first.send({jsonrpc: '2.0', id: 1, result: {protocolVersion: '2025-11-25', capabilities: {}, serverInfo: {name: 'hangar', version: '0'}}});
		send({jsonrpc: '2.0', method: 'notifications/initialized'});
		send({jsonrpc: '2.0', id: 2, method: 'tools/call', params: {name: 'fx__ask', arguments: {}}});
		await first.lines.next(message => message.id === 2);
		// Four requests to the client, in hangar's layout and the SDK's: one it answers, one the supervisor withdraws, two left waiting.
		first.sendRaw(
			Buffer.from(
				[
					'{"jsonrpc":"2.0","id":"hangar-a-1","method":"elicitation/create","params":{"message":"answered"}}',
					'{"jsonrpc":"2.0","id":"hangar-a-2","method":"elicitation/create","params":{"message":"withdrawn"}}',
					'{"jsonrpc":"2.0","id":"hangar-a-3","method":"elicitation/create","params":{"message":"waiting"}}',
					'{"method":"sampling/createMessage","params":{"messages":[]},"jsonrpc":"2.0","id":17}',
					'{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":"hangar-a-2","reason":"the upstream cancelled its request"}}',
					'',
				].join('\n'),
			),
		);
		await client.next(message => message.method === 'notifications/cancelled');
		send({jsonrpc: '2.0', id: 'hangar-a-1', result: {action: 'decline'}});
		await first.lines.next(message => message.id === 'hangar-a-1' && message.result !== undefined);

		// The supervisor is killed: the call fails, and each request still waiting at the client is cancelled there, once.
		first.close();
		await client.next(message => message.id === 2);
		const cancelled = client.all.filter(message => message.method === 'notifications/cancelled').map(message => message.params!);
		expect(cancelled.map(params => params['requestId'])).toEqual(['hangar-a-2', 'hangar-a-3', 17]);
		expect(cancelled[1]!['reason']).toMatch(/supervisor went away/);

		// The client answers one of them late: the answer goes nowhere, not to the next supervisor.
		send({jsonrpc: '2.0', id: 'hangar-a-3', result: {action: 'accept', content: {}}});
		send({jsonrpc: '2.0', id: 3, method: 'ping'});
		await expectNoAnswerReachesTheNext(connections, clock, bridge);
	});

	it('drops an answer its client gives while the supervisor that asked drains: it is owed to that connection, never to the next', async () => {
		const {connections, send, bridge, clock} = bridgeOnMemory();
		const first = await connection(connections, 0);
		send(initialize);
		await first.lines.next(message => message.id === 1);
		first.send({jsonrpc: '2.0', id: 1, result: {protocolVersion: '2025-11-25', capabilities: {}, serverInfo: {name: 'hangar', version: '0'}}});
		send({jsonrpc: '2.0', method: 'notifications/initialized'});
		first.sendRaw(Buffer.from('{"jsonrpc":"2.0","id":"hangar-a-1","method":"elicitation/create","params":{"message":"m"}}\n{"jsonrpc":"2.0","method":"notifications/hangar/draining"}\n'));
		await clock.advance(10);
		send({jsonrpc: '2.0', id: 'hangar-a-1', result: {action: 'decline'}});
		send({jsonrpc: '2.0', id: 3, method: 'ping'});
		first.close();
		await expectNoAnswerReachesTheNext(connections, clock, bridge);
	});

	it('refuses a request that reuses the id of one still in flight, and lets the first one be answered', async () => {
		const {client, connections, send} = bridgeOnMemory();
		const first = await connection(connections, 0);
		send({jsonrpc: '2.0', id: 7, method: 'ping'});
		await first.lines.next(message => message.id === 7);
		send({jsonrpc: '2.0', id: 7, method: 'tools/list'});
		const refused = await client.next(message => message.id === 7);
		expect(refused.error?.code).toBe(-32_600);
		expect(first.lines.all.filter(message => message.id === 7)).toHaveLength(1);
		first.send({jsonrpc: '2.0', id: 7, result: {}});
		await vi.waitFor(() => expect(client.all.filter(message => message.id === 7)).toHaveLength(2), {interval: 1});
		expect(client.all.filter(message => message.id === 7)[1]!.result).toEqual({});
	});

	it('owes nothing for a request its client cancelled while it was held, and never sends either', async () => {
		const {client, connections, send, clock} = bridgeOnMemory();
		const first = await connection(connections, 0);
		first.close();
		await clock.advance(0);
		send({jsonrpc: '2.0', id: 'a', method: 'tools/call', params: {name: 'x'}});
		send({jsonrpc: '2.0', method: 'notifications/cancelled', params: {requestId: 'a'}});
		send({jsonrpc: '2.0', id: 'b', method: 'ping'});
		await clock.advance(200);
		const second = await connection(connections, 1);
		await second.lines.next(message => message.id === 'b');
		expect(second.lines.all.map(message => message.id ?? message.method)).toEqual(['b']);
		second.send({jsonrpc: '2.0', id: 'b', result: {}});
		await client.next(message => message.id === 'b');
		expect(client.all.some(message => message.id === 'a')).toBe(false);
	});

	it('answers a request held past its deadline with SupervisorUnavailable and how long it waited, and backs off no further than its cap', async () => {
		const {client, connections, send, clock, bridge, away} = bridgeOnMemory();
		const first = await connection(connections, 0);
		away.now = true;
		first.close();
		await clock.advance(0);
		expect(bridge.state).toBe('backoff');
		send({jsonrpc: '2.0', id: 'slow', method: 'tools/call', params: {name: 'x'}});
		await clock.advance(59_000);
		expect(client.all.some(message => message.id === 'slow')).toBe(false);
		// 100 ms doubling to the 1 s cap, with ±20% jitter: about 60 tries in a minute, each at most 1.2 s after the last.
		expect(away.tries).toBeGreaterThan(50);
		const delays = bridge.machine.transitions().filter(record => record.event === 'retry').map(record => Number(/after (\d+) ms/.exec(record.reason)?.[1]));
		expect(delays.length).toBeGreaterThan(10);
		expect(Math.max(...delays)).toBeLessThanOrEqual(1200);
		await clock.advance(1_000);
		const answer = await client.next(message => message.id === 'slow');
		expect(answer.error?.code).toBe(ErrorCode.SupervisorUnavailable);
		expect(answer.error?.message).toContain('waited 60 s');
		expect(answer.error?.message).toContain('no supervisor is listening');
		expect(connections).toHaveLength(1);
	});
});

describe('the --stdio bridge and a supervisor that closes every connection at once (at its open-file limit)', () => {
	it('backs off, says so once, and answers the held initialize with the reason well before the client gives up', async () => {
		const lines: string[] = [];
		const clock = new ManualClock();
		const input = new PassThrough();
		const output = new PassThrough();
		const client = new Lines(output);
		let tries = 0;
		const bridge = new StdioBridge({
			...memoryOptions(input, output),
			logger: new Logger(line => lines.push(line), 'info'),
			backoff: {initialMs: 100, maxMs: 1000},
			clock,
			connect: async () => {
				tries += 1;
				const {bridgeSide} = connectionPair();
				setImmediate(() => bridgeSide.destroy());
				return bridgeSide;
			},
		});
		bridges.push(bridge);
		inputs.push(input);
		bridge.start();
		input.write(`${JSON.stringify({jsonrpc: '2.0', id: 1, method: 'initialize', params: {protocolVersion: '2025-06-18', capabilities: {}, clientInfo: {name: 'c', version: '1'}}})}\n`);
		await clock.advance(10_000);
		const answer = client.all.find(message => message.id === 1);
		expect(answer?.error?.code).toBe(ErrorCode.SupervisorUnavailable);
		expect(answer?.error?.message).toMatch(/closed the connection before answering.*open-file limit/);
		// The backoff grows as for a supervisor that is not listening: about 14 tries in 10 s, not 100.
		expect(tries).toBeLessThan(25);
		expect(lines.filter(line => line.includes('lost the supervisor') || line.includes('closed the connection')).length).toBeLessThanOrEqual(2);
	});
});

describe('the --stdio bridge and a side that does not read', () => {
	/** A bridge on a connection whose two far ends (the client's stdout, the supervisor's input) nobody reads until asked. */
	function unread() {
		const input = new PassThrough();
		const output = new PassThrough({highWaterMark: 1024});
		const toSupervisor = new PassThrough({highWaterMark: 1024});
		const toBridge = new PassThrough();
		const socket = Duplex.from({readable: toBridge, writable: toSupervisor});
		const bridge = new StdioBridge({
			...memoryOptions(input, output),
			socket,
			backlogBytes: 64 * 1024,
		});
		bridges.push(bridge);
		inputs.push(input);
		bridge.start();
		return {bridge, input, output, socket, toSupervisor, toBridge};
	}

	/** Starts reading `stream`: the ids of the messages on it, as they come. */
	function idsReadFrom(stream: NodeJS.ReadableStream): Set<number> {
		const lines = new Lines(stream);
		const ids = new Set<number>();
		stream.on('data', () => {
			for (const message of lines.all.splice(0)) ids.add(message.id as number);
		});
		return ids;
	}

	const answer = (id: number) => `${JSON.stringify({jsonrpc: '2.0', id, result: {text: 'y'.repeat(8 * 1024)}})}\n`;
	const request = (id: number) => `${JSON.stringify({jsonrpc: '2.0', id, method: 'tools/call', params: {name: 'x', arguments: {text: 'z'.repeat(8 * 1024)}}})}\n`;

	it('stops reading the supervisor while the client has not read 64 KiB of its stdout, and reads on once it has', async () => {
		const {input, output, socket, toSupervisor, toBridge} = unread();
		toSupervisor.resume();
		for (let id = 1; id <= 20; id++) input.write(request(id));
		for (let id = 1; id <= 20; id++) toBridge.write(answer(id));
		await vi.waitFor(() => expect(socket.isPaused()).toBe(true));
		const got = idsReadFrom(output);
		await vi.waitFor(() => expect(got.size).toBe(20));
		expect(socket.isPaused()).toBe(false);
	});

	it('stops reading the client too while it has not read 64 KiB of its stdout (its writes stall), and reads on once it has', async () => {
		const {input, output, socket, toSupervisor, toBridge} = unread();
		toSupervisor.resume();
		for (let id = 1; id <= 20; id++) toBridge.write(answer(id));
		await vi.waitFor(() => expect(socket.isPaused()).toBe(true));
		expect(input.isPaused()).toBe(true);
		idsReadFrom(output);
		await vi.waitFor(() => expect(input.isPaused()).toBe(false));
		expect(socket.isPaused()).toBe(false);
	});

	it('stops reading the client while the supervisor has not read 64 KiB it was sent, and reads on once it has', async () => {
		const {input, toSupervisor} = unread();
		for (let id = 1; id <= 20; id++) input.write(request(id));
		await vi.waitFor(() => expect(input.isPaused()).toBe(true));
		const got = idsReadFrom(toSupervisor);
		await vi.waitFor(() => expect(got.size).toBe(20));
		expect(input.isPaused()).toBe(false);
	});
});
