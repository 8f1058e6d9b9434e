/**
 * Which upstreams the table lists, in which order: trouble first (dead,
 * degraded, ...), then by name; narrowed by the `/` filter, a fuse.js fuzzy
 * match over names, states and tool names. A match keeps its place in the
 * order rather than being ranked, so rows do not jump while typing.
 */
import Fuse from 'fuse.js';
import type {StatusEntry} from '../core/views.js';
import {stateRank} from './state-style.js';

export function orderEntries(entries: readonly StatusEntry[]): StatusEntry[] {
	return [...entries].sort((a, b) => stateRank[a.state] - stateRank[b.state] || a.name.localeCompare(b.name));
}

type Searchable = {name: string; state: string; tools: readonly string[]};

export function filterEntries(
	entries: readonly StatusEntry[],
	toolNames: Readonly<Record<string, readonly string[]>>,
	query: string,
): StatusEntry[] {
	const trimmed = query.trim();
	if (trimmed === '') return [...entries];
	const items: Searchable[] = entries.map(entry => ({name: entry.name, state: entry.state, tools: toolNames[entry.name] ?? []}));
	const fuse = new Fuse(items, {
		keys: [
			{name: 'name', weight: 3},
			{name: 'state', weight: 2},
			{name: 'tools', weight: 1},
		],
		threshold: 0.2,
		ignoreLocation: true,
	});
	const matched = new Set(fuse.search(trimmed).map(hit => hit.item.name));
	return entries.filter(entry => matched.has(entry.name));
}

/** The rows the table shows: ordered, then filtered. */
export function visibleRows(
	entries: readonly StatusEntry[],
	toolNames: Readonly<Record<string, readonly string[]>>,
	query: string,
): StatusEntry[] {
	return filterEntries(orderEntries(entries), toolNames, query);
}

/** The selected row: the upstream of that name if it is listed, else the first row. */
export function effectiveSelection(rows: readonly StatusEntry[], selected: string | undefined): StatusEntry | undefined {
	return rows.find(row => row.name === selected) ?? rows[0];
}
