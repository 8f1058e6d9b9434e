/**
 * Enter on an upstream: its summary, then its history (sparklines and a
 * timeline), tools, state history, recent calls and the stderr tail,
 * sharing the rows the screen has (see detail-sections.ts: Tab focuses a
 * section, ↑↓ scroll it, Enter expands it). Live: it is re-read with every
 * frame. Esc returns to the list.
 */
import {Box, Text} from 'ink';
import {detailLines} from './detail-sections.js';
import {printable} from './cell-format.js';
import {Segments} from './Segments.js';
import {useTuiState} from './tui-context.js';

export function DetailView({height}: {height: number}) {
	const {snapshot, size, ui} = useTuiState();
	const details = snapshot.details;
	if (details === undefined || details.server.name !== ui.selected) {
		return <Text dimColor>{ui.selected === undefined ? 'No upstream selected.' : `Reading "${printable(ui.selected)}"…`}</Text>;
	}

	const lines = detailLines(details, snapshot.now, size.columns, height, ui.detail);
	return (
		<Box flexDirection="column">
			{lines.map((line, index) => (
				<Segments key={index} segments={line} />
			))}
		</Box>
	);
}
