/**
 * One terminal line made of styled pieces. Lines are cut, never wrapped:
 * callers fit their text to the width, and `truncate-end` is the safety net.
 */
import {memo, useContext} from 'react';
import {Box, Text} from 'ink';
import {terminalText} from '../../core/base/terminal-text.js';
import type {HangarSnapshot} from './hangar-source.js';
import type {Tone} from './state-style.js';
import {TickContext} from './tick-context.js';

/**
 * `ticks`: its text changes with the clock alone (an age); see `Segments`.
 * `live`: its text as of a newer snapshot (tick-context.ts), for a ticking
 * segment that follows the clock without its line being rendered again.
 */
export type Segment = {text: string; tone?: Tone | undefined; ticks?: boolean; live?: (latest: HangarSnapshot) => string};

/** SGR codes for the colours tones use; anything else renders uncoloured. */
const colorCodes: Readonly<Record<string, number>> = {black: 30, red: 31, green: 32, yellow: 33, blue: 34, magenta: 35, cyan: 36, white: 37, gray: 90, grey: 90};

/**
 * The line as one string with its styles as ANSI escapes. One Ink text node
 * per line instead of one per piece: a 50-row table is ~50 nodes for Ink to
 * lay out each frame instead of ~1,000, which is most of the TUI's CPU.
 */
function segmentsAnsi(segments: readonly Segment[]): string {
	let out = '';
	for (const segment of segments) {
		// The sink of the output rule (core/base/terminal-text.ts): whatever a caller put in a segment
		// is shown escaped, then wrapped in the tone's own escapes, which are hangar's.
		const text = terminalText(segment.text);
		if (segment.tone === undefined) {
			out += text;
			continue;
		}

		const [open, close] = toneCodes(segment.tone);
		out += open + text + close;
	}

	return out;
}

/**
 * A tone's escapes, worked out once per style: by bold and dim, then by
 * colour (tones are often literals made per frame, so not keyed by object).
 */
const escapesByStyle = [new Map<string, [open: string, close: string]>(), new Map<string, [open: string, close: string]>(), new Map<string, [open: string, close: string]>(), new Map<string, [open: string, close: string]>()];

function toneCodes(tone: Tone): [open: string, close: string] {
	const byColor = escapesByStyle[(tone.bold === true ? 1 : 0) + (tone.dim === true ? 2 : 0)]!;
	let escapes = byColor.get(tone.color ?? '');
	if (escapes !== undefined) return escapes;
	const codes: number[] = [];
	if (tone.bold === true) codes.push(1);
	if (tone.dim === true) codes.push(2);
	const color = tone.color === undefined ? undefined : colorCodes[tone.color];
	if (color !== undefined) codes.push(color);
	// Each style is switched off on its own (22: bold and dim, 39: colour), never with a full reset,
	// which would also end the line's inverse.
	const off = [...(tone.bold === true || tone.dim === true ? [22] : []), ...(color === undefined ? [] : [39])];
	escapes = codes.length === 0 ? ['', ''] : [`\u001B[${codes.join(';')}m`, `\u001B[${off.join(';')}m`];
	byColor.set(tone.color ?? '', escapes);
	return escapes;
}

/** The line cut where a segment ticks: runs of steady segments, each ticking segment alone. */
function runs(segments: readonly Segment[]): Segment[][] {
	const out: Segment[][] = [];
	let steady: Segment[] = [];
	for (const segment of segments) {
		if (segment.ticks !== true) {
			steady.push(segment);
			continue;
		}

		if (steady.length > 0) out.push(steady);
		out.push([segment]);
		steady = [];
	}

	if (steady.length > 0) out.push(steady);
	return out;
}

/**
 * One run of a line split at its ticking segments. Memoised by its text:
 * when a row's ages tick, React re-renders only the age's part, and the
 * steady parts beside it are left as they are. A bare text node, with no
 * box around it: Ink lays out every node of the screen each frame, and a
 * box per part made a row six layout nodes instead of four (a frame of the
 * 50-row table cost about 15% more CPU; docs/tui.md). Callers fit a line to
 * the width, so the parts never shrink; if one did not fit, each part would
 * be cut at its own end.
 */
const Part = memo(function Part({ansi, inverse}: {ansi: string; inverse: boolean}) {
	return (
		<Text wrap="truncate-end" inverse={inverse}>
			{ansi}
		</Text>
	);
});

/** A ticking segment: its text follows the newest read (tick-context.ts), so the clock moves it alone. */
function LivePart({segment, inverse}: {segment: Segment; inverse: boolean}) {
	const latest = useContext(TickContext);
	const text = latest === undefined || segment.live === undefined ? segment.text : segment.live(latest);
	return <Part ansi={segmentsAnsi([{text, tone: segment.tone}])} inverse={inverse} />;
}

/**
 * A line with a ticking segment (a table row's ages) is drawn as a few text
 * nodes side by side, so only the ages are new strings each second: Ink
 * measures, wraps and tokenizes every string it draws, and with its caches
 * shared across frames (../ink-output-caches.ts) the unchanged parts cost
 * nearly nothing. (One text node per line with the ages as a nested text
 * costs three times as much: the whole line is then a new string each
 * second.) Without one, the line is one node.
 */
export function Segments({segments, inverse = false}: {segments: readonly Segment[]; inverse?: boolean}) {
	const parts = segments.some(segment => segment.ticks === true) ? runs(segments) : [segments];
	if (parts.length === 1) {
		return (
			<Text wrap="truncate-end" inverse={inverse}>
				{segmentsAnsi(segments)}
			</Text>
		);
	}

	const part = (run: readonly Segment[], index: number) =>
		run.length === 1 && run[0]!.live !== undefined ? (
			// eslint-disable-next-line react/no-array-index-key -- the parts are positional: the same index is the same place in the line.
			<LivePart key={index} segment={run[0]!} inverse={inverse} />
		) : (
			// eslint-disable-next-line react/no-array-index-key -- as above.
			<Part key={index} ansi={segmentsAnsi(run)} inverse={inverse} />
		);
	// Only the last part gives way when the line is too long, so the line is still cut at its end:
	// the parts before it sit in one box that keeps its width.
	return (
		<Box flexDirection="row" flexWrap="nowrap">
			<Box flexShrink={0}>{parts.slice(0, -1).map((run, index) => part(run, index))}</Box>
			{part(parts.at(-1)!, parts.length - 1)}
		</Box>
	);
}

/** The total printed length of some segments. */
export function segmentsLength(segments: readonly Segment[]): number {
	return segments.reduce((sum, segment) => sum + [...segment.text].length, 0);
}

/** Whether two lines show the same: the same pieces, with the same text and style. */
function sameSegments(before: readonly Segment[], after: readonly Segment[]): boolean {
	if (before === after) return true;
	if (before.length !== after.length) return false;
	for (let index = 0; index < before.length; index++) {
		const a = before[index]!;
		const b = after[index]!;
		if (a.text !== b.text || a.ticks !== b.ticks || a.tone?.color !== b.tone?.color || a.tone?.dim !== b.tone?.dim || a.tone?.bold !== b.tone?.bold) return false;
	}

	return true;
}

/**
 * `Segments` for lines that mostly stay the same from frame to frame (table
 * rows): re-rendered only when what they show changes.
 */
export const StableSegments = memo(
	({segments, inverse = false}: {segments: readonly Segment[]; inverse?: boolean}) => <Segments segments={segments} inverse={inverse} />,
	(before, after) => before.inverse === after.inverse && sameSegments(before.segments, after.segments),
);
