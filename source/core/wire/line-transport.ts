/**
 * Newline-delimited JSON-RPC over a pair of streams (stdin/stdout for
 * `--stdio`; later a socket), as an SDK `Transport`. Unlike the SDK's stdio
 * transport it answers bad input itself and keeps reading:
 *
 * - a line that is not JSON gets -32700 (id null);
 * - JSON that is not a JSON-RPC 2.0 message (or a batch) gets -32600;
 * - a line longer than `maxMessageBytes` is discarded as it streams in and
 *   gets -32009, with the request id if one can be found at its start.
 *
 * Only serialized JSON-RPC is ever written to the output stream.
 */
import type {Readable, Writable} from 'node:stream';
import type {Transport} from '@modelcontextprotocol/sdk/shared/transport.js';
import type {JSONRPCMessage} from '@modelcontextprotocol/sdk/types.js';
import {ErrorCode, JsonRpcCode} from '../base/errors.js';
import {isPlainObject} from './json-rpc-check.js';
import {LineSplitter} from './line-splitter.js';
import {CoalescingWriter} from './write-coalescer.js';

type Id = string | number | null;

/**
 * The top-level `"id"` of a message from the first bytes of its line, or null.
 * Only a key of the outermost object counts (an `"id"` inside `params` must
 * not be mistaken for the request's), and only a complete string or number
 * value (one cut off by the end of the prefix could be the wrong id).
 */
export function guessId(prefix: string): Id {
	let depth = 0;
	let index = 0;
	while (index < prefix.length) {
		const char = prefix[index];
		if (char === '"') {
			const string = /^"(?:[^"\\]|\\.)*"/.exec(prefix.slice(index));
			if (string === null) return null;
			index += string[0].length;
			if (depth === 1 && string[0] === '"id"' && /^\s*:/.test(prefix.slice(index))) {
				const value = /^\s*:\s*("(?:[^"\\]|\\.)*"|-?\d+(?:\.\d+)?(?:[eE][+-]?\d+)?)\s*[,}]/.exec(prefix.slice(index));
				if (value === null) return null;
				try {
					const id = JSON.parse(value[1]!) as string | number;
					return typeof id === 'number' && !Number.isFinite(id) ? null : id;
				} catch {
					return null;
				}
			}

			continue;
		}

		if (char === '{' || char === '[') depth += 1;
		else if (char === '}' || char === ']') depth -= 1;
		index += 1;
	}

	return null;
}

export class LineTransport implements Transport {
	onclose?: () => void;
	onerror?: (error: Error) => void;
	onmessage?: (message: JSONRPCMessage) => void;

	private readonly splitter: LineSplitter;
	private closed = false;
	private readonly writer: CoalescingWriter;

	constructor(
		private readonly input: Readable,
		private readonly output: Writable,
		private readonly maxMessageBytes: number,
	) {
		this.writer = new CoalescingWriter(output);
		this.splitter = new LineSplitter(
			maxMessageBytes,
			line => this.handleLine(line),
			(prefix, bytes) =>
				this.reply(guessId(prefix), ErrorCode.MessageTooLarge, `message of ${bytes} bytes refused: the limit is ${this.maxMessageBytes} bytes (hangar.maxMessageBytes)`),
		);
	}

	async start(): Promise<void> {
		this.input.setEncoding('utf8');
		this.input.on('data', (chunk: string) => this.splitter.push(chunk));
		this.input.on('end', () => this.inputDone());
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
		let value: unknown;
		try {
			value = JSON.parse(line);
		} catch (error) {
			this.reply(null, JsonRpcCode.ParseError, `Parse error: the line is not valid JSON (${(error as Error).message})`);
			return;
		}

		if (!isPlainObject(value)) {
			this.reply(null, JsonRpcCode.InvalidRequest, Array.isArray(value) ? 'Invalid Request: JSON-RPC batches are not supported by MCP' : 'Invalid Request: expected a JSON-RPC object');
			return;
		}

		const message = value as Record<string, unknown>;
		const id = message['id'];
		const validId = typeof id === 'string' || (typeof id === 'number' && Number.isFinite(id));
		const replyId: Id = validId ? (id as string | number) : null;
		if (message['jsonrpc'] !== '2.0') {
			this.reply(replyId, JsonRpcCode.InvalidRequest, 'Invalid Request: "jsonrpc" must be "2.0"');
			return;
		}

		if ('method' in message) {
			if (typeof message['method'] !== 'string') {
				this.reply(replyId, JsonRpcCode.InvalidRequest, 'Invalid Request: "method" must be a string');
				return;
			}

			if ('id' in message && !validId) {
				this.reply(null, JsonRpcCode.InvalidRequest, 'Invalid Request: "id" must be a string or a number');
				return;
			}

			if ('params' in message && !isPlainObject(message['params'])) {
				if (validId) this.reply(replyId, JsonRpcCode.InvalidParams, 'Invalid params: "params" must be an object');
				return;
			}
		} else if ('result' in message || 'error' in message) {
			// A response. JSON-RPC never answers a response (two peers doing so
			// could bounce errors forever), so one that cannot be matched to a
			// request is reported to the session's error handler and dropped.
			if (!validId) {
				this.onerror?.(new Error(`ignored a response with an invalid id: ${line.slice(0, 200)}`));
				return;
			}
		} else {
			this.reply(replyId, JsonRpcCode.InvalidRequest, 'Invalid Request: expected a request, a notification or a response');
			return;
		}

		this.onmessage?.(message as JSONRPCMessage);
	}

	/** Writes a JSON-RPC error straight to the output (used for input the SDK never sees). */
	private reply(id: Id, code: number, message: string, data?: unknown): void {
		void this.send({jsonrpc: '2.0', id, error: {code, message, ...(data === undefined ? {} : {data})}} as unknown as JSONRPCMessage);
	}

	async send(message: JSONRPCMessage): Promise<void> {
		await this.sendSerialized(`${JSON.stringify(message)}\n`);
	}

	/** Writes one already serialized JSON-RPC message (ending in a newline). */
	async sendSerialized(line: string): Promise<void> {
		if (this.closed || this.output.destroyed || !this.output.writable) return;
		await this.writer.write(line);
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
