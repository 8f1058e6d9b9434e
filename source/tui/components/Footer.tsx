/**
 * The bottom of every screen: what just happened (see message-lines.ts),
 * then the keys valid here, from the keymap.
 */
import {Box} from 'ink';
import {hintsFor, type KeyAction, type Hint} from './keymap.js';
import {Segments, segmentsLength, type Segment} from './Segments.js';
import {useTuiState} from './tui-context.js';
import {messageLines} from './message-lines.js';

/** Always shown when the context has them: the way to learn the rest, and the way out. */
const essential: ReadonlySet<KeyAction> = new Set(['help', 'quit']);

function hintPiece(hint: Hint, first: boolean): Segment[] {
	return [{text: first ? '' : '  '}, {text: hint.keys, tone: {bold: true, color: 'cyan'}}, {text: ` ${hint.label}`, tone: {dim: true}}];
}

/** Hints that fit in `width`: the essential ones, then the others in keymap order while they fit. */
function hintSegments(hints: readonly Hint[], width: number): Segment[] {
	let room = width - hints.filter(hint => essential.has(hint.action)).reduce((sum, hint) => sum + segmentsLength(hintPiece(hint, false)), 0);
	const kept = hints.filter(hint => {
		if (essential.has(hint.action)) return true;
		const length = segmentsLength(hintPiece(hint, false));
		if (length > room) {
			room = -1;
			return false;
		}

		room -= length;
		return true;
	});
	return kept.flatMap((hint, index) => hintPiece(hint, index === 0));
}

export function Footer() {
	const {ui, keyContext, size, selected} = useTuiState();
	return (
		<Box flexDirection="column">
			{messageLines(ui, size.columns).map((line, index) => (
				<Segments key={index} segments={line} />
			))}
			{/* Detaching stops nothing: no key is left to offer (Ctrl-C would "kill" nothing). */}
			<Segments segments={ui.quitting?.detaching === true ? [{text: ' '}] : hintSegments(hintsFor(keyContext, selected?.state), size.columns)} />
		</Box>
	);
}
