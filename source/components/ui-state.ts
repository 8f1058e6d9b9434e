/**
 * The terminal UI's own state (not hangar's): which screen is open, which
 * upstream is selected (by name, so the selection follows an upstream when
 * rows re-sort), the filter, an open confirmation, the message line. A
 * reducer over a discriminated union of actions, so every change is one
 * named event and can be tested without rendering.
 */

export type View = 'main' | 'detail' | 'logs' | 'clients' | 'help';

export type Dialog =
	/** Lifting a quarantine lets the upstream run again and pins its tools: a person confirms it. */
	| {kind: 'lift-quarantine'; name: string; /** What approving pins, as the core says it. */ pins: string}
	| {kind: 'quit'; clients: number};

export type Message = {
	/** A success is shown for a while (see `messageMs`); a pending line until its outcome; an error until the next action. */
	tone: 'pending' | 'success' | 'error';
	text: string;
	/** What to do about an error. */
	hint?: string | undefined;
};

export type UiState = {
	/** Open screens, innermost last; never empty, always starts with 'main'. Esc pops one. */
	views: View[];
	/** The selected upstream's name; undefined until a person moves. */
	selected: string | undefined;
	filter: {query: string; editing: boolean};
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
	| {type: 'quitting'; upstreams: number; detaching?: boolean};

export const initialUiState: UiState = {
	views: ['main'],
	selected: undefined,
	filter: {query: '', editing: false},
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
			return {...state, views, selected: action.name ?? state.selected, scroll: 0, logAnchor: undefined};
		}

		case 'back': {
			if (state.views.length > 1) return {...state, views: state.views.slice(0, -1), scroll: 0, logAnchor: undefined};
			if (state.filter.query !== '') return {...state, filter: {query: '', editing: false}};
			return state;
		}

		case 'filter-open': {
			return {...state, views: ['main'], filter: {query: state.filter.query, editing: true}};
		}

		case 'filter-type': {
			return {...state, filter: {query: state.filter.query + action.text, editing: true}};
		}

		case 'filter-erase': {
			return {...state, filter: {query: [...state.filter.query].slice(0, -1).join(''), editing: true}};
		}

		case 'filter-keep': {
			return {...state, filter: {query: state.filter.query.trim(), editing: false}};
		}

		case 'filter-clear': {
			return {...state, filter: {query: '', editing: false}};
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
