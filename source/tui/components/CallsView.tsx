/**
 * `t`: the calls flowing, every tool call across the upstreams as it
 * finishes, newest on top: time, client, upstream, tool, latency, and the
 * result or error code. Live while the selection is on the newest call;
 * moving down pauses it on a call (new calls are counted, not scrolled in),
 * moving back to the top follows again. `/` filters, Enter shows a call.
 * The engine keeps the last calls in a fixed-size log; the view gets a
 * window of them around the selection.
 */
import {Box, Text} from 'ink';
import {callColumns} from './call-lines.js';
import {printable} from './cell-format.js';
import {Segments, StableSegments} from './Segments.js';
import {scrollRoom} from './screen-layout.js';
import {fitColumns, headerSegments, rowSegments} from './table-columns.js';
import {useTuiState} from './tui-context.js';

export function CallsView({height}: {height: number}) {
	const {snapshot, size, ui} = useTuiState();
	const window = snapshot.calls;
	const filter = ui.callFilter;
	const filterLine =
		filter.editing || filter.query !== '' ? (
			<Segments segments={[{text: '/', tone: {bold: true, color: 'cyan'}}, {text: filter.query}, {text: filter.editing ? '█' : '', tone: {dim: true}}, {text: filter.editing ? '  Enter keep  Esc clear' : '', tone: {dim: true}}]} />
		) : null;
	if (window === undefined) return <Text dimColor>Reading the calls…</Text>;
	const rows = window.rows;
	const selectedIndex = ui.callAt === undefined ? 0 : Math.max(0, rows.findIndex(row => row.seq <= ui.callAt!));
	const newer = window.offset + selectedIndex;
	const state = ui.callAt === undefined ? 'live, newest first' : `paused: ${newer} newer call${newer === 1 ? '' : 's'} above (↑ to the top to follow)`;
	const title = (
		<Segments
			segments={[
				{text: 'CALLS', tone: {bold: true}},
				{text: `  ${window.total}${filter.query === '' ? '' : ' matching'} of the last ${window.held} (the log keeps ${window.limit})  `, tone: {dim: true}},
				{text: state, tone: ui.callAt === undefined ? {color: 'green'} : {color: 'yellow', bold: true}},
			]}
		/>
	);
	const room = Math.max(1, scrollRoom(height, ui) - 1 - (filterLine === null ? 0 : 1));
	if (rows.length === 0) {
		return (
			<Box flexDirection="column">
				{title}
				{filterLine}
				<Text dimColor>{filter.query === '' ? '  No call yet: calls appear here as clients make them.' : `  No call matches "${printable(filter.query)}". Esc clears the filter.`}</Text>
			</Box>
		);
	}

	const start = Math.min(Math.max(0, selectedIndex - room + 1), Math.max(0, rows.length - room));
	const shown = rows.slice(start, start + room);
	const columns = fitColumns(callColumns(rows), size.columns, rows);
	return (
		<Box flexDirection="column">
			{title}
			{filterLine}
			<Segments segments={headerSegments(columns)} />
			{shown.map(row => {
				const selected = row === rows[selectedIndex];
				return <StableSegments key={row.seq} segments={rowSegments(row, columns, selected)} inverse={selected} />;
			})}
		</Box>
	);
}
