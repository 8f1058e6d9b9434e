/**
 * The read-only state every screen renders from (hangar's snapshot, the UI
 * state and what is derived from both), and the typed actions keys are
 * dispatched to. Screens never reach the supervisor; the root component
 * (`HangarTui`) is the only one that builds these values.
 */
import {createContext, useContext} from 'react';
import type {StatusEntry} from '../../core/views/views.js';
import type {HangarSnapshot} from './hangar-source.js';
import type {KeyContext} from './keymap.js';
import type {UiState} from './ui-state.js';

export type TerminalSize = {columns: number; rows: number};

/** Under this many columns the compact layout is used. */
export const compactBelowColumns = 60;

export type TuiState = {
	snapshot: HangarSnapshot;
	ui: UiState;
	/** The upstreams the table lists, in order (sorted, filtered). */
	rows: readonly StatusEntry[];
	/** The selected upstream, followed by name; the first row when the selected one is not listed. */
	selected: StatusEntry | undefined;
	size: TerminalSize;
	layout: 'full' | 'compact';
	keyContext: KeyContext;
};

export type TuiActions = {
	move: (by: number) => void;
	openDetails: () => void;
	openLogs: () => void;
	openClients: () => void;
	/** The calls view, live on the newest call. */
	openCalls: () => void;
	/** The selected call's arguments and result. */
	openCall: () => void;
	/** The detail view: focus the next (1) or previous (-1) section. */
	section: (by: number) => void;
	/** The detail view: expand the focused section, or shrink it back. */
	expand: () => void;
	openHelp: () => void;
	back: () => void;
	/** Scrolls the screen (the details: the focused section; the calls view: moves its selection, pausing it). */
	scroll: (by: number) => void;
	/** Runs a command on the selected upstream and reports its outcome on the message line. */
	act: (action: 'start' | 'stop' | 'restart') => void;
	/** Starts the sign-in to the selected upstream in the supervisor and shows the URL to open. */
	signIn: () => void;
	/** Quarantines the selected upstream, or asks to lift its quarantine. */
	quarantineOrLift: () => void;
	filterOpen: () => void;
	filterType: (text: string) => void;
	filterErase: () => void;
	filterKeep: () => void;
	filterClear: () => void;
	confirm: () => void;
	cancel: () => void;
	/** Quits, asking first when clients are attached. */
	quit: () => void;
	/** Ctrl-C: quit, confirm a quit question, or while stopping, kill at once. */
	interrupt: () => void;
};

export const TuiStateContext = createContext<TuiState | undefined>(undefined);

export function useTuiState(): TuiState {
	const state = useContext(TuiStateContext);
	if (state === undefined) throw new Error('useTuiState outside <HangarTui>');
	return state;
}
