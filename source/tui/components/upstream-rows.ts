/**
 * Which upstreams the table lists, in which order: trouble first (dead,
 * degraded, ...), then by name; narrowed by the `/` filter. A match keeps
 * its place in the order rather than being ranked, so rows do not jump while
 * typing.
 */
import Fuse from 'fuse.js';
import type {StatusEntry} from '../../core/views/views.js';
import {shownState, stateRank} from './state-style.js';

export function orderEntries(entries: readonly StatusEntry[]): StatusEntry[] {
	const rank = new Map(entries.map(entry => [entry, stateRank[shownState(entry).state]]));
	return [...entries].sort((a, b) => rank.get(a)! - rank.get(b)! || a.name.localeCompare(b.name));
}

/**
 * How loosely names and tool names match (fuse.js: the share of the query's
 * characters that may be wrong). Names: one typo in a query of six
 * characters or more (`everthing` finds everything), none in shorter ones.
 * Tool names are many and alike (read_graph, read_file, ...), so tighter:
 * one typo from nine characters. At 0.2 `ready` matched `read_graph`, and
 * `/ready` listed a cold upstream.
 */
const nameThreshold = 0.17;
const toolThreshold = 0.12;

type Searchable = {name: string; tools: readonly string[]};

/**
 * The entries the query matches: by state, the start of the word (`/rea`,
 * `/ready` list the ready ones; no fuzziness, states are a few known words);
 * by name and tool name, fuzzily within the thresholds above.
 */
function filterEntries(
	entries: readonly StatusEntry[],
	toolNames: Readonly<Record<string, readonly string[]>>,
	query: string,
): StatusEntry[] {
	const trimmed = query.trim();
	if (trimmed === '') return [...entries];
	const lower = trimmed.toLowerCase();
	const items: Searchable[] = entries.map(entry => ({name: entry.name, tools: toolNames[entry.name] ?? []}));
	const search = (key: keyof Searchable, threshold: number): string[] =>
		new Fuse(items, {keys: [key], threshold, ignoreLocation: true}).search(trimmed).map(hit => hit.item.name);
	const matched = new Set([...search('name', nameThreshold), ...search('tools', toolThreshold)]);
	return entries.filter(entry => shownState(entry).state.startsWith(lower) || matched.has(entry.name));
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
