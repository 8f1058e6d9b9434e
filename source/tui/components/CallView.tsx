/**
 * Enter on a call in the calls view: the call whole, its error, and its
 * arguments and result as the engine kept them (secrets masked, cut to a
 * bound), wrapped and scrolled with ↑↓. Esc goes back to the calls, paused
 * where they were.
 */
import {Box, Text} from 'ink';
import {callDetailLines} from './call-lines.js';
import {Segments} from './Segments.js';
import {scrollRoom, scrollWindow} from './screen-layout.js';
import {useTuiState} from './tui-context.js';

export function CallView({height}: {height: number}) {
	const {snapshot, size, ui} = useTuiState();
	const call = snapshot.calls?.open;
	if (call === undefined) {
		return <Text dimColor>{snapshot.calls === undefined ? 'Reading the call…' : 'This call is no longer in the calls log (it keeps the last calls only). Esc goes back.'}</Text>;
	}

	const lines = callDetailLines(call, size.columns);
	const room = scrollRoom(height, ui);
	const {start, end, note} = scrollWindow(lines.length, ui.scroll, room, 'lines');
	return (
		<Box flexDirection="column">
			<Segments segments={[{text: `CALL #${call.seq}`, tone: {bold: true}}, {text: note, tone: {dim: true}}]} />
			{lines.slice(start, end).map((line, index) => (
				<Segments key={start + index} segments={line} />
			))}
		</Box>
	);
}
