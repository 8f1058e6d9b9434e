/**
 * Caching hints of an upstream's lists (2026-07-28: `ttlMs`, `cacheScope` on
 * `tools/list`, `prompts/list`, `resources/list` and
 * `resources/templates/list`), kept per connection as hangar last read them,
 * so the gateway can merge them into the hints of its aggregated lists.
 *
 * A missing hint counts as the spec says for a missing `ttlMs`: 0,
 * immediately stale. For a missing `cacheScope` the spec gives no safe
 * default (2025 upstreams send neither), so it counts as `private`, the
 * choice that can never share one caller's list with another. A hint is
 * kept with the time it was read: what hangar serves later is fresh only for
 * what is left of it, and a `list_changed` drops it (the list hangar holds
 * is stale until it is read again).
 */
export type CacheScope = 'public' | 'private';
export type CacheHint = {ttlMs: number; cacheScope: CacheScope};

/** Not cacheable: immediately stale, never shared. What a part without hints counts as. */
export const noCaching: CacheHint = {ttlMs: 0, cacheScope: 'private'};

/** The list methods whose results carry hints hangar merges. */
export const hintedListMethods = new Set(['tools/list', 'prompts/list', 'resources/list', 'resources/templates/list']);

/** The hint a result carries, with what is missing or malformed counted as `noCaching` counts it. */
export function hintOf(result: Record<string, unknown>): CacheHint {
	const ttl = result['ttlMs'];
	return {
		ttlMs: typeof ttl === 'number' && Number.isSafeInteger(ttl) && ttl > 0 ? ttl : 0,
		cacheScope: result['cacheScope'] === 'public' ? 'public' : 'private',
	};
}

/** Several parts' hints as one: the smallest `ttlMs`, and `private` unless every part is `public`. No part: not cacheable. */
export function mergeHints(parts: CacheHint[]): CacheHint {
	if (parts.length === 0) return noCaching;
	return {
		ttlMs: Math.min(...parts.map(part => part.ttlMs)),
		cacheScope: parts.every(part => part.cacheScope === 'public') ? 'public' : 'private',
	};
}

export class ListHints {
	private readonly read = new Map<string, {hint: CacheHint; at: number}>();

	constructor(private readonly now: () => number = Date.now) {}

	/** One page of `method`'s listing was read (`first`: a new listing starts, replacing what was kept). */
	page(method: string, result: Record<string, unknown>, first: boolean): void {
		const hint = hintOf(result);
		const kept = first ? undefined : this.read.get(method);
		this.read.set(method, {hint: kept === undefined ? hint : mergeHints([kept.hint, hint]), at: kept?.at ?? this.now()});
	}

	/** The upstream said `method`'s list changed: what hangar holds is stale until it is read again. */
	changed(method: string): void {
		this.read.delete(method);
	}

	/** What is left of the hint of `method`'s last listing now; `noCaching` when there is none. */
	current(method: string): CacheHint {
		const kept = this.read.get(method);
		if (kept === undefined) return noCaching;
		return {ttlMs: Math.max(0, kept.hint.ttlMs - (this.now() - kept.at)), cacheScope: kept.hint.cacheScope};
	}
}
