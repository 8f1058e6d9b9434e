import {Box} from 'ink';
import {render} from 'ink-testing-library';
import {describe, expect, it} from 'vitest';
import {Segments, type Segment} from '../../../../source/tui/components/Segments.js';

const row: Segment[] = [
	{text: '  up-01  '},
	{text: 'ready', tone: {color: 'green'}},
	{text: '  '},
	{text: '4m10s/35s', ticks: true},
	{text: '  the last error, which is long enough to be cut', tone: {color: 'red'}},
];

function frame(segments: readonly Segment[], width: number, inverse = false): string {
	const {lastFrame, unmount} = render(
		<Box width={width}>
			<Segments segments={segments} inverse={inverse} />
		</Box>,
	);
	const text = lastFrame() ?? '';
	unmount();
	return text;
}

describe('Segments with a ticking segment', () => {
	it('draws the line exactly as one text node would, the ages as a node of their own', () => {
		const steady = row.map(({ticks: _ticks, ...segment}) => segment);
		for (const width of [80, 60]) {
			expect(frame(row, width)).toBe(frame(steady, width));
			expect(frame(row, width, true)).toBe(frame(steady, width, true));
		}
	});

	it('cuts a line too long for its width at its end, never inside the ages', () => {
		// eslint-disable-next-line no-control-regex -- the frame's styles are ANSI escapes.
		const text = frame(row, 40).replaceAll(/\u001B\[[\d;]*m/g, '');
		expect(text).toContain('4m10s/35s');
		expect(text.endsWith('…')).toBe(true);
		expect(text).toHaveLength(40);
	});
});
