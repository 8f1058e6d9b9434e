/**
 * The main table: one row per upstream, columns fitted to the width (those
 * that do not fit are dropped from the right), the selected row marked with
 * "›" and shown inverse. When there are more rows than room, the window
 * scrolls to keep the selection in view.
 */
import {Box, Text} from 'ink';
import {Segments, StableSegments} from './Segments.js';
import {compactColumns, fitColumns, fullColumns, headerSegments, rowSegments} from './table-columns.js';
import {useTuiState} from './tui-context.js';

/** The first row to show so that `selected` is inside a window of `height` rows. */
function windowStart(selected: number, total: number, height: number): number {
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
