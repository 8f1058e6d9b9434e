/**
 * The MCP sequence, per client connection, as data. The SDK's low-level
 * `Server` would serve `tools/call` before `initialize`; this table is what
 * refuses it. Requests that the current state does not allow get a JSON-RPC
 * error with code -32003 (`ProtocolSequence`) and the state and method in
 * `data`.
 *
 * - awaiting_initialize: only `initialize` and `ping` are served.
 * - initializing: `initialize` was received; the spec lets the client send
 *   requests before its `notifications/initialized`, so they are served. If
 *   the `initialize` is answered with an error (bad params, an unsupported
 *   version), `initialize_failed` goes back to awaiting_initialize so the
 *   client can send a corrected one.
 * - ready: everything but a second `initialize`.
 * - closed: the connection ended; nothing is served.
 */
import {ErrorCode} from '../base/errors.js';
import {StateMachine, type TransitionTable} from '../base/state-machine.js';

export const connectionStates = ['awaiting_initialize', 'initializing', 'ready', 'closed'] as const;
export type ConnectionState = (typeof connectionStates)[number];

export const connectionEvents = ['initialize', 'initialize_failed', 'initialized', 'close'] as const;
export type ConnectionEvent = (typeof connectionEvents)[number];

export const connectionTransitions: TransitionTable<ConnectionState, ConnectionEvent> = {
	awaiting_initialize: {initialize: 'initializing', close: 'closed'},
	initializing: {initialize_failed: 'awaiting_initialize', initialized: 'ready', close: 'closed'},
	ready: {close: 'closed'},
	closed: {},
};

/** Whether a request with `method` may be served in `state`; the reason when not. */
export function checkRequest(state: ConnectionState, method: string): {allowed: true} | {allowed: false; reason: string} {
	switch (state) {
		case 'awaiting_initialize': {
			if (method === 'initialize' || method === 'ping') return {allowed: true};
			return {allowed: false, reason: `"${method}" was sent before "initialize"; send "initialize" first`};
		}

		case 'initializing':
		case 'ready': {
			if (method === 'initialize') return {allowed: false, reason: 'the connection is already initialized; "initialize" may be sent only once'};
			return {allowed: true};
		}

		case 'closed': {
			return {allowed: false, reason: 'the connection is closed'};
		}
	}
}

/**
 * The JSON-RPC error for a request `checkRequest` refuses in `state`, or
 * undefined when it is allowed: what the guard answers, and what the HTTP
 * endpoint answers for a second `initialize` (which the SDK's HTTP transport
 * would refuse before the guard sees it, with id null).
 */
export function sequenceError(state: ConnectionState, method: string): {code: number; message: string; data: Record<string, unknown>} | undefined {
	const check = checkRequest(state, method);
	if (check.allowed) return undefined;
	return {code: ErrorCode.ProtocolSequence, message: `Protocol sequence error: ${check.reason}`, data: {error: 'ProtocolSequence', state, method}};
}

export function createConnectionMachine(subject: string) {
	return new StateMachine<ConnectionState, ConnectionEvent>('connection', subject, connectionTransitions, 'awaiting_initialize', 20);
}
