/**
 * The takeover's merge: what a process changed while another wrote the
 * state dir, merged with what that writer left on disk once it is gone
 * (see StateStore's takeover).
 */
import type {PersistedState, PersistedUpstream} from './state-store.js';

/** The fields of an upstream's record a takeover merges one by one (counters are added). */
const mergedFields = ['tools', 'toolsVerifiedAt', 'catalog', 'lastExit', 'admin', 'pins', 'firstSeenAt'] as const;

const same = (a: unknown, b: unknown): boolean => JSON.stringify(a) === JSON.stringify(b);

/**
 * Merges, in place into `ours`, what this process changed while it could not
 * write (`ours` against `base`, what it read at start) with what the holder
 * left on disk (`theirs`): a field this process changed keeps its value, any
 * other takes the holder's, and counters add up. An upstream this process
 * first saw while the holder already had it takes the holder's record (its
 * "new upstream" judgement was made without knowing). Returns the upstreams
 * whose quarantine changed, for the supervisor to apply.
 */
export function mergeState(base: PersistedState, ours: PersistedState, theirs: PersistedState): string[] {
	const changed: string[] = [];
	for (const [name, their] of Object.entries(theirs.upstreams)) {
		const before = base.upstreams[name];
		const our = ours.upstreams[name];
		if (our === undefined) {
			ours.upstreams[name] = their;
			if (their.admin !== undefined) changed.push(name);
			continue;
		}

		const wasQuarantined = our.admin?.state === 'quarantined';
		for (const field of mergedFields) {
			if (before !== undefined && !same(our[field], before[field])) continue;
			if (their[field] === undefined) delete our[field];
			else (our as Record<string, unknown>)[field] = their[field];
		}

		for (const key of Object.keys(our.counters) as Array<keyof PersistedUpstream['counters']>) {
			our.counters[key] = their.counters[key] + Math.max(0, our.counters[key] - (before?.counters[key] ?? 0));
		}

		if (wasQuarantined !== (our.admin?.state === 'quarantined')) changed.push(name);
	}

	return changed;
}

