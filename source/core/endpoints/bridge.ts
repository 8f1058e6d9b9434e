/**
 * `mcp-hangar --stdio` when a supervisor (the TUI or `mcp-hangar serve`) is
 * listening for the same state dir: a thin bridge between the client's
 * stdin/stdout and the supervisor's socket. The client keeps one MCP session
 * however often the supervisor behind it restarts:
 *
 * - Each line from the client is checked by the rule every endpoint of
 *   hangar uses (message-classifier.ts): one that breaks it is answered here,
 *   as the supervisor would answer it, and never sent on; so is a request
 *   that reuses the id of one still owed (a request or notification the
 *   rule certainly passes is read from its bytes, request-scan.ts). The rest
 *   pass through unchanged, and so do the supervisor's lines, as the bytes
 *   that came: of those the bridge reads only the ends, to know what is in
 *   flight (bridge-wire.ts).
 * - When the connection is lost it reconnects with backoff. On the new
 *   connection it replays the client's initialize (its answer is kept from
 *   the client) and notifications/initialized, then sends what arrived in
 *   the meantime, in order, and tells the client the tool list may have
 *   changed.
 * - A request held while there is no supervisor gets a SupervisorUnavailable
 *   error at its deadline, saying what to run. A request in flight when the
 *   supervisor vanished is sent again if it only reads (initialize, ping,
 *   tools/list, ...); a tools/call is answered with an error instead, since
 *   it may already have run. Every request gets exactly one answer, except
 *   one its client cancelled: it is owed nothing.
 * - When the supervisor says it is stopping (notifications/hangar/draining),
 *   the bridge ends its side of the connection, so all it sent is answered
 *   before the connection closes: an orderly restart loses nothing.
 * - It never exits while stdin is open; when stdin closes it waits briefly
 *   for the answers still owed and exits.
 * - A client that does not read its stdout is not read either, nor is the
 *   supervisor's socket for it (core/wire/backlog.ts).
 * - The supervisor's requests to the client still unanswered when the
 *   connection is lost are cancelled at the client (bridge-asks.ts).
 *
 * Nothing but the supervisor's own lines and JSON-RPC errors are ever
 * written to stdout.
 */
import type net from 'node:net';
import {Duplex} from 'node:stream';
import {createBridgeMachine} from './bridge-state.js';
import {ErrorCode, JsonRpcCode} from '../base/errors.js';
import {batchVersion, personActionMethod, drainingNotification, isHangarMethod} from '../wire/protocol.js';
import {
	answerIdText,
	checkJsonRpcLine,
	checkJsonRpcMessage,
	duplicateIdProblem,
	errorLine,
	idTextOfPrefix,
	isProblem,
	type Id,
	type MessageProblem,
	type Peek,
} from '../wire/message-classifier.js';
import {ByteLines, Outlet, readSupervisorLine} from './bridge-wire.js';
import {tuneJitForServing} from '../base/serving-jit.js';
import {closedAtOnce, lostInFlight, readsParams, resendable, unavailableMessage} from './bridge-answers.js';
import {scanRequest} from '../wire/request-scan.js';
import {HeldMessages, isRequest, type Held} from './bridge-held.js';
import {connectSocket, type ConnectFailure} from './socket-client.js';
import type {BridgeOptions} from './bridge-options.js';
import {settleWithin} from '../base/settle.js';
import {BridgeSession} from './bridge-session.js';
import {batchAnswers, batchMembers} from './bridge-batches.js';
import {systemClock, type Cancel, type Clock} from '../base/clock.js';
import {parseExact} from '../base/exact-json.js';
import {ReadGate} from '../wire/backlog.js';
import {SupervisorAsks} from './bridge-asks.js';

const replayPrefix = 'mcp-hangar-bridge:replay:';
export type {BridgeOptions} from './bridge-options.js';

