/**
 * `l`: the selected upstream's whole log buffer full screen: its stderr,
 * stray stdout and hangar's notes about it (transitions), newest at the
 * bottom. It follows new lines until scrolled back, and then stays on the
 * lines it shows while new ones arrive. Long lines wrap: the newest line
 * shown is whole at the bottom, and the one at the top may show only its end.
 */
import {Box, Text} from 'ink';
import type {LogLine} from '../../core/link/log-buffer.js';
import {clock, printable} from './cell-format.js';
import {scrollRoom} from './screen-layout.js';
import {Segments, type Segment} from './Segments.js';
import {wrapSegments} from './wrap-segments.js';
import {useTuiState} from './tui-context.js';
import {logBottom} from './ui-state.js';

const sourceTone: Record<LogLine['source'], Segment['tone']> = {
	stderr: {color: 'yellow'},
	stdout: {color: 'magenta'},
	hangar: {color: 'cyan'},
};

export function LogView({height}: {height: number}) {
	const {snapshot, ui, size} = useTuiState();
	if (snapshot.logs === undefined) return <Text dimColor>{`Reading the log of "${printable(ui.selected ?? '')}"…`}</Text>;
	const {lines, first} = snapshot.logs;
	const room = scrollRoom(height, ui);
	// Scrolled back, the view is anchored to a line, not to a distance from the newest: new lines do not move it.
	const end = logBottom(ui.logAnchor, first, lines.length, room) - first + 1;
	// From the bottom up, each line wrapped, until the rows are full.
	const shown: Array<{key: string; segments: Segment[]}> = [];
	for (let index = end - 1; index >= 0 && shown.length < room; index--) {
		const line = lines[index]!;
		const wrapped = wrapSegments([{text: `${clock(line.at)} `, tone: {dim: true}}, {text: `${line.source.padEnd(6)} `, tone: sourceTone[line.source]}, {text: printable(line.text)}], size.columns);
		for (let part = wrapped.length - 1; part >= 0 && shown.length < room; part--) shown.unshift({key: `${first + index}.${part}`, segments: wrapped[part]!});
	}

	const back = lines.length - end;
	const where = ui.logAnchor === undefined ? 'following new lines' : `${back} line${back === 1 ? '' : 's'} back (↓ to follow)`;
	return (
		<Box flexDirection="column">
			<Segments
				segments={[
					{text: 'LOG ', tone: {bold: true}},
					{text: ui.selected ?? '', tone: {bold: true}},
					{text: `  ${lines.length} lines (stderr, stdout, hangar)  ${where}`, tone: {dim: true}},
				]}
			/>
			{shown.length === 0 ? <Segments segments={[{text: '  nothing logged yet', tone: {dim: true}}]} /> : null}
			{shown.map(line => (
				<Segments key={line.key} segments={line.segments} />
			))}
		</Box>
	);
}
