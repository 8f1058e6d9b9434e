/**
 * One terminal line made of styled pieces. Lines are cut, never wrapped:
 * callers fit their text to the width, and `truncate-end` is the safety net.
 */
import {memo} from 'react';
import {Text} from 'ink';
import type {Tone} from './state-style.js';

export type Segment = {text: string; tone?: Tone | undefined};

export function Segments({segments, inverse = false}: {segments: readonly Segment[]; inverse?: boolean}) {
	return (
		<Text wrap="truncate-end" inverse={inverse}>
			{segments.map((segment, index) => (
				<Text key={index} color={segment.tone?.color} dimColor={segment.tone?.dim} bold={segment.tone?.bold}>
					{segment.text}
				</Text>
			))}
		</Text>
	);
}

/** The total printed length of some segments. */
export function segmentsLength(segments: readonly Segment[]): number {
	return segments.reduce((sum, segment) => sum + [...segment.text].length, 0);
}

/** What a line shows, as one string: equal keys render equal lines. */
export function segmentsKey(segments: readonly Segment[], inverse = false): string {
	let key = inverse ? '!' : '';
	for (const segment of segments) key += `${segment.tone?.color ?? ''}${segment.tone?.dim === true ? 'd' : ''}${segment.tone?.bold === true ? 'b' : ''}\u0000${segment.text}\u0001`;
	return key;
}

/**
 * `Segments` for lines that mostly stay the same from frame to frame (table
 * rows): re-rendered only when what they show changes.
 */
export const StableSegments = memo(
	({segments, inverse = false}: {segments: readonly Segment[]; inverse?: boolean}) => <Segments segments={segments} inverse={inverse} />,
	(before, after) => before.inverse === after.inverse && segmentsKey(before.segments) === segmentsKey(after.segments),
);
