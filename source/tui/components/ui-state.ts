/**
 * The terminal UI's own state (not hangar's): which screen is open, which
 * upstream is selected (by name, so the selection follows an upstream when
 * rows re-sort), the filter, an open confirmation, the message line. A
 * reducer over a discriminated union of actions, so every change is one
 * named event and can be tested without rendering.
 */

export type View = 'main' | 'detail' | 'logs' | 'clients' | 'help' | 'calls' | 'call';

export type Dialog =
	/** Lifting a quarantine lets the upstream run again and pins its tools: a person confirms it. */
	| {kind: 'lift-quarantine'; name: string; /** What approving pins, as the core says it. */ pins: string}
	/** A quarantine stops the upstream, hides its tools and persists across restarts: a stray key must not do that. */
	| {kind: 'quarantine'; name: string}
	| {kind: 'quit'; clients: number};

export type Message = {
	/** A success is shown for a while (see `messageMs`); a pending line until its outcome; an error until the next action. */
	tone: 'pending' | 'success' | 'error';
	text: string;
	/** What to do about an error. */
	hint?: string | undefined;
	/** A URL to open, shown whole under the text (wrapped, never cut): a sign-in's. */
	url?: string | undefined;
	/** The sign-in this message waits for: replaced by its failure when the status tells one (use-sign-in-outcome.ts). */
	signIn?: {upstream: string; startedAt: string} | undefined;
};

export type UiState = {
	/** Open screens, innermost last; never empty, always starts with 'main'. Esc pops one. */
	views: View[];
	/** The selected upstream's name; undefined until a person moves. */
	selected: string | undefined;
	filter: {query: string; editing: boolean};
	/** The calls view's own filter (by client, upstream, tool, outcome or code). */
	callFilter: {query: string; editing: boolean};
	/**
	 * The calls view's selection: the seq of the selected call; undefined
	 * while following the newest (a move down pauses it on a call, moving
	 * back to the top follows again).
	 */
	callAt: number | undefined;
	/** The detail view: which section has the focus (Tab), whether it is expanded to the whole body (Enter), and how far it is scrolled. */
	detail: {section: number; expanded: boolean; scroll: number};
	dialog: Dialog | undefined;
	message: Message | undefined;
	/** Lines scrolled from the top, in help and clients. */
	scroll: number;
	/**
	 * In the log view, scrolled back: the line shown at the bottom, numbered
	 * among every line the buffer ever held (`LogLines.first`), so the view
	 * stays on the same lines while new ones arrive. Undefined: following the
	 * newest line.
	 */
	logAnchor: number | undefined;
	/** Set once quitting: how many upstreams are being stopped, or that this TUI only detaches (nothing stops). */
	quitting: {upstreams: number; detaching?: boolean} | undefined;
};

export type UiAction =
	| {type: 'move'; by: number; order: readonly string[]}
	| {type: 'select'; name: string}
	| {type: 'open'; view: Exclude<View, 'main'>; name?: string | undefined}
	| {type: 'back'}
	| {type: 'filter-open'}
	| {type: 'filter-type'; text: string}
	| {type: 'filter-erase'}
	| {type: 'filter-keep'}
	| {type: 'filter-clear'}
	| {type: 'dialog-open'; dialog: Dialog}
	| {type: 'dialog-close'}
	| {type: 'message'; message: Message}
	/** A success message has been shown long enough: cleared, unless another message has replaced it. */
	| {type: 'message-expire'; message: Message}
	| {type: 'scroll'; by: number; max: number}
	/** Scrolls the log view by lines (negative: back), given its buffer (`first`, `count` lines) and the rows it shows. */
	| {type: 'log-scroll'; by: number; first: number; count: number; rows: number}
	| {type: 'quitting'; upstreams: number; detaching?: boolean}
	/** Moves the calls view's selection to a call (undefined: follow the newest). */
	| {type: 'call-select'; at: number | undefined}
	/** The detail view: focus the next (or previous) of `count` sections. */
	| {type: 'detail-section'; by: number; count: number}
	| {type: 'detail-expand'}
	/** Scrolls the focused section by lines, within `max`. */
	| {type: 'detail-scroll'; by: number; max: number};

export const initialUiState: UiState = {
	views: ['main'],
	selected: undefined,
	filter: {query: '', editing: false},
	callFilter: {query: '', editing: false},
	callAt: undefined,
	detail: {section: 0, expanded: false, scroll: 0},
	dialog: undefined,
	message: undefined,
	scroll: 0,
	logAnchor: undefined,
	quitting: undefined,
};

