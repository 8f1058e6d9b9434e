/**
 * The calls one upstream instance is serving now, each with the client
 * session that sent it: what decides which client a request of the
 * upstream's (sampling, elicitation, roots) belongs to when its transport
 * does not say (stdio ties nothing to a call). The call path adds a call
 * when it begins and removes it when it ends; the relay reads it
 * (`client-relay.ts`). It knows nothing of how the call was routed, so a
 * request context that carries the caller can feed it as well.
 */
import type {ClientRecord} from './clients.js';
import {SteadySet} from '../../base/steady-collections.js';

/** Who sent a call: its session and the session's own id for the request. */
export type Caller = {client: ClientRecord; requestId: string | number};

export class CallersInFlight {
	private readonly calls = new SteadySet<Caller>();

	/**
	 * A call of `client` began on this instance: the object returned stands
	 * for it (one per call: the same session may have several calls in
	 * flight with the same id on different upstreams); `end` it when it ends.
	 */
	begin(client: ClientRecord, requestId: string | number): Caller {
		const call: Caller = {client, requestId};
		this.calls.add(call);
		return call;
	}

	end(call: Caller): void {
		this.calls.delete(call);
	}

	/** How many calls are in flight. */
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
}
