/**
 * Which protocol generation one request speaks, decided per request as the
 * 2026-07-28 revision asks: a request whose params carry the per-request
 * `_meta` envelope (`io.modelcontextprotocol/protocolVersion` and
 * `clientCapabilities`) is modern and needs no `initialize` or session; one
 * without it is legacy and goes through the connection's handshake. The
 * envelope is validated with the SDK's own classifier, so hangar and the SDK
 * agree on what a modern request is.
 *
 * What differs for a modern request is written here once: the versions
 * hangar serves in that era, its error codes (resource-not-found -32602), the
 * `resultType` its results carry, the envelope keys that stay at hangar's
 * edge (never forwarded upstream), and the HTTP `Mcp-Method` / `Mcp-Name`
 * headers that must mirror the body.
 */
import {createRequire} from 'node:module';
import {fileURLToPath} from 'node:url';
import type * as SdkServer from '@modelcontextprotocol/server';
import {JsonRpcCode} from '../base/errors.js';
import {isPlainObject} from '../wire/message-classifier.js';
import {modernProtocolVersions, supportedProtocolVersions} from '../wire/protocol.js';
import type {Params} from './pipeline.js';

export const protocolVersionKey = 'io.modelcontextprotocol/protocolVersion';
export const clientCapabilitiesKey = 'io.modelcontextprotocol/clientCapabilities';
export const clientInfoKey = 'io.modelcontextprotocol/clientInfo';
export const logLevelKey = 'io.modelcontextprotocol/logLevel';
export const serverInfoKey = 'io.modelcontextprotocol/serverInfo';

/** The envelope's keys: hangar's client told them to hangar; each upstream is told its own. */
const envelopeKeys = new Set([protocolVersionKey, clientCapabilitiesKey, clientInfoKey, logLevelKey]);

let sdkServer: typeof SdkServer | undefined;

/**
 * The SDK's envelope classifier, loaded on the first request that carries an
 * envelope: `@modelcontextprotocol/server` is about 4 MiB of an idle
 * supervisor's memory, and nothing else in hangar's engine uses it. Loaded
 * with `require` of the ES module's own file (Node 22 loads an ES module
 * synchronously that way, the same instance `import` would give), since the
 * classification is synchronous.
 */
function classifyInboundRequest(request: Parameters<typeof SdkServer.classifyInboundRequest>[0]): ReturnType<typeof SdkServer.classifyInboundRequest> {
	sdkServer ??= createRequire(import.meta.url)(fileURLToPath(import.meta.resolve('@modelcontextprotocol/server'))) as typeof SdkServer;
	return sdkServer.classifyInboundRequest(request);
}

/** 2026-07-28 error codes. */
export const modernErrorCode = {headerMismatch: -32_020, missingClientCapability: -32_021, unsupportedProtocolVersion: -32_022} as const;

/** The legacy resource-not-found code; modern clients get -32602 for it. */
const legacyResourceNotFound = -32_002;

export type ModernRequest = {
	revision: string;
	/** What the client declared on this request, and only this request. */
	capabilities: Record<string, unknown>;
	clientInfo: {name: string; version: string} | undefined;
	logLevel: string | undefined;
};

export type RequestEra =
	| {era: 'legacy'}
	| {era: 'modern'; request: ModernRequest}
	| {era: 'refused'; code: number; message: string; data?: unknown; httpStatus: number};

const legacy: RequestEra = {era: 'legacy'};

/** The era of request `method` with `params`: legacy (no envelope), modern, or refused (a bad envelope, an unsupported modern version). */
export function requestEra(id: string | number, method: string, params: Params): RequestEra {
	// Hot path: a legacy request carries no envelope claim.
	const meta = params?.['_meta'];
	if (!isPlainObject(meta) || !(protocolVersionKey in meta || clientCapabilitiesKey in meta)) return legacy;
	const outcome = classifyInboundRequest({httpMethod: 'POST', body: {jsonrpc: '2.0', id, method, params}});
	if (outcome.kind === 'legacy') return legacy;
	if (outcome.kind === 'reject') return {era: 'refused', code: outcome.code, message: outcome.message, data: outcome.data, httpStatus: outcome.httpStatus};
	const revision = String(meta[protocolVersionKey]);
	if (!(modernProtocolVersions as readonly string[]).includes(revision)) return {era: 'refused', ...unsupportedVersion(revision), httpStatus: 400};

	const info = meta[clientInfoKey];
	const level = meta[logLevelKey];
	return {
		era: 'modern',
		request: {
			revision,
			capabilities: isPlainObject(meta[clientCapabilitiesKey]) ? meta[clientCapabilitiesKey] : {},
			clientInfo: isPlainObject(info) && typeof info['name'] === 'string' ? {name: info['name'], version: String(info['version'] ?? '')} : undefined,
			logLevel: typeof level === 'string' ? level : undefined,
		},
	};
}