/**
 * The line the log view shows at the bottom: the anchor, kept within the
 * buffer (its old lines may have fallen off the front) and no higher than
 * where a full screen of lines starts; the newest line when following.
 */
export function logBottom(anchor: number | undefined, first: number, count: number, rows: number): number {
	const newest = first + count - 1;
	if (anchor === undefined) return newest;
	return Math.min(newest, Math.max(first + Math.min(count, rows) - 1, anchor));
}

/** A filter change applies to the calls view's filter while it is open, else to the list's; a new calls filter follows the newest call again. */
function withFilter(state: UiState, change: (filter: UiState['filter']) => UiState['filter']): UiState {
	if (currentView(state) === 'calls') return {...state, callFilter: change(state.callFilter), callAt: undefined};
	return {...state, filter: change(state.filter)};
}

export function currentView(state: UiState): View {
	return state.views.at(-1) ?? 'main';
}

export function uiReducer(state: UiState, action: UiAction): UiState {
	switch (action.type) {
		case 'move': {
			if (action.order.length === 0) return state;
			const at = Math.max(0, action.order.indexOf(state.selected ?? ''));
			const next = Math.min(action.order.length - 1, Math.max(0, at + action.by));
			return {...state, selected: action.order[next]};
		}

		case 'select': {
			return {...state, selected: action.name};
		}

		case 'open': {
			const views = currentView(state) === action.view ? state.views : [...state.views, action.view];
			const detail = action.view === 'detail' ? initialUiState.detail : state.detail;
			// The calls view opens live, on the newest call; a call opened from it keeps its place.
			const callAt = action.view === 'calls' ? undefined : state.callAt;
			return {...state, views, selected: action.name ?? state.selected, scroll: 0, logAnchor: undefined, detail, callAt};
		}

		case 'back': {
			// The calls view's filter is a level of its own, like the list's: Esc clears it before leaving.
			if (currentView(state) === 'calls' && state.callFilter.query !== '') return {...state, callFilter: {query: '', editing: false}, callAt: undefined};
			if (state.views.length > 1) return {...state, views: state.views.slice(0, -1), scroll: 0, logAnchor: undefined};
			if (state.filter.query !== '') return {...state, filter: {query: '', editing: false}};
			return state;
		}

		case 'filter-open': {
			if (currentView(state) === 'calls') return {...state, callFilter: {query: state.callFilter.query, editing: true}};
			return {...state, views: ['main'], filter: {query: state.filter.query, editing: true}};
		}

		case 'filter-type': {
			return withFilter(state, filter => ({query: filter.query + action.text, editing: true}));
		}

		case 'filter-erase': {
			return withFilter(state, filter => ({query: [...filter.query].slice(0, -1).join(''), editing: true}));
		}

		case 'filter-keep': {
			return withFilter(state, filter => ({query: filter.query.trim(), editing: false}));
		}

		case 'filter-clear': {
			return withFilter(state, () => ({query: '', editing: false}));
		}

		case 'call-select': {
			return {...state, callAt: action.at};
		}

		case 'detail-section': {
			const count = Math.max(1, action.count);
			const section = (((state.detail.section + action.by) % count) + count) % count;
			return {...state, detail: {...state.detail, section, scroll: 0}};
		}

		case 'detail-expand': {
			return {...state, detail: {...state.detail, expanded: !state.detail.expanded, scroll: 0}};
		}

		case 'detail-scroll': {
			return {...state, detail: {...state.detail, scroll: Math.min(Math.max(0, action.max), Math.max(0, state.detail.scroll + action.by))}};
		}

		case 'dialog-open': {
			return {...state, dialog: action.dialog};
		}

		case 'dialog-close': {
			return {...state, dialog: undefined};
		}

		case 'message': {
			return {...state, message: action.message};
		}

		case 'message-expire': {
			return state.message === action.message ? {...state, message: undefined} : state;
		}

		case 'scroll': {
			return {...state, scroll: Math.min(Math.max(0, action.max), Math.max(0, state.scroll + action.by))};
		}

		case 'log-scroll': {
			const bottom = logBottom(state.logAnchor, action.first, action.count, action.rows);
			const next = logBottom(bottom + action.by, action.first, action.count, action.rows);
			return {...state, logAnchor: next >= action.first + action.count - 1 ? undefined : next};
		}

		case 'quitting': {
			return {...state, dialog: undefined, quitting: {upstreams: action.upstreams, ...(action.detaching === true ? {detaching: true} : {})}};
		}
	}
}
