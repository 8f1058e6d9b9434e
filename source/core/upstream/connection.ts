/**
 * One live MCP session with one upstream, over stdio (a child process behind
 * `ChildProcessTransport`) or over the network (Streamable HTTP, falling back
 * to SSE). This is one of the few modules that import the MCP SDK; the rest
 * of the engine sees `UpstreamConnection` only.
 *
 * Calls are sent with `client.request(..., CallToolResultSchema)` rather than
 * `client.callTool`, so hangar forwards what the upstream said instead of
 * re-judging its structured output.
 */
import {Client} from '@modelcontextprotocol/sdk/client/index.js';
import {SSEClientTransport} from '@modelcontextprotocol/sdk/client/sse.js';
import {StreamableHTTPClientTransport} from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type {Transport} from '@modelcontextprotocol/sdk/shared/transport.js';
import {AjvJsonSchemaValidator} from '@modelcontextprotocol/sdk/validation/ajv';
import {z} from 'zod';
import {
	EmptyResultSchema,
	ListToolsResultSchema,
	LoggingMessageNotificationSchema,
	McpError,
	ToolListChangedNotificationSchema,
	type CallToolResult,
	type JSONRPCMessage,
	type Progress,
} from '@modelcontextprotocol/sdk/types.js';
import {JsonRpcError} from '../base/errors.js';
import type {ServerConfig, ToolDefinition} from '../config/config.js';
import type {LogBuffer} from './log-buffer.js';
import {isPlainObject} from '../wire/json-rpc-check.js';
import {ChildProcessTransport, type ExitInfo} from './child-process-transport.js';

export type {CallToolResult, Progress};

export const clientInfo = {name: 'mcp-hangar', version: '0.1.0'};

/**
 * Accepts any object as a tools/call result: hangar forwards what the upstream
 * said (structured content and all) instead of re-validating it, and skips a
 * schema parse on the hot path.
 */
const passthroughResult = z.custom<CallToolResult>(value => isPlainObject(value), {
	message: 'expected a tools/call result object',
});

/** A JSON-RPC error the upstream itself answered with (not a transport failure). */
export class UpstreamRpcError extends JsonRpcError {
	constructor(code: number, message: string, data: unknown) {
		super(code, message, data);
		this.name = 'UpstreamRpcError';
	}
}

/** The request got no answer within its timeout; the SDK has sent notifications/cancelled upstream. */
export class UpstreamTimeoutError extends Error {
	constructor(readonly timeoutMs: number) {
		super(`no answer within ${timeoutMs} ms`);
		this.name = 'UpstreamTimeoutError';
	}
}

/** The caller's signal aborted the request; the SDK has sent notifications/cancelled upstream. */
export class RequestCancelledError extends Error {
	constructor() {
		super('cancelled by the caller');
		this.name = 'RequestCancelledError';
	}
}

/** The connection closed under a request (crash, exit, network drop). */
export class ConnectionLostError extends Error {
	constructor(message = 'connection to the upstream closed') {
		super(message);
		this.name = 'ConnectionLostError';
	}
}

export type ConnectionEvents = {
	onClose: (exit: ExitInfo | undefined) => void;
	onToolsChanged: () => void;
};

const NO_SDK_TIMEOUT = 2_147_000_000;

/** One JSON Schema validator for every upstream client: each Client would otherwise build its own Ajv (~120 KiB). */
let sharedValidator: AjvJsonSchemaValidator | undefined;

type Waiter = (message: JSONRPCMessage | Error) => void;

export class UpstreamConnection {
	private closedByUs = false;
	private closed = false;
	/** tools/call requests sent by the fast path, by their ("h"-prefixed string) id. */
	private readonly pending = new Map<string, Waiter>();
	private nextId = 0;
	private fast = false;

	private constructor(
		private readonly client: Client,
		private readonly transport: Transport,
		private readonly child: ChildProcessTransport | undefined,
	) {}

	/**
	 * Spawns or connects, and runs `initialize`. Rejects when the signal
	 * aborts (start timeout, stop) after tearing down whatever was started.
	 */
	static async open(
		config: ServerConfig,
		log: LogBuffer,
		events: ConnectionEvents,
		signal: AbortSignal,
		graceMs: number,
	): Promise<UpstreamConnection> {
		sharedValidator ??= new AjvJsonSchemaValidator();
		const client = new Client(clientInfo, {capabilities: {}, jsonSchemaValidator: sharedValidator});
		let connection: UpstreamConnection | undefined;
		let transport: Transport;
		let child: ChildProcessTransport | undefined;

		if (config.launch.kind === 'stdio') {
			child = new ChildProcessTransport(config.launch, log);
			transport = child;
		} else {
			transport = await connectRemote(config, client, log, signal);
		}

		client.onerror = error => log.push('hangar', `protocol error: ${error.message}`);
		client.onclose = () => {
			if (connection === undefined || connection.closed) return;
			connection.closed = true;
			if (!connection.closedByUs) events.onClose(child?.exit);
			connection.failPending();
		};
		client.setNotificationHandler(ToolListChangedNotificationSchema, () => events.onToolsChanged());
		client.setNotificationHandler(LoggingMessageNotificationSchema, notification => {
			const data = notification.params.data;
			log.push('hangar', `log ${notification.params.level}: ${typeof data === 'string' ? data : JSON.stringify(data)}`);
		});

		connection = new UpstreamConnection(client, transport, child);
		const abort = () => {
			void connection?.close(graceMs);
		};

		signal.addEventListener('abort', abort, {once: true});
		try {
			if (config.launch.kind === 'stdio') {
				await client.connect(transport, {signal, timeout: NO_SDK_TIMEOUT});
				connection.installFastPath();
			}

			signal.throwIfAborted();
			return connection;
		} catch (error) {
			await connection.close(graceMs);
			throw error;
		} finally {
			signal.removeEventListener('abort', abort);
		}
	}

