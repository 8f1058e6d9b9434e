/**
 * The guard between a client's transport and the SDK server of its gateway
 * session: it enforces the per-connection protocol state machine (requests
 * the state does not allow are answered with -32003 and never reach the
 * server), checks the params the SDK would answer badly, and hands the
 * requests hangar serves itself (tools/call, the local socket's private
 * methods) to the session. `toRpcError` is the one place a failure becomes
 * a JSON-RPC error.
 */
import type {Transport} from '@modelcontextprotocol/sdk/shared/transport.js';
import {InitializeRequestSchema, ListToolsRequestSchema, SetLevelRequestSchema, type JSONRPCMessage} from '@modelcontextprotocol/sdk/types.js';
import {HangarError, JsonRpcCode, JsonRpcError, errorMessage, type Audience} from '../base/errors.js';
import type {Logger} from '../base/logger.js';
import {maskStrings, maskText} from '../base/secret-mask.js';
import {isPlainObject} from '../wire/message-classifier.js';
import {callsMethod, commandMethod, configMethod, consoleMethod, logsMethod, personMethod} from '../wire/protocol.js';
import {createConnectionMachine, sequenceError} from './connection-state.js';
import {ManagementParamsError} from './management-tools.js';

/** Requests only the local socket serves, never forwarded from an MCP client by the bridge. */
const socketMethods: ReadonlySet<string> = new Set([commandMethod, configMethod, logsMethod, callsMethod]);

/** Requests whose params are checked before the SDK sees them (see invalidParams). */
const checkedParams = {
	initialize: InitializeRequestSchema,
	'tools/list': ListToolsRequestSchema,
	'logging/setLevel': SetLevelRequestSchema,
} as const;

type CheckedMethod = keyof typeof checkedParams;

function hasCheckedParams(method: string): method is CheckedMethod {
	return Object.hasOwn(checkedParams, method);
}

/**
 * Why the params of an `initialize`, `tools/list` or `logging/setLevel`
 * request are invalid, or undefined when they are fine. Checked before the
 * SDK sees them: it answers bad params with -32603 and a schema dump.
 */
export function invalidParams(message: JSONRPCMessage & {method: CheckedMethod}): string | undefined {
	const parsed = checkedParams[message.method].safeParse(message);
	if (parsed.success) return undefined;
	const problems = parsed.error.issues.map(issue => `${issue.path.join('.')}: ${issue.message}`).join('; ');
	return `Invalid params for "${message.method}": ${problems}`;
}

/** A JSON-RPC error response for `id`. */
export function errorResponse(id: string | number, code: number, message: string, data?: unknown): JSONRPCMessage {
	return {jsonrpc: '2.0', id, error: {code, message, ...(data === undefined ? {} : {data})}} as JSONRPCMessage;
}

/**
 * The one place a failure becomes a JSON-RPC error: hangar's typed errors
 * keep their code and data (masked when they were made), JSON-RPC errors
 * (routing, an upstream's own answer) keep their code with secrets masked
 * in their message and data, and anything else is hangar's internal error,
 * named with `what` failed.
 */
export function toRpcError(error: unknown, what?: string, audience: Audience = 'mcp'): JsonRpcError {
	if (error instanceof JsonRpcError) return new JsonRpcError(error.code, maskText(error.message), error.data === undefined ? undefined : maskStrings(error.data));
	if (error instanceof HangarError) return new JsonRpcError(error.code, error.messageFor(audience), error.toData(audience));
	if (error instanceof ManagementParamsError) return new JsonRpcError(error.code, maskText(error.message));
	return new JsonRpcError(JsonRpcCode.InternalError, maskText(what === undefined ? errorMessage(error) : `${what} failed: ${errorMessage(error)}`));
}

/**
 * Sits between a transport and the SDK server: requests the connection state
 * does not allow are answered here with -32003 and never reach the server.
 */
export class GuardedTransport implements Transport {
	onclose?: () => void;
	onerror?: (error: Error) => void;
	onmessage?: (message: JSONRPCMessage) => void;
	readonly machine;
	/** The id of the `initialize` request awaiting its answer. */
	private pendingInitialize: string | number | undefined;
	/** Serves `tools/call` itself (see GatewaySession.serveCall); set before start. */
	onToolCall?: (id: string | number, params: CallParams) => void;
	/** Serves a `tools/list` itself when it returns true (see GatewaySession.toolsList); set before start. */
	onToolsList?: (id: string | number, cursor: unknown) => boolean;
	/** Told about every `notifications/cancelled` from the client. */
	onCancelled?: (requestId: unknown) => void;
	/** Told the params of each initialize that passes the checks. */
	onInitialize?: (params: {clientInfo?: {name: string; version: string}; capabilities?: Record<string, unknown>}) => void;
	/** Told when the client sent notifications/initialized in a state that allows it. */
	onInitialized?: () => void;
	/** Sees every message from the client first; a response or notification it returns true for goes no further. */
	onClientMessage?: (message: JSONRPCMessage) => boolean;
	/** Serves hangar's private socket requests (`hangar/command`, ...); unset, they are unknown methods. */
	onCommand?: (id: string | number, method: string, params: unknown) => void;
	/** Serves a console's `hangar/console` reads (see console.ts); unset, they are unknown methods. */
	onConsole?: (id: string | number, params: unknown) => void;
	/** Serves hangar's private `hangar/person` request (see personMethod); unset, it is an unknown method. */
	onPerson?: (id: string | number) => void;

