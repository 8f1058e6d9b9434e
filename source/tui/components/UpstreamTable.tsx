/**
 * The main table: one row per upstream, columns fitted to the width by
 * priority (see table-columns.ts), the selected row marked with "›" and
 * shown inverse. When there are more rows than room, the window scrolls to
 * keep the selection in view, and the title line says which rows it shows. Under the table, the reason line: the whole
 * last error of the selected upstream (or of the first broken one), wrapped
 * to up to four lines as room allows, so the cause is readable at any width.
 */
import {Box, Text} from 'ink';
import {useMemo, useRef} from 'react';
import type {StatusEntry} from '../../core/views/views.js';
import {printable, wrap} from './cell-format.js';
import {Segments, StableSegments, segmentsLength, type Segment} from './Segments.js';
import {compactColumns, fitColumns, headerSegments, rowSegments, upstreamColumns, withoutSubject} from './table-columns.js';
import {latestEntry} from './tick-context.js';
import {useTuiState} from './tui-context.js';

/** Where the window was, and how tall: it moves from there only as far as the selection needs. */
type ListWindow = {start: number; height: number};

/**
 * The first row to show so that `selected` is inside a window of `height`
 * rows: the window stays where it was (`previous`) while the selection is in
 * view with a row beyond it, and moves only as far as it must when the
 * selection leaves. A window of another height (the terminal was resized)
 * starts again from the top, as if scrolled down to the selection, so a
 * terminal grown back shows the first rows when the selection fits with them.
 */
export function windowStart(selected: number, total: number, height: number, previous?: ListWindow): number {
	if (total <= height || selected < 0) return 0;
	const context = height >= 5 ? 1 : 0;
	const from = previous?.height === height ? previous.start : 0;
	const start = Math.min(Math.max(from, selected - height + 1 + context), selected - context);
	return Math.max(0, Math.min(start, total - height));
}

/**
 * The column titles, and when the window scrolls, which rows it shows at the
 * right end of that line ("rows 9-24 of 30"), so rows out of view are known
 * to be there; left out when the titles leave no room for it.
 */
function titleLine(titles: Segment[], start: number, shown: number, total: number, width: number, lastCuts: boolean): Segment[] {
	if (shown >= total) return titles;
	const last = titles.at(-1)!;
	const before = titles.slice(0, -1);
	// Whole beside the titles; else shorter; else, in a narrow terminal, beside the last column's title cut short or
	// in its place (LAST ERROR, whose red cells say what they are): rows out of view are worth saying at every width.
	for (const note of [`rows ${start + 1}-${start + shown} of ${total}`, `rows ${start + 1}-${start + shown}/${total}`]) {
		for (const title of lastCuts ? [last.text.trimEnd(), 'LAST…', ''] : [last.text.trimEnd()]) {
			const kept = [...before, {...last, text: title}];
			const used = segmentsLength(kept);
			if (used + 2 + note.length <= width) return [...kept, {text: ' '.repeat(width - used - note.length)}, {text: note, tone: {dim: true}}];
		}
	}

	return titles;
}

const broken: ReadonlySet<StatusEntry['state']> = new Set(['dead', 'degraded']);

/** Lines the reason takes at most: as many as the rows leave free, between these. */
export const reasonRows = {min: 2, max: 4};

/**
 * Whose last error the reason line tells: the selected upstream's, else the
 * first broken one's, else the first one with an error at all (a ready
 * upstream's last failed call is cut in its row at 80 columns).
 */
export function reasonOf(rows: readonly StatusEntry[], selected: StatusEntry | undefined): StatusEntry | undefined {
	if (selected?.lastError != null && selected.state !== 'ready') return selected;
	return rows.find(row => broken.has(row.state) && row.lastError !== null) ?? (selected?.lastError == null ? rows.find(row => row.lastError !== null) : selected);
}

/** The reason line for `entry` at `width`, at most `lines` lines. */
export function reasonLines(entry: StatusEntry, width: number, lines = reasonRows.min): Segment[][] {
	const inRow = entry.consecutiveFailures > 0 ? ` (${entry.consecutiveFailures} ${entry.consecutiveFailures === 1 ? 'failure' : 'failures'} in a row)` : '';
	const head = `${printable(entry.name)} ${entry.state === 'ready' ? 'last error' : `is ${entry.state}`}${inRow}: `;
	return wrap(head + printable(withoutSubject(entry.lastError ?? '', entry.name)), Math.max(10, width - 2), lines).map((line, index) =>
		index === 0 ? [{text: '⚠ ', tone: {color: 'red'}}, {text: line.slice(0, head.length), tone: {bold: true}}, {text: line.slice(head.length), tone: {color: 'red'}}] : [{text: '  '}, {text: line, tone: {color: 'red'}}],
	);
}

export function UpstreamTable({height}: {height: number}) {
	const {rows, selected, size, layout, snapshot, ui} = useTuiState();
	const specs = useMemo(() => (layout === 'compact' ? compactColumns : upstreamColumns(snapshot.history ?? {})), [layout, snapshot.history]);
	const columns = fitColumns(specs, size.columns, snapshot.entries);
	const lastWindow = useRef<ListWindow | undefined>(undefined);
	if (rows.length === 0) {
		const why = snapshot.entries.length === 0 ? 'The config has no upstreams.' : `No upstream matches "${ui.filter.query}". Esc clears the filter.`;
		return (
			<Box flexDirection="column">
				<Segments segments={headerSegments(columns)} />
				<Text dimColor>{`  ${printable(why)}`}</Text>
			</Box>
		);
	}

	const reasonEntry = reasonOf(rows, selected);
	const free = Math.min(reasonRows.max, Math.max(reasonRows.min, height - 1 - rows.length));
	const reason = reasonEntry === undefined || height < 4 ? [] : reasonLines(reasonEntry, size.columns, free);
	const room = Math.max(1, height - 1 - reason.length);
	const index = selected === undefined ? -1 : rows.indexOf(selected);
	const start = windowStart(index, rows.length, room, lastWindow.current);
	lastWindow.current = {start, height: room};
	const shown = rows.slice(start, start + room);
	return (
		<Box flexDirection="column">
			<Segments segments={titleLine(headerSegments(columns), start, shown.length, rows.length, size.columns, columns.at(-1)?.id === 'error')} />
			{shown.map(entry => (
				<StableSegments key={entry.name} segments={rowSegments(entry, columns, entry === selected, latest => latestEntry(latest, entry.name))} inverse={entry === selected} />
			))}
			{reason.map((line, lineIndex) => (
				<Segments key={`reason-${lineIndex}`} segments={line} />
			))}
		</Box>
	);
}
