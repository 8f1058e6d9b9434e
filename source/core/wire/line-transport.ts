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
 * - a line longer than `maxMessageBytes` is discarded as it streams in and
 *   gets -32009, with the request id if one can be found at its start.
 *
 * Blank lines are ignored, and a last line without its newline is read when
 * the input ends. Only serialized JSON-RPC is ever written to the output
 * stream.
 */
import type {Readable, Writable} from 'node:stream';
import type {JSONRPCMessage, Transport} from '@modelcontextprotocol/client';
import {ErrorCode} from '../base/errors.js';
import type {Logger} from '../base/logger.js';
import {
	answerIdText,
	checkJsonRpcLine,
	duplicateIdProblem,
	errorLine,
	idTextOfPrefix,
	isProblem,
	peekMessage,
	type Id,
	type MessageProblem,
} from './message-classifier.js';
import {LineSplitter} from './line-splitter.js';
import {CoalescingWriter} from './write-coalescer.js';

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

export class LineTransport implements Transport {
	onclose?: () => void;
	onerror?: (error: Error) => void;
	onmessage?: (message: JSONRPCMessage) => void;

	private readonly splitter: LineSplitter;
	private closed = false;
	private readonly writer: CoalescingWriter;
	/** Ids of the peer's requests passed on and not answered yet. */
	private readonly inFlight = new Set<Id>();

	constructor(
		private readonly input: Readable,
		private readonly output: Writable,
		private readonly maxMessageBytes: number,
		/** Told how many notifications were dropped so far for a reader that does not keep up (see write-coalescer.ts). */
		onDrop?: (dropped: number) => void,
	) {
		this.writer = new CoalescingWriter(output, {onDrop});
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

			this.inFlight.add(checked.id!);
		} else if (checked.method === 'notifications/cancelled') {
			// A cancelled request is never answered: its id is free again.
			const target = checked.params?.['requestId'];
			if (typeof target === 'string' || typeof target === 'number') this.inFlight.delete(target);
		}

		this.onmessage?.(checked.value as JSONRPCMessage);
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
		if ('id' in message && ('result' in message || 'error' in message)) this.inFlight.delete(message.id as Id);
		await this.write(`${JSON.stringify(message)}\n`, isDroppable(message));
	}

	/** Writes one already serialized JSON-RPC message (ending in a newline). */
	async sendSerialized(line: string): Promise<void> {
		const shape = peekMessage(line);
		if (shape?.response === true && shape.id !== undefined) this.inFlight.delete(shape.id);
		await this.write(line);
	}

	private async write(line: string, droppable = false): Promise<void> {
		if (this.closed || this.output.destroyed || !this.output.writable) return;
		await this.writer.write(line, droppable);
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
