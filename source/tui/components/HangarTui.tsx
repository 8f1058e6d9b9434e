/**
 * The root of the terminal UI: owns the UI reducer, reads hangar through a
 * `HangarSource` (throttled), derives the rows and the selection, dispatches
 * keys (to the actions), and publishes the result through the state
 * context. Everything below renders from that context only.
 */
import {useCallback, useEffect, useMemo, useRef, useState} from 'react';
import {App} from './App.js';
import {deriveTuiState, rowsMemo} from './derive-state.js';
import type {Focus, HangarSnapshot, HangarSource} from './hangar-source.js';
import {TickContext} from './tick-context.js';
import {TuiStateContext, type TerminalSize} from './tui-context.js';
import {currentView} from './ui-state.js';
import {useHangarActions, type QuitHooks} from './use-hangar-actions.js';
import {useHangarSnapshot, type SnapshotTiming} from './use-hangar-snapshot.js';
import {useKeyDispatch} from './use-key-dispatch.js';
import {useSignInOutcome} from './use-sign-in-outcome.js';
import {useTerminalSize} from './use-terminal-size.js';
import {useUiState} from './use-ui-state.js';

export type HangarTuiProps = Partial<QuitHooks> & {
	source: HangarSource;
	/** A fixed terminal size (tests); default: the real terminal's, following resizes. */
	size?: TerminalSize;
	/** Snapshot throttling (default: at most 4 reads a second, one a second when idle). */
	timing?: SnapshotTiming;
	/**
	 * How long a success stays on the message line, in ms (default 15 s):
	 * long enough to read, short enough not to contradict the rows later
	 * ("✓ stopped x" while x runs again). Errors stay until the next action.
	 */
	messageMs?: number;
};

const noop = (): void => {};

export function HangarTui({source, size: fixedSize, timing, messageMs = 15_000, onQuit = noop, onForceQuit = noop}: HangarTuiProps) {
	const [ui, dispatch, readUi] = useUiState();
	const size = useTerminalSize(fixedSize);
	// The focus is one object while its parts stay the same: a new one re-subscribes to hangar and re-reads it.
	const view = currentView(ui);
	const focusName = view === 'detail' || view === 'logs' ? ui.selected : undefined;
	const callFilter = ui.callFilter.query;
	const callAt = ui.callAt;
	const focus = useMemo((): Focus => {
		if (view === 'clients') return {want: 'clients'};
		if (view === 'calls') return {want: 'calls', filter: callFilter, at: callAt};
		if (view === 'call') return {want: 'calls', filter: callFilter, at: callAt, open: callAt};
		return focusName === undefined ? undefined : {name: focusName, want: view === 'detail' ? 'details' : 'logs'};
	}, [view, focusName, callFilter, callAt]);
	const [latest, setLatest] = useState<HangarSnapshot | undefined>(undefined);
	const snapshot = useHangarSnapshot(source, focus, timing, setLatest);
	const rowsOf = useMemo(rowsMemo, []);
	const state = useMemo(() => deriveTuiState(snapshot, ui, size, rowsOf), [snapshot, ui, size, rowsOf]);

	// Keys and actions read the state as of the last key, not of the last render.
	const rendered = useRef({snapshot, size});
	rendered.current = {snapshot, size};
	const readState = useCallback(() => deriveTuiState(rendered.current.snapshot, readUi(), rendered.current.size, rowsOf), [readUi, rowsOf]);
	const actions = useHangarActions(source, readState, dispatch, {onQuit, onForceQuit});
	useKeyDispatch(readState, actions);

	// The row marked selected is the selection, stored by name so it is followed when rows re-sort: the
	// first row as soon as there is one, or the first one shown when the selected upstream is filtered out
	// (a filter changed by a key is handled at once, in the actions; this covers rows that change by themselves).
	// Only from the UI state this render drew: a key handled since (j right after) has its own render coming,
	// and storing what this one showed would undo it.
	const shown = view === 'main' ? state.selected?.name : undefined;
	useEffect(() => {
		if (shown !== undefined && ui.selected !== shown && readUi() === ui) dispatch({type: 'select', name: shown});
	}, [shown, ui, readUi, dispatch]);

	// One timer per success message, not a clock: the frame is redrawn once, when it goes.
	const {message} = ui;
	useEffect(() => {
		if (message?.tone !== 'success') return;
		const timer = setTimeout(() => dispatch({type: 'message-expire', message}), messageMs);
		return () => clearTimeout(timer);
	}, [message, messageMs, dispatch]);

	// A sign-in whose URL is shown and that fails later: its failure replaces the URL.
	useSignInOutcome(message, snapshot.entries, dispatch);

	// Quit once the "stopping N upstreams…" line has been committed to the screen.
	const quitting = ui.quitting !== undefined;
	useEffect(() => {
		if (quitting) onQuit();
	}, [quitting]);

	// The same element while the state is the same: a read that moves only the clock re-renders the ticking texts, not the screen.
	const screen = useMemo(
		() => (
			<TuiStateContext.Provider value={state}>
				<App />
			</TuiStateContext.Provider>
		),
		[state],
	);
	return <TickContext.Provider value={latest}>{screen}</TickContext.Provider>;
}
