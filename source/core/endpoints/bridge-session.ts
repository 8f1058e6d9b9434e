/**
 * What a `--stdio` client set up in its session besides `initialize`, kept
 * by its bridge (bridge.ts) so that a new supervisor serves the session as
 * the lost one did: the log level it set (`logging/setLevel`) and the
 * resources it subscribed to (`resources/subscribe`, less those it
 * unsubscribed). Without them a client whose supervisor restarted silently
 * got no more log messages (a session that never set a level gets none) and
 * no more resource updates, though "the client never sees the restart".
 *
 * A request counts once the supervisor accepted it (a refused level is not
 * sent again). After the replayed initialize the bridge sends them again
 * under ids of its own, whose answers are kept from the client. Bounded: a
 * client's subscriptions are kept up to 1 MiB of their params; past that
 * the newest are not kept (and the bridge says so in its log).
 */
import type {Id} from '../wire/message-classifier.js';

const setLevel = 'logging/setLevel';
const subscribe = 'resources/subscribe';
const unsubscribe = 'resources/unsubscribe';
/** The methods whose requests set the session up (their params are kept). */
export const setupMethods: ReadonlySet<string> = new Set([setLevel, subscribe, unsubscribe]);
const maxKeptBytes = 1024 * 1024;
/** Requests of these methods awaiting their answer, at most (a client that never gets answers cannot grow it). */
const maxAwaiting = 1024;

type Setup = {method: string; params: Record<string, unknown> | undefined};

export class BridgeSession {
	private level: string | undefined;
	/** Subscribed URIs, each with its request's params as JSON. */
	private readonly subscriptions = new Map<string, string>();
	private keptBytes = 0;
	/** The client's requests that set something up, by id, until answered. */
	private readonly awaiting = new Map<Id, Setup>();
	/** Ids of the requests the bridge sent itself on the current connection, not answered yet. */
	private readonly own = new Set<string>();

	constructor(private readonly warn: (message: string) => void) {}

	/** A request from the client: remembered until its answer when it sets the session up. */
	request(id: Id, method: string | undefined, params: Record<string, unknown> | undefined): void {
		if (method !== undefined && setupMethods.has(method) && this.awaiting.size < maxAwaiting) this.awaiting.set(id, {method, params});
	}

	/** The supervisor answered the client's request `id`: what it set up now holds, unless refused. */
	answered(id: Id, error: boolean): void {
		if (this.awaiting.size === 0) return;
		const setup = this.awaiting.get(id);
		if (setup === undefined) return;
		this.awaiting.delete(id);
		if (!error) this.apply(setup);
	}

	/** The client cancelled `id`: whatever it would have set up is unknown, so it is not replayed. */
	cancelled(id: Id): void {
		this.awaiting.delete(id);
	}

	/** Whether `id` answers one of the bridge's own requests (then it is not the client's to see). */
	isOwn(id: Id): boolean {
		return typeof id === 'string' && this.own.delete(id);
	}

	/** The requests that set a new supervisor's session up as the client had it, with ids of the bridge's own under `prefix`. */
	replay(prefix: string): string[] {
		this.own.clear();
		const lines: string[] = [];
		const add = (method: string, params: string): void => {
			const id = `${prefix}${this.own.size}`;
			this.own.add(id);
			lines.push(`{"jsonrpc":"2.0","id":${JSON.stringify(id)},"method":${JSON.stringify(method)},"params":${params}}`);
		};

		if (this.level !== undefined) add(setLevel, JSON.stringify({level: this.level}));
		for (const params of this.subscriptions.values()) add(subscribe, params);
		return lines;
	}

	private apply({method, params}: Setup): void {
		if (method === setLevel) {
			if (typeof params?.['level'] === 'string') this.level = params['level'];
			return;
		}

		const uri = params?.['uri'];
		if (typeof uri !== 'string') return;
		const kept = this.subscriptions.get(uri);
		if (kept !== undefined) {
			this.subscriptions.delete(uri);
			this.keptBytes -= kept.length;
		}

		if (method === unsubscribe) return;
		const json = JSON.stringify(params);
		if (this.keptBytes + json.length > maxKeptBytes) {
			this.warn(`bridge: the client's subscription to ${uri.slice(0, 200)} is not kept for a supervisor restart: its subscriptions already take ${this.keptBytes} bytes (at most ${maxKeptBytes})`);
			return;
		}

		this.subscriptions.set(uri, json);
		this.keptBytes += json.length;
	}
}
