/**
 * The terminal UI's pure parts: the keymap (one table for dispatch, footer,
 * help and docs), the UI reducer, column fitting, row sharing and cell
 * formats. docs/tui.md must list exactly the keymap.
 */
import fs from 'node:fs';
import path from 'node:path';
import type {Key} from 'ink';
import {describe, expect, it} from 'vitest';
import {count, cut, duration, fit, latency, printable, shortDuration, wrap} from '../source/components/cell-format.js';
import {bindings, hintsFor, keyContext, keymapMarkdown, matchCommand, type KeyContext} from '../source/components/keymap.js';
import {shareRows} from '../source/components/row-budget.js';
import {compactColumns, fitColumns, fullColumns} from '../source/components/table-columns.js';
import {currentView, initialUiState, uiReducer, type UiAction, type UiState} from '../source/components/ui-state.js';
import {orderEntries, visibleRows} from '../source/components/upstream-rows.js';
import type {StatusEntry} from '../source/core/views.js';
import {root} from './support/hangar.js';

function key(overrides: Partial<Key> = {}): Key {
	return {
		upArrow: false,
		downArrow: false,
		leftArrow: false,
		rightArrow: false,
		pageDown: false,
		pageUp: false,
		home: false,
		end: false,
		return: false,
		escape: false,
		ctrl: false,
		shift: false,
		tab: false,
		backspace: false,
		delete: false,
		meta: false,
		super: false,
		hyper: false,
		capsLock: false,
		numLock: false,
		...overrides,
	};
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
		const asking: UiState = {...filtering, dialog: {kind: 'lift-quarantine', name: 'x'}};
		expect(keyContext(initialUiState)).toBe('main');
		expect(keyContext(filtering)).toBe('filter');
		expect(keyContext(asking)).toBe('dialog');
		expect(keyContext({...asking, quitting: {upstreams: 2}})).toBe('quitting');

		expect(matchCommand('main', 'q', key())).toBe('quit');
		expect(matchCommand('filter', 'q', key())).toBeUndefined(); // text for the filter
		expect(matchCommand('dialog', 'q', key())).toBeUndefined();
		expect(matchCommand('dialog', 'y', key())).toBe('confirm');
		expect(matchCommand('main', 'y', key())).toBeUndefined();
		expect(matchCommand('main', '', key({escape: true, meta: true}))).toBe('back');
		expect(matchCommand('filter', '', key({escape: true, meta: true}))).toBe('filterClear');
		expect(matchCommand('dialog', '', key({escape: true, meta: true}))).toBe('cancel');
		expect(matchCommand('main', 'j', key())).toBe('down');
		expect(matchCommand('logs', '', key({upArrow: true}))).toBe('up');
		expect(matchCommand('main', '', key({return: true}))).toBe('details');
		expect(matchCommand('main', 'c', key())).toBe('clients');
		expect(matchCommand('clients', 'c', key())).toBeUndefined();
		expect(matchCommand('clients', '', key({escape: true, meta: true}))).toBe('back');
		expect(matchCommand('clients', 'j', key())).toBe('down');
		expect(matchCommand('filter', '', key({return: true}))).toBe('filterKeep');
		for (const context of allContexts) expect(matchCommand(context, 'c', key({ctrl: true}))).toBe('interrupt');
	});

	it('hints the footer with the keys of the context, help first', () => {
		expect(hintsFor('main')[0]).toEqual({keys: '?', label: 'help', command: 'help'});
		expect(hintsFor('main').map(hint => hint.keys)).toEqual(['?', '↑↓/jk', 'Enter', 's', 'x', 'r', 'u', '/', 'l', 'c', 'q']);
		expect(hintsFor('clients').map(hint => hint.label)).toEqual(['help', 'scroll', 'back', 'quit']);
		expect(hintsFor('dialog')).toEqual([
			{keys: 'y', label: 'yes', command: 'confirm'},
			{keys: 'n/Esc', label: 'no', command: 'cancel'},
		]);
		expect(hintsFor('quitting')).toEqual([{keys: 'Ctrl-C', label: 'kill now', command: 'interrupt'}]);
	});

	it('is listed in docs/tui.md exactly as generated', () => {
		const docs = fs.readFileSync(path.join(root, 'docs', 'tui.md'), 'utf8');
		const region = /<!-- keymap:start -->\n<!--[^\n]*-->\n([\s\S]*?)\n<!-- keymap:end -->/.exec(docs);
		expect(region, 'docs/tui.md needs a keymap region between <!-- keymap:start --> and <!-- keymap:end -->').not.toBeNull();
		expect(region?.[1]).toBe(keymapMarkdown());
	});
});

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

	it('closes any question once quitting', () => {
		const state = run({type: 'dialog-open', dialog: {kind: 'quit', clients: 1}}, {type: 'quitting', upstreams: 3});
		expect(state.dialog).toBeUndefined();
		expect(state.quitting).toEqual({upstreams: 3});
	});
});

