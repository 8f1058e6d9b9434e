/**
 * Every key the terminal UI answers to, in one table: which action it runs,
 * in which context, and how it is described. The footer hints, the `?` help
 * screen and the keymap table in docs/tui.md are all generated from it, so a
 * key cannot exist without being documented.
 *
 * Keys are dispatched by context priority: an open confirmation wins over an
 * open filter, which wins over the current screen (`keyContext`).
 */
import type {Key} from 'ink';
import {currentView, type UiState} from './ui-state.js';

export type KeyContext = 'main' | 'detail' | 'logs' | 'clients' | 'help' | 'calls' | 'call' | 'filter' | 'dialog' | 'quitting';

export type KeyAction =
	| 'up'
	| 'down'
	| 'pageUp'
	| 'pageDown'
	| 'details'
	| 'back'
	| 'start'
	| 'stop'
	| 'restart'
	| 'quarantine'
	| 'signIn'
	| 'filter'
	| 'logs'
	| 'clients'
	| 'calls'
	| 'openCall'
	| 'nextSection'
	| 'previousSection'
	| 'expand'
	| 'help'
	| 'quit'
	| 'interrupt'
	| 'filterKeep'
	| 'filterClear'
	| 'filterErase'
	| 'confirm'
	| 'cancel';

export type KeySpec = {
	/** How the key is written in hints, help and docs. */
	label: string;
	matches: (input: string, key: Key) => boolean;
};

export type Binding = {
	action: KeyAction;
	keys: readonly KeySpec[];
	contexts: readonly KeyContext[];
	/** A sentence fragment for the help screen and docs. */
	description: string;
	/** A word or two for the footer; bindings without one are only in help. */
	hint?: string;
	/** How the footer writes the keys, when it differs from the keys joined by "/". */
	hintKeys?: string;
	/** The footer hints it only while the selected upstream is in this state (the help always lists it). */
	hintWhen?: string;
};

const char = (c: string): KeySpec => ({label: c, matches: (input, key) => input === c && !key.ctrl && !key.meta});
const named = (label: string, test: (key: Key) => boolean): KeySpec => ({label, matches: (_input, key) => test(key)});
const ctrl = (c: string): KeySpec => ({label: `Ctrl-${c.toUpperCase()}`, matches: (input, key) => key.ctrl && input === c});

const upKeys = [named('↑', key => key.upArrow), char('k')];
const downKeys = [named('↓', key => key.downArrow), char('j')];
const enter = named('Enter', key => key.return);
const escape = named('Esc', key => key.escape);

const screens: KeyContext[] = ['main', 'detail', 'logs', 'clients', 'help', 'calls', 'call'];
const upstreamScreens: KeyContext[] = ['main', 'detail'];
/** Screens longer than the terminal: ↑↓ scroll them instead of moving a selection (the details scroll their focused section). */
export const scrollingScreens: readonly KeyContext[] = ['detail', 'logs', 'clients', 'help', 'calls', 'call'];
/** Of those, the ones that page with PgUp/PgDn and scroll by line with ↑↓/jk as such (the calls view moves its selection instead). */
const lineScrolling: KeyContext[] = ['detail', 'logs', 'clients', 'help', 'call'];