export class StdioBridge {
	readonly machine = createBridgeMachine('stdio');
	private socket: Duplex | undefined;
	private socketWriter: Outlet | undefined;
	private readonly out: Outlet;
	/** The client's stdin, paused while stdout or the socket is backlogged. */
	private readonly stdin: ReadGate;
	private readonly asks: SupervisorAsks;
	private readonly inputSplitter: ByteLines;
	/** Requests sent on the current connection and not yet answered, in the order sent. */
	private readonly pending = new Map<Id, Held>();
	/** Messages waiting for an open connection, in the order received. */
	private readonly queue: HeldMessages;
	private initializeLine: string | undefined;
	/** The client's session negotiated 2025-03-26: its batch lines pass through intact (see fromClientBatch). */
	private takesBatches = false;
	private initializeId: Id | undefined;
	private initializeAnswered = false;
	private clientInitialized = false;
	private replayId: string | undefined;
	/** The log level and subscriptions the client set up, sent again to a new supervisor after initialize. */
	private readonly session: BridgeSession;
	private connections = 0;
	/** Whether the current connection's supervisor has sent a byte; connections in a row it closed before one. */
	private heard = false;
	private closedAtOnce = 0;
	private delayMs: number;
	private retryTimer: Cancel | undefined;
	private readonly clock: Clock;
	private lastFailure: ConnectFailure | undefined;
	private permanent: ConnectFailure | undefined;
	/** Why the supervisor this client started exited without serving (daemon.ts), until a connection opens. */
	private daemonProblem: string | undefined;
	private resolveExit!: (code: number) => void;
	/** Resolves with the exit code once the bridge is done (the client closed stdin, or stdout broke). */
	readonly exited = new Promise<number>(resolve => {
		this.resolveExit = resolve;
	});

	private onSettled: (() => void) | undefined;

	constructor(private readonly options: BridgeOptions) {
		this.clock = options.clock ?? systemClock;
		this.stdin = new ReadGate(options.input);
		this.out = Outlet.pausing(options.output, backlogged => this.outputBacklogged(backlogged), options.backlogBytes);
		this.delayMs = options.backoff?.initialMs ?? 100;
		this.queue = new HeldMessages(this.clock, options.requestTimeoutMs, held => this.answerUnavailable(held));
		this.session = new BridgeSession(message => options.logger.warn(message));
		this.asks = new SupervisorAsks(message => options.logger.debug(message));
		// A line that passes goes to the supervisor as the bytes that came (fromClient says which).
		this.inputSplitter = new ByteLines((bytes, start, end) => this.fromClientBytes(bytes, start, end), bytes => this.socketWriter!.write(bytes), {
			maxBytes: options.maxMessageBytes,
			onDiscarded: (prefix, bytes) => {
				this.writeOut(`${errorLine(idTextOfPrefix(prefix), ErrorCode.MessageTooLarge, `message of ${bytes} bytes refused: the limit is ${options.maxMessageBytes} bytes (hangar.maxMessageBytes)`)}\n`);
			},
		});
		this.machine.onTransition(record => options.logger.debug(`bridge: ${record.from} -> ${record.to} (${record.event}): ${record.reason}`));
	}

	start(): void {
		const {input, output} = this.options;
		// What one read makes the bridge write goes out in one write to each side (bridge-wire.ts).
		const handle = (chunk?: Buffer | string) => Outlet.holdingDuring(this.socketWriter, this.out, () => (chunk === undefined ? this.inputSplitter.flush() : this.inputSplitter.write(typeof chunk === 'string' ? Buffer.from(chunk) : chunk)));
		input.on('data', handle);
		input.once('end', () => {
			handle();
			void this.clientClosed('stdin closed');
		});
		input.once('close', () => void this.clientClosed('stdin closed'));
		output.on('error', () => void this.clientClosed('stdout closed (the client went away)'));
		if (this.options.socket === undefined) void this.connect();
		else this.attach(this.options.socket);
	}