function entry(name: string, state: StatusEntry['state']): StatusEntry {
	return {
		name, state, admin: 'enabled', ready: state === 'ready', callable: true, stale: false, breaker: 'closed', pid: null, transport: 'stdio', tools: 1,
		toolsSource: 'live', calls: 0, failures: 0, consecutiveFailures: 0, toolErrors: 0, inFlight: 0, latencyMs: {p50: null, p95: null}, lastError: null,
		lastVerifiedAt: null, nextRetryAt: null, stateSince: new Date(0).toISOString(), upSeconds: null, idleSeconds: null, restarts: 0, quarantineReason: null,
	};
}

describe('rows and columns', () => {
	it('lists trouble first, then by name', () => {
		const rows = orderEntries([entry('b', 'ready'), entry('a', 'cold'), entry('z', 'dead'), entry('c', 'degraded'), entry('a2', 'ready')]);
		expect(rows.map(row => row.name)).toEqual(['z', 'c', 'a2', 'b', 'a']);
	});

	it('filters fuzzily by name, state and tool name', () => {
		const entries = [entry('github', 'ready'), entry('memory', 'dead'), entry('files', 'cold')];
		const tools = {github: ['create_issue'], memory: ['read_graph'], files: ['read_file']};
		expect(visibleRows(entries, tools, 'gihub').map(row => row.name)).toEqual(['github']);
		expect(visibleRows(entries, tools, 'dead').map(row => row.name)).toEqual(['memory']);
		expect(visibleRows(entries, tools, 'read_file').map(row => row.name)).toEqual(['files']);
		expect(visibleRows(entries, tools, '').map(row => row.name)).toEqual(['memory', 'github', 'files']);
	});

	it('drops columns from the right, giving the last error what is left when it is enough', () => {
		const entries = [entry('everything', 'ready')];
		const ids = (width: number): string[] => fitColumns(fullColumns, width, entries).map(column => column.id);
		expect(ids(200)).toEqual(['name', 'state', 'breaker', 'pid', 'up', 'tools', 'calls', 'failures', 'latency', 'restarts', 'error']);
		expect(fitColumns(fullColumns, 200, entries).at(-1)?.width).toBeGreaterThan(60);
		expect(ids(120)).toContain('error');
		expect(ids(100)).toEqual(['name', 'state', 'breaker', 'pid', 'up', 'tools', 'calls', 'failures', 'latency']);
		expect(ids(30)).toEqual(['name', 'state']);
		for (const width of [20, 40, 60, 80, 100, 140]) {
			const columns = fitColumns(fullColumns, width, entries);
			const used = 2 + columns.reduce((sum, column) => sum + column.width, 0) + 2 * (columns.length - 1);
			expect(used).toBeLessThanOrEqual(width);
		}

		expect(fitColumns(compactColumns, 50, entries).map(column => column.id)).toEqual(['name', 'state', 'failures', 'restarts']);
	});

	it('shares rows between sections, cutting the longest first', () => {
		expect(shareRows([3, 5, 2], 20)).toEqual([3, 5, 2]);
		expect(shareRows([10, 2, 10], 12)).toEqual([5, 2, 5]);
		expect(shareRows([10, 10], 5)).toEqual([3, 2]);
		expect(shareRows([4, 4], 0)).toEqual([0, 0]);
	});
});

describe('cell formats', () => {
	it('keeps numbers and times short', () => {
		expect(duration(42)).toBe('42s');
		expect(duration(312)).toBe('5m12s');
		expect(duration(3725)).toBe('1h02m');
		expect(duration(2 * 86_400 + 3 * 3600)).toBe('2d03h');
		expect(shortDuration(3725)).toBe('1h');
		expect(shortDuration(7.6)).toBe('7s');
		expect(shortDuration(47)).toBe('<1m');
		expect(count(1234)).toBe('1234');
		expect(count(12_345)).toBe('12.3k');
		expect(latency({p50: 3.21, p95: 1500})).toBe('3.2ms/1.5s');
		expect(latency({p50: null, p95: null})).toBe('-');
	});

	it('cuts and pads text, and never lets escape sequences or newlines through', () => {
		expect(cut('abcdef', 4)).toBe('abc…');
		expect(fit('ab', 4, 'right')).toBe('  ab');
		expect(fit('abcdef', 4)).toBe('abc…');
		expect(printable('\u001B[31mred\u001B[0m\tand\nmore\u0007\u001B]0;title\u0007')).toBe('red and more');
	});

	it('wraps messages by word to a number of lines, marking what is cut', () => {
		expect(wrap('start failed: the process exited', 14, 3)).toEqual(['start failed:', 'the process', 'exited']);
		expect(wrap('start failed: the process exited with code 4', 14, 2)).toEqual(['start failed:', 'the process e…']);
		expect(wrap('abcdefghij', 4, 3)).toEqual(['abcd', 'efgh', 'ij']);
		expect(wrap('', 10, 2)).toEqual(['']);
	});
});
