/**
 * The main table: one row per upstream, columns fitted to the width (those
 * that do not fit are dropped from the right), the selected row marked with
 * "›" and shown inverse. When there are more rows than room, the window
 * scrolls to keep the selection in view.
 */
import {Box, Text} from 'ink';
import type {StatusEntry} from '../core/views.js';
import {fit} from './cell-format.js';
import {Segments, StableSegments, type Segment} from './Segments.js';
import {columnGap, compactColumns, fitColumns, fullColumns, type Column} from './table-columns.js';
import {useTuiState} from './tui-context.js';

function headerSegments(columns: readonly Column[]): Segment[] {
	const segments: Segment[] = [{text: '  '}];
	columns.forEach((column, index) => {
		if (index > 0) segments.push({text: ' '.repeat(columnGap)});
		segments.push({text: fit(column.title, column.width, column.align), tone: {bold: true, dim: true}});
	});
	return segments;
}

function rowSegments(entry: StatusEntry, columns: readonly Column[], selected: boolean): Segment[] {
	const segments: Segment[] = [{text: selected ? '› ' : '  ', tone: {bold: true}}];
	columns.forEach((column, index) => {
		if (index > 0) segments.push({text: ' '.repeat(columnGap)});
		const cell = column.cell(entry);
		segments.push({text: fit(cell.text, column.width, column.align), tone: cell.tone});
	});
	return segments;
}

/** The first row to show so that `selected` is inside a window of `height` rows. */
export function windowStart(selected: number, total: number, height: number): number {
	if (total <= height || selected < 0) return 0;
	return Math.min(Math.max(0, selected - Math.floor(height / 2)), total - height);
}

export function UpstreamTable({height}: {height: number}) {
	const {rows, selected, size, layout, snapshot, ui} = useTuiState();
	const columns = fitColumns(layout === 'compact' ? compactColumns : fullColumns, size.columns, snapshot.entries);
	if (rows.length === 0) {
		const why = snapshot.entries.length === 0 ? 'The config has no upstreams.' : `No upstream matches "${ui.filter.query}". Esc clears the filter.`;
		return (
			<Box flexDirection="column">
				<Segments segments={headerSegments(columns)} />
				<Text dimColor>{`  ${why}`}</Text>
			</Box>
		);
	}

	const room = Math.max(1, height - 1);
	const index = selected === undefined ? -1 : rows.indexOf(selected);
	const start = windowStart(index, rows.length, room);
	const shown = rows.slice(start, start + room);
	return (
		<Box flexDirection="column">
			<Segments segments={headerSegments(columns)} />
			{shown.map(entry => (
				<StableSegments key={entry.name} segments={rowSegments(entry, columns, entry === selected)} inverse={entry === selected} />
			))}
		</Box>
	);
}
