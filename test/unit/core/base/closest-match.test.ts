import {describe, expect, it} from 'vitest';
import {closestMatch, editDistance} from '../../../../source/core/base/closest-match.js';

describe('did you mean', () => {
	it('suggests the closest word only when it is close', () => {
		expect(editDistance('conifg', 'config')).toBe(1);
		expect(closestMatch('stauts', ['status', 'serve', 'setup'])).toBe('status');
		expect(closestMatch('xyz', ['status', 'serve'])).toBeUndefined();
	});
});
