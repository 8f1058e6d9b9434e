/**
 * What one upstream instance is doing now, by cause: what decides which
 * client a message or request of the upstream's (a log message, sampling,
 * elicitation, roots) belongs to when its transport does not say (stdio
 * ties nothing to a call).
 *
 * - The requests of client sessions: every request a session sent that the
 *   call path took to this instance (tools/call, resources/read,
 *   resources/subscribe and unsubscribe, prompts/get, tasks/*, ...), each
 *   with its session, added when it begins and removed when it ends.
 * - Hangar's own requests, whose cause is no client that could be the
 *   recipient (an unsubscribe sent for a session that left, a subscribe
 *   again after a restart, an in-process call): counted here; the link
 *   counts its own housekeeping (pings, list reads, logging/setLevel,
 *   initialize) and says so with each message (`hangarRequests`).
 * - Calls a client cancelled after they were sent: cancellation is
 *   advisory and an upstream need not answer a cancelled request, so each
 *   is kept as possibly still running until the upstream answers it anyway,
 *   the deadline it had passes, or the connection closes (the link tells
 *   `end` then). At most `cancelledLimit` are kept; past that, what is
 *   dropped still counts until its deadline (one time kept, not the call).
 *
 * `attribute` reads them all: the one rule every untied message is placed by.
 */
import type {ClientRecord} from './clients.js';
import {SteadySet} from '../../base/steady-collections.js';

/** Who sent a call: its session and the session's own id for the request. */
export type Caller = {client: ClientRecord; requestId: string | number};

/** The cancelled calls kept per instance as possibly still running (see `CallersInFlight`). */
export const cancelledLimit = 256;

/**
 * Whose an untied message of the upstream is, by what is in flight:
 * `one`, the requests in flight are all `client`'s and nothing else runs;
 * `idle`, nothing runs at all; `unknown`, several clients' requests, a
 * cancelled call that may still run, or a request of hangar's own are in
 * flight, so nothing tells (`why` says which).
 */
export type Attribution = {kind: 'one'; client: ClientRecord} | {kind: 'idle'} | {kind: 'unknown'; why: string};

/** A session's name in messages: `MCP client "cursor" (socket#3)`. */
export function describeClient(record: ClientRecord): string {
	return record.name === null ? `the client of session ${record.label}` : `MCP client "${record.name}" (${record.label})`;
}

export class CallersInFlight {
	private readonly calls = new SteadySet<Caller>();
	/** Cancelled calls that may still run, each with the time its deadline passes. */
	private readonly cancelledCalls = new Map<Caller, number>();
	/** Past `cancelledLimit`: the latest deadline of a cancelled call no longer kept. */
	private droppedUntil = 0;
	/** Hangar's own requests in flight (no client's). */
	private own = 0;
	/** The session whose request began here last ('hangar' for one of hangar's own): an untied message with nothing in flight may be about it. */
	private last: ClientRecord | 'hangar' | undefined;

	constructor(private readonly now: () => number = Date.now) {}

	/**
	 * A call of `client` began on this instance: the object returned stands
	 * for it (one per call: the same session may have several calls in
	 * flight with the same id on different upstreams); `end` it when it ends.
	 */
	begin(client: ClientRecord, requestId: string | number): Caller {
		const call: Caller = {client, requestId};
		this.calls.add(call);
		this.last = client;
		return call;
	}

	/** It ended: answered, failed, or (a cancelled one) known to run no more. */
	end(call: Caller): void {
		this.calls.delete(call);
		this.cancelledCalls.delete(call);
	}

	/**
	 * Its client cancelled it after it was sent: it may still run at the
	 * upstream for `forMs` (what was left of its deadline), unless `end` is
	 * told sooner (the upstream answered anyway, or the connection closed).
	 */
	cancelled(call: Caller, forMs: number): void {
		if (!this.calls.delete(call)) return;
		this.prune();
		this.cancelledCalls.set(call, this.now() + forMs);
		if (this.cancelledCalls.size <= cancelledLimit) return;
		const [oldest, until] = this.cancelledCalls.entries().next().value!;
		this.cancelledCalls.delete(oldest);
		this.droppedUntil = Math.max(this.droppedUntil, until);
	}

	/** A request hangar sent on its own (no client's) began; `endOwn` when it ends. */
	beginOwn(): void {
		this.own += 1;
		this.last = 'hangar';
	}

	/** `mayRunMs`: it was cancelled or timed out after it was sent, and may still run at the upstream that long. */
	endOwn(mayRunMs?: number): void {
		this.own -= 1;
		if (mayRunMs !== undefined) this.droppedUntil = Math.max(this.droppedUntil, this.now() + mayRunMs);
	}

	/** The session whose request began on this instance last, if any did ('hangar' for one of its own): with nothing in flight, what the upstream says may be about it. */
	get lastSession(): ClientRecord | 'hangar' | undefined {
		return this.last;
	}

	/** How many client calls are in flight (cancelled ones not counted). */
	get size(): number {
		return this.calls.size;
	}

	/** The sessions with a call in flight, each once, in the order their first call began. */
	sessions(): ClientRecord[] {
		return [...new Set([...this.calls].map(call => call.client))];
	}

	/** The calls in flight of `client`, oldest first. */
	callsOf(client: ClientRecord): Caller[] {
		return [...this.calls].filter(call => call.client === client);
	}

	/** The most recent call in flight of `client`, if any. */
	latestOf(client: ClientRecord): Caller | undefined {
		let latest: Caller | undefined;
		for (const call of this.calls) if (call.client === client) latest = call;
		return latest;
	}

	/**
	 * Whose an upstream's message or request is that its transport ties to
	 * nothing, by what runs on the instance: one session's, when every
	 * request in flight is that session's and nothing else runs (no call
	 * cancelled that may still run, none of hangar's own requests, whether
	 * counted here or `hangarRequests` the link counts); `idle` when nothing
	 * runs; otherwise unknown, with why.
	 */
	attribute(hangarRequests = 0): Attribution {
		const sessions = this.sessions();
		if (sessions.length > 1) {
			return {kind: 'unknown', why: `calls of ${sessions.length} clients (${sessions.map(describeClient).join(', ')}) are in flight on its shared instance, and nothing in the request says which one it belongs to`};
		}

		this.prune();
		if (this.cancelledCalls.size > 0 || this.droppedUntil > 0) {
			const first = this.cancelledCalls.keys().next().value;
			const whose = first === undefined ? 'a client' : describeClient(first.client);
			return {kind: 'unknown', why: `a call ${whose} cancelled may still be running on it (cancellation is advisory: it counts until the upstream answers it or its deadline passes), so it may be that call's`};
		}

		if (this.own > 0 || hangarRequests > 0) return {kind: 'unknown', why: 'a request hangar sent it on its own, not for a client, is in flight, so it may be that request\'s'};
		return sessions.length === 1 ? {kind: 'one', client: sessions[0]!} : {kind: 'idle'};
	}

	/** Forgets the cancelled calls whose deadline has passed. */
	private prune(): void {
		if (this.cancelledCalls.size === 0 && this.droppedUntil === 0) return;
		const now = this.now();
		for (const [call, until] of this.cancelledCalls) if (until <= now) this.cancelledCalls.delete(call);
		if (this.droppedUntil <= now) this.droppedUntil = 0;
	}
}
