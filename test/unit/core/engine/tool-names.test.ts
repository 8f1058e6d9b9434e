import {describe, expect, it} from 'vitest';
import {exposedToolName} from '../../../../source/core/engine/tool-names.js';

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
