/**
 * `?`: every key by screen, generated from the keymap (the footer's source
 * too), then what the columns mean and where hangar's files are; long
 * descriptions wrap under themselves.
 */
import {Box} from 'ink';
import {helpLines} from './help-content.js';
import {Segments} from './Segments.js';
import {useTuiState} from './tui-context.js';

export function HelpView({height}: {height: number}) {
	const {snapshot, ui, size} = useTuiState();
	const lines = helpLines(snapshot, size.columns);
	const room = Math.max(1, height - 1);
	const start = Math.min(ui.scroll, Math.max(0, lines.length - room));
	const shown = lines.slice(start, start + room);
	const more = lines.length > room ? `  lines ${start + 1}-${start + shown.length} of ${lines.length} (↑↓ scroll)` : '';
	return (
		<Box flexDirection="column">
			<Segments segments={[{text: 'HELP', tone: {bold: true}}, {text: `  Esc or ? closes it${more}`, tone: {dim: true}}]} />
			{shown.map((line, index) => {
				const key = start + index;
				if (line.kind === 'title') return <Segments key={key} segments={[{text: line.text, tone: {bold: true, color: 'cyan'}}]} />;
				if (line.kind === 'blank') return <Segments key={key} segments={[{text: ' '}]} />;
				return <Segments key={key} segments={[{text: `  ${line.key}  `, tone: {bold: true}}, {text: line.text}]} />;
			})}
		</Box>
	);
}
