import {describe, expect, it} from 'vitest';
import {closeMatches, closestMatch, didYouMean, editDistance} from '../../../../source/core/base/closest-match.js';

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

describe('close tool names, for an unknown tool', () => {
	const tools = ['echo', 'get-env', 'get-tiny-image', 'trigger-long-running-operation', 'gzip-file-as-resource', 'toggle-simulated-logging'].map(name => ({name, own: name}));
	const prefixed = [{name: 'fx__echo', own: 'echo'}, {name: 'fx__add', own: 'add'}];
	const names = (tool: {name: string; own: string}) => [tool.name, tool.own];
	const match = (word: string, list: typeof tools) => closeMatches(word, list, names, 3).map(tool => tool.name);

	it('offers none for a name that resembles nothing (a fuzzy search found four for "nope")', () => {
		expect(match('nope', tools)).toEqual([]);
		expect(match('xyz', prefixed)).toEqual([]);
	});

	it('offers typos of the name or of its tool part, and the names it starts, closest first', () => {
		expect(match('ecoh', tools)).toEqual(['echo']);
		expect(match('get', tools)).toEqual(['get-env', 'get-tiny-image']);
		expect(match('fx__ecoh', prefixed)).toEqual(['fx__echo']);
		expect(match('other__echo', prefixed)).toEqual(['fx__echo']);
		expect(match('ehco', prefixed)).toEqual(['fx__echo']);
	});
});
