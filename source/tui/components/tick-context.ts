/**
 * The newest read, for what moves with the clock alone (ages, the uptime).
 * When a read differs from the screen only in its ages, the root does not
 * re-render the whole screen: it publishes the read here, and only the
 * ticking texts (Segments with a `live` text) re-render from it. A table of
 * fifty rows whose ages tick each second is then ~50 small texts for React
 * each second instead of the whole tree.
 */
import {createContext} from 'react';
import type {HangarSnapshot} from './hangar-source.js';

/**
 * The newest read, as a context: a change re-renders only the texts that
 * read it, and, set in the same task as the screen's own state, it is one
 * render with it (a store read through useSyncExternalStore would force a
 * second, synchronous render for every frame under load). Undefined until
 * the first read after the first frame: the texts show what they were given.
 */
export const TickContext = createContext<HangarSnapshot | undefined>(undefined);

/** Entries of a snapshot by name, built once per snapshot: each ticking row finds its own. */
const byName = new WeakMap<HangarSnapshot, Map<string, HangarSnapshot['entries'][number]>>();

export function latestEntry(snapshot: HangarSnapshot, name: string): HangarSnapshot['entries'][number] | undefined {
	let entries = byName.get(snapshot);
	if (entries === undefined) {
		entries = new Map(snapshot.entries.map(entry => [entry.name, entry]));
		byName.set(snapshot, entries);
	}

	return entries.get(name);
}
