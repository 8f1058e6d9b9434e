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
 * (U+0080–U+009F: U+009B is an 8-bit CSI), the line and paragraph separators
 * (U+2028, U+2029), and every invisible character: the format characters
 * (Unicode's Cf: the bidi controls U+061C, U+200E, U+200F, U+202A–U+202E,
 * U+2066–U+2069; zero-width space, non-joiner and joiner; word joiner; BOM;
 * soft hyphen; Unicode tags, which can smuggle ASCII no one sees) and every
 * other character Unicode says draws nothing (its default ignorables: the
 * Hangul fillers, the variation selectors, which can smuggle any bytes, the
 * combining grapheme joiner), so text cannot hide in a name or make two names
 * look the same. The exceptions are part of an emoji: a zero-width joiner
 * between two emoji (👩‍💻), and one presentation selector after an emoji or
 * in a keycap (❤️, 1️⃣). A character below DEL is written `\xHH`; DEL and
 * above `\uHHHH` (beyond U+FFFF, its two UTF-16 halves), which is also how
 * JSON writes it, so the same rule keeps `--json` output valid JSON with the
 * same meaning (`terminalJson`).
 * Backslashes are left as they are, so the rule can be applied twice (at a
 * caller and again at the sink) without changing anything the second time.
 *
 * A surface that lays out lines may keep newlines and tabs (`keep: 'lines'`);
 * a carriage return is kept only as part of CRLF, since a lone one lets the
 * text overwrite what the line showed before it.
 */
import process from 'node:process';

export type TerminalKeep = 'none' | 'lines';

// What is never written raw, besides the C0 controls: DEL and the C1 controls, the line and paragraph separators,
// every invisible format character (\p{Cf}: the bidi controls, zero-width space, non-joiner and joiner, word joiner,
// BOM, soft hyphen, Mongolian vowel separator, interlinear annotations, Unicode tags) and every other character
// Unicode says draws nothing (\p{Default_Ignorable_Code_Point}): the Hangul fillers, which are letters, the
// variation selectors (256 of them after one letter can carry any bytes an agent reads and a person never sees),
// the combining grapheme joiner, Khmer's inherent vowels and Mongolian's free variation selectors.
const unsafeRest = String.raw`\u007F-\u009F\u2028\u2029\p{Cf}\p{Default_Ignorable_Code_Point}`;
const unsafeAll = new RegExp(String.raw`[\u0000-\u001F${unsafeRest}]`, 'gu');
const unsafeKeepingLines = new RegExp(String.raw`[\u0000-\u0008\u000B\u000C\u000E-\u001F${unsafeRest}]|\r(?!\n)`, 'gu');
// JSON.stringify already escapes C0 controls; these are what it leaves raw.
const unsafeInJson = new RegExp(`[${unsafeRest}]`, 'gu');
const zeroWidthJoiner = '\u200D';
// An emoji a joiner glues to the next (👩‍💻), with its optional presentation selector or skin tone before the joiner.
const emojiBeforeJoiner = /\p{Extended_Pictographic}(?:\uFE0F|\u{1F3FB}|\u{1F3FC}|\u{1F3FD}|\u{1F3FE}|\u{1F3FF})?$/u;
const emojiAfterJoiner = /^\p{Extended_Pictographic}/u;
// The text (U+FE0E) and emoji (U+FE0F) presentation selectors, kept once right after an emoji (❤️) or in a keycap (1️⃣).
const presentationSelectors = new Set(['\uFE0E', '\uFE0F']);
const keycapBase = /^[#*0-9]$/;
const combiningKeycap = '\u20E3';

/** One character as its visible escape: `\x1b`, `\u009b`, `\u202e`; one beyond U+FFFF as its two UTF-16 halves (`\udb40\udc41`), as JSON writes it. */
export function escapedCharacter(character: string): string {
	const code = character.codePointAt(0) ?? 0;
	if (code < 0x7f) return `\\x${code.toString(16).padStart(2, '0')}`;
	let shown = '';
	for (let index = 0; index < character.length; index++) shown += `\\u${character.charCodeAt(index).toString(16).padStart(4, '0')}`;
	return shown;
}

/** Whether a presentation selector at `offset` is the one that makes the character before it an emoji or text, or a keycap. */
function isPresentation(offset: number, text: string): boolean {
	const before = String.fromCodePoint(text.codePointAt(offset - 1) ?? 0);
	const base = before.length === 1 && before >= '\uDC00' && before <= '\uDFFF' ? String.fromCodePoint(text.codePointAt(offset - 2) ?? 0) : before;
	if (/^\p{Extended_Pictographic}$/u.test(base)) return true;
	return keycapBase.test(base) && text[offset + 1] === combiningKeycap;
}

/**
 * `escapedCharacter`, except for what is part of what an emoji shows: a
 * zero-width joiner between two emoji, and one presentation selector after
 * an emoji or in a keycap.
 */
function escapedUnlessEmojiJoiner(character: string, offset: number, text: string): string {
	if (character === zeroWidthJoiner && emojiBeforeJoiner.test(text.slice(Math.max(0, offset - 4), offset)) && emojiAfterJoiner.test(text.slice(offset + 1, offset + 3))) return character;
	if (presentationSelectors.has(character) && isPresentation(offset, text)) return character;
	return escapedCharacter(character);
}

/**
 * `text` safe to write to a terminal: every control, escape and bidi
 * character shown escaped (see the module comment). `keep: 'lines'` keeps
 * newlines (and CRLF) and tabs, for a surface that prints whole lines.
 */
export function terminalText(text: string, keep: TerminalKeep = 'none'): string {
	return text.replace(keep === 'lines' ? unsafeKeepingLines : unsafeAll, escapedUnlessEmojiJoiner);
}

/**
 * `JSON.stringify` for a terminal (`--json`): C1 and bidi controls and DEL
 * escaped as `\uHHHH`, as JSON already does for C0, so the text parses to the
 * same value and none of it acts on the terminal.
 */
export function terminalJson(value: unknown, space?: number): string {
	return JSON.stringify(value, null, space).replace(unsafeInJson, escapedUnlessEmojiJoiner);
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
