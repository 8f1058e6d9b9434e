/**
 * One upstream's record in the state file, bound to its server's name: what
 * a part of the upstream reads and changes there, and nothing of any other
 * upstream. Instances of a per-client server share their server's record.
 */
import type {PersistedUpstream, StateStore} from '../state-store.js';

export type UpstreamRecord = {
	read(): PersistedUpstream;
	/** `lazily`: a change (call counters) that rides with the next write instead of scheduling one. */
	update(change: (upstream: PersistedUpstream) => void, lazily?: boolean): void;
};

export function upstreamRecord(store: StateStore, server: string): UpstreamRecord {
	return {
		read: () => store.upstream(server),
		update: (change, lazily) => store.update(server, change, lazily),
	};
}
