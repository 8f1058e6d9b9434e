/**
 * The caching hints (2026-07-28 `ttlMs`, `cacheScope`) of hangar's
 * aggregated lists for a modern client: merged from the parts, each
 * upstream's own hints as hangar last read them (link/list-hints.ts), the
 * smallest `ttlMs` and `private` unless every part is `public`.
 *
 * A part counts as not cacheable (0, `private`) when hangar holds no live
 * hint for it: a 2025 upstream (which sends none), a stopped one (its list
 * is hangar's saved copy), one whose list changed and is not read again yet,
 * and a per-client upstream (its list is each client's own). An upstream
 * that is switched off, or whose capabilities show it has no such list, is
 * no part. Hangar's own management tools change only with its config and
 * constrain nothing.
 */
import type {Supervisor} from '../engine/supervisor.js';
import {hintedListMethods, mergeHints, noCaching, type CacheHint} from '../link/list-hints.js';

/** The capability an upstream must have to list what `method` lists. */
const capabilityOf: Record<string, string> = {'tools/list': 'tools', 'prompts/list': 'prompts', 'resources/list': 'resources', 'resources/templates/list': 'resources'};

/** The merged hint for `method`'s aggregated list, or undefined for a method hangar does not merge. */
export function aggregatedHint(supervisor: Supervisor, method: string): CacheHint | undefined {
	if (!hintedListMethods.has(method)) return undefined;
	const parts: CacheHint[] = [];
	for (const upstream of supervisor.upstreams.values()) {
		if (upstream.admin !== 'enabled') continue;
		const connection = upstream.readyConnection;
		const capabilities = connection?.serverCapabilities;
		if (capabilities !== undefined && capabilities[capabilityOf[method]!] === undefined) continue;
		parts.push(connection === undefined || supervisor.instanceModes.runsPerClient(upstream) ? noCaching : connection.listHints.current(method));
	}

	return mergeHints(parts);
}
