/**
 * Mounts the terminal UI on the real terminal: Ink draws at most 10 frames a
 * second (keys; hangar's changes come at most 4 times a second), and Ctrl-C
 * is handled by the keymap (an orderly quit) rather than by Ink.
 */
import {render, type Instance} from 'ink';
import {HangarTui} from './HangarTui.js';
import type {HangarSource} from './hangar-source.js';
import type {QuitHooks} from './use-hangar-actions.js';

/** Ink's time to turn the last frame into text, for the snapshot's cost rule (see use-hangar-snapshot.ts). */
const output = {ms: 0};
const timing = {outputMs: () => output.ms};

export function renderTui(source: HangarSource, hooks: QuitHooks): Instance {
	return render(<HangarTui source={source} timing={timing} onQuit={hooks.onQuit} onForceQuit={hooks.onForceQuit} />, {
		maxFps: 10,
		exitOnCtrlC: false,
		patchConsole: true,
		onRender({renderTime}) {
			output.ms = renderTime;
		},
	});
}