	/** Past the limit unread on stdout neither the socket nor stdin is read, until the client read it (core/wire/backlog.ts). */
	private outputBacklogged(backlogged: boolean): void {
		void (backlogged ? this.socket?.pause() : this.socket?.resume());
		this.stdin.hold(backlogged);
	}

	get state(): string {
		return this.machine.state;
	}

	// -------------------------------------------------------------------------
	// From the client

	/**
	 * A line from the client: true when it goes to the supervisor as it came (the connection is open).
	 * A request or notification the rule certainly passes is read from its bytes (request-scan.ts),
	 * unless the bridge keeps something of its params; any other line is decoded and checked in full.
	 */
	private fromClientBytes(bytes: Buffer, start: number, end: number): boolean {
		const scanned = scanRequest(bytes, start, end);
		if (scanned === undefined || readsParams(scanned.method)) return this.fromClient(bytes.toString('utf8', start, end));
		const {id, method} = scanned;
		const shape: Peek = {id, method, response: false, error: false};
		if (!this.admits(shape)) return false;
		if (method === 'notifications/initialized') this.clientInitialized = true;
		// The text is kept only for a message that may be sent later, or again (a call in flight never is).
		const open = this.machine.state === 'open';
		return this.route({line: open && (id === undefined || !resendable(method)) ? undefined : bytes.toString('utf8', start, end), shape, heldSince: this.clock.now()});
	}

	private fromClient(line: string): boolean {
		if (line.trim() === '') return false;
		if (this.takesBatches && line.trimStart().startsWith('[') && this.fromClientBatch(line)) return false;
		const checked = checkJsonRpcLine(line);
		if (isProblem(checked)) {
			this.refuse(checked);
			return false;
		}

		const {method, id} = checked;
		const shape: Peek = {id, method, response: checked.kind === 'response', error: checked.kind === 'response' && 'error' in checked.value};
		if (shape.response && id !== undefined && this.asks.any && !this.asks.answered(id)) return false;
		if (!this.admits(shape)) return false;
		if (checked.kind === 'request') this.session.request(id!, method, checked.params);
		if (method === 'initialize' && id !== undefined) {
			this.initializeLine = line;
			this.initializeId = id;
			this.initializeAnswered = false;
		} else if (method === 'notifications/initialized') {
			this.clientInitialized = true;
		} else if (method === 'notifications/cancelled') {
			const target = checked.params?.['requestId'];
			if (this.queue.remove(target) !== undefined) {
				// Never sent: drop the request and the cancellation both (no answer is owed for a cancelled request).
				this.session.cancelled(target as Id);
				this.settled();
				return false;
			}

			// Sent: the supervisor will not answer it, and nothing is owed (a late answer still passes through).
			if ((typeof target === 'string' || typeof target === 'number') && this.pending.delete(target)) {
				this.session.cancelled(target);
				this.settled();
			}
		}

		// The text is kept only for a message that may be sent later, or again (as in fromClientBytes).
		const kept = this.machine.state !== 'open' || (id !== undefined && method !== undefined && resendable(method));
		return this.route({line: kept ? line : undefined, shape, heldSince: this.clock.now()});
	}

	/** What the bridge itself refuses of a message the rule passes: hangar's own methods, and a request id still owed. */
	private admits({id, method, response}: Peek): boolean {
		if (method !== undefined) tuneJitForServing(); // A client now: the line path is compiled soon (serving-jit.ts).
		if (method !== undefined && isHangarMethod(method)) {
			// A person's commands come from the CLI on the socket itself, never from an MCP client.
			if (id !== undefined) this.answerError(id, JsonRpcCode.MethodNotFound, `Method not found: "${method}" is not available to MCP clients (${personActionMethod} is for mcp-hangar's own CLI)`);
			return false;
		}

		if (method !== undefined && id !== undefined && !response && this.owes(id)) {
			this.refuse(duplicateIdProblem(id));
			return false;
		}

		return true;
	}

