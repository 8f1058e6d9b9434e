import {describe, expect, it} from 'vitest';
import {closestMatch, didYouMean, editDistance} from '../../../../source/core/base/closest-match.js';

describe('did you mean', () => {
	it('suggests the closest word only when it is close', () => {
		expect(editDistance('conifg', 'config')).toBe(1);
		expect(closestMatch('stauts', ['status', 'serve', 'setup'])).toBe('status');
		expect(closestMatch('xyz', ['status', 'serve'])).toBeUndefined();
	});
});

describe('did you mean, for a short form', () => {
	it('names every candidate a word starts, and falls back to the closest one', () => {
		expect(didYouMean('claude', ['claude-desktop', 'claude-code', 'cursor'])).toBe(' Did you mean "claude-desktop" or "claude-code"?');
		expect(didYouMean('vs', ['vscode'])).toBe('');
		expect(didYouMean('cursr', ['claude-desktop', 'cursor'])).toBe(' Did you mean "cursor"?');
		expect(didYouMean('nothing-like-it', ['cursor'])).toBe('');
	});
});
