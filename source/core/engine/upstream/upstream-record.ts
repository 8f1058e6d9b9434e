/**
 * One upstream's record in the state file, bound to its server's name: what
 * a part of the upstream reads and changes there, and nothing of any other
 * upstream. Instances of a per-client server share their server's record.
 * What a new upstream writes there first, and the state it starts in.
 */
import type {HangarSettings, ServerConfig} from '../../config/read-config.js';
import type {PersistedUpstream, StateStore} from '../state-store.js';
import type {UpstreamState} from './upstream-state.js';

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

/** An upstream new to this state dir: when it was first seen, and quarantined when "quarantineNew" is on. */
export function recordFirstSeen(record: UpstreamRecord, config: ServerConfig, settings: HangarSettings, now: number): void {
	record.update(upstream => {
		upstream.firstSeenAt = now;
		if (settings.quarantineNew && !config.disabled && !config.quarantined && config.invalid === undefined) {
			upstream.admin = {state: 'quarantined', at: now, reason: 'new upstream: "quarantineNew" is on, so it waits for a person to approve it'};
		}
	});
}

/** The state an upstream starts in, from its config entry and its saved quarantine. */
export function initialState(config: ServerConfig, record: UpstreamRecord): UpstreamState {
	// A disabled entry never runs, so its problems (if any) wait until it is enabled; --check-config still lists them.
	return config.disabled
		? 'disabled'
		: config.invalid !== undefined
			? 'invalid'
			: config.quarantined || record.read().admin?.state === 'quarantined'
			? 'quarantined'
			: 'cold';
}
