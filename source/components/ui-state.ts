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
	| {kind: 'lift-quarantine'; name: string}
	| {kind: 'quit'; clients: number};

export type Message = {
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
	/** Lines scrolled: from the top in help and clients, back from the newest line in logs (0 = following). */
	scroll: number;
	/** Set once quitting: how many upstreams are being stopped. */
	quitting: {upstreams: number} | undefined;
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
	| {type: 'scroll'; by: number; max: number}
	| {type: 'quitting'; upstreams: number};

export const initialUiState: UiState = {
	views: ['main'],
	selected: undefined,
	filter: {query: '', editing: false},
	dialog: undefined,
	message: undefined,
	scroll: 0,
	quitting: undefined,
};

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
			return {...state, views, selected: action.name ?? state.selected, scroll: 0};
		}

		case 'back': {
			if (state.views.length > 1) return {...state, views: state.views.slice(0, -1), scroll: 0};
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

		case 'scroll': {
			return {...state, scroll: Math.min(Math.max(0, action.max), Math.max(0, state.scroll + action.by))};
		}

		case 'quitting': {
			return {...state, dialog: undefined, quitting: {upstreams: action.upstreams}};
		}
	}
}
