/**
 * The `requestState` hangar mints when it answers a modern (2026-07-28)
 * client's call with `input_required` on behalf of a legacy upstream that
 * asked its client something (sampling, elicitation, roots) mid-call. The
 * spec asks that state a server hands a client be integrity-protected; this
 * is AES-256-GCM (node:crypto) under a key made when the process starts, so
 * a state outlives neither the process nor the held request it names.
 *
 * A state is bound to the client it was given to (its session or identity),
 * the upstream, the held request and an expiry, and it is single use: it is
 * opened once, and a second `open` of the same state is refused as a replay.
 * Tampered, expired, replayed and another client's states are refused with
 * the reason. What expires is handed back by `expire()` so the caller frees
 * the held upstream request with an error that says so.
 *
 * held-inputs.ts mints and opens them.
 */
import {createCipheriv, createDecipheriv, randomBytes} from 'node:crypto';

/** What a state stands for: the upstream's request hangar holds for the client. */
export type HeldInput = {
	/** The client it was given to: its session, or its identity where requests have no session. */
	client: string;
	upstream: string;
	/** The upstream's JSON-RPC id of the request held. */
	heldRequestId: string | number;
	/** The client's request that was answered with input_required (tools/call, prompts/get, resources/read). */
	method: string;
	/** What that request named (the tool or prompt, the resource's URI), when it named one: a retry must name the same. */
	target?: string;
};

export type OpenedState =
	| {ok: true; held: HeldInput}
	| {ok: false; reason: 'malformed' | 'tampered' | 'expired' | 'replayed' | 'other-client'}
	| {ok: false; reason: 'other-request'; held: HeldInput};

type Payload = {v: 1; id: string; exp: number; held: HeldInput};

const version = 1;
const additionalData = Buffer.from('mcp-hangar/requestState/v1');
const ivBytes = 12;
const tagBytes = 16;

export type RequestStateOptions = {
	/** How long a state may be answered (default five minutes). */
	ttlMs?: number;
	/** The most states outstanding at once; past it, `mint` refuses (bounded memory). */
	maxOutstanding?: number;
	now?: () => number;
};

export class RequestStates {
	private readonly key = randomBytes(32);
	/** States minted and not yet opened or expired: their id, expiry and what they hold. */
	private readonly outstanding = new Map<string, {exp: number; held: HeldInput}>();
	private readonly ttlMs: number;
	private readonly maxOutstanding: number;
	private readonly now: () => number;

	constructor(options: RequestStateOptions = {}) {
		this.ttlMs = options.ttlMs ?? 5 * 60_000;
		this.maxOutstanding = options.maxOutstanding ?? 10_000;
		this.now = options.now ?? Date.now;
	}

	/** States outstanding now. */
	get size(): number {
		return this.outstanding.size;
	}

	/** A new state for `held`, or undefined when too many are outstanding (the caller refuses the upstream's request). */
	mint(held: HeldInput): string | undefined {
		if (this.outstanding.size >= this.maxOutstanding) return undefined;
		const id = randomBytes(16).toString('hex');
		const exp = this.now() + this.ttlMs;
		const payload: Payload = {v: version, id, exp, held};
		const iv = randomBytes(ivBytes);
		const cipher = createCipheriv('aes-256-gcm', this.key, iv);
		cipher.setAAD(additionalData);
		const sealed = Buffer.concat([cipher.update(JSON.stringify(payload), 'utf8'), cipher.final()]);
		this.outstanding.set(id, {exp, held});
		return Buffer.concat([iv, cipher.getAuthTag(), sealed]).toString('base64url');
	}

	/**
	 * Opens `token` for `client`'s retry of a `method` request naming `target`:
	 * what it holds, once, or why not. A refused state stays outstanding (a wrong retry does
	 * not use it up, and an expired one is left for `expire()` to free).
	 */
	open(token: unknown, client: string, method?: string, target?: string): OpenedState {
		if (typeof token !== 'string' || token.length > 16_384) return {ok: false, reason: 'malformed'};
		const raw = Buffer.from(token, 'base64url');
		if (raw.length <= ivBytes + tagBytes) return {ok: false, reason: 'malformed'};
		let payload: Payload;
		try {
			const decipher = createDecipheriv('aes-256-gcm', this.key, raw.subarray(0, ivBytes));
			decipher.setAAD(additionalData);
			decipher.setAuthTag(raw.subarray(ivBytes, ivBytes + tagBytes));
			const plain = Buffer.concat([decipher.update(raw.subarray(ivBytes + tagBytes)), decipher.final()]);
			payload = JSON.parse(plain.toString('utf8')) as Payload;
		} catch {
			return {ok: false, reason: 'tampered'};
		}

		if (payload.held.client !== client) return {ok: false, reason: 'other-client'};
		if (payload.exp <= this.now()) return {ok: false, reason: 'expired'};
		const otherRequest = method !== undefined && (payload.held.method !== method || payload.held.target !== target);
		if (otherRequest && this.outstanding.has(payload.id)) return {ok: false, reason: 'other-request', held: payload.held};

		if (!this.outstanding.delete(payload.id)) return {ok: false, reason: 'replayed'};
		return {ok: true, held: payload.held};
	}

	/** The states past their expiry, removed: the caller frees each held request with an error to its upstream. */
	expire(): HeldInput[] {
		const now = this.now();
		const expired: HeldInput[] = [];
		for (const [id, entry] of this.outstanding) {
			if (entry.exp > now) continue;
			this.outstanding.delete(id);
			expired.push(entry.held);
		}

		return expired;
	}
}

/** What a refused state is answered with, in words a client's author can act on. */
export function refusedStateMessage(reason: Exclude<OpenedState, {ok: true}>['reason']): string {
	switch (reason) {
		case 'malformed': {
			return 'Invalid params: requestState is not one hangar issued; send the requestState of the input_required answer as it was given';
		}

		case 'tampered': {
			return 'Invalid params: requestState failed its integrity check (changed, or issued by another hangar process); retry the original request without it';
		}

		case 'expired': {
			return 'Invalid params: requestState expired and the upstream\'s request it answered was freed; retry the original request without it';
		}

		case 'replayed': {
			return 'Invalid params: requestState was already used (each is answered once); retry the original request without it';
		}

		case 'other-client': {
			return 'Invalid params: requestState was issued to another client (another connection, token, clientInfo or capabilities); only the client it was given to may retry with it: send the original request without it';
		}

		case 'other-request': {
			return 'Invalid params: requestState belongs to another request; retry that request with it';
		}
	}
}
