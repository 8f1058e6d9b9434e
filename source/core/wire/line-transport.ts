/**
 * Newline-delimited JSON-RPC over a pair of streams (stdin/stdout for
 * `--stdio`, a connection of the local socket), as an SDK `Transport`.
 * Unlike the SDK's stdio transport it answers bad input itself, by the rule
 * of message-classifier.ts, and keeps reading:
 *
 * - a line that is not JSON gets -32700 (id null);
 * - a request that breaks the rule gets -32600, -32601 or -32602 with its id
 *   as received; a notification or a response that breaks it is reported to
 *   `onerror` and never answered;
 * - a request that reuses the id of one still in flight gets -32600, and the
 *   one in flight still gets its own answer;
 * - a request while `maxInFlight` (1,000) are in flight gets -32015
 *   (TooManyInFlight), and so does a large one (16 KiB or more) while the
 *   large requests in flight already take 16 MiB (`maxInFlightLength`): a
 *   request is held until it is answered, and an upstream slower than the
 *   client would otherwise hold a thousand of the largest; a peer that lets
 *   answers pile up unread is not read until it reads them (backlog.ts):
 *   what one client sends cannot grow hangar's memory without bound;
 * - a line longer than `maxMessageBytes` is discarded as it streams in and
 *   gets -32009, with the request id if one can be found at its start.
 *
 * A session that negotiated protocol 2025-03-26 (the one version with
 * JSON-RPC batches) may send a batch on one line: its notifications and
 * responses are taken as if sent one by one, and the answers to its
 * requests (and the errors of members that break the rule) go out together,
 * as one array on one line, once the last is ready; a batch with no request
 * gets no answer. Any other session's batch gets -32600.
 *
 * Blank lines are ignored, and a last line without its newline is read when
 * the input ends. Only serialized JSON-RPC is ever written to the output
 * stream.
 */
import type {Readable, Writable} from 'node:stream';
import type {JSONRPCMessage, Transport} from '@modelcontextprotocol/client';
import {ErrorCode, JsonRpcCode} from '../base/errors.js';
import type {Logger} from '../base/logger.js';
import {
	answerIdText,
	checkJsonRpcLine,
	checkJsonRpcMessage,
	duplicateIdProblem,
	errorLine,
	idTextOfPrefix,
	isProblem,
	maxInFlightPerClient,
	peekMessage,
	tooManyInFlightProblem,
	type Id,
	type MessageProblem,
} from './message-classifier.js';
import {LineSplitter} from './line-splitter.js';
import {numbersRead, parseExact} from '../base/exact-json.js';
import {batchVersion} from './protocol.js';
import {CoalescingWriter} from './write-coalescer.js';
import {Backlog} from './backlog.js';
import {SteadySet} from '../base/steady-collections.js';

/** Notifications an upstream can send at any rate and a client can do without: dropped rather than queued without bound. */
export function isDroppable(message: JSONRPCMessage): boolean {
	const method = (message as {method?: unknown}).method;
	return !('id' in message) && (method === 'notifications/progress' || method === 'notifications/message');
}

/** Notifications dropped for slow clients since hangar started, across every endpoint (the metrics read it). */
export const notificationDrops = {total: 0};

/** An onDrop for LineTransport that logs the first drop and every 10,000th after it, naming the reader, and counts it. */
export function logDrops(logger: Logger, reader: string): (dropped: number) => void {
	return dropped => {
		notificationDrops.total += 1;
		if (dropped === 1 || dropped % 10_000 === 0) {
			logger.warn(`dropped ${dropped} progress or log notification${dropped === 1 ? '' : 's'} so far to ${reader}: it does not read as fast as they come (its answers are never dropped)`);
		}
	};
}

/** From this length a request counts toward `maxInFlightLength` (the count bounds the smaller ones: 1,000 × 16 KiB). */
const largeRequestLength = 16 * 1024;

/** The most the large requests of one client in flight may take together (characters of their lines); past it, another large one is refused. */
export const maxInFlightLength = 16 * 1024 * 1024;

