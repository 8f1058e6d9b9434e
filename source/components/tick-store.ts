/**
 * The newest snapshot, for what moves with the clock alone (ages, the
 * uptime). When a read differs from the screen only in its ages, the root
 * does not re-render the whole screen: it puts the read here, and only the
 * ticking texts (Segments with a `live` text) re-render from it. A table of
 * fifty rows whose ages tick each second is then ~50 small texts for React
 * each second instead of the whole tree.
 */
import {createContext} from 'react';
import type {HangarSnapshot} from './hangar-source.js';

export type TickStore = {
	get: () => HangarSnapshot | undefined;
	set: (snapshot: HangarSnapshot) => void;
	subscribe: (listener: () => void) => () => void;
};

export function createTickStore(): TickStore {
	let latest: HangarSnapshot | undefined;
	const listeners = new Set<() => void>();
	return {
		get: () => latest,
		set(snapshot) {
			if (snapshot === latest) return;
			latest = snapshot;
			for (const listener of listeners) listener();
		},
		subscribe(listener) {
			listeners.add(listener);
			return () => listeners.delete(listener);
		},
	};
}

/** Where ticking texts find the store (none in tests that render parts alone: they show their text as given). */
export const TickContext = createContext<TickStore | undefined>(undefined);

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