	constructor(
		private readonly inner: Transport & {sendSerialized?: (line: string) => Promise<void>},
		subject: string,
		private readonly logger: Logger,
	) {
		this.machine = createConnectionMachine(subject);
	}

	async start(): Promise<void> {
		this.inner.onclose = () => {
			if (this.machine.can('close')) this.machine.apply('close', 'the transport closed');
			this.onclose?.();
		};

		this.inner.onerror = error => this.onerror?.(error);
		this.inner.onmessage = message => this.receive(message);
		await this.inner.start();
	}

	private receive(message: JSONRPCMessage): void {
		const record = message as {method?: unknown; id?: string | number};
		if (this.onClientMessage?.(message) === true) return;
		if (typeof record.method === 'string') {
			const method = record.method;
			if ('id' in message) {
				const refused = sequenceError(this.machine.state, method);
				if (refused !== undefined) {
					void this.inner.send(errorResponse(record.id!, refused.code, refused.message, refused.data));
					return;
				}

				if (hasCheckedParams(method)) {
					// A refused initialize must leave the connection waiting for a good one.
					const invalid = invalidParams(message as JSONRPCMessage & {method: typeof method});
					if (invalid !== undefined) {
						void this.inner.send(errorResponse(record.id!, JsonRpcCode.InvalidParams, invalid));
						return;
					}
				}

				if (method === 'initialize') {
					this.machine.apply('initialize', 'initialize request received');
					this.pendingInitialize = record.id;
					const params = (message as {params?: {clientInfo?: {name: string; version: string}; capabilities?: Record<string, unknown>}}).params;
					if (params !== undefined) this.onInitialize?.(params);
				}

				if (socketMethods.has(method) && this.onCommand !== undefined) {
					this.onCommand(record.id!, method, (message as {params?: unknown}).params);
					return;
				}

				if (method === consoleMethod && this.onConsole !== undefined) {
					this.onConsole(record.id!, (message as {params?: unknown}).params);
					return;
				}

				if (method === personMethod && this.onPerson !== undefined) {
					this.onPerson(record.id!);
					return;
				}

				if (method === 'tools/list' && this.onToolsList?.(record.id!, (message as {params?: {cursor?: unknown}}).params?.cursor) === true) return;

				if (method === 'tools/call' && this.onToolCall !== undefined) {
					let params: CallParams;
					try {
						params = validateCallParams((message as {params?: unknown}).params);
					} catch (error) {
						const rpc = toRpcError(error);
						void this.inner.send(errorResponse(record.id!, rpc.code, rpc.message));
						return;
					}

					this.onToolCall(record.id!, params);
					return;
				}
			} else if (method === 'notifications/cancelled') {
				this.onCancelled?.((message as {params?: {requestId?: unknown}}).params?.requestId);
			} else if (method === 'notifications/initialized') {
				if (this.machine.can('initialized')) {
					this.machine.apply('initialized', 'notifications/initialized received');
					this.onInitialized?.();
				} else {
					this.logger.warn(`ignored notifications/initialized in state ${this.machine.state}`);
					return;
				}
			}
		}

		this.onmessage?.(message);
	}

	async send(message: JSONRPCMessage, options?: Parameters<Transport['send']>[1]): Promise<void> {
		if (this.pendingInitialize !== undefined && 'id' in message && message.id === this.pendingInitialize && ('result' in message || 'error' in message)) {
			this.pendingInitialize = undefined;
			// Any other failure of initialize: let the client send a corrected one.
			if ('error' in message && this.machine.can('initialize_failed')) this.machine.apply('initialize_failed', 'initialize was answered with an error');
		}

		return this.inner.send(message, options);
	}

	async close(): Promise<void> {
		await this.inner.close();
	}

	/** Answers request `id` with `result`, whose JSON is `json`: written as it is where the transport takes lines. */
	async sendResult(id: string | number, result: unknown, json: string): Promise<void> {
		if (this.inner.sendSerialized !== undefined) return this.inner.sendSerialized(`{"jsonrpc":"2.0","id":${JSON.stringify(id)},"result":${json}}\n`);
		return this.inner.send({jsonrpc: '2.0', id, result} as JSONRPCMessage);
	}

	/** Writes a message the caller serialized (newline-terminated); parsed again only for transports that need objects. */
	async sendSerialized(line: string): Promise<void> {
		if (this.inner.sendSerialized !== undefined) return this.inner.sendSerialized(line);
		return this.inner.send(JSON.parse(line) as JSONRPCMessage);
	}
}

export type CallParams = {name: string; arguments?: Record<string, unknown> | undefined; _meta?: Record<string, unknown> | undefined};

function validateCallParams(params: unknown): CallParams {
	if (!isPlainObject(params)) throw new JsonRpcError(JsonRpcCode.InvalidParams, 'Invalid params: tools/call needs params {"name": string, "arguments"?: object}');
	if (typeof params['name'] !== 'string' || params['name'] === '') {
		throw new JsonRpcError(JsonRpcCode.InvalidParams, 'Invalid params: tools/call needs "name", the tool name as a string');
	}

	if (params['arguments'] !== undefined && !isPlainObject(params['arguments'])) {
		throw new JsonRpcError(JsonRpcCode.InvalidParams, `Invalid params: "arguments" of tools/call "${params['name']}" must be an object`);
	}

	return params as CallParams;
}