	get pid(): number | undefined {
		return this.child?.pid;
	}

	get exit(): ExitInfo | undefined {
		return this.child?.exit;
	}

	get isOpen(): boolean {
		return !this.closed;
	}

	/**
	 * The hot path for stdio upstreams: tools/call without progress is sent and
	 * matched here, by ids the SDK never uses (strings starting with "h"; the
	 * SDK's are numbers), skipping the SDK request machinery. Everything else
	 * (initialize, tools/list, ping, calls with progress, notifications)
	 * still goes through the SDK client.
	 */
	installFastPath(): void {
		const child = this.child;
		const sdk = child?.onmessage;
		if (child === undefined || sdk === undefined) return;
		child.onmessage = message => {
			const id = (message as {id?: unknown}).id;
			if (typeof id === 'string' && id.startsWith('h') && !('method' in message)) {
				const waiter = this.pending.get(id);
				this.pending.delete(id);
				// A late answer to a call that timed out or was cancelled is dropped, as the SDK would.
				waiter?.(message);
				return;
			}

			sdk(message);
		};

		this.fast = true;
	}

	/** Fails every fast-path call in flight: the connection is gone. */
	failPending(): void {
		const waiters = [...this.pending.values()];
		this.pending.clear();
		for (const waiter of waiters) waiter(new ConnectionLostError());
	}

	private async fastCall(
		params: Record<string, unknown>,
		options: {signal?: AbortSignal | undefined; timeoutMs: number},
	): Promise<CallToolResult> {
		const child = this.child!;
		return new Promise<CallToolResult>((resolve, reject) => {
			if (this.closed) {
				reject(new ConnectionLostError());
				return;
			}

			const id = `h${this.nextId++}`;
			const cleanup = () => {
				clearTimeout(timer);
				options.signal?.removeEventListener('abort', onAbort);
				this.pending.delete(id);
			};

			const cancel = (reason: string) => {
				child.send({jsonrpc: '2.0', method: 'notifications/cancelled', params: {requestId: id, reason}}).catch(() => {});
			};

			const onAbort = () => {
				cleanup();
				cancel('cancelled by the client');
				reject(new RequestCancelledError());
			};

			const timer = setTimeout(() => {
				cleanup();
				cancel(`no answer within ${options.timeoutMs} ms`);
				reject(new UpstreamTimeoutError(options.timeoutMs));
			}, options.timeoutMs);

			this.pending.set(id, message => {
				cleanup();
				if (message instanceof Error) {
					reject(message);
					return;
				}

				const response = message as {result?: unknown; error?: {code?: unknown; message?: unknown; data?: unknown}};
				if (response.error !== undefined) {
					const code = typeof response.error.code === 'number' ? response.error.code : -32_603;
					reject(new UpstreamRpcError(code, String(response.error.message ?? 'error without a message'), response.error.data));
					return;
				}

				const result = response.result;
				if (!isPlainObject(result)) {
					reject(new Error('the upstream answered tools/call with a result that is not an object'));
					return;
				}

				resolve(result as CallToolResult);
			});
			if (options.signal?.aborted) {
				onAbort();
				return;
			}

			options.signal?.addEventListener('abort', onAbort, {once: true});
			child.send({jsonrpc: '2.0', id, method: 'tools/call', params} as JSONRPCMessage).catch(() => {
				cleanup();
				reject(new ConnectionLostError());
			});
		});
	}

	/** Lists every tool, following `nextCursor` pages. */
	async listTools(signal: AbortSignal): Promise<ToolDefinition[]> {
		const tools: ToolDefinition[] = [];
		let cursor: string | undefined;
		const seen = new Set<string>();
		do {
			const page = await this.request(
				() =>
					this.client.request(
						{method: 'tools/list', params: cursor === undefined ? {} : {cursor}},
						ListToolsResultSchema,
						{signal, timeout: NO_SDK_TIMEOUT},
					),
			);
			tools.push(...(page.tools as ToolDefinition[]));
			cursor = page.nextCursor;
			if (cursor !== undefined) {
				if (seen.has(cursor)) break; // A server that repeats a cursor would loop forever.
				seen.add(cursor);
			}
		} while (cursor !== undefined);

		return tools;
	}