/** The refusal of a request that names protocol version `requested`, which hangar does not speak: -32022 with the versions it does. */
export function unsupportedVersion(requested: string): {code: number; message: string; data: {supported: string[]; requested: string}} {
	return {
		code: modernErrorCode.unsupportedProtocolVersion,
		message: `Unsupported protocol version: ${requested}; hangar serves ${[...modernProtocolVersions].join(', ')} per request, and ${supportedProtocolVersions.join(', ')} through initialize`,
		data: {supported: [...modernProtocolVersions, ...supportedProtocolVersions], requested},
	};
}

/** The 2025 methods a 2026-07-28 request has no use for, each with what that revision uses instead (for the -32601 that refuses it). */
export const legacyOnlyMethods: ReadonlyMap<string, string> = new Map([
	['initialize', 'each request carries its version and capabilities in params._meta; server/discover tells what hangar serves'],
	['ping', 'send server/discover to check that hangar answers'],
	['logging/setLevel', `send the level as _meta "${logLevelKey}" on each request`],
	['resources/subscribe', 'send subscriptions/listen with the URIs in resourceSubscriptions'],
	['resources/unsubscribe', 'cancel the subscriptions/listen, or open one without the URI'],
]);

/** The 2026-07-28 methods a 2025 session has no use for: sent without the envelope, they are refused saying it is needed. */
const modernOnlyMethods = new Set(['server/discover', 'subscriptions/listen', 'tasks/update']);

/** The -32601 message for `method`, which request `era` cannot use: what its generation uses instead, where hangar knows it. */
export function methodNotFound(method: string, modern: boolean): string {
	const instead = modern ? legacyOnlyMethods.get(method) : undefined;
	if (instead !== undefined) return `Method not found: "${method}" is not in protocol revision 2026-07-28 (a 2025 method): ${instead}`;
	if (!modern && modernOnlyMethods.has(method)) {
		return `Method not found: "${method}" is a 2026-07-28 method; send it with "${protocolVersionKey}" and "${clientCapabilitiesKey}" in params._meta (a 2025 client gets what it tells from initialize)`;
	}

	return `Method not found: "${method}"`;
}

/** Whether a request without the envelope, `method`, is one only 2026-07-28 has: refused as such before any handshake. */
export function isModernOnlyMethod(method: string): boolean {
	return modernOnlyMethods.has(method);
}

/** Whether `version` is of the modern generation (2026-07-28 or later; revisions are dates). */
export function isModernVersion(version: string): boolean {
	return /^\d{4}-\d{2}-\d{2}$/.test(version) && version >= modernProtocolVersions[modernProtocolVersions.length - 1]!;
}

/** The request's `_meta` without the envelope: what may travel on to an upstream (trace context, the client's own keys). */
export function withoutEnvelope(meta: Record<string, unknown>): Record<string, unknown> {
	const rest: Record<string, unknown> = {};
	for (const [key, value] of Object.entries(meta)) if (!envelopeKeys.has(key)) rest[key] = value;
	return rest;
}

/**
 * The results 2026-07-28 makes cacheable: each must say for how long
 * (`ttlMs`) and for whom (`cacheScope`). An upstream's own hints pass as
 * they came (a resources/read); hangar's aggregated lists get the hints
 * merged from their parts (cache-hints.ts); the rest the safe thing: not
 * cacheable (0), private.
 */
const cacheableMethods = new Set(['tools/list', 'prompts/list', 'resources/list', 'resources/templates/list', 'resources/read', 'server/discover']);
const noCaching = {ttlMs: 0, cacheScope: 'private'} as const;

