/**
 * A modern (2026-07-28) client's call to a legacy upstream that asks its
 * client something mid-call (sampling, elicitation, roots). A modern client
 * cannot be sent requests: the spec's multi-round-trip requests (MRTR) ask it
 * in the call's answer instead. So hangar holds the upstream's request and
 * its call, and answers the client's `tools/call`, `prompts/get` or
 * `resources/read` with
 *
 *   {resultType: "input_required", inputRequests: {<key>: {method, params}}, requestState}
 *
 * where `requestState` is hangar's own (request-state.ts: sealed, bound to
 * the client, expiring, single use). The client retries the same request
 * with `inputResponses` and that state; hangar opens the state, answers the
 * held request with the client's response, and goes on waiting for the same
 * upstream call: its result answers the retry, or another `input_required`
 * does when the upstream asks again.
 *
 *   client ─ call ─► held call (runs upstream under its own context) ─► upstream
 *   client ◄─ input_required ─ held call ◄─ sampling/elicitation/roots ─ upstream
 *   client ─ retry + inputResponses ─► held call ─ the answer ─► upstream ─► result ─► client
 *
 * The upstream call runs under a request context of the held call's own, so
 * it outlives the client request that started it (over HTTP each request is
 * its own session): its id is hangar's, and the client's record knows it
 * (`ClientRecord.heldCalls`), so the relay hands the upstream's requests
 * here. Bounded: a few held calls and bytes of held requests per client, and
 * each state expires (hangar.inputRequiredSeconds); an expired or abandoned
 * held call frees the upstream's request with an error that names hangar and
 * says the client did not answer in time, and cancels the upstream call.
 */
import {randomBytes} from 'node:crypto';
import {JsonRpcCode, JsonRpcError} from '../base/errors.js';
import type {ClientRecord, HeldCallPeer} from '../engine/clients/clients.js';
import {LiveRequest, type RequestContext} from '../engine/request-context.js';
import {heldInputUnanswered} from '../engine/refusals.js';
import type {Supervisor} from '../engine/supervisor.js';
import {relayedRequests, type RelayedMethod} from '../link/client-side.js';
import {isPlainObject} from '../wire/message-classifier.js';
import type {Params, RequestHandler} from './pipeline.js';
import {identityKeyOf} from './modern-clients.js';
import {clientCapabilitiesKey} from './protocol-era.js';
import {RequestStates, refusedStateMessage} from './request-state.js';

/** The methods whose modern requests may be answered with input_required (2026-07-28). */
export const inputRequiredMethods = ['tools/call', 'prompts/get', 'resources/read'] as const;

export type HeldInputsOptions = {
	/** How long a client has to retry with its answers (hangar.inputRequiredSeconds). */
	ttlMs: number;
	/** Held calls waiting for one client's answers at once. */
	maxCallsPerClient?: number;
	/** Bytes of held upstream requests (their params as JSON) for one client at once. */
	maxBytesPerClient?: number;
	now?: () => number;
};

/**
 * Who a modern request's client is, for binding its requestState: its
 * identity (modern-clients.ts `modernClientKey`: on HTTP its token, peer
 * address, clientInfo and capabilities; on stdio or the socket its
 * connection too), the same key its per-client instances follow, so a
 * state opens for the client it was given to on any of its connections and
 * for no other. A record made elsewhere (a session's own) is its own client.
 */
export function clientKeyOf(client: ClientRecord): string {
	return identityKeyOf(client) ?? `${client.transport} client #${client.id}`;
}

/** A held request of the upstream's, awaiting the client's answer. */
type Asked = {
	method: RelayedMethod;
	params: Record<string, unknown>;
	bytes: number;
	/** Sent to the client in an input_required answer (and not yet answered). */
	issued: boolean;
	resolve: (result: Record<string, unknown>) => void;
	reject: (error: Error) => void;
	dispose: () => void;
};

/** How the upstream call ended. */
type Outcome = {kind: 'result'; value: unknown} | {kind: 'error'; error: unknown};

const keyPrefix = 'hangar-input-';
/** The longest key of a modern upstream's input request kept as the client's key. */
const maxUpstreamKey = 256;

/** How long an upstream whose held request expired may take to end its call itself before hangar cancels it. */
const expiredGraceMs = 2000;

class HeldCall implements HeldCallPeer {
	readonly id = `hangar-held-${randomBytes(8).toString('hex')}`;
	readonly context: LiveRequest;
	capabilities: Readonly<Record<string, unknown>> = {};
	readonly asked = new Map<string, Asked>();
	private nextKey = 0;
	private outcome: Outcome | undefined;
	private wake: (() => void) | undefined;
	/** The client request waiting now, for progress. */
	private round: RequestContext | undefined;

