/**
 * The terminal UI's pure parts: the keymap (one table for dispatch, footer,
 * help and docs), the UI reducer, column fitting, row sharing and cell
 * formats. docs/tui.md must list exactly the keymap.
 */
import fs from 'node:fs';
import path from 'node:path';
import type {Key} from 'ink';
import {describe, expect, it} from 'vitest';
import {count, cut, duration, fit, latency, printable, shortDuration, wrap} from '../../../source/components/cell-format.js';
import {sectionLines, type Section} from '../../../source/components/detail-sections.js';
import {keyPresses, plainKey} from '../../../source/components/key-chunk.js';
import {bindings, hintsFor, keyContext, keymapMarkdown, matchCommand, type KeyContext} from '../../../source/components/keymap.js';
import {shareRows} from '../../../source/components/row-budget.js';
import {compactColumns, fitColumns, fullColumns} from '../../../source/components/table-columns.js';
import {frameDelay} from '../../../source/components/use-hangar-snapshot.js';
import {currentView, initialUiState, logBottom, uiReducer, type UiAction, type UiState} from '../../../source/components/ui-state.js';
import {orderEntries, visibleRows} from '../../../source/components/upstream-rows.js';
import type {StatusEntry} from '../../../source/core/engine/views.js';
import {root} from '../../support/hangar.js';

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

	it('splits a read holding several keys into the keys, each as Ink reports it alone', () => {
		const commands = (context: KeyContext, input: string, flags: Partial<Key> = {}): Array<string | undefined> =>
			keyPresses(input, key(flags)).map(press => matchCommand(context, press.input, press.key));
		expect(commands('main', 'kk')).toEqual(['up', 'up']);
		expect(commands('main', 'jx\r')).toEqual(['down', 'stop', 'details']);
		// DEL (what Backspace sends) and BS erase; Ctrl-C in a read still interrupts.
		expect(commands('filter', '\u007F\u007F\b')).toEqual(['filterErase', 'filterErase', 'filterErase']);
		expect(commands('filter', 'a\u0003')).toEqual([undefined, 'interrupt']);
		// Text stays text, one character each; other control characters are no key at all.
		expect(keyPresses('Ab\u0000\u001F', key()).map(press => press.input)).toEqual(['A', 'b', '', '']);
		expect(keyPresses('A', key()).map(press => press.key.shift)).toEqual([true]);
		// A key with a flag is one key, as it came.
		expect(keyPresses('', key({upArrow: true}))).toEqual([{input: '', key: key({upArrow: true})}]);
		expect(keyPresses('c', key({ctrl: true}))).toEqual([{input: 'c', key: key({ctrl: true})}]);
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

function entry(name: string, state: StatusEntry['state']): StatusEntry {
	return {
		name, state, admin: 'enabled', ready: state === 'ready', callable: true, stale: false, breaker: 'closed', pid: null, transport: 'stdio', tools: 1,
		toolsSource: 'live', calls: 0, failures: 0, consecutiveFailures: 0, toolErrors: 0, inFlight: 0, latencyMs: {p50: null, p95: null}, lastError: null,
		lastVerifiedAt: null, nextRetryAt: null, stateSince: new Date(0).toISOString(), upSeconds: null, idleSeconds: null, restarts: 0, quarantineReason: null,
	};
}

describe('the frame rate', () => {
	const timing = {frameMs: 100, costFactor: 16, maxFrameMs: 1000};
	it('waits at least the frame interval, and longer the more a frame costs, React and the renderer together', () => {
		expect(frameDelay({renderMs: 1, outputMs: 0}, timing)).toBe(100);
		// Under load a frame took 12 ms in React and 14 ms in Ink's output: about 2 frames a second.
		expect(frameDelay({renderMs: 12, outputMs: 14}, timing)).toBe(416);
		expect(frameDelay({renderMs: 12, outputMs: 0}, timing)).toBe(192);
		expect(frameDelay({renderMs: 80, outputMs: 80}, timing)).toBe(1000);
	});
});

describe('rows and columns', () => {
	it('lists trouble first, then by name', () => {
		const rows = orderEntries([entry('b', 'ready'), entry('a', 'cold'), entry('z', 'dead'), entry('c', 'degraded'), entry('a2', 'ready')]);
		expect(rows.map(row => row.name)).toEqual(['z', 'c', 'a2', 'b', 'a']);
	});

	it('filters by name and tool name fuzzily but tightly, and by state by the start of the word', () => {
		const entries = [entry('github', 'ready'), entry('memory', 'cold'), entry('files', 'dead'), entry('everything', 'ready'), entry('ready-check', 'stopped')];
		const tools = {github: ['create_issue'], memory: ['read_graph', 'search_nodes'], files: ['read_file'], everything: ['echo'], 'ready-check': []};
		const names = (query: string): Array<string | undefined> => visibleRows(entries, tools, query).map(row => row.name);
		// /ready: the ready ones, and one whose name says ready; not memory for its tool read_graph.
		expect(names('ready')).toEqual(['everything', 'github', 'ready-check']);
		expect(names('rea')).toEqual(expect.arrayContaining(['everything', 'github']));
		expect(names('dead')).toEqual(['files']);
		expect(names('st')).toEqual(['ready-check']);
		// A typo in a name of six letters or more is forgiven; short queries must match as typed.
		expect(names('everthing')).toEqual(['everything']);
		expect(names('memroy')).toEqual([]);
		expect(names('memoy')).toEqual([]);
		expect(names('memorry')).toEqual(['memory']);
		// Tool names: as typed, or one typo in a long one.
		expect(names('read_file')).toEqual(['files']);
		expect(names('nodes')).toEqual(['memory']);
		expect(names('read_grph')).toEqual(['memory']);
		expect(names('read_')).toEqual(['files', 'memory']);
		expect(names('')).toEqual(['files', 'everything', 'github', 'memory', 'ready-check']);
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
