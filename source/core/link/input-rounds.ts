/**
 * A 2026-07-28 upstream's multi-round-trip requests, driven for a 2025-era
 * client (issue 31, "legacy client, modern upstream"). A modern upstream
 * that needs its client's input answers `tools/call`, `prompts/get` or
 * `resources/read` with `resultType: "input_required"`, `inputRequests` (a
 * map of embedded requests: elicitation, sampling, roots) and an opaque
 * `requestState`. Hangar asks the client that made the call, one relayed
 * request per entry, through the same `ClientSide` as a legacy upstream's
 * server-to-client requests, so the same client-faithful rules hold: only
 * that client, only for a capability it declared, otherwise the call fails
 * with the reason. Then the request is sent again with `inputResponses` and
 * the `requestState` exactly as it came: hangar never reads it.
 */
import {HangarError, JsonRpcError} from '../base/errors.js';
import {isPlainObject} from '../wire/message-classifier.js';
import {isRelayedMethod, type ClientSide, type RelayedMethod} from './client-side.js';
import {UpstreamRpcError} from './connection-errors.js';
import type {LogBuffer} from './log-buffer.js';
import {withoutEraFields} from './modern-mode.js';

/** The methods whose answer may be `input_required` (2026-07-28). */
export const inputRequiredMethods: ReadonlySet<string> = new Set(['tools/call', 'prompts/get', 'resources/read']);

/** The most rounds one request may take before hangar stops asking: an upstream that never completes would hold a person forever. */
export const maxInputRounds = 8;

/** The most embedded requests one round may carry: each becomes a request to a client (memory and a person's patience stay bounded). */
export const maxInputRequests = 16;

/** The embedded request kinds hangar relays (tasks/* are not embedded requests). */
const embeddable = new Set<RelayedMethod>(['elicitation/create', 'sampling/createMessage', 'roots/list']);

/** What one `input_required` answer asks for. */
export type InputRound = {inputRequests: Record<string, {method: RelayedMethod; params: Record<string, unknown> | undefined}>; requestState: unknown};

/**
 * Reads an `input_required` result; a HangarError names what is wrong with
 * it (the call fails with it: hangar does not guess what the upstream meant).
 */
export function readInputRound(server: string, method: string, result: Record<string, unknown>): InputRound {
	const fail = (what: string) =>
		new HangarError({
			code: 'UpstreamError',
			upstream: server,
			operation: method,
			message: `it answered input_required, but ${what}`,
			hint: 'This is a fault of the upstream; report it to its authors.',
		});
	const requests = result['inputRequests'];
	if (requests === undefined && result['requestState'] === undefined) throw fail('with neither inputRequests nor requestState');
	if (requests !== undefined && !isPlainObject(requests)) throw fail('its inputRequests is not an object');
	const entries = Object.entries(requests ?? {});
	if (entries.length > maxInputRequests) throw fail(`with ${entries.length} input requests in one round (hangar relays at most ${maxInputRequests})`);
	const inputRequests: InputRound['inputRequests'] = {};
	for (const [key, entry] of entries) {
		if (!isPlainObject(entry) || typeof entry['method'] !== 'string') throw fail(`its input request "${key}" has no method`);
		const kind = entry['method'];
		if (!isRelayedMethod(kind) || !embeddable.has(kind)) throw fail(`its input request "${key}" is ${JSON.stringify(kind).slice(0, 80)}, not elicitation/create, sampling/createMessage or roots/list`);
		const params = entry['params'];
		if (params !== undefined && !isPlainObject(params)) throw fail(`the params of its input request "${key}" are not an object`);
		inputRequests[key] = {method: kind, params};
	}

	return {inputRequests, requestState: result['requestState']};
}

/**
 * Asks the client behind `caller` every request of the round, at once, and
 * resolves with the `inputResponses` (each the client's bare result, under
 * the upstream's key). A refusal (the caller did not declare the
 * capability, or has gone) or the client's own error rejects: the call ends
 * with it, and nothing is sent back to the upstream in the caller's name.
 */
export async function answerInputRound(
	server: string,
	clientSide: ClientSide | undefined,
	round: InputRound,
	options: {signal: AbortSignal; caller: unknown},
): Promise<Record<string, unknown>> {
	const entries = Object.entries(round.inputRequests);
	if (entries.length > 0 && clientSide === undefined) {
		throw new HangarError({code: 'NoClientAnswer', upstream: server, operation: entries[0]![1].method, message: 'this hangar relays no requests to clients'});
	}

	const answers = await Promise.all(
		entries.map(async ([key, request]) => {
			try {
				const result = await clientSide!.request(server, request.method, request.params, {signal: options.signal, origin: {kind: 'call', caller: options.caller}, inputKey: key});
				return [key, result] as const;
			} catch (error) {
				if (error instanceof JsonRpcError && !(error instanceof HangarError)) {
					throw new HangarError({
						code: 'NoClientAnswer',
						upstream: server,
						operation: request.method,
						message: `the client answered the upstream's ${request.method} (input request "${key}") with error ${error.code}: ${error.message}`,
						hint: 'The client refused what the upstream asked; the call cannot go on without it.',
					});
				}

				throw error;
			}
		}),
	);
	return Object.fromEntries(answers);
}

/**
 * Sends a request to a modern upstream and drives its rounds: an
 * `input_required` answer of tools/call, prompts/get or resources/read is
 * answered by the client that made the call and the request sent again
 * (`send`, a fresh id each time) with `inputResponses` and the same
 * `requestState`, at most `maxInputRounds` times. The deadline counts the
 * upstream's time only, not the client's (a person may be answering), as a
 * legacy upstream's deadline pauses while its client answers. A complete
 * result loses what belongs to the modern wire (modern-mode.ts).
 */
export async function sendInRounds(
	server: string,
	method: string,
	params: Record<string, unknown>,
	options: {signal?: AbortSignal | undefined; timeoutMs: number; caller?: unknown},
	clientSide: ClientSide | undefined,
	send: (params: Record<string, unknown>, timeoutMs: number) => Promise<Record<string, unknown>>,
	log: LogBuffer,
): Promise<Record<string, unknown>> {
	let upstreamMs = 0;
	let sent = params;
	for (let round = 0; ; round++) {
		const began = performance.now();
		const result = await send({...sent}, Math.max(1, Math.round(options.timeoutMs - upstreamMs)));
		upstreamMs += performance.now() - began;
		if (result['resultType'] !== 'input_required' || !inputRequiredMethods.has(method)) return withoutEraFields(result);
		if (round >= maxInputRounds) {
			throw new UpstreamRpcError(-32_603, `upstream "${server}" still asked for client input after ${maxInputRounds} rounds of ${method}: hangar stopped asking`, {upstream: server, rounds: maxInputRounds});
		}

		const inputRound = readInputRound(server, method, result);
		const signal = options.signal ?? new AbortController().signal;
		const inputResponses = await answerInputRound(server, clientSide, inputRound, {signal, caller: options.caller});
		signal.throwIfAborted();
		const {inputResponses: _old, requestState: _state, ...rest} = params;
		sent = {...rest, inputResponses, ...(inputRound.requestState === undefined ? {} : {requestState: inputRound.requestState})};
		log.push('hangar', `${method}: round ${round + 1} of input requests (${Object.keys(inputResponses).join(', ') || 'none'}) answered by the client; asking again`);
	}
}
