import {describe, expect, it} from 'vitest';
import {exposedName, exposedToolName} from '../../../../source/core/engine/routing/tool-names.js';

describe('tool names', () => {
	it('exposed tool names are valid, stable and distinct', () => {
		expect(exposedToolName('fx', 'echo')).toBe('fx__echo');
		const long = exposedToolName('server', 'x'.repeat(100));
		expect(long).toMatch(/^[a-zA-Z0-9_-]{1,64}$/);
		expect(exposedToolName('server', 'x'.repeat(100))).toBe(long);
		expect(exposedToolName('server', 'x'.repeat(101))).not.toBe(long);
		expect(exposedToolName('s', 'a.b')).not.toBe(exposedToolName('s', 'a/b'));
	});
});

describe('exposed names', () => {
	it('prefix with the namespace, or keep the own name (made valid) for none', () => {
		expect(exposedName('gh', 'search')).toBe('gh__search');
		expect(exposedName(false, 'search')).toBe('search');
		const odd = exposedName(false, 'dotted.name/with:chars');
		expect(odd).toMatch(/^dotted_name_with_chars_[0-9a-f]{8}$/);
		expect(exposedName(false, 'dotted.name/with:chars')).toBe(odd);
		expect(exposedName(false, 'x'.repeat(100))).toHaveLength(64);
	});
});
