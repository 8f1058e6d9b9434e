/**
 * `?`: every key by screen, generated from the keymap (the footer's source
 * too), then what the columns mean and where hangar's files are; long
 * descriptions wrap under themselves.
 */
import {Box} from 'ink';
import {helpLines} from './help-content.js';
import {scrollRoom, scrollWindow} from './screen-layout.js';
import {Segments} from './Segments.js';
import {useTuiState} from './tui-context.js';

export function HelpView({height}: {height: number}) {
	const {snapshot, ui, size} = useTuiState();
	const lines = helpLines(snapshot, size.columns);
	const {start, end, note} = scrollWindow(lines.length, ui.scroll, scrollRoom(height, ui), 'lines');
	const shown = lines.slice(start, end);
	return (
		<Box flexDirection="column">
			<Segments segments={[{text: 'HELP', tone: {bold: true}}, {text: `  Esc or ? closes it${note}`, tone: {dim: true}}]} />
			{shown.map((line, index) => {
				const key = start + index;
				if (line.kind === 'title') return <Segments key={key} segments={[{text: line.text, tone: {bold: true, color: 'cyan'}}]} />;
				if (line.kind === 'blank') return <Segments key={key} segments={[{text: ' '}]} />;
				return <Segments key={key} segments={[{text: `  ${line.key}  `, tone: {bold: true}}, {text: line.text}]} />;
			})}
		</Box>
	);
}