	/** A message that passed: sent (true: as it came), held for a connection, or answered when none can be. */
	private route(held: Held): boolean {
		if (this.machine.state === 'unusable') {
			if (held.shape.id !== undefined && !held.shape.response) this.answerUnavailable(held);
			return false;
		}

		if (this.machine.state === 'open') return this.track(held);
		this.hold(held);
		return false;
	}

	/**
	 * A batch line of a 2025-03-26 session: passed on intact (the supervisor answers it with one array
	 * line), its requests owed like any others. Held while there is no supervisor, its members go one by
	 * one once there is (and are answered one by one): a batch never waits for a reconnect whole. False
	 * for a line that is not a JSON array (checked as one message).
	 */
	private fromClientBatch(line: string): boolean {
		const members = batchMembers(line);
		if (members === undefined) return false;
		const helds: Held[] = [];
		for (const member of members) {
			const checked = checkJsonRpcMessage(member);
			if (!isProblem(checked) && checked.kind === 'response' && checked.id !== undefined) this.asks.answered(checked.id); // in a batch as alone
			if (isProblem(checked) || checked.kind !== 'request' || this.owes(checked.id!)) continue;
			if (this.machine.state === 'open') this.session.request(checked.id!, checked.method, checked.params);
			helds.push({line: JSON.stringify(member), shape: {id: checked.id, method: checked.method, response: false, error: false}, heldSince: Date.now()});
		}
		if (this.machine.state === 'unusable') {
			for (const held of helds) this.answerUnavailable(held);
			return true;
		}

		if (this.machine.state !== 'open') {
			// Members the supervisor's own rule refuses are refused by it when they come one by one.
			for (const member of members) this.fromClient(JSON.stringify(member));
			return true;
		}

		for (const held of helds) this.pending.set(held.shape.id!, held);
		this.socketWriter!.write(`${line}\n`);
		return true;
	}

	/** A batch's answers from the supervisor: one array line, passed on as it came. */
	private batchFromSupervisor(line: string): void {
		for (const {id, error} of batchAnswers(line)) if (this.pending.delete(id)) this.session.answered(id, error);
		this.writeOut(`${line}\n`);
		this.settled();
	}

	/** Whether a request with this id was received and is not answered yet (sent, or held). */
	private owes(id: Id): boolean {
		return this.pending.has(id) || this.queue.owes(id);
	}

	/** Answers a line that breaks the JSON-RPC rule, as the supervisor would; a notification's or a response's problem is only logged. */
	private refuse(problem: MessageProblem): void {
		if (problem.silent === true) {
			this.options.logger.debug(`bridge: ignored a message from the client: ${problem.message}`);
			return;
		}

		this.writeOut(`${errorLine(answerIdText(problem), problem.code, problem.message)}\n`);
	}

	private send(held: Held): void {
		this.track(held);
		this.socketWriter!.write(`${held.line!}\n`);
	}

	/** A request sent is owed an answer. */
	private track(held: Held): true {
		if (held.shape.id !== undefined && held.shape.method !== undefined) this.pending.set(held.shape.id, held);
		return true;
	}

	private hold(held: Held): void {
		// An answer is owed to the connection that asked (its ids are that supervisor's): never to the next one.
		if (held.shape.response) return void this.options.logger.debug(`bridge: dropped the client's answer to ${JSON.stringify(held.shape.id)}: the supervisor that asked is gone`);
		if (this.queue.length >= (this.options.maxHeld ?? 10_000)) {
			// A client flooding a long outage: refuse rather than grow without bound.
			if (isRequest(held)) this.answerUnavailable(held, `${this.queue.length} messages are already waiting`);
			else this.options.logger.warn(`bridge: dropped a ${held.shape.method ?? 'message'} from the client: ${this.queue.length} messages are already waiting for a supervisor`);
			return;
		}

		this.queue.push(held);
	}

	// -------------------------------------------------------------------------
	// The connection