	get roundId(): string | number | undefined {
		return this.round?.id;
	}
	/** The state of the input_required answer the client has not retried yet. */
	state: string | undefined;
	private expiry: NodeJS.Timeout | undefined;
	upstream = '';

	constructor(
		private readonly owner: HeldInputs,
		readonly clientKey: string,
		readonly record: ClientRecord,
		readonly method: string,
		/** What the request named (a tool, a prompt, a resource's URI): its retries must name the same. */
		readonly target: string | undefined,
		first: RequestContext,
		readonly who: string,
		/** The session whose request started it: a connection that is its client ends it when it closes. */
		readonly scope: object,
	) {
		this.context = new LiveRequest({
			id: this.id,
			method: first.method,
			client: first.client,
			deadline: first.deadline?.deadline,
			correlationId: first.correlationId,
			audience: first.audience,
			onProgress: update => this.round?.onProgress?.(update),
			meta: first.meta,
			task: first.task,
		});
	}

	get bytes(): number {
		let total = 0;
		for (const asked of this.asked.values()) total += asked.bytes;
		return total;
	}

	/** Runs the upstream call; its end is kept until a round reads it. */
	start(handler: RequestHandler, params: Params): void {
		this.record.heldCalls.set(this.id, this);
		Promise.resolve()
			.then(async () => handler(this.context, params))
			.then(
				value => this.settle({kind: 'result', value}),
				(error: unknown) => this.settle({kind: 'error', error}),
			);
	}

	private settle(outcome: Outcome): void {
		this.outcome = outcome;
		this.wake?.();
	}

	ask(server: string, method: RelayedMethod, raw: Record<string, unknown> | undefined, signal: AbortSignal, upstreamKey?: string): Promise<Record<string, unknown>> {
		this.upstream = server;
		// The embedded request has no JSON-RPC id, progress or task of its own: its params as the upstream asked.
		const {_meta: meta, task: _task, ...rest} = raw ?? {};
		const {progressToken: _token, ...keptMeta} = isPlainObject(meta) ? meta : {};
		const params = Object.keys(keptMeta).length === 0 ? rest : {...rest, _meta: keptMeta};
		const bytes = JSON.stringify(params).length;
		const refusal = this.owner.roomFor(this, bytes);
		if (refusal !== undefined) return Promise.reject(heldInputUnanswered(server, method, relayedRequests[method], refusal, {}));
		// A modern upstream's own key, as the client would see it directly (one of a bounded round: short, and not one held already); else hangar's.
		const key = upstreamKey !== undefined && upstreamKey.length <= maxUpstreamKey && !this.asked.has(upstreamKey) ? upstreamKey : `${keyPrefix}${++this.nextKey}`;
		return new Promise((resolve, reject) => {
			const onAbort = () => {
				if (!this.asked.delete(key)) return;
				reject(new Error('cancelled by the upstream'));
			};

			signal.addEventListener('abort', onAbort, {once: true});
			this.asked.set(key, {method, params, bytes, issued: false, resolve, reject, dispose: () => signal.removeEventListener('abort', onAbort)});
			this.wake?.();
		});
	}

	/** Serves one client request of this call: the call's result, or input_required for what the upstream asks. */
	async serve(context: RequestContext, capabilities: Record<string, unknown>): Promise<unknown> {
		this.capabilities = capabilities;
		this.round = context;
		try {
			for (;;) {
				if (this.outcome !== undefined) {
					this.owner.drop(this);
					if (this.outcome.kind === 'error') throw this.outcome.error;
					return this.outcome.value;
				}

				const fresh = [...this.asked].filter(([, asked]) => !asked.issued);
				const answer = fresh.length === 0 ? undefined : this.inputRequired(fresh);
				if (answer !== undefined) return answer;
				if (fresh.length > 0) continue;
				await this.next(context.signal);
			}
		} finally {
			this.round = undefined;
		}
	}

	/** Waits for the call's end or the upstream's next request; the client's cancel (or its session's close) cancels the call. */
	private async next(signal: AbortSignal): Promise<void> {
		await new Promise<void>((resolve, reject) => {
			const done = () => {
				signal.removeEventListener('abort', onAbort);
				this.wake = undefined;
				resolve();
			};

			const onAbort = () => {
				this.wake = undefined;
				this.owner.drop(this, 'the client cancelled its call');
				reject(signal.reason as Error);
			};

			if (signal.aborted) {
				onAbort();
				return;
			}

			this.wake = done;
			signal.addEventListener('abort', onAbort, {once: true});
		});
	}

