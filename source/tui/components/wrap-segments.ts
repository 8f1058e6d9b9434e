/**
 * A styled line wrapped to the terminal's width instead of cut: the detail,
 * log and call views show long reasons, errors and stderr lines whole. A
 * line breaks at the last space before the edge when there is one in its
 * last third, else at the edge; continuation lines are indented so they read
 * as part of the line above.
 */
import type {Segment} from './Segments.js';

/** Spaces in front of a continuation line. */
export const continuationIndent = 4;

type Char = {char: string; tone: Segment['tone']};

function toLine(chars: readonly Char[]): Segment[] {
	const segments: Segment[] = [];
	for (const {char, tone} of chars) {
		const last = segments.at(-1);
		if (last !== undefined && last.tone === tone) last.text += char;
		else segments.push({text: char, tone});
	}

	return segments;
}

/** `line` as one or more lines of at most `width` characters (at most `maxLines`, the last cut with "…"). */
export function wrapSegments(line: readonly Segment[], width: number, maxLines = Number.POSITIVE_INFINITY): Segment[][] {
	const chars: Char[] = line.flatMap(segment => [...segment.text].map(char => ({char, tone: segment.tone})));
	if (chars.length <= width || width <= continuationIndent + 4) return [[...line]];
	const lines: Segment[][] = [];
	let rest = chars;
	let room = width;
	while (rest.length > 0) {
		if (lines.length === maxLines - 1 && rest.length > room) {
			lines.push([{text: ' '.repeat(width - room)}, ...toLine(rest.slice(0, room - 1)), {text: '…', tone: {dim: true}}]);
			break;
		}

		let take = Math.min(room, rest.length);
		if (take < rest.length) {
			const space = rest.slice(0, take).findLastIndex(item => item.char === ' ');
			if (space > (take * 2) / 3) take = space + 1;
		}

		const piece = toLine(rest.slice(0, take));
		lines.push(lines.length === 0 ? piece : [{text: ' '.repeat(continuationIndent)}, ...piece]);
		rest = rest.slice(take);
		// Continuation lines do not start with the space the line broke at.
		while (rest[0]?.char === ' ') rest = rest.slice(1);
		room = width - continuationIndent;
	}

	return lines;
}