	private async connect(): Promise<void> {
		const result = await (this.options.connect ?? (async () => connectSocket(this.options.socketPath, 2000)))();
		if (this.machine.state !== 'connecting') {
			if (result instanceof Duplex) result.destroy();
			return;
		}

		if (result instanceof Duplex) {
			this.attach(result);
			return;
		}

		this.connectFailed(result);
	}

	private connectFailed(failure: ConnectFailure): void {
		this.lastFailure = failure;
		if (failure.kind === 'permanent') {
			this.permanent = failure;
			this.machine.apply('refused', failure.message);
			this.options.logger.error(`bridge: the supervisor's socket can never work as configured: ${failure.message}`);
			for (const held of this.queue.takeAll()) if (held.shape.id !== undefined && !held.shape.response) this.answerUnavailable(held);

			return;
		}

		this.machine.apply('connect_failed', failure.message);
		this.scheduleRetry();
	}

	private scheduleRetry(): void {
		const jitter = 0.8 + Math.random() * 0.4;
		const delay = Math.round(this.delayMs * jitter);
		this.delayMs = Math.min(this.delayMs * 2, this.options.backoff?.maxMs ?? 1000);
		this.retryTimer = this.clock.after(delay, () => {
			this.retryTimer = undefined;
			if (this.machine.state !== 'backoff') return;
			this.machine.apply('retry', `retrying after ${delay} ms`);
			void this.connect();
		});
	}

	private attach(socket: Duplex): void {
		this.socket = socket;
		const writer = Outlet.pausing(socket, backlogged => this.stdin.hold(backlogged), this.options.backlogBytes);
		this.socketWriter = writer;
		this.connections += 1;
		const reconnect = this.connections > 1;
		(socket as Partial<net.Socket>).setNoDelay?.(true);
		// The supervisor checked what it writes: no limit, no check, its lines pass on as they came.
		const lines = new ByteLines((bytes, start, end) => this.fromSupervisor(bytes, start, end), bytes => this.out.write(bytes));
		this.heard = false;
		socket.on('data', (chunk: Buffer | string) => {
			// The backoff starts over once a supervisor talks, not on connecting: one at its open-file limit accepts and closes.
			if (!this.heard) [this.heard, this.closedAtOnce, this.delayMs] = [true, 0, this.options.backoff?.initialMs ?? 100];
			Outlet.holdingDuring(writer, this.out, () => lines.write(typeof chunk === 'string' ? Buffer.from(chunk) : chunk));
		});
		if (this.out.backlog?.backlogged) socket.pause(); // The client has not read what the last supervisor sent yet.
		socket.on('error', error => this.options.logger.debug(`bridge: socket error: ${error.message}`));
		// The supervisor ended its side (it stopped, or it was killed): the connection is over.
		socket.once('end', () => socket.destroy());
		socket.once('close', () => this.connectionClosed(socket));

		if (reconnect) this.options.logger.info(`bridge: connected to the supervisor again (connection ${this.connections})`);
		if (this.initializeLine !== undefined && this.initializeAnswered) {
			this.machine.apply('replay', 'connected to a new supervisor; replaying the client\'s initialize');
			this.replayId = `${replayPrefix}${this.connections}`;
			const replay = parseExact(this.initializeLine) as Record<string, unknown>;
			replay['id'] = this.replayId;
			this.socketWriter.write(`${JSON.stringify(replay)}\n`);
			return;
		}

		this.machine.apply('connected', reconnect ? 'connected to a new supervisor' : 'connected to the supervisor');
		this.opened(reconnect);
	}

	/** The connection is ready: send what was held, in order. */
	private opened(reconnect: boolean): void {
		this.lastFailure = undefined;
		this.daemonProblem = undefined;
		for (const held of this.queue.takeAll()) this.send(held);
		// The new supervisor's tool set may differ from the old one's.
		if (reconnect && this.clientInitialized) this.writeOut('{"jsonrpc":"2.0","method":"notifications/tools/list_changed"}\n');
	}