/** A large request refused while the client's large requests in flight take `length` of at most `limit` characters. */
function tooLargeInFlightProblem(id: Id, length: number, limit: number): MessageProblem {
	const mib = (characters: number) => `${Math.round((characters / 1024 / 1024) * 10) / 10} MiB`;
	return {
		code: ErrorCode.TooManyInFlight,
		message: `request refused: this client's requests in flight already take ${mib(length)}, and this one would pass ${mib(limit)}, the most hangar holds for one client; wait for answers before sending more`,
		id,
	};
}

/** A batch's requests not answered yet, and the answers (and member errors) ready so far, as JSON. */
type Batch = {waiting: Set<Id>; answers: string[]};

export class LineTransport implements Transport {
	onclose?: () => void;
	onerror?: (error: Error) => void;
	onmessage?: (message: JSONRPCMessage) => void;

	private readonly splitter: LineSplitter;
	private closed = false;
	private readonly writer: CoalescingWriter;
	/** Ids of the peer's requests passed on and not answered yet. */
	private readonly inFlight = new SteadySet<Id>();
	/** The length of each large request in flight (see maxInFlightLength), and their sum. */
	private readonly largeInFlight = new Map<Id, number>();
	private largeInFlightLength = 0;
	/** The batch each request of a batch belongs to, until it is answered (see handleBatch). */
	private readonly batchOf = new Map<Id, Batch>();
	/** The id of the peer's initialize, and the protocol version its answer gave (batches are read only under 2025-03-26). */
	private initializeId: Id | undefined;
	private protocolVersion: string | undefined;

	constructor(
		private readonly input: Readable,
		private readonly output: Writable,
		private readonly maxMessageBytes: number,
		/** Told how many notifications were dropped so far for a reader that does not keep up (see write-coalescer.ts). */
		onDrop?: (dropped: number) => void,
		/** Past this many bytes of answers waiting for the peer, its input is not read until it read them (backlog.ts). */
		backlogLimit?: number,
		/** Requests past this many in flight are refused with TooManyInFlight. */
		private readonly maxInFlight = maxInFlightPerClient,
		/** Large requests past this length in flight together are refused with TooManyInFlight. */
		private readonly maxLargeInFlight = maxInFlightLength,
	) {
		// A peer that does not read its answers is not read either: what it sends cannot pile up answers in memory without bound.
		const backlog = new Backlog(output, backlogged => (backlogged ? input.pause() : this.closed || input.resume()), backlogLimit);
		this.writer = new CoalescingWriter(output, {onDrop, backlog});
		this.splitter = new LineSplitter(line => this.handleLine(line), {
			maxBytes: maxMessageBytes,
			policy: 'discard',
			onDiscarded: (prefix, bytes) =>
				this.reply(idTextOfPrefix(prefix), ErrorCode.MessageTooLarge, `message of ${bytes} bytes refused: the limit is ${this.maxMessageBytes} bytes (hangar.maxMessageBytes)`),
		});
	}

	async start(): Promise<void> {
		this.input.setEncoding('utf8');
		this.input.on('data', (chunk: string) => this.splitter.write(chunk));
		this.input.on('end', () => {
			this.splitter.flush();
			this.inputDone();
		});
		this.input.on('close', () => this.inputDone());
		this.input.on('error', error => {
			this.onerror?.(error);
			this.finish();
		});
		this.output.on('error', error => {
			// EPIPE: the client went away. Nothing more can be written.
			this.onerror?.(error);
			this.finish();
		});
	}

	private handleLine(line: string): void {
		if (line.trim() === '') return;
		if (this.protocolVersion === batchVersion && line.trimStart().startsWith('[')) {
			this.handleBatch(line);
			return;
		}

		const checked = checkJsonRpcLine(line);
		if (isProblem(checked)) {
			this.refuse(checked, line);
			return;
		}

		if (checked.kind === 'request') {
			if (this.inFlight.has(checked.id!)) {
				this.refuse(duplicateIdProblem(checked.id!), line);
				return;
			}

			if (this.inFlight.size >= this.maxInFlight) {
				this.refuse(tooManyInFlightProblem(checked.id!, this.maxInFlight), line);
				return;
			}

			if (line.length >= largeRequestLength && !this.takeLarge(checked.id!, line.length)) {
				this.refuse(tooLargeInFlightProblem(checked.id!, this.largeInFlightLength, this.maxLargeInFlight), line);
				return;
			}

			this.inFlight.add(checked.id!);
			if (checked.method === 'initialize') this.initializeId = checked.id;
		} else if (checked.method === 'notifications/cancelled') {
			// A cancelled request is never answered: its id is free again.
			const target = checked.params?.['requestId'];
			if (typeof target === 'string' || typeof target === 'number') {
				this.settle(target);
				this.batchAnswered(target, undefined);
			}
		}

		this.onmessage?.(checked.value as JSONRPCMessage);
	}