	/** The input_required answer asking `fresh`; undefined past the process-wide bound (then the upstream was told no, and the call goes on). */
	private inputRequired(fresh: Array<[string, Asked]>): unknown {
		const state = this.owner.mint(this);
		if (state === undefined) {
			for (const [key, asked] of fresh) this.free(key, asked, 'hangar holds as many requests for clients as it will at once');
			return undefined;
		}

		for (const [, asked] of fresh) asked.issued = true;
		this.state = state;
		clearTimeout(this.expiry);
		this.expiry = setTimeout(() => this.owner.sweep(), this.owner.ttlMs + 5);
		this.expiry.unref();
		return {resultType: 'input_required', inputRequests: Object.fromEntries(fresh.map(([key, asked]) => [key, {method: asked.method, params: asked.params}])), requestState: state};
	}

	/** The client's answers: each resolves the held request of its key; an issued one left unanswered is asked again. */
	answer(responses: unknown): void {
		const given = isPlainObject(responses) ? responses : {};
		for (const [key, asked] of this.asked) {
			if (!asked.issued) continue;
			const response = given[key];
			if (!isPlainObject(response)) {
				asked.issued = false;
				continue;
			}

			this.asked.delete(key);
			asked.dispose();
			asked.resolve(response);
		}
	}

	private free(key: string, asked: Asked, why: string): void {
		this.asked.delete(key);
		asked.dispose();
		asked.reject(heldInputUnanswered(this.upstream, asked.method, relayedRequests[asked.method], why, {}));
	}

	/**
	 * Ends the held call: its held requests are freed with `why`, and the
	 * upstream call, when it still runs, is cancelled: at once when the client
	 * is gone, or `graceMs` after the upstream got its error (it may end the
	 * call itself, with what it does without the answer).
	 */
	end(why: string | undefined, graceMs = 0): void {
		clearTimeout(this.expiry);
		this.record.heldCalls.delete(this.id);
		if (this.record.heldCalls.size === 0) this.owner.released(this.record);
		const freed = this.asked.size > 0;
		for (const [key, asked] of [...this.asked]) this.free(key, asked, why ?? 'the call ended');
		if (this.outcome !== undefined || (graceMs === 0 && !freed)) {
			this.cancel();
			return;
		}

		// Even at once (graceMs 0), after the freed requests' errors are on their way: the upstream reads why before its call is cancelled.
		setTimeout(() => this.cancel(), graceMs).unref();
	}

	private cancel(): void {
		if (this.outcome === undefined) this.context.abort('cancelled');
		this.context.end();
	}
}

/** What a tools/call or prompts/get names (`name`), or a resources/read (`uri`): a retry is the same request only if it names the same. */
function targetOf(params: Params): string | undefined {
	const target = params?.['name'] ?? params?.['uri'];
	return typeof target === 'string' ? target : undefined;
}

/** A request as a refusal names it: `tools/call request of "echo"`. */
function describe(method: string, target: string | undefined): string {
	return target === undefined ? `${method} request` : `${method} request of ${JSON.stringify(target)}`;
}

/** What a held call is answered with when the client's retry cannot be taken. */
function refused(message: string): JsonRpcError {
	return new JsonRpcError(JsonRpcCode.InvalidParams, message);
}

export class HeldInputs {
	private readonly states: RequestStates;
	private readonly calls = new Map<string, HeldCall>();
	/** What runs when a closed session's record holds no call any more (see whenReleased). */
	private readonly releasing = new WeakMap<ClientRecord, () => void>();
	readonly ttlMs: number;
	private readonly maxCallsPerClient: number;
	private readonly maxBytesPerClient: number;

	constructor(options: HeldInputsOptions) {
		this.ttlMs = options.ttlMs;
		this.maxCallsPerClient = options.maxCallsPerClient ?? 16;
		this.maxBytesPerClient = options.maxBytesPerClient ?? 1024 * 1024;
		this.states = new RequestStates({ttlMs: options.ttlMs, maxOutstanding: 4096, now: options.now});
	}

	/** Held calls now, for tests and status. */
	get size(): number {
		return this.calls.size;
	}

	/**
	 * `handler` (the shared table's tools/call, prompts/get or resources/read)
	 * for modern requests: a request without a requestState starts a held
	 * call; one with it continues the call its state names.
	 */
	wrap(handler: RequestHandler, scope: object): RequestHandler {
		return async (context, params) => {
			const record = context.client;
			if (record === undefined) return handler(context, params);
			const meta = params?.['_meta'];
			const declared = isPlainObject(meta) && isPlainObject(meta[clientCapabilitiesKey]) ? meta[clientCapabilitiesKey] : {};
			const key = clientKeyOf(record);
			// A connection that never initialized is a modern client: what it declares is what its per-client instances are told.
			if (record.capabilities.size === 0 && Object.keys(record.declaredCapabilities).length === 0) record.declaredCapabilities = declared;
			if (params !== undefined && 'requestState' in params) return this.resume(context, key, declared, params);
			const who = `the 2026-07-28 client ${record.name === null ? `of ${record.label}` : `"${record.name}" (${record.label})`}`;
			const call = new HeldCall(this, key, record, context.method, targetOf(params), context, who, scope);
			this.calls.set(call.id, call);
			const {inputResponses: _responses, ...rest} = params ?? {};
			call.start(handler, params === undefined ? undefined : rest);
			return call.serve(context, declared);
		};
	}

