/**
 * What the screens read, derived from hangar's snapshot, the UI state and
 * the terminal size: the listed rows, the selected upstream (followed by
 * name), the layout and the key context. Rows are cached on their inputs,
 * since a fuzzy filter is not free and frames come often.
 */
import type {StatusEntry} from '../../core/views/views.js';
import type {HangarSnapshot} from './hangar-source.js';
import {keyContext} from './keymap.js';
import {compactBelowColumns, type TerminalSize, type TuiState} from './tui-context.js';
import {currentView, type UiState} from './ui-state.js';
import {effectiveSelection, visibleRows} from './upstream-rows.js';

export type RowsOf = (snapshot: HangarSnapshot, query: string) => readonly StatusEntry[];

/** `visibleRows`, remembering the last answer. */
export function rowsMemo(): RowsOf {
	let last: {entries: HangarSnapshot['entries']; toolNames: HangarSnapshot['toolNames']; query: string; rows: readonly StatusEntry[]} | undefined;
	return (snapshot, query) => {
		if (last?.entries !== snapshot.entries || last.toolNames !== snapshot.toolNames || last.query !== query) {
			last = {entries: snapshot.entries, toolNames: snapshot.toolNames, query, rows: visibleRows(snapshot.entries, snapshot.toolNames, query)};
		}

		return last.rows;
	};
}

export function deriveTuiState(snapshot: HangarSnapshot, ui: UiState, size: TerminalSize, rowsOf: RowsOf): TuiState {
	const rows = rowsOf(snapshot, ui.filter.query);
	const view = currentView(ui);
	// The details and logs act on the upstream they show, even if it no longer matches the filter.
	const shown = view === 'detail' || view === 'logs' ? snapshot.entries.find(entry => entry.name === ui.selected) : undefined;
	return {
		snapshot,
		ui,
		rows,
		selected: shown ?? effectiveSelection(rows, ui.selected),
		size,
		layout: size.columns < compactBelowColumns ? 'compact' : 'full',
		keyContext: keyContext(ui),
	};
}
