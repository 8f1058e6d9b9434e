/**
 * How a request to an upstream can fail, as the engine sees it: the
 * upstream's own JSON-RPC error, no answer in time, the caller's cancel, or
 * a lost connection. `UpstreamConnection` maps the SDK's errors to these.
 */
import {ErrorCode, HangarError, JsonRpcCode, JsonRpcError, errorMessage} from '../base/errors.js';
import type {RelayedMethod} from './client-side.js';

/**
 * What answers a request whose answer was over hangar.maxUpstreamMessageBytes
 * and was dropped as it streamed in (memory stays bounded): -32009, naming
 * the limit and the setting, instead of a wait for an answer that never comes.
 */
export function tooLargeAnswer(upstream: string, id: string | number | null, bytes: number, limit: number | undefined): {jsonrpc: '2.0'; id: string | number | null; error: {code: number; message: string; data: Record<string, unknown>}} {
	const message =
		`its answer of ${bytes} bytes is over the limit of ${limit} bytes for one message from an upstream (hangar.maxUpstreamMessageBytes), so hangar dropped it. ` +
		`Raise hangar.maxUpstreamMessageBytes in hangar's config to accept answers this large, or ask the upstream for less`;
	return {jsonrpc: '2.0', id, error: {code: ErrorCode.MessageTooLarge, message, data: {error: 'MessageTooLarge', upstream, bytes, limit, setting: 'hangar.maxUpstreamMessageBytes'}}};
}

/** A JSON value, short, for a message: at most `max` characters of its JSON. */
function shortJson(value: unknown, max = 80): string {
	const text = JSON.stringify(value) ?? String(value);
	return text.length > max ? `${text.slice(0, max)}…` : text;
}

/** What is wrong with an answer that is not a valid JSON-RPC response (`problem`: the classifier's words, for anything else). */
export function answerFault(method: string, answer: Record<string, unknown>, problem: string): string {
	if ('result' in answer && 'error' in answer) return `answered ${method} with both "result" and "error" (a response has one of them)`;
	if ('result' in answer) return `answered ${method} with "result": ${shortJson(answer['result'])}, which is not an object`;
	if ('error' in answer) return `answered ${method} with "error": ${shortJson(answer['error'])}, which is not an object with an integer "code" and a string "message"`;
	return `answered ${method} with a message that is not a JSON-RPC response (${problem.replace(/^Invalid Request: /, '')})`;
}

/**
 * What answers a request whose answer broke the protocol (`"result": null`,
 * both "result" and "error", an error without a message...): an error
 * saying what was wrong, at once, instead of a wait for the deadline for an
 * answer that never comes. The same server will answer the same again.
 */
export function malformedAnswer(upstream: string, id: string | number, fault: string): {jsonrpc: '2.0'; id: string | number; error: {code: number; message: string; data: Record<string, unknown>}} {
	const message = `the upstream ${fault}, which breaks the MCP protocol. The server is broken: report it to its authors, or quarantine it (mcp-hangar quarantine ${upstream}) until it is fixed`;
	return {jsonrpc: '2.0', id, error: {code: JsonRpcCode.InternalError, message, data: {error: 'MalformedAnswer', upstream, fault}}};
}

/** A JSON-RPC error the upstream itself answered with (not a transport failure). */
export class UpstreamRpcError extends JsonRpcError {
	constructor(code: number, message: string, data: unknown) {
		super(code, message, data);
		this.name = 'UpstreamRpcError';
	}
}

/** The request got no answer within its timeout; notifications/cancelled has been sent upstream. */
export class UpstreamTimeoutError extends Error {
	constructor(readonly timeoutMs: number) {
		super(`no answer within ${timeoutMs} ms`);
		this.name = 'UpstreamTimeoutError';
	}
}

/** The caller's signal aborted the request; notifications/cancelled has been sent upstream. */
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

/** What the upstream is told when its request could not be answered by a client. */
export function answerError(error: unknown): {code: number; message: string; data?: unknown} {
	if (error instanceof JsonRpcError) return {code: error.code, message: error.message, data: error.data};
	if (error instanceof HangarError) return {code: error.code, message: error.message, data: error.toData()};
	return {code: JsonRpcCode.InternalError, message: `hangar could not relay the request to a client: ${errorMessage(error)}`};
}

/** An upstream's request past the most hangar relays for it at once, unanswered (`limit`): refused at once, not held. */
export function tooManyAsks(server: string, method: RelayedMethod, limit: number): HangarError {
	return new HangarError({
		code: 'NoClientAnswer',
		upstream: server,
		operation: method,
		message: `${limit} of its requests to clients are still waiting for their answers, the most hangar holds for one upstream, so this one is not relayed`,
		hint: 'Wait for the answers (or cancel those requests) before asking more.',
		details: {limit},
	});
}

export function noClientSide(server: string, method: RelayedMethod): HangarError {
	return new HangarError({code: 'NoClientAnswer', upstream: server, operation: method, message: 'this hangar relays no requests to clients'});
}

/** The SDK's "MCP error -32xxx: " prefix, which hangar's own message does not repeat. */
export function stripSdkPrefix(message: string): string {
	return message.replace(/^MCP error -?\d+: /, '');
}
