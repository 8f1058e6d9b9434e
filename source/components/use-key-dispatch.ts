/**
 * Turns key presses into actions through the keymap. The context decides
 * which bindings apply (an open confirmation, then a filter being typed,
 * then the screen); while a filter is typed, keys that are not bindings are
 * text.
 */
import {useCallback} from 'react';
import {useInput, type Key} from 'ink';
import {matchCommand, type CommandId} from './keymap.js';
import type {TuiActions, TuiState} from './tui-context.js';

/** Lines a page key scrolls, given the screen's height. */
const pageOf = (rows: number): number => Math.max(1, rows - 6);

function handlerFor(command: CommandId, actions: TuiActions, context: string, rows: number): () => void {
	const scrolling = context === 'logs' || context === 'help';
	switch (command) {
		case 'up': {
			return scrolling ? () => actions.scroll(-1) : () => actions.move(-1);
		}

		case 'down': {
			return scrolling ? () => actions.scroll(1) : () => actions.move(1);
		}

		case 'pageUp': {
			return () => actions.scroll(-pageOf(rows));
		}

		case 'pageDown': {
			return () => actions.scroll(pageOf(rows));
		}

		case 'details': {
			return actions.openDetails;
		}

		case 'back': {
			return actions.back;
		}

		case 'start':
		case 'stop':
		case 'restart': {
			return () => actions.command(command);
		}

		case 'quarantine': {
			return actions.quarantineOrLift;
		}

		case 'filter': {
			return actions.filterOpen;
		}

		case 'logs': {
			return actions.openLogs;
		}

		case 'help': {
			return actions.openHelp;
		}

		case 'quit': {
			return actions.quit;
		}

		case 'interrupt': {
			return actions.interrupt;
		}

		case 'filterKeep': {
			return actions.filterKeep;
		}

		case 'filterClear': {
			return actions.filterClear;
		}

		case 'filterErase': {
			return actions.filterErase;
		}

		case 'confirm': {
			return actions.confirm;
		}

		case 'cancel': {
			return actions.cancel;
		}
	}
}

export function useKeyDispatch(readState: () => TuiState, actions: TuiActions): void {
	const onKey = useCallback(
		(input: string, key: Key) => {
			const {keyContext, size} = readState();
			const command = matchCommand(keyContext, input, key);
			if (command !== undefined) {
				handlerFor(command, actions, keyContext, size.rows)();
				return;
			}

			if (keyContext === 'filter' && input !== '' && !key.ctrl && !key.meta) actions.filterType(input);
		},
		[readState, actions],
	);
	useInput(onKey);
}
