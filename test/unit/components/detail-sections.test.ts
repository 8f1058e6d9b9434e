import {describe, expect, it} from 'vitest';
import {sectionLines, type Section} from '../../../source/components/detail-sections.js';

describe('detail sections', () => {
	it('cuts a detail section to its rows, always showing one row under its title', () => {
		const row = (text: string): readonly [{text: string}] => [{text}];
		const section: Section = {title: 'TOOLS', rows: ['a', 'b', 'c', 'd'].map(row), empty: '  none'};
		const text = (rows: number): string[] => sectionLines(section, rows).map(line => line.map(segment => segment.text).join(''));
		expect(text(2)).toEqual(['TOOLS  … 3 more', 'a']);
		expect(text(3)).toEqual(['TOOLS', 'a', '  … 3 more']);
		expect(text(5)).toEqual(['TOOLS', 'a', 'b', 'c', 'd']);
		expect(sectionLines({...section, keepLast: true}, 4).map(line => line.map(segment => segment.text).join(''))).toEqual(['TOOLS', '  … 2 more', 'b', 'a']);
		expect(text(0)).toEqual([]);
	});
});
