import {describe, expect, it} from 'vitest';
import {sectionLines, timelineSegments, type Section} from '../../../../source/tui/components/detail-sections.js';
import type {SeriesView} from '../../../../source/core/engine/upstream/metrics.js';

const text = (lines: ReadonlyArray<ReadonlyArray<{text: string}>>): string[] => lines.map(line => line.map(segment => segment.text).join(''));

describe('detail sections', () => {
	it('cuts a detail section to its rows, always showing one row under its title, and says which lines it shows', () => {
		const row = (value: string): readonly [{text: string}] => [{text: value}];
		const section: Section = {title: 'TOOLS', rows: ['a', 'b', 'c', 'd'].map(row), empty: '  none'};
		expect(text(sectionLines(section, 2))).toEqual(['TOOLS  lines 1-1 of 4', 'a']);
		expect(text(sectionLines(section, 3))).toEqual(['TOOLS  lines 1-2 of 4', 'a', 'b']);
		expect(text(sectionLines(section, 5))).toEqual(['TOOLS', 'a', 'b', 'c', 'd']);
		// A log tail reads downwards: its newest row at the bottom, scrolled back from there.
		expect(text(sectionLines({...section, keepLast: true}, 3))).toEqual(['TOOLS  lines 3-4 of 4', 'b', 'a']);
		expect(text(sectionLines(section, 0))).toEqual([]);
	});

	it('scrolls a focused section, marks its title, and stops at its last full window', () => {
		const section: Section = {title: 'STATE HISTORY', rows: ['1', '2', '3', '4', '5'].map(value => [{text: value}]), empty: ''};
		expect(text(sectionLines(section, 3, 80, 2, true))).toEqual(['▸ STATE HISTORY  lines 3-4 of 5 (↑↓)', '3', '4']);
		expect(text(sectionLines(section, 3, 80, 99, true))).toEqual(['▸ STATE HISTORY  lines 4-5 of 5 (↑↓)', '4', '5']);
	});

	it('wraps a long row under itself instead of cutting it', () => {
		const reason = 'circuit opened after 3 consecutive failures (call to "echo" failed: upstream "flaky-demo": no answer within 2 s)';
		const lines = text(sectionLines({title: 'STATE HISTORY', rows: [[{text: `  ${reason}`}]], empty: ''}, 10, 40));
		expect(lines.length).toBeGreaterThan(2);
		for (const line of lines) expect([...line].length).toBeLessThanOrEqual(40);
		expect(lines.slice(1).join(' ').replaceAll(/\s+/g, ' ').trim()).toBe(reason);
	});

	it('marks transitions on the timeline where they fall on the sparklines\' time axis, the worst one when two share a character', () => {
		const end = Date.parse('2026-11-22T10:05:00Z');
		const series: SeriesView = {end, bucketMs: 5000, calls: new Array<number>(60).fill(0), failures: new Array<number>(60).fill(0), p95: new Array<number | null>(60).fill(null)};
		const at = (secondsBeforeEnd: number): string => new Date(end - secondsBeforeEnd * 1000).toISOString();
		const marks = timelineSegments(
			[
				{at: at(290), from: 'cold', to: 'starting', event: 'start', reason: ''},
				{at: at(12), from: 'ready', to: 'degraded', event: 'trip', reason: ''},
				{at: at(11), from: 'degraded', to: 'dead', event: 'crashed', reason: ''},
				{at: at(600), from: 'dead', to: 'starting', event: 'start', reason: 'before the window'},
			],
			series,
			60,
		)
			.map(segment => segment.text)
			.join('');
		expect(marks).toHaveLength(60);
		expect(marks[2]).toBe('↑');
		// 11 and 12 s before the end fall in the same 5-second bucket: dead is worse than degraded.
		expect(marks[57]).toBe('✗');
		expect(marks.replaceAll('·', '')).toBe('↑✗');
	});
});
