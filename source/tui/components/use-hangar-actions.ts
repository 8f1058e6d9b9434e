/**
 * The actions every screen can take, as stable callbacks: UI changes go to
 * the reducer; commands go to hangar and report on the message line, first
 * "starting x…" at once, then the outcome when it settles (keys stay live
 * meanwhile). Callbacks read the state as of the last key (`readState`),
 * not of the last render, so they never act on a stale selection.
 */
import {useMemo, useRef} from 'react';
import {errorMessage, HangarError} from '../../core/base/errors.js';
import type {PersonAction} from '../../core/engine/supervisor.js';
import type {StatusEntry} from '../../core/views/views.js';
import type {HangarSource} from './hangar-source.js';
import {callDetailLines} from './call-lines.js';
import {detailLayout} from './detail-sections.js';
import {helpLines} from './help-content.js';
import {bodyRows, scrollRoom} from './screen-layout.js';
import {shownState} from './state-style.js';
import type {TuiActions, TuiState} from './tui-context.js';
import {currentView, type Message, type UiAction} from './ui-state.js';

export type QuitHooks = {
	/** Stop every upstream and exit (attached: detach and exit); called once, after the "stopping" line is on screen. */
	onQuit: () => void;
	/** Ctrl-C while stopping: stop waiting, kill what is left. */
	onForceQuit: () => void;
};

const pendingVerb: Record<PersonAction, string> = {
	start: 'starting',
	stop: 'stopping',
	restart: 'restarting',
	quarantine: 'quarantining',
	approve: 'lifting the quarantine of',
	'sign-in': 'signing in to',
	'sign-out': 'signing out of',
};

const runningStates: ReadonlySet<StatusEntry['state']> = new Set(['starting', 'ready', 'degraded', 'stopping']);

/** Upstreams a quit has to stop (a per-client server whose instances run, too). */
function runningCount(entries: readonly StatusEntry[]): number {
	return entries.filter(entry => entry.pid !== null || runningStates.has(shownState(entry).state)).length;
}

/**
 * An error as the message line shows it: a HangarError's sentence, and its
 * hint apart; any other error whole.
 */
function messageOf(error: unknown): Message {
	if (error instanceof HangarError) return {tone: 'error', text: error.sentence, hint: error.hint};
	return {tone: 'error', text: errorMessage(error)};
}

