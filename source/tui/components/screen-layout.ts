/**
 * How the terminal's rows are shared between header, filter line, body and
 * footer. The frame is always one row shorter than the terminal: a frame as
 * tall as the terminal makes Ink clear and redraw the whole screen on every
 * update (flicker). Views and actions (scroll limits) both read it here.
 */
import {messageLines} from './message-lines.js';
import type {TerminalSize} from './tui-context.js';
import {currentView, type UiState} from './ui-state.js';

const headerRows = 2;

export function frameRows(size: TerminalSize): number {
	return Math.max(4, size.rows - 1);
}

export function filterRows(ui: UiState): number {
	return currentView(ui) === 'main' && (ui.filter.editing || ui.filter.query !== '') ? 1 : 0;
}

/** The message area and the key hints. */
function footerRows(ui: UiState, size: TerminalSize): number {
	return messageLines(ui, size.columns).length + 1;
}

/** Rows left for the current view's body. */
export function bodyRows(size: TerminalSize, ui: UiState): number {
	return Math.max(1, frameRows(size) - headerRows - filterRows(ui) - footerRows(ui, size));
}

/** Rows at the top of a scrolling view that stay put: its title, and in the clients view the column titles. */
export function pinnedRows(ui: UiState): number {
	return currentView(ui) === 'clients' ? 2 : 1;
}

/** Rows a scrolling view shows below its pinned rows, in a body `height` rows tall. */
export function scrollRoom(height: number, ui: UiState): number {
	return Math.max(1, height - pinnedRows(ui));
}

/**
 * Which of `total` lines a scrolling view shows in `room` rows, scrolled
 * `scroll` lines down (never past a full last screen): `start` to `end`
 * (exclusive), and the title's note saying so when not all fit ("" when
 * they do), counting `unit`.
 */
export function scrollWindow(total: number, scroll: number, room: number, unit: 'lines' | 'rows'): {start: number; end: number; note: string} {
	const start = Math.min(scroll, Math.max(0, total - room));
	const end = Math.min(total, start + room);
	return {start, end, note: total > room ? `  ${unit} ${start + 1}-${end} of ${total} (↑↓ scroll)` : ''};
}