	/** A batch line (2025-03-26 sessions): each member taken as one message; the answers go out as one array. */
	private handleBatch(line: string): void {
		let members: unknown;
		try {
			members = parseExact(line);
			if (Array.isArray(members)) members = members.map(numbersRead);
		} catch {
			this.refuse(checkJsonRpcLine(line) as MessageProblem, line);
			return;
		}

		if (!Array.isArray(members) || members.length === 0) {
			this.reply('null', JsonRpcCode.InvalidRequest, 'Invalid Request: the batch is empty; send at least one message');
			return;
		}

		const batch: Batch = {waiting: new Set(), answers: []};
		const take: JSONRPCMessage[] = [];
		// A large batch's requests share its length.
		const share = line.length >= largeRequestLength ? Math.ceil(line.length / members.length) : 0;
		for (const member of members) {
			const checked = checkJsonRpcMessage(member);
			if (isProblem(checked)) {
				if (checked.silent !== true) batch.answers.push(errorLine(answerIdText(checked), checked.code, checked.message));
			} else if (checked.kind !== 'request') {
				take.push(checked.value as JSONRPCMessage);
			} else if (checked.method === 'initialize') {
				batch.answers.push(errorLine(JSON.stringify(checked.id), JsonRpcCode.InvalidRequest, 'Invalid Request: initialize must not be part of a JSON-RPC batch'));
			} else if (this.inFlight.has(checked.id!) || this.inFlight.size >= this.maxInFlight || (share > 0 && !this.takeLarge(checked.id!, share))) {
				const problem = this.inFlight.has(checked.id!)
					? duplicateIdProblem(checked.id!)
					: this.inFlight.size >= this.maxInFlight
						? tooManyInFlightProblem(checked.id!, this.maxInFlight)
						: tooLargeInFlightProblem(checked.id!, this.largeInFlightLength, this.maxLargeInFlight);
				batch.answers.push(errorLine(answerIdText(problem), problem.code, problem.message));
			} else {
				this.inFlight.add(checked.id!);
				this.batchOf.set(checked.id!, batch);
				batch.waiting.add(checked.id!);
				take.push(checked.value as JSONRPCMessage);
			}
		}

		if (batch.waiting.size === 0 && batch.answers.length > 0) void this.write(`[${batch.answers.join(',')}]\n`);
		for (const message of take) {
			const target = (message as {method?: string; params?: Record<string, unknown>}).method === 'notifications/cancelled' ? (message as {params?: Record<string, unknown>}).params?.['requestId'] : undefined;
			if (typeof target === 'string' || typeof target === 'number') {
				this.settle(target);
				this.batchAnswered(target, undefined);
			}

			this.onmessage?.(message);
		}
	}

	/** Counts a large request in flight: false (not counted) when it would take the large ones past the limit (one alone always passes). */
	private takeLarge(id: Id, length: number): boolean {
		if (this.largeInFlightLength > 0 && this.largeInFlightLength + length > this.maxLargeInFlight) return false;
		this.largeInFlight.set(id, length);
		this.largeInFlightLength += length;
		return true;
	}

	/** The peer's request `id` is answered or cancelled: no longer in flight. */
	private settle(id: Id): void {
		this.inFlight.delete(id);
		if (this.largeInFlight.size === 0) return;
		const length = this.largeInFlight.get(id);
		if (length === undefined) return;
		this.largeInFlight.delete(id);
		this.largeInFlightLength -= length;
	}