export function useHangarActions(source: HangarSource, readState: () => TuiState, dispatch: (action: UiAction) => void, quit: QuitHooks): TuiActions {
	const hooks = useRef(quit);
	hooks.current = quit;

	return useMemo<TuiActions>(() => {
		const run = (name: string, action: PersonAction): void => {
			dispatch({type: 'message', message: {tone: 'pending', text: `${pendingVerb[action]} ${name}…`}});
			source.act(name, action).then(
				text => dispatch({type: 'message', message: {tone: 'success', text}}),
				(error: unknown) => dispatch({type: 'message', message: messageOf(error)}),
			);
		};

		const selectedName = (): string | undefined => {
			const {selected} = readState();
			if (selected === undefined) dispatch({type: 'message', message: {tone: 'error', text: 'No upstream is selected.'}});
			return selected?.name;
		};

		/**
		 * The row marked selected becomes the selection: when a filter hides
		 * the selected upstream, the marker moves to the first row shown, and
		 * that is the one a person then sees selected and acts on. Stored at
		 * once, not after the next render, so a filter change in the same read
		 * (Esc right after) keeps it.
		 */
		const keepShownSelection = (): void => {
			const {selected, ui} = readState();
			if (selected !== undefined && selected.name !== ui.selected) dispatch({type: 'select', name: selected.name});
		};

		const beginQuit = (): void => {
			if (source.detaches === true) dispatch({type: 'quitting', upstreams: 0, detaching: true});
			else dispatch({type: 'quitting', upstreams: runningCount(readState().snapshot.entries)});
		};

		/** Rows a scrolling view shows below its pinned title. */
		const scrollRows = (): number => {
			const {ui, size} = readState();
			return scrollRoom(bodyRows(size, ui), ui);
		};

		const scrollMax = (): number => {
			const {ui, snapshot, size} = readState();
			const view = currentView(ui);
			const total =
				view === 'clients'
					? snapshot.clients.length
					: view === 'call'
						? snapshot.calls?.open === undefined
							? 0
							: callDetailLines(snapshot.calls.open, size.columns).length
						: helpLines(snapshot, size.columns).length;
			return Math.max(0, total - scrollRows());
		};

		/** The detail view as drawn now: how many sections, how far the focused one scrolls. */
		const detailNow = (): {sections: number; maxScroll: number} => {
			const {ui, snapshot, size} = readState();
			if (snapshot.details === undefined) return {sections: 1, maxScroll: 0};
			return detailLayout(snapshot.details, snapshot.now, size.columns, bodyRows(size, ui), ui.detail);
		};

		/** Moves the calls view's selection by `by` calls (down: older); back at the newest, it follows new calls again. */
		const moveCall = (by: number): void => {
			const {ui, snapshot} = readState();
			const window = snapshot.calls;
			if (window === undefined || window.rows.length === 0) return;
			const at = ui.callAt === undefined ? 0 : Math.max(0, window.rows.findIndex(row => row.seq <= ui.callAt!));
			const next = Math.min(window.rows.length - 1, Math.max(0, at + by));
			dispatch({type: 'call-select', at: next === 0 && window.offset === 0 ? undefined : window.rows[next]!.seq});
		};

		const actions: TuiActions = {
			move: by => dispatch({type: 'move', by, order: readState().rows.map(row => row.name)}),
			openDetails() {
				const name = selectedName();
				if (name !== undefined) dispatch({type: 'open', view: 'detail', name});
			},
			openLogs() {
				const name = selectedName();
				if (name !== undefined) dispatch({type: 'open', view: 'logs', name});
			},
			openClients: () => dispatch({type: 'open', view: 'clients'}),
			openHelp() {
				dispatch(currentView(readState().ui) === 'help' ? {type: 'back'} : {type: 'open', view: 'help'});
			},
			back: () => dispatch({type: 'back'}),
			openCalls: () => dispatch({type: 'open', view: 'calls'}),
			openCall() {
				const {ui, snapshot} = readState();
				const rows = snapshot.calls?.rows ?? [];
				const call = ui.callAt === undefined ? rows[0] : (rows.find(row => row.seq <= ui.callAt!) ?? rows.at(-1));
				if (call === undefined) {
					dispatch({type: 'message', message: {tone: 'error', text: 'No call is selected: none has been made yet, or the filter matches none.'}});
					return;
				}

				// Opening a call pauses the list on it, so Esc comes back to the same place.
				dispatch({type: 'call-select', at: call.seq});
				dispatch({type: 'open', view: 'call'});
			},
			section: by => dispatch({type: 'detail-section', by, count: detailNow().sections}),
			expand: () => dispatch({type: 'detail-expand'}),
			scroll(by) {
				const {ui, snapshot} = readState();
				const view = currentView(ui);
				if (view === 'detail') {
					dispatch({type: 'detail-scroll', by, max: detailNow().maxScroll});
					return;
				}

				if (view === 'calls') {
					moveCall(by);
					return;
				}

				if (view !== 'logs') {
					dispatch({type: 'scroll', by, max: scrollMax()});
					return;
				}

				const logs = snapshot.logs ?? {lines: [], first: 0};
				dispatch({type: 'log-scroll', by, first: logs.first, count: logs.lines.length, rows: scrollRows()});
			},
			act(action) {
				const name = selectedName();
				if (name !== undefined) run(name, action);
			},
			signIn() {
				const name = selectedName();
				if (name === undefined) return;
				dispatch({type: 'message', message: {tone: 'pending', text: `starting the sign-in to ${name}…`}});
				source.startSignIn(name).then(
					({browser, url, startedAt}) => {
						const how = browser.opened ? 'a browser was opened; if it did not open, open this URL in a browser' : `open this URL in a browser (${browser.why})`;
						// Pending until the next action: the row leaves needs-sign-in when the browser comes back; a failure replaces it.
						dispatch({type: 'message', message: {tone: 'pending', text: `To sign in to "${name}", ${how}; hangar waits for it:`, url, signIn: {upstream: name, startedAt}}});
					},
					(error: unknown) => dispatch({type: 'message', message: messageOf(error)}),
				);
			},
			quarantineOrLift() {
				const entry = readState().selected;
				if (entry === undefined) {
					selectedName();
					return;
				}

				if (entry.state === 'quarantined') dispatch({type: 'dialog-open', dialog: {kind: 'lift-quarantine', name: entry.name, pins: source.approvalPins(entry.name)}});
				else dispatch({type: 'dialog-open', dialog: {kind: 'quarantine', name: entry.name}});
			},
			filterOpen: () => dispatch({type: 'filter-open'}),
			filterType(text) {
				dispatch({type: 'filter-type', text});
				keepShownSelection();
			},
			filterErase() {
				dispatch({type: 'filter-erase'});
				keepShownSelection();
			},
			filterKeep: () => dispatch({type: 'filter-keep'}),
			filterClear: () => dispatch({type: 'filter-clear'}),
			confirm() {
				const {dialog} = readState().ui;
				dispatch({type: 'dialog-close'});
				if (dialog?.kind === 'lift-quarantine') run(dialog.name, 'approve');
				else if (dialog?.kind === 'quarantine') run(dialog.name, 'quarantine');
				else if (dialog?.kind === 'quit') beginQuit();
			},
			cancel() {
				const {dialog} = readState().ui;
				dispatch({type: 'dialog-close'});
				if (dialog?.kind === 'lift-quarantine') dispatch({type: 'message', message: {tone: 'success', text: `left "${dialog.name}" quarantined`}});
				else if (dialog?.kind === 'quarantine') dispatch({type: 'message', message: {tone: 'success', text: `not quarantined: "${dialog.name}" is left as it was`}});
				else if (dialog?.kind === 'quit') dispatch({type: 'message', message: {tone: 'success', text: 'not quitting: hangar and its upstreams keep running'}});
			},
			quit() {
				// Attached to another process's supervisor, quitting only detaches: nobody loses anything.
				const clients = source.detaches === true ? 0 : source.attachedClients();
				if (clients > 0) dispatch({type: 'dialog-open', dialog: {kind: 'quit', clients}});
				else beginQuit();
			},
			interrupt() {
				const {ui} = readState();
				if (ui.quitting !== undefined) {
					hooks.current.onForceQuit();
				} else if (ui.dialog?.kind === 'quit') {
					beginQuit();
				} else {
					dispatch({type: 'dialog-close'});
					actions.quit();
				}
			},
		};
		return actions;
	}, [source, readState, dispatch]);
}
