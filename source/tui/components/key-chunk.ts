/**
 * One read from the terminal can hold several key presses: fast typing, a
 * paste, `tmux send-keys k k`, six Backspaces sent together. Ink splits a
 * read at escape sequences (so arrows come one by one) but hands a run of
 * plain characters to `useInput` as one `input`. This turns such a run back
 * into the key presses it is made of, each as Ink reports a single key, so
 * the keymap matches them one by one and each is dispatched in the context
 * the one before it left (after "/", "q" is text, not quit).
 */
import type {Key} from 'ink';

export type KeyPress = {input: string; key: Key};

/** No key flag set: what Ink reports for a plain character. */
export const plainKey: Key = {
	upArrow: false,
	downArrow: false,
	leftArrow: false,
	rightArrow: false,
	pageDown: false,
	pageUp: false,
	home: false,
	end: false,
	return: false,
	escape: false,
	ctrl: false,
	shift: false,
	tab: false,
	backspace: false,
	delete: false,
	meta: false,
	super: false,
	hyper: false,
	capsLock: false,
	numLock: false,
};

/** Flags that make a key more than its characters (shift only says a letter is upper case). */
const special = (key: Key): boolean =>
	(Object.keys(plainKey) as Array<keyof Key>).some(flag => flag !== 'shift' && key[flag] === true);

/** One character as the key Ink reports when it arrives alone. */
function pressOf(char: string): KeyPress {
	const code = char.codePointAt(0) ?? 0;
	if (char === '\r') return {input: '', key: {...plainKey, return: true}};
	// Ink reads DEL (what Backspace sends) as "delete" and BS (Ctrl-H) as "backspace"; the keymap takes both.
	if (char === '\u007F') return {input: '', key: {...plainKey, delete: true}};
	if (char === '\b') return {input: '', key: {...plainKey, backspace: true}};
	if (char === '\t') return {input: '', key: {...plainKey, tab: true}};
	// Ctrl and a letter: Ctrl-C is 0x03.
	if (code >= 0x01 && code <= 0x1A) return {input: String.fromCodePoint(code + 0x60), key: {...plainKey, ctrl: true}};
	// Any other control character is no key at all.
	if (code < 0x20 || (code >= 0x7F && code <= 0x9F)) return {input: '', key: plainKey};
	return {input: char, key: {...plainKey, shift: /^[A-Z]$/.test(char)}};
}

const escapePress: KeyPress = {input: '', key: {...plainKey, escape: true}};

/**
 * The key presses in what `useInput` handed over. A key with a flag (an
 * arrow, Enter, Ctrl-C, Esc…) is one press, as it came; plainKey characters
 * are one press each.
 *
 * Ink 8 reads ESC followed by more in one read as "meta": two Esc presses
 * sent together (`tmux send-keys Escape Escape`, a fast double tap) come as
 * one meta Esc, and Esc then `t` as meta `t`, the way a terminal sends
 * Alt-t. No key of hangar's is an Alt key, so such a press is taken apart
 * again into the Esc and what followed it.
 */
export function keyPresses(input: string, key: Key): KeyPress[] {
	if (key.meta) {
		const rest: Key = {...key, meta: false};
		if (key.escape) return [escapePress, escapePress];
		return [escapePress, ...keyPresses(input, rest)];
	}

	if (special(key)) return [{input, key}];
	return [...input].map(char => pressOf(char));
}
