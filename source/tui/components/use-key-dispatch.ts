/**
 * Turns key presses into actions through the keymap. The context decides
 * which bindings apply (an open confirmation, then a filter being typed,
 * then the screen); while a filter is typed, keys that are not bindings are
 * text. A read holding several keys is dispatched key by key (key-chunk.ts),
 * each in the context the one before it left.
 */
import {useCallback} from 'react';
import {useInput, type Key} from 'ink';
import {keyPresses} from './key-chunk.js';
import {matchAction, scrollingScreens, type KeyAction} from './keymap.js';
import type {TuiActions, TuiState} from './tui-context.js';

/** Lines a page key scrolls, given the screen's height. */
const pageOf = (rows: number): number => Math.max(1, rows - 6);

/** What each key action does; the Record keeps it complete when an action is added to the keymap. */
const handlers: Record<KeyAction, (actions: TuiActions, scrolling: boolean, rows: number) => void> = {
	up: (actions, scrolling) => (scrolling ? actions.scroll(-1) : actions.move(-1)),
	down: (actions, scrolling) => (scrolling ? actions.scroll(1) : actions.move(1)),
	pageUp: (actions, _scrolling, rows) => actions.scroll(-pageOf(rows)),
	pageDown: (actions, _scrolling, rows) => actions.scroll(pageOf(rows)),
	details: actions => actions.openDetails(),
	back: actions => actions.back(),
	start: actions => actions.act('start'),
	stop: actions => actions.act('stop'),
	restart: actions => actions.act('restart'),
	quarantine: actions => actions.quarantineOrLift(),
	signIn: actions => actions.signIn(),
	filter: actions => actions.filterOpen(),
	logs: actions => actions.openLogs(),
	clients: actions => actions.openClients(),
	calls: actions => actions.openCalls(),
	openCall: actions => actions.openCall(),
	nextSection: actions => actions.section(1),
	previousSection: actions => actions.section(-1),
	expand: actions => actions.expand(),
	help: actions => actions.openHelp(),
	quit: actions => actions.quit(),
	interrupt: actions => actions.interrupt(),
	filterKeep: actions => actions.filterKeep(),
	filterClear: actions => actions.filterClear(),
	filterErase: actions => actions.filterErase(),
	confirm: actions => actions.confirm(),
	cancel: actions => actions.cancel(),
};

export function useKeyDispatch(readState: () => TuiState, actions: TuiActions): void {
	const onKey = useCallback(
		(chunk: string, chunkKey: Key) => {
			for (const {input, key} of keyPresses(chunk, chunkKey)) {
				const {keyContext, size, ui} = readState();
				const action = matchAction(keyContext, input, key);
				// While the calls filter is typed, ↑↓ pick among the calls it keeps, not the upstreams behind the view.
				const scrolling = scrollingScreens.includes(keyContext) || (keyContext === 'filter' && ui.callFilter.editing);
				if (action !== undefined) handlers[action](actions, scrolling, size.rows);
				// Only printable characters are text: control characters were turned into keys or dropped.
				else if (keyContext === 'filter' && input !== '' && !key.ctrl && !key.meta) actions.filterType(input);
			}
		},
		[readState, actions],
	);
	useInput(onKey);
}