/** In dispatch order: within a context the first matching binding wins. Footer hints follow this order. */
export const bindings: readonly Binding[] = [
	// A dialog: only its answers (and Ctrl-C) count.
	{action: 'confirm', keys: [char('y')], contexts: ['dialog'], description: 'yes, do it', hint: 'yes'},
	{action: 'cancel', keys: [char('n'), escape], contexts: ['dialog'], description: 'no, leave it as it is', hint: 'no'},
	// The filter being typed: text goes into it.
	{action: 'filterKeep', keys: [enter], contexts: ['filter'], description: 'keep the filter and go back to the list', hint: 'keep'},
	{action: 'filterClear', keys: [escape], contexts: ['filter'], description: 'clear the filter', hint: 'clear'},
	{action: 'filterErase', keys: [named('Backspace', key => key.backspace || key.delete)], contexts: ['filter'], description: 'erase the last character'},
	{action: 'up', keys: [named('↑', key => key.upArrow)], contexts: ['filter'], description: 'select the previous match (an upstream; in the calls view, a call)'},
	{action: 'down', keys: [named('↓', key => key.downArrow)], contexts: ['filter'], description: 'select the next match (an upstream; in the calls view, a call)'},
	// Screens.
	{action: 'help', keys: [char('?')], contexts: screens, description: 'show this help, or close it', hint: 'help'},
	// The footer at 120 columns holds every hint of the list with '↑↓' alone; the help says j and k too.
	{action: 'up', keys: upKeys, contexts: ['main'], description: 'select the previous upstream', hint: 'move', hintKeys: '↑↓'},
	{action: 'down', keys: downKeys, contexts: ['main'], description: 'select the next upstream'},
	{action: 'up', keys: upKeys, contexts: lineScrolling, description: 'scroll up one line (in the details: the focused section)', hint: 'scroll', hintKeys: '↑↓/jk'},
	{action: 'down', keys: downKeys, contexts: lineScrolling, description: 'scroll down one line'},
	{action: 'up', keys: upKeys, contexts: ['calls'], description: 'select the newer call; at the top the view follows new calls again', hint: 'move', hintKeys: '↑↓/jk'},
	{action: 'down', keys: downKeys, contexts: ['calls'], description: 'select the older call: the view pauses there while new calls arrive'},
	{action: 'pageUp', keys: [named('PgUp', key => key.pageUp)], contexts: scrollingScreens, description: 'scroll up one page'},
	{action: 'pageDown', keys: [named('PgDn', key => key.pageDown)], contexts: scrollingScreens, description: 'scroll down one page'},
	{action: 'nextSection', keys: [named('Tab', key => key.tab && !key.shift)], contexts: ['detail'], description: 'focus the next section (↑↓ then scroll it)', hint: 'section', hintKeys: 'Tab'},
	{action: 'previousSection', keys: [named('Shift-Tab', key => key.tab && key.shift)], contexts: ['detail'], description: 'focus the previous section'},
	{action: 'expand', keys: [enter], contexts: ['detail'], description: 'expand the focused section to the whole screen, or shrink it back', hint: 'expand'},
	{action: 'details', keys: [enter], contexts: ['main'], description: 'open the selected upstream\'s details', hint: 'details'},
	{action: 'openCall', keys: [enter], contexts: ['calls'], description: 'show the selected call: its arguments and result (cut, secrets masked)', hint: 'show'},
	{action: 'back', keys: [escape], contexts: ['detail', 'logs', 'clients', 'help', 'call'], description: 'go back one screen', hint: 'back'},
	{action: 'back', keys: [escape], contexts: ['calls'], description: 'clear the calls filter, or go back', hint: 'back'},
	{action: 'back', keys: [escape], contexts: ['main'], description: 'clear the filter'},
	// Before start: at 80 columns the footer keeps it while it applies.
	{
		action: 'signIn',
		keys: [char('a')],
		contexts: upstreamScreens,
		description: 'sign in to a remote upstream that asks for OAuth: the supervisor waits for the browser; the URL to open is shown (and opened on a desktop)',
		hint: 'sign in',
		hintWhen: 'needs-sign-in',
	},
	{action: 'start', keys: [char('s')], contexts: upstreamScreens, description: 'start the upstream (resets its restart budget and breaker)', hint: 'start'},
	{action: 'stop', keys: [char('x')], contexts: upstreamScreens, description: 'stop it; it does not start on demand until started again', hint: 'stop'},
	{action: 'restart', keys: [char('r')], contexts: upstreamScreens, description: 'restart it', hint: 'restart'},
	{
		action: 'quarantine',
		keys: [char('u')],
		contexts: upstreamScreens,
		// Short enough for one help line at 120 columns: the y/n part is what is cut first.
		description: 'y/n, then quarantine it (stop, hide tools, refuse calls); if quarantined, y/n to lift it and pin its tools',
		hint: 'quarantine',
	},
	{action: 'filter', keys: [char('/')], contexts: ['main'], description: 'filter by name or tool name (fuzzy), or by state (/dead)', hint: 'filter'},
	{action: 'filter', keys: [char('/')], contexts: ['calls'], description: 'filter the calls: every word must appear in the client, upstream, tool, outcome or error code', hint: 'filter'},
	{action: 'logs', keys: [char('l')], contexts: upstreamScreens, description: 'full-screen log of the upstream (stderr, stray stdout, hangar\'s notes)', hint: 'logs'},
	{action: 'clients', keys: [char('c')], contexts: ['main'], description: 'list the MCP clients attached to this hangar (name, transport, since when, calls, last call)', hint: 'clients'},
	{action: 'calls', keys: [char('t')], contexts: ['main'], description: 'the calls flowing: every tool call across upstreams, live (time, client, upstream, tool, latency, result)', hint: 'calls'},
	{action: 'quit', keys: [char('q')], contexts: screens, description: 'quit: stop every upstream and exit (asks first when clients are attached); attached: detach, stop nothing', hint: 'quit'},
	{
		action: 'interrupt',
		keys: [ctrl('c')],
		contexts: [...screens, 'filter', 'dialog', 'quitting'],
		description: 'quit, like q; while stopping, kill the remaining upstreams at once',
		hint: 'kill now',
	},
];

