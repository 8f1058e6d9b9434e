/**
 * The one output rule for text hangar did not write (an upstream's tool
 * names, stderr and errors, a client's name, a config's server names): it is
 * shown, never obeyed. A terminal acts on control characters, so an upstream
 * that gets one printed raw can write the person's clipboard (OSC 52), retitle
 * the window or tmux pane (OSC 0/2), clear the screen, make the terminal type
 * a reply (DSR, `ESC[6n`), or reorder what a line appears to say (bidi
 * controls). Every terminal surface (the CLI's output, hangar's log, errors on
 * stderr, `serve`'s output and the TUI) passes untrusted text through
 * `terminalText` at its writer, before hangar adds its own colours, so its
 * own styling is unaffected.
 *
 * What is escaped, each character on its own, so an escape sequence is shown
 * whole (`\x1b]52;c;…\x07`): C0 controls and DEL, C1 controls
 * (U+0080–U+009F: U+009B is an 8-bit CSI), the bidi controls (U+061C,
 * U+200E, U+200F, U+202A–U+202E, U+2066–U+2069) and the line and paragraph
 * separators (U+2028, U+2029). A character below DEL is written `\xHH`; DEL
 * and above `\uHHHH`, which is also how JSON writes it, so the same rule
 * keeps `--json` output valid JSON with the same meaning (`terminalJson`).
 * Backslashes are left as they are, so the rule can be applied twice (at a
 * caller and again at the sink) without changing anything the second time.
 *
 * A surface that lays out lines may keep newlines and tabs (`keep: 'lines'`);
 * a carriage return is kept only as part of CRLF, since a lone one lets the
 * text overwrite what the line showed before it.
 */
import process from 'node:process';

export type TerminalKeep = 'none' | 'lines';

// eslint-disable-next-line no-control-regex
const unsafeAll = /[\u0000-\u001F\u007F-\u009F\u061C\u200E\u200F\u2028\u2029\u202A-\u202E\u2066-\u2069]/g;
// eslint-disable-next-line no-control-regex
const unsafeKeepingLines = /[\u0000-\u0008\u000B\u000C\u000E-\u001F\u007F-\u009F\u061C\u200E\u200F\u2028\u2029\u202A-\u202E\u2066-\u2069]|\r(?!\n)/g;
// JSON.stringify already escapes C0 controls; these are what it leaves raw.
const unsafeInJson = /[\u007F-\u009F\u061C\u200E\u200F\u2028\u2029\u202A-\u202E\u2066-\u2069]/g;

/** One character as its visible escape: `\x1b`, `\u009b`, `\u202e`. */
export function escapedCharacter(character: string): string {
	const code = character.codePointAt(0) ?? 0;
	return code < 0x7f ? `\\x${code.toString(16).padStart(2, '0')}` : `\\u${code.toString(16).padStart(4, '0')}`;
}

/**
 * `text` safe to write to a terminal: every control, escape and bidi
 * character shown escaped (see the module comment). `keep: 'lines'` keeps
 * newlines (and CRLF) and tabs, for a surface that prints whole lines.
 */
export function terminalText(text: string, keep: TerminalKeep = 'none'): string {
	return text.replace(keep === 'lines' ? unsafeKeepingLines : unsafeAll, escapedCharacter);
}

/**
 * `JSON.stringify` for a terminal (`--json`): C1 and bidi controls and DEL
 * escaped as `\uHHHH`, as JSON already does for C0, so the text parses to the
 * same value and none of it acts on the terminal.
 */
export function terminalJson(value: unknown, space?: number): string {
	return JSON.stringify(value, null, space).replace(unsafeInJson, escapedCharacter);
}

/**
 * The CLI's writers for stdout and stderr: every write passes `terminalText`
 * with newlines and tabs kept, so no message, table or report can carry a
 * control through, whichever string it was built from.
 */
export const terminalOutput = {
	out(text: string): void {
		process.stdout.write(terminalText(text, 'lines'));
	},
	err(text: string): void {
		process.stderr.write(terminalText(text, 'lines'));
	},
};
