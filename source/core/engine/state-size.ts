/**
 * What of an upstream's record is written to state.json when it is large.
 * An upstream may list tools up to the largest message hangar takes (64 MiB);
 * three such lists once made state.json one string longer than V8 allows, so
 * no write succeeded and every upstream's pins went unsaved. Each record is
 * now weighed (its large parts measured once per value, not at every write)
 * and, past `maxRecordBytes`:
 * - its cached tool list and catalog are not written (they are read again
 *   from the upstream at its next start);
 * - if still past it, its pinned tools and the tools a quarantine saw keep
 *   only their hashes (a change is still detected and quarantined; its diff
 *   then cannot show the text before).
 * Its quarantine, counters and the rest are always written. What was left
 * out is said in the log and in status (`StateStore.writeProblems`).
 */
import type {PersistedState, PersistedUpstream} from './state-store.js';
import type {PinnedTool} from './upstream/pins.js';

/** The most one upstream's record takes in state.json (compact JSON, bytes ≈ characters) before its caches are left out. */
export const maxRecordBytes = 4 * 1024 * 1024;

const sizes = new WeakMap<object, number>();

/** The compact JSON length of a value, measured once per value (the store replaces lists, never edits them in place). */
function weigh(value: object | undefined): number {
	if (value === undefined) return 0;
	let size = sizes.get(value);
	if (size === undefined) {
		size = (JSON.stringify(value) ?? '').length;
		sizes.set(value, size);
	}

	return size;
}

const hashesOnly = (tools: Record<string, PinnedTool>): Record<string, PinnedTool> =>
	Object.fromEntries(Object.entries(tools).map(([name, tool]) => [name, {hash: tool.hash, description: null, inputSchema: null}]));

const mib = (bytes: number): string => `${(bytes / 1024 / 1024).toFixed(1)} MiB`;

/** The record as written, and what was left out of it (undefined: written whole). */
export function recordToWrite(upstream: PersistedUpstream, max = maxRecordBytes): {record: PersistedUpstream; leftOut?: string} {
	const caches = weigh(upstream.tools) + weigh(upstream.catalog);
	const pinned = weigh(upstream.pins?.tools) + weigh(upstream.admin?.seen);
	// The rest (counters, last exit, identity…) is small and bounded elsewhere.
	if (caches + pinned <= max) return {record: upstream};
	const record: PersistedUpstream = {...upstream};
	delete record.tools;
	delete record.toolsVerifiedAt;
	delete record.catalog;
	let leftOut = `its cached tool list and catalog (${mib(caches + pinned)} with its pins, past the ${mib(max)} one upstream may take) are not saved, so they are read from it again at its next start`;
	if (pinned > max) {
		if (upstream.pins?.tools !== undefined) record.pins = {...upstream.pins, tools: hashesOnly(upstream.pins.tools)};
		if (upstream.admin?.seen !== undefined) record.admin = {...upstream.admin, seen: hashesOnly(upstream.admin.seen)};
		leftOut += `; its pinned tools are saved as hashes only (${mib(pinned)}), so a change is still caught but its diff cannot show the text before`;
	}

	return {record, leftOut};
}

/** The state as written, and per upstream what was left out. */
export function stateToWrite(state: PersistedState, max = maxRecordBytes): {state: PersistedState; leftOut: Map<string, string>} {
	const leftOut = new Map<string, string>();
	const upstreams: Record<string, PersistedUpstream> = {};
	for (const [name, upstream] of Object.entries(state.upstreams)) {
		const written = recordToWrite(upstream, max);
		upstreams[name] = written.record;
		if (written.leftOut !== undefined) leftOut.set(name, written.leftOut);
	}

	return {state: {...state, upstreams}, leftOut};
}
