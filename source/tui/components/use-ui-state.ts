/**
 * The UI reducer, readable synchronously. Keys can arrive several in one
 * chunk (a paste, fast typing, tmux send-keys): each must be dispatched in
 * the context the previous one left (after "/", "q" is text, not quit), so
 * the current state lives in a ref that every dispatch updates at once; the
 * React state follows it for rendering.
 */
import {useCallback, useRef, useState} from 'react';
import {initialUiState, uiReducer, type UiAction, type UiState} from './ui-state.js';

export function useUiState(): [UiState, (action: UiAction) => void, () => UiState] {
	const current = useRef(initialUiState);
	const [state, setState] = useState(initialUiState);
	const dispatch = useCallback((action: UiAction) => {
		current.current = uiReducer(current.current, action);
		setState(current.current);
	}, []);
	const read = useCallback(() => current.current, []);
	return [state, dispatch, read];
}