/** A result as a modern client reads it: with its `resultType` and, where cacheable, caching hints (`hints`, or an upstream's own as they are). */
export function modernResult(method: string, result: unknown, hints?: {ttlMs: number; cacheScope: string}): unknown {
	if (!isPlainObject(result)) return result;
	const added = cacheableMethods.has(method) && !('ttlMs' in result) ? (hints ?? noCaching) : undefined;
	if ('resultType' in result && added === undefined) return result;
	return {...result, ...added, ...('resultType' in result ? {} : {resultType: 'complete'})};
}

/** The same for a result hangar serialized once (a cached tools/list): the fields spliced in front. */
export function modernResultJson(method: string, json: string, hints?: {ttlMs: number; cacheScope: string}): string {
	const body = json.trimStart();
	if (!body.startsWith('{')) return json;
	const {ttlMs, cacheScope} = hints ?? noCaching;
	const fields = ['"resultType":"complete"', ...(cacheableMethods.has(method) ? [`"ttlMs":${ttlMs}`, `"cacheScope":${JSON.stringify(cacheScope)}`] : [])].join(',');
	return /^\{\s*\}/.test(body) ? `{${fields}}` : `{${fields},${body.slice(1)}`;
}

/** An error code as a modern client reads it: resource-not-found is -32602 in 2026-07-28. */
export function modernErrorCodeOf(code: number): number {
	return code === legacyResourceNotFound ? JsonRpcCode.InvalidParams : code;
}

/** Which body field the `Mcp-Name` header mirrors, per method (the 2026-07-28 Streamable HTTP binding). */
const nameSource: Record<string, string> = {'tools/call': 'name', 'prompts/get': 'name', 'resources/read': 'uri', 'tasks/get': 'taskId', 'tasks/update': 'taskId', 'tasks/cancel': 'taskId'};

/** A header's value as sent: a `=?base64?...?=` sentinel decoded; undefined when the sentinel is not valid Base64. */
function headerValue(raw: string): string | undefined {
	const value = raw.trim();
	const sentinel = /^=\?base64\?(.*)\?=$/i.exec(value);
	if (sentinel === null) return value;
	const encoded = sentinel[1]!;
	if (!/^[A-Za-z0-9+/]*={0,2}$/.test(encoded) || encoded.length % 4 !== 0) return undefined;
	return Buffer.from(encoded, 'base64').toString('utf8');
}

/**
 * What is wrong with a modern HTTP request's headers, or undefined: the
 * `MCP-Protocol-Version` and `Mcp-Method` headers are required and must
 * match the body, and `Mcp-Name` must mirror `params.name` / `params.uri` /
 * `params.taskId` where the method has one. Answered with HTTP 400 and -32020.
 */
export function headerProblem(
	method: string,
	params: Params,
	revision: string,
	headers: {protocolVersion: string | undefined; method: string | undefined; name: string | undefined},
): string | undefined {
	if (headers.protocolVersion === undefined) return `the body names protocol version ${revision} but the required MCP-Protocol-Version header is absent`;
	if (headers.protocolVersion.trim() !== revision) return `the MCP-Protocol-Version header says ${headers.protocolVersion} but the body names ${revision}`;
	if (headers.method === undefined) return `the body names method ${method} but the required Mcp-Method header is absent`;
	if (headers.method.trim() !== method) return `the Mcp-Method header names ${headers.method} but the body names method ${method}`;
	const field = Object.hasOwn(nameSource, method) ? nameSource[method]! : undefined;
	if (field === undefined) return undefined;
	const bodyValue = typeof params?.[field] === 'string' ? params[field] : undefined;
	if (headers.name === undefined) return bodyValue === undefined ? undefined : `the body carries params.${field}=${JSON.stringify(bodyValue)} but the required Mcp-Name header is absent`;
	const decoded = headerValue(headers.name);
	if (decoded === undefined) return 'the Mcp-Name header carries an invalid Base64 sentinel';
	if (bodyValue !== undefined && decoded !== bodyValue) return `the body carries params.${field}=${JSON.stringify(bodyValue)} but the Mcp-Name header names ${JSON.stringify(decoded)}`;
	return undefined;
}