	/** A line from the supervisor (`bytes` from `start` to `end`): true when it passes to the client as it came. */
	private fromSupervisor(bytes: Buffer, start: number, end: number): boolean {
		const shape = readSupervisorLine(bytes, start, end);
		if (shape.kind === 'batch') {
			this.batchFromSupervisor(bytes.toString('utf8', start, end));
			return false;
		}

		if (shape.kind === 'answer') {
			if (shape.id === this.replayId) {
				this.replayAnswered(bytes.toString('utf8', start, end));
				return false;
			}

			if (this.session.isOwn(shape.id)) return false;
			if (this.pending.delete(shape.id)) {
				this.session.answered(shape.id, shape.error);
				if (shape.id === this.initializeId) {
					this.initializeAnswered = !shape.error;
					// Batches pass only for a session that negotiated the one version that has them.
					const answer = JSON.parse(bytes.toString('utf8', start, end)) as {result?: {protocolVersion?: unknown}};
					this.takesBatches = !shape.error && answer.result?.protocolVersion === batchVersion;
				}

				this.settled();
			}

			return true;
		}

		if (shape.method === drainingNotification) {
			if (this.machine.state === 'open') {
				this.machine.apply('draining', 'the supervisor is stopping; finishing what was sent before moving on');
				this.socketWriter?.flush();
				this.socket?.end();
			}

			return false;
		}

		// A request to the client is owed its answer; the supervisor may withdraw it.
		if (shape.id !== undefined) this.asks.asked(shape.id);
		else if (shape.method === 'notifications/cancelled' && this.asks.waiting) this.asks.cancelled(bytes.toString('utf8', start, end));
		return true;
	}

	private replayAnswered(line: string): void {
		this.replayId = undefined;
		const error = (JSON.parse(line) as {error?: {message?: string}}).error;
		if (error !== undefined) {
			this.connectFailed({kind: 'permanent', code: 'INITIALIZE_REFUSED', message: `the supervisor refused the client's initialize: ${error.message ?? 'no message'}`});
			this.socket?.destroy();
			return;
		}

		if (this.clientInitialized) {
			this.socketWriter!.write('{"jsonrpc":"2.0","method":"notifications/initialized"}\n');
			this.queue.filter(held => held.shape.method !== 'notifications/initialized');
		}

		for (const line of this.session.replay(`${replayPrefix}${this.connections}:`)) this.socketWriter!.write(`${line}\n`);

		this.machine.apply('replayed', 'the client\'s initialize was replayed');
		this.opened(true);
	}

	private connectionClosed(socket: Duplex): void {
		if (socket !== this.socket) return;
		this.socket = undefined;
		const state = this.machine.state;
		if (state === 'closed' || state === 'unusable') {
			this.settled();
			return;
		}

		// Its requests to the client: nobody takes their answers now.
		for (const line of this.asks.lost()) this.writeOut(line);
		// Requests the lost supervisor never answered: read-only ones are sent again, calls are answered.
		const again: Held[] = [];
		for (const held of this.pending.values()) {
			if (held.shape.method !== undefined && resendable(held.shape.method)) {
				again.push(held);
			} else {
				this.answerError(held.shape.id!, ErrorCode.SupervisorUnavailable, lostInFlight(held.shape.method), {error: 'SupervisorUnavailable', operation: held.shape.method, socket: this.options.socketPath});
			}
		}

		this.pending.clear();
		const lost = this.replayId !== undefined || again.length > 0;
		this.replayId = undefined;
		// A supervisor that never said a word did not take the request: its deadline stands.
		if (this.heard) for (const held of again) held.heldSince = this.clock.now();
		this.queue.putBack(again);

		if (state === 'draining' && !lost) {
			this.machine.apply('drained', 'the stopping supervisor answered everything and closed the connection');
			this.options.logger.info('bridge: the supervisor stopped; reconnecting');
			void this.connect();
		} else {
			this.machine.apply('lost', 'the connection to the supervisor closed');
			if (this.heard) this.options.logger.warn(`bridge: lost the supervisor at ${this.options.socketPath}; reconnecting with backoff`);
			else this.closedUnheard();
			this.scheduleRetry();
		}

		this.settled();
	}

