import type {Key} from 'ink';
import {describe, expect, it} from 'vitest';
import {plainKey} from '../../../../source/tui/components/key-chunk.js';
import {bindings, hintsFor, keyContext, matchAction, type KeyContext} from '../../../../source/tui/components/keymap.js';
import {initialUiState, type UiState} from '../../../../source/tui/components/ui-state.js';

function key(overrides: Partial<Key> = {}): Key {
	return {...plainKey, ...overrides};
}

const allContexts: KeyContext[] = ['main', 'detail', 'logs', 'clients', 'help', 'filter', 'dialog', 'quitting'];

describe('the keymap', () => {
	it('gives every binding a description and at least one key', () => {
		for (const binding of bindings) {
			expect(binding.description.length).toBeGreaterThan(5);
			expect(binding.keys.length).toBeGreaterThan(0);
			expect(binding.contexts.length).toBeGreaterThan(0);
		}
	});

	it('never binds one key to two commands in the same context', () => {
		for (const context of allContexts) {
			const labels = bindings.filter(binding => binding.contexts.includes(context)).flatMap(binding => binding.keys.map(spec => spec.label));
			expect(new Set(labels).size, `duplicate key in ${context}: ${labels.join(' ')}`).toBe(labels.length);
		}
	});

	it('dispatches by context: a question wins over a filter, which wins over the screen', () => {
		const filtering: UiState = {...initialUiState, filter: {query: 'ev', editing: true}};
		const asking: UiState = {...filtering, dialog: {kind: 'lift-quarantine', name: 'x', pins: 'its 1 tool as last listed'}};
		expect(keyContext(initialUiState)).toBe('main');
		expect(keyContext(filtering)).toBe('filter');
		expect(keyContext(asking)).toBe('dialog');
		expect(keyContext({...asking, quitting: {upstreams: 2}})).toBe('quitting');

		expect(matchAction('main', 'q', key())).toBe('quit');
		expect(matchAction('filter', 'q', key())).toBeUndefined(); // text for the filter
		expect(matchAction('dialog', 'q', key())).toBeUndefined();
		expect(matchAction('dialog', 'y', key())).toBe('confirm');
		expect(matchAction('main', 'y', key())).toBeUndefined();
		expect(matchAction('main', '', key({escape: true, meta: true}))).toBe('back');
		expect(matchAction('filter', '', key({escape: true, meta: true}))).toBe('filterClear');
		expect(matchAction('dialog', '', key({escape: true, meta: true}))).toBe('cancel');
		expect(matchAction('main', 'j', key())).toBe('down');
		expect(matchAction('logs', '', key({upArrow: true}))).toBe('up');
		expect(matchAction('main', '', key({return: true}))).toBe('details');
		expect(matchAction('main', 'c', key())).toBe('clients');
		expect(matchAction('clients', 'c', key())).toBeUndefined();
		expect(matchAction('clients', '', key({escape: true, meta: true}))).toBe('back');
		expect(matchAction('clients', 'j', key())).toBe('down');
		expect(matchAction('filter', '', key({return: true}))).toBe('filterKeep');
		for (const context of allContexts) expect(matchAction(context, 'c', key({ctrl: true}))).toBe('interrupt');
	});

	it('hints the footer with the keys of the context, help first', () => {
		expect(hintsFor('main')[0]).toEqual({keys: '?', label: 'help', action: 'help'});
		expect(hintsFor('main').map(hint => hint.keys)).toEqual(['?', '↑↓', 'Enter', 's', 'x', 'r', 'u', '/', 'l', 'c', 't', 'q']);
		expect(hintsFor('calls').map(hint => hint.label)).toEqual(['help', 'move', 'show', 'back', 'filter', 'quit']);
		expect(hintsFor('detail').map(hint => hint.label)).toEqual(['help', 'scroll', 'section', 'expand', 'back', 'start', 'stop', 'restart', 'quarantine', 'logs', 'quit']);
		expect(hintsFor('clients').map(hint => hint.label)).toEqual(['help', 'scroll', 'back', 'quit']);
		expect(hintsFor('dialog')).toEqual([
			{keys: 'y', label: 'yes', action: 'confirm'},
			{keys: 'n/Esc', label: 'no', action: 'cancel'},
		]);
		expect(hintsFor('quitting')).toEqual([{keys: 'Ctrl-C', label: 'kill now', action: 'interrupt'}]);
	});
});
