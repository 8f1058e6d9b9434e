import {describe, expect, it} from 'vitest';
import {currentView, initialUiState, logBottom, uiReducer, type UiAction, type UiState} from '../../../../source/tui/components/ui-state.js';

describe('the UI state', () => {
	const run = (...actions: UiAction[]): UiState => actions.reduce(uiReducer, initialUiState);
	const order = ['gamma', 'alpha', 'beta'];

	it('moves the selection by name within the listed order, stopping at the ends', () => {
		expect(run({type: 'move', by: 1, order}).selected).toBe('alpha');
		expect(run({type: 'move', by: -1, order}).selected).toBe('gamma');
		expect(run({type: 'select', name: 'beta'}, {type: 'move', by: 5, order}).selected).toBe('beta');
		// A selection that is not listed (filtered out) counts as the first row.
		expect(run({type: 'select', name: 'zeta'}, {type: 'move', by: 1, order}).selected).toBe('alpha');
	});

	it('goes back exactly one screen, and in the list clears the filter', () => {
		const deep = run({type: 'open', view: 'detail', name: 'alpha'}, {type: 'open', view: 'logs'}, {type: 'open', view: 'help'});
		expect(deep.views).toEqual(['main', 'detail', 'logs', 'help']);
		expect(currentView(uiReducer(deep, {type: 'back'}))).toBe('logs');
		const filtered = run({type: 'filter-open'}, {type: 'filter-type', text: 'ev'}, {type: 'filter-keep'});
		expect(filtered.filter).toEqual({query: 'ev', editing: false});
		expect(uiReducer(filtered, {type: 'back'}).filter).toEqual({query: '', editing: false});
		expect(uiReducer(initialUiState, {type: 'back'})).toBe(initialUiState);
	});

	it('edits the filter and clamps scrolling', () => {
		expect(run({type: 'filter-open'}, {type: 'filter-type', text: 'abc'}, {type: 'filter-erase'}).filter).toEqual({query: 'ab', editing: true});
		expect(run({type: 'scroll', by: -3, max: 10}).scroll).toBe(0);
		expect(run({type: 'scroll', by: 30, max: 10}).scroll).toBe(10);
	});

	it('anchors a scrolled-back log to a line, so new lines do not move it', () => {
		// 100 lines held, the first of them line 0; 10 rows shown.
		const back = run({type: 'log-scroll', by: -5, first: 0, count: 100, rows: 10});
		expect(back.logAnchor).toBe(94);
		expect(logBottom(back.logAnchor, 0, 103, 10)).toBe(94);
		// The buffer dropped 20 lines from its front: still line 94.
		expect(logBottom(back.logAnchor, 20, 100, 10)).toBe(94);
		// Line 94 has been dropped: the oldest full screen left.
		expect(logBottom(back.logAnchor, 200, 50, 10)).toBe(209);
		// Following: the newest line; down to it follows again; never above the first screen.
		expect(logBottom(undefined, 20, 100, 10)).toBe(119);
		expect(uiReducer(back, {type: 'log-scroll', by: 5, first: 0, count: 103, rows: 10}).logAnchor).toBe(99);
		expect(uiReducer(back, {type: 'log-scroll', by: 8, first: 0, count: 103, rows: 10}).logAnchor).toBeUndefined();
		expect(uiReducer(back, {type: 'log-scroll', by: -500, first: 0, count: 103, rows: 10}).logAnchor).toBe(9);
		// Fewer lines than rows: nothing to scroll.
		expect(run({type: 'log-scroll', by: -1, first: 0, count: 5, rows: 10}).logAnchor).toBeUndefined();
		// Opening a log (another upstream's, or the same one again) follows its newest line.
		expect(uiReducer(back, {type: 'open', view: 'logs', name: 'other'}).logAnchor).toBeUndefined();
	});

	it('expires a success message only if nothing replaced it', () => {
		const done = {tone: 'success', text: 'stopped "x"'} as const;
		const shown = run({type: 'message', message: done});
		expect(uiReducer(shown, {type: 'message-expire', message: done}).message).toBeUndefined();
		const replaced = uiReducer(shown, {type: 'message', message: {tone: 'pending', text: 'starting x…'}});
		expect(uiReducer(replaced, {type: 'message-expire', message: done}).message?.text).toBe('starting x…');
	});

	it('closes any question once quitting', () => {
		const state = run({type: 'dialog-open', dialog: {kind: 'quit', clients: 1}}, {type: 'quitting', upstreams: 3});
		expect(state.dialog).toBeUndefined();
		expect(state.quitting).toEqual({upstreams: 3});
	});
});