	/** The supervisor this client started exited without serving, for `why`: held requests are told (see answerUnavailable), at once when `final` (no more starts). */
	daemonFailed(why: string, final = false): void {
		if (this.machine.state === 'open' || this.machine.state === 'replaying') return;
		this.daemonProblem = why;
		if (final) this.answerHeld();
	}

	/** The supervisor closed the connection before a byte: said once, and after 5 in a row the held requests are answered why. */
	private closedUnheard(): void {
		this.closedAtOnce += 1;
		if (this.closedAtOnce === 1) this.options.logger.warn(`bridge: the supervisor at ${this.options.socketPath} closed the connection before a word (if it goes on, it is at its open-file limit); reconnecting with backoff`);
		if (this.closedAtOnce < 5) return;
		this.lastFailure = {kind: 'temporary', code: 'ECONNRESET', message: closedAtOnce(this.options.socketPath)};
		this.answerHeld();
	}

	/** Answers every held request now, with why (see answerUnavailable); held notifications and answers wait on. */
	private answerHeld(): void {
		for (const held of this.queue.takeRequests()) this.answerUnavailable(held);
	}

	// -------------------------------------------------------------------------
	// Answers the bridge writes itself

	private answerUnavailable(held: Held, why?: string): void {
		const {stateDir, socketPath} = this.options;
		const waitedSeconds = Math.round((this.clock.now() - held.heldSince) / 1000);
		const facts = {why, permanent: this.permanent?.message, daemonProblem: this.daemonProblem, lastFailure: this.lastFailure?.message, refusing: this.closedAtOnce >= 5};
		const message = unavailableMessage({method: held.shape.method, stateDir, waitedSeconds, ...facts});
		this.answerError(held.shape.id!, ErrorCode.SupervisorUnavailable, message, {error: 'SupervisorUnavailable', operation: held.shape.method, socket: socketPath, permanent: this.permanent !== undefined});
		this.settled();
	}

	private answerError(id: Id, code: number, message: string, data?: unknown): void {
		this.writeOut(`${errorLine(JSON.stringify(id), code, message, data)}\n`);
	}

	private writeOut(line: string): void {
		const {output} = this.options;
		if (output.destroyed || !output.writable) return;
		this.out.write(line);
	}

	// -------------------------------------------------------------------------
	// Closing

	/** Everything owed has been answered: nothing pending, no request held. */
	private get owesNothing(): boolean {
		return this.pending.size === 0 && !this.queue.holdsIds;
	}

	private settled(): void {
		if (this.owesNothing) this.onSettled?.();
	}

	private async clientClosed(reason: string): Promise<void> {
		if (this.machine.state === 'closed') return;
		const drainMs = this.options.drainMs ?? 5000;
		if (!this.owesNothing && !reason.startsWith('stdout')) await settleWithin(new Promise<void>(resolve => (this.onSettled = resolve)), drainMs);
		// The wait may have ended with the bridge closed by another path (stdout broke meanwhile).
		if ((this.machine.state as string) === 'closed') return;
		// Still owed after the wait: answered, so no request goes unanswered.
		for (const held of this.queue.takeAll()) if (isRequest(held)) this.answerUnavailable(held);

		for (const {shape} of this.pending.values()) this.answerError(shape.id!, ErrorCode.SupervisorUnavailable, `mcp-hangar: "${shape.method ?? 'request'}" was not answered within ${drainMs} ms of stdin closing; the bridge is exiting.`, {error: 'SupervisorUnavailable', operation: shape.method});
		this.pending.clear();
		this.machine.apply('client_closed', reason);
		this.retryTimer?.();
		this.socketWriter?.flush();
		this.socket?.end();
		this.socket?.destroy();
		this.out.flush();
		this.options.logger.info(`bridge: ${reason}; exiting`);
		this.resolveExit(0);
	}
}