	/**
	 * Calls a tool with a deadline of `timeoutMs`: the SDK's own request timer
	 * is the deadline (one timer per call), and on expiry or abort it sends
	 * notifications/cancelled upstream.
	 */
	async callTool(
		name: string,
		args: Record<string, unknown> | undefined,
		options: {
			signal?: AbortSignal | undefined;
			timeoutMs: number;
			onprogress?: ((progress: Progress) => void) | undefined;
			meta?: Record<string, unknown> | undefined;
		},
	): Promise<CallToolResult> {
		const params: Record<string, unknown> = {name};
		if (args !== undefined) params['arguments'] = args;
		if (options.meta !== undefined && Object.keys(options.meta).length > 0) params['_meta'] = options.meta;
		if (this.fast && options.onprogress === undefined) return this.fastCall(params, options);
		return this.request(
			() =>
				this.client.request({method: 'tools/call', params: params as {name: string}}, passthroughResult, {
					...(options.signal === undefined ? {} : {signal: options.signal}),
					timeout: options.timeoutMs,
					...(options.onprogress === undefined ? {} : {onprogress: options.onprogress}),
				}),
			options.signal,
			options.timeoutMs,
		);
	}

	async ping(timeoutMs: number): Promise<void> {
		await this.request(() => this.client.request({method: 'ping'}, EmptyResultSchema, {timeout: timeoutMs}), undefined, timeoutMs);
	}

	/** Closes the session and stops the process (stdin close, SIGTERM, SIGKILL). */
	async close(graceMs: number): Promise<ExitInfo | undefined> {
		this.closedByUs = true;
		if (this.child !== undefined) {
			const exit = await this.child.stop(graceMs);
			this.closed = true;
			return exit;
		}

		this.closed = true;
		try {
			if (this.transport instanceof StreamableHTTPClientTransport) await this.transport.terminateSession().catch(() => {});
			await this.transport.close();
		} catch {}

		return undefined;
	}

	/** Maps SDK errors to hangar's: the upstream's own JSON-RPC errors vs a lost connection. */
	private async request<T>(run: () => Promise<T>, signal?: AbortSignal, timeoutMs?: number): Promise<T> {
		try {
			return await run();
		} catch (error) {
			if (signal?.aborted) throw new RequestCancelledError();
			if (error instanceof McpError) {
				if (error.code === -32_000 && (this.closed || error.message.includes('Connection closed'))) {
					throw new ConnectionLostError();
				}

				// -32001 is the SDK's own timer (the caller's abort was handled above).
				if (error.code === -32_001 && timeoutMs !== undefined) throw new UpstreamTimeoutError(timeoutMs);
				if (error.code !== -32_001) throw new UpstreamRpcError(error.code, stripSdkPrefix(error.message), error.data);
			}

			if (error instanceof Error && error.message === 'Not connected') throw new ConnectionLostError();
			throw error;
		}
	}
}

function stripSdkPrefix(message: string): string {
	return message.replace(/^MCP error -?\d+: /, '');
}

async function connectRemote(config: ServerConfig, client: Client, log: LogBuffer, signal: AbortSignal): Promise<Transport> {
	if (config.launch.kind !== 'remote') throw new Error('not a remote server');
	const url = new URL(config.launch.url);
	const requestInit: RequestInit = {headers: config.launch.headers};
	const order = config.launch.transport === 'auto' ? (['streamable-http', 'sse'] as const) : [config.launch.transport];
	const failures: string[] = [];
	for (const kind of order) {
		signal.throwIfAborted();
		const transport: Transport =
			kind === 'sse' ? new SSEClientTransport(url, {requestInit}) : new StreamableHTTPClientTransport(url, {requestInit});
		try {
			await client.connect(transport, {signal, timeout: NO_SDK_TIMEOUT});
			log.push('hangar', `connected to ${url.origin} over ${kind}`);
			return transport;
		} catch (error) {
			const reason = networkReason(error);
			failures.push(`${kind}: ${reason}`);
			log.push('hangar', `connecting over ${kind} failed: ${reason}`);
			await transport.close().catch(() => {});
		}
	}

	throw new Error(`cannot connect to ${url.href} (${failures.join('; ')})`);
}

/** The most specific reason in an error chain (fetch hides ECONNREFUSED in `cause`). */
function networkReason(error: unknown): string {
	const parts: string[] = [];
	let current: unknown = error;
	for (let depth = 0; current !== undefined && current !== null && depth < 4; depth++) {
		const record = current as {message?: unknown; code?: unknown; cause?: unknown};
		if (typeof record.code === 'string') parts.push(record.code);
		else if (typeof record.message === 'string' && record.message !== '') parts.push(record.message);
		current = record.cause;
	}

	return parts.length > 0 ? parts.join(': ') : String(error);
}