/** Which bindings apply now: a dialog, then the filter being typed, then the open screen. */
export function keyContext(state: UiState): KeyContext {
	if (state.quitting !== undefined) return 'quitting';
	if (state.dialog !== undefined) return 'dialog';
	if (state.filter.editing || state.callFilter.editing) return 'filter';
	return currentView(state);
}

export function matchAction(context: KeyContext, input: string, key: Key): KeyAction | undefined {
	for (const binding of bindings) {
		if (binding.contexts.includes(context) && binding.keys.some(spec => spec.matches(input, key))) return binding.action;
	}

	return undefined;
}

export type Hint = {keys: string; label: string; action: KeyAction};

/** Footer hints for a context, with the selected upstream's state. Ctrl-C is only hinted where it is the way out. */
export function hintsFor(context: KeyContext, selectedState?: string): Hint[] {
	const hints: Hint[] = [];
	for (const binding of bindings) {
		if (binding.hint === undefined || !binding.contexts.includes(context)) continue;
		if (binding.action === 'interrupt' && context !== 'quitting') continue;
		if (binding.hintWhen !== undefined && binding.hintWhen !== selectedState) continue;
		hints.push({keys: binding.hintKeys ?? binding.keys.map(spec => spec.label).join('/'), label: binding.hint, action: binding.action});
	}

	return hints;
}

export type HelpSection = {title: string; rows: Array<{keys: string; description: string}>};

const contextNames: Record<KeyContext, string> = {
	main: 'list',
	detail: 'details',
	logs: 'logs',
	clients: 'clients',
	help: 'help',
	calls: 'calls',
	call: 'a call',
	filter: 'typing a filter',
	dialog: 'a question',
	quitting: 'quitting',
};
const contextOrder: KeyContext[] = ['main', 'detail', 'logs', 'clients', 'help', 'calls', 'call', 'filter', 'dialog', 'quitting'];

/** "List and details", "Every screen", "Everywhere". */
function whereTitle(contexts: readonly KeyContext[]): string {
	if (contextOrder.every(context => contexts.includes(context))) return 'Everywhere';
	if (screens.every(context => contexts.includes(context)) && contexts.length === screens.length) return 'Every screen';
	const names = contextOrder.filter(context => contexts.includes(context)).map(context => contextNames[context]);
	const text = names.length <= 1 ? (names[0] ?? '') : `${names.slice(0, -1).join(', ')} and ${names.at(-1)}`;
	return text.charAt(0).toUpperCase() + text.slice(1);
}

/** Every binding once, grouped by where it applies, in keymap order. */
export function helpSections(): HelpSection[] {
	const sections = new Map<string, HelpSection>();
	for (const binding of [...bindings].sort((a, b) => sectionRank(a) - sectionRank(b))) {
		const title = whereTitle(binding.contexts);
		let section = sections.get(title);
		if (section === undefined) {
			section = {title, rows: []};
			sections.set(title, section);
		}

		section.rows.push({keys: binding.keys.map(spec => spec.label).join(' '), description: binding.description});
	}

	return [...sections.values()];
}

/** Sections start with the list's keys and end with the rarer contexts. */
function sectionRank(binding: Binding): number {
	const first = Math.min(...binding.contexts.map(context => contextOrder.indexOf(context)));
	return first * 10 + binding.contexts.length;
}

/** The keymap as a Markdown table (docs/tui.md holds a copy; test/drift/keymap-docs.test.ts keeps them equal). */
export function keymapMarkdown(): string {
	const lines = ['| Where | Key | Does |', '| --- | --- | --- |'];
	for (const section of helpSections()) {
		for (const row of section.rows) {
			const keys = row.keys
				.split(' ')
				.map(key => `\`${key}\``)
				.join(' ');
			lines.push(`| ${section.title} | ${keys} | ${row.description} |`);
		}
	}

	return lines.join('\n');
}
