/**
 * The params checks of the gateway's handlers, and the one place a failure
 * becomes a JSON-RPC error (`toRpcError`). Params are checked with the
 * SDK's schemas and refused with -32602 and what is wrong, before a handler
 * acts on them; `tools/call`, the hot path, is checked by hand.
 */
import type {JSONRPCMessage} from '@modelcontextprotocol/server';
import type {z} from 'zod';
import {HangarError, JsonRpcCode, JsonRpcError, errorMessage, type Audience} from '../base/errors.js';
import {maskStrings, maskText} from '../base/secret-mask.js';
import {isPlainObject} from '../wire/message-classifier.js';
import {ManagementParamsError} from './management-tools.js';

/** A request schema of the SDK's (`{method, params}`). */
type RequestSchema = z.ZodType<{method: string; params?: unknown}>;

/** Why `params` of a `method` request do not fit `schema`, or undefined when they do. */
export function paramsProblem(schema: RequestSchema, method: string, params: unknown): string | undefined {
	const parsed = schema.safeParse(params === undefined ? {method} : {method, params});
	if (parsed.success) return undefined;
	const problems = parsed.error.issues.map(issue => `${issue.path.join('.')}: ${issue.message}`).join('; ');
	return `Invalid params for "${method}": ${problems}`;
}

/** `params` as `schema` reads them; refused with -32602 when they do not fit. */
export function checkParams<T extends {method: string; params?: unknown}>(schema: z.ZodType<T>, method: string, params: unknown): T['params'] {
	const parsed = schema.safeParse(params === undefined ? {method} : {method, params});
	if (parsed.success) return parsed.data.params;
	throw new JsonRpcError(JsonRpcCode.InvalidParams, paramsProblem(schema, method, params)!);
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

export type CallParams = {name: string; arguments?: Record<string, unknown> | undefined; _meta?: Record<string, unknown> | undefined};

/** `tools/call`'s params, checked by hand: it is the hot path. */
export function callParams(params: unknown): CallParams {
	if (!isPlainObject(params)) throw new JsonRpcError(JsonRpcCode.InvalidParams, 'Invalid params: tools/call needs params {"name": string, "arguments"?: object}');
	if (typeof params['name'] !== 'string' || params['name'] === '') {
		throw new JsonRpcError(JsonRpcCode.InvalidParams, 'Invalid params: tools/call needs "name", the tool name as a string');
	}

	if (params['arguments'] !== undefined && !isPlainObject(params['arguments'])) {
		throw new JsonRpcError(JsonRpcCode.InvalidParams, `Invalid params: "arguments" of tools/call "${params['name']}" must be an object`);
	}

	return params as CallParams;
}
