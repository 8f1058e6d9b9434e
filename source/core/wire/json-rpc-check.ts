/**
 * Says what is wrong with a body that should hold one JSON-RPC 2.0 message,
 * in words a client's author can act on, before the SDK sees it (the SDK
 * answers every malformed message with the same "Parse error"). Used by the
 * HTTP endpoint, which answers such bodies with 400 and this error.
 *
 * MCP messages are single objects: batches were removed from the protocol
 * (2025-06-18) and are refused here, as on stdio. Request ids are strings or
 * integers, never null; params, when present, are an object.
 */
import {JsonRpcCode} from '../base/errors.js';

export type MessageProblem = {
	code: number;
	message: string;
	/** The request's id when it could be read, else null. */
	id: string | number | null;
};

export type CheckedMessage = {
	kind: 'request' | 'notification' | 'response';
	method: string | undefined;
	id: string | number | undefined;
	params: Record<string, unknown> | undefined;
	/** The parsed message. */
	value: Record<string, unknown>;
};

/** A JSON object: not null, not an array. */
export function isPlainObject(value: unknown): value is Record<string, unknown> {
	return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function isId(value: unknown): value is string | number {
	return typeof value === 'string' || (typeof value === 'number' && Number.isInteger(value));
}

/** Parses `text` as one JSON-RPC message; the message's shape, or the problem with it. */
export function checkJsonRpcBody(text: string): CheckedMessage | MessageProblem {
	let value: unknown;
	try {
		value = JSON.parse(text);
	} catch (error) {
		const detail = text.trim() === '' ? 'the body is empty' : `the body is not valid JSON (${(error as Error).message})`;
		return {code: JsonRpcCode.ParseError, message: `Parse error: ${detail}. Send one JSON-RPC 2.0 message as a JSON object.`, id: null};
	}

	return checkJsonRpcMessage(value);
}

/** Checks a parsed value; the message's shape, or the problem with it. */
export function checkJsonRpcMessage(value: unknown): CheckedMessage | MessageProblem {
	const invalid = (problem: string, id: string | number | null = null): MessageProblem => ({
		code: JsonRpcCode.InvalidRequest,
		message: `Invalid Request: ${problem}`,
		id,
	});
	if (Array.isArray(value)) return invalid('JSON-RPC batches are not supported by MCP; send one message per request');
	if (!isPlainObject(value)) return invalid(`expected a JSON-RPC 2.0 message object, got ${value === null ? 'null' : typeof value}`);
	const id = isId(value['id']) ? value['id'] : null;
	if (value['jsonrpc'] !== '2.0') return invalid('"jsonrpc" must be "2.0"', id);
	if ('id' in value && id === null) return invalid('"id" must be a string or an integer (MCP does not allow null ids)');
	if ('method' in value) {
		const method = value['method'];
		if (typeof method !== 'string' || method === '') return invalid('"method" must be a non-empty string', id);
		const params = value['params'];
		if (params !== undefined && !isPlainObject(params)) {
			return {code: JsonRpcCode.InvalidParams, message: `Invalid params: "params" of "${method}" must be an object`, id};
		}

		return {kind: id === null ? 'notification' : 'request', method, id: id ?? undefined, params, value};
	}

	if ('result' in value || 'error' in value) {
		if (id === null) return invalid('a response needs the "id" of the request it answers');
		if ('result' in value && !isPlainObject(value['result'])) return invalid('"result" must be an object', id);
		return {kind: 'response', method: undefined, id, params: undefined, value};
	}

	return invalid('expected a request ("method" and "id"), a notification ("method") or a response ("result" or "error")', id);
}

export function isProblem(checked: CheckedMessage | MessageProblem): checked is MessageProblem {
	return 'code' in checked;
}