	private async resume(context: RequestContext, key: string, declared: Record<string, unknown>, params: Record<string, unknown>): Promise<unknown> {
		const opened = this.states.open(params['requestState'], key, context.method, targetOf(params));
		// An expired state's held call is freed now, with its error to the upstream, not only when its timer fires.
		if (!opened.ok && opened.reason === 'expired') this.sweep();
		if (!opened.ok && opened.reason === 'other-request') throw refused(`Invalid params: requestState belongs to a ${describe(opened.held.method, opened.held.target)}; retry that request with it, not a ${describe(context.method, targetOf(params))}`);
		if (!opened.ok) throw refused(refusedStateMessage(opened.reason));
		const call = this.calls.get(String(opened.held.heldRequestId));
		if (call === undefined) throw refused(refusedStateMessage('expired'));
		call.state = undefined;
		call.answer(params['inputResponses']);
		return call.serve(context, declared);
	}

	/** A state for `call`'s input_required answer, or undefined past the bound. */
	mint(call: HeldCall): string | undefined {
		// States of calls that ended before their client retried are outstanding until they expire: cleared here, so they never hold a place.
		this.sweep();
		return this.states.mint({client: call.clientKey, upstream: call.upstream, heldRequestId: call.id, method: call.method, ...(call.target === undefined ? {} : {target: call.target})});
	}

	/** Why one more held request of `bytes` does not fit for `call`'s client, or undefined when it does. */
	roomFor(call: HeldCall, bytes: number): string | undefined {
		let calls = 0;
		let held = bytes;
		for (const other of this.calls.values()) {
			if (other.clientKey !== call.clientKey) continue;
			if (other.asked.size > 0 || other.state !== undefined) calls += 1;
			held += other.bytes;
		}

		if (call.asked.size === 0 && call.state === undefined && calls >= this.maxCallsPerClient) return `hangar already holds ${calls} calls waiting for this client's answers (the most it holds per client)`;
		if (held > this.maxBytesPerClient) return `hangar already holds ${held - bytes} bytes of requests waiting for this client's answers, and this one (${bytes} bytes) would pass the ${this.maxBytesPerClient} it holds per client`;
		return undefined;
	}

	/** Frees the held calls whose state expired unanswered. */
	sweep(): void {
		for (const expired of this.states.expire()) {
			const call = this.calls.get(String(expired.heldRequestId));
			if (call !== undefined) this.drop(call, `the client did not answer in time (it had ${this.ttlMs / 1000} s, hangar.inputRequiredSeconds)`, expiredGraceMs);
		}
	}

	/** Forgets `call` and ends it (its held requests freed with `why`). */
	drop(call: HeldCall, why?: string, graceMs = 0): void {
		if (!this.calls.delete(call.id)) return;
		call.end(why, graceMs);
	}

	/**
	 * Runs `then` once `record` holds no call any more: at once, or when its
	 * last held call ends. A one-request HTTP session's record stays until
	 * then, and with it the per-client instances its held calls run on.
	 */
	whenReleased(record: ClientRecord, then: () => void): void {
		if (record.heldCalls.size === 0) then();
		else this.releasing.set(record, then);
	}

	/** @internal `record`'s last held call ended. */
	released(record: ClientRecord): void {
		const then = this.releasing.get(record);
		this.releasing.delete(record);
		then?.();
	}

	/** A connection that is the client closed: the held calls its requests started end (a one-request HTTP session is not one). */
	dropScope(scope: object, why: string): void {
		for (const call of [...this.calls.values()]) if (call.scope === scope) this.drop(call, why);
	}
}

const bySupervisor = new WeakMap<Supervisor, HeldInputs>();

/** The held calls of this hangar process: one store, so a retry on another connection (HTTP) finds its call. */
export function heldInputsOf(supervisor: Supervisor): HeldInputs {
	let held = bySupervisor.get(supervisor);
	if (held === undefined) {
		held = new HeldInputs({ttlMs: supervisor.config.hangar.inputRequiredMs});
		bySupervisor.set(supervisor, held);
	}

	return held;
}