	/**
	 * Keeps the answer to a batch's request (undefined: it was cancelled, and
	 * gets none); writes the batch's answers once none is missing. False when
	 * `id` is not a batch's.
	 */
	private batchAnswered(id: Id, json: string | undefined): boolean {
		const batch = this.batchOf.get(id);
		if (batch === undefined) return false;
		this.batchOf.delete(id);
		batch.waiting.delete(id);
		if (json !== undefined) batch.answers.push(json);
		if (batch.waiting.size === 0 && batch.answers.length > 0) void this.write(`[${batch.answers.join(',')}]\n`);
		return true;
	}

	/** Notes the protocol version the answer to the peer's initialize gave. */
	private noteAnswer(id: Id, result: unknown): void {
		if (id !== this.initializeId) return;
		const version = (result as {protocolVersion?: unknown} | undefined)?.protocolVersion;
		this.protocolVersion = typeof version === 'string' ? version : undefined;
	}

	private refuse(problem: MessageProblem, line: string): void {
		if (problem.silent === true) {
			// JSON-RPC never answers a notification or a response (two peers doing so could bounce errors forever).
			this.onerror?.(new Error(`ignored a message: ${problem.message}: ${line.slice(0, 200)}`));
			return;
		}

		this.reply(answerIdText(problem), problem.code, problem.message);
	}

	/** Writes a JSON-RPC error straight to the output (for input the SDK never sees; it frees no id in flight). */
	private reply(idText: string, code: number, message: string): void {
		void this.write(`${errorLine(idText, code, message)}\n`);
	}

	async send(message: JSONRPCMessage): Promise<void> {
		await this.sendNow(message);
	}

	/**
	 * `send`, without a promise unless the output is holding writes back: what
	 * the pipeline answers with on the hot path (see sendSerialized).
	 */
	sendNow(message: JSONRPCMessage): Promise<void> | undefined {
		const json = JSON.stringify(message);
		if ('id' in message && ('result' in message || 'error' in message)) {
			const id = message.id as Id;
			this.settle(id);
			if ('result' in message) this.noteAnswer(id, message.result);
			if (this.batchOf.size > 0 && this.batchAnswered(id, json)) return undefined;
		}

		return this.write(`${json}\n`, isDroppable(message));
	}

	/**
	 * Writes one already serialized JSON-RPC message (ending in a newline).
	 * `answerTo`: the caller knows it is the result answering that request
	 * (the pipeline's own answers), so the line is not read again for its id.
	 * Undefined once the line is queued; a promise only while the output holds
	 * writes back (the caller's answer waits for the client to read): a
	 * promise per answer was a cost of every call.
	 */
	sendSerialized(line: string, answerTo?: Id): Promise<void> | undefined {
		const id = answerTo ?? answeredId(line);
		if (id !== undefined) {
			this.settle(id);
			if (this.batchOf.size > 0 && this.batchAnswered(id, line.endsWith('\n') ? line.slice(0, -1) : line)) return undefined;
		}

		return this.write(line);
	}

	private write(line: string, droppable = false): Promise<void> | undefined {
		if (this.closed || this.output.destroyed || !this.output.writable) return undefined;
		return this.writer.write(line, droppable);
	}

	async close(): Promise<void> {
		// Answers queued in this turn go out before whoever owns the stream ends it.
		this.writer.flush();
		this.finish();
	}

	/**
	 * Called when the input ends. When set, the owner may finish the work in
	 * flight (answers are still written) and then calls close(); otherwise the
	 * transport closes at once.
	 */
	onInputEnd?: () => void;
	private inputEnded = false;

	private inputDone(): void {
		if (this.inputEnded) return;
		this.inputEnded = true;
		if (this.onInputEnd === undefined) this.finish();
		else this.onInputEnd();
	}

	private finish(): void {
		if (this.closed) return;
		this.closed = true;
		this.onclose?.();
	}
}

/** The id of a response line (read cheaply, see peekMessage); undefined for anything else. */
function answeredId(line: string): Id | undefined {
	const shape = peekMessage(line);
	return shape?.response === true ? shape.id : undefined;
}
