/**
 * Ink 6.8's `Output.get()` (ink/build/output.js), the step that turns a
 * frame's text writes into the lines sent to the terminal, done row by row
 * from whole pieces instead of cell by cell. hooks.ts makes Ink's `get()`
 * call this; the result is byte for byte what Ink's own produces.
 *
 * Ink's way: fill a width x height grid with one cell per character (5,600
 * cells for 140x40), copy every written character into it, then turn every
 * row back into text one cell at a time, diffing the styles of each pair
 * of neighbours. An idle TUI redraws once a second for its ticking ages,
 * and that was the largest part of each frame and of its garbage.
 *
 * Here, a row whose writes do not overlap (nearly every row: a table row
 * is a few text nodes side by side) is joined from its pieces: each
 * written line's text with its inner style changes is computed once per
 * distinct line and reused, and only the joins between pieces, the blank
 * gaps and the end of the row are worked out per frame, with the same
 * style diffs Ink would emit there. Any other row (overlapping writes,
 * a position that is not a whole cell inside the width) goes Ink's way.
 */

/** A style code as @alcalzone/ansi-tokenize has it. */
type AnsiCode = {code: string; endCode: string};
type StyledChar = {type: 'char'; value: string; fullWidth: boolean; styles: AnsiCode[]};
type Transformer = (line: string, index: number) => string;
type Clip = {x1?: number; x2?: number; y1?: number; y2?: number};
type Operation = {type: 'write'; x: number; y: number; text: string; transformers: Transformer[]} | {type: 'clip'; clip: Clip} | {type: 'unclip'};

/** What Ink's Output has that this uses. */
export type InkOutput = {
	width: number;
	height: number;
	operations: Operation[];
	caches: {getStyledChars: (line: string) => StyledChar[]; getStringWidth: (text: string) => number; getWidestLine: (text: string) => number};
};

/** Functions from Ink's own dependencies, passed in by the edited output.js (this module does not depend on them itself). */
export type InkParts = {
	sliceAnsi: (text: string, from: number, to?: number) => string;
	ansiCodesToString: (codes: AnsiCode[]) => string;
	diffAnsiCodes: (from: AnsiCode[], to: AnsiCode[]) => AnsiCode[];
	styledCharsToString: (chars: StyledChar[]) => string;
};

/** A written line's text from its first character on, with the style changes inside it, and its printed width. */
type Piece = {body: string; width: number; first: AnsiCode[]; last: AnsiCode[]};
type Placed = {x: number; chars: StyledChar[]};

const blankStyles: AnsiCode[] = [];
const blankCell: StyledChar = {type: 'char', value: ' ', fullWidth: false, styles: blankStyles};

/** Pieces by their styled characters (themselves cached per line by Ink's caches): dropped with them. */
const pieces = new WeakMap<StyledChar[], Piece>();

/** The style change between two neighbouring cells, as Ink's styledCharsToString (with hooks.ts's edit) writes it. */
function change(parts: InkParts, before: AnsiCode[], after: AnsiCode[]): string {
	if (before === after || (before.length === 0 && after.length === 0)) return '';
	return parts.ansiCodesToString(parts.diffAnsiCodes(before, after));
}

function pieceOf(parts: InkParts, output: InkOutput, chars: StyledChar[]): Piece {
	let piece = pieces.get(chars);
	if (piece !== undefined) return piece;
	let body = '';
	let width = 0;
	for (let index = 0; index < chars.length; index++) {
		const char = chars[index]!;
		if (index > 0) body += change(parts, chars[index - 1]!.styles, char.styles);
		body += char.value;
		// A wide character's extra cells are empty and share its styles: they add nothing to the text.
		width += Math.max(1, output.caches.getStringWidth(char.value));
	}

	piece = {body, width, first: chars[0]!.styles, last: chars.at(-1)!.styles};
	pieces.set(chars, piece);
	return piece;
}

/** The row from its pieces, or undefined when they overlap or do not sit on whole cells inside the width. */
function joinedRow(parts: InkParts, output: InkOutput, placed: Placed[]): string | undefined {
	const sorted = placed.length > 1 ? [...placed].sort((a, b) => a.x - b.x) : placed;
	let text = '';
	let cursor = 0;
	let before: AnsiCode[] | undefined;
	for (const {x, chars} of sorted) {
		if (!Number.isInteger(x) || x < cursor) return undefined;
		const piece = pieceOf(parts, output, chars);
		if (x + piece.width > output.width) return undefined;
		if (x > cursor) {
			text += (before === undefined ? '' : change(parts, before, blankStyles)) + ' '.repeat(x - cursor);
			before = blankStyles;
		}

		text += (before === undefined ? parts.ansiCodesToString(piece.first) : change(parts, before, piece.first)) + piece.body;
		before = piece.last;
		cursor = x + piece.width;
	}

	if (cursor < output.width) {
		text += (before === undefined ? '' : change(parts, before, blankStyles)) + ' '.repeat(output.width - cursor);
		before = blankStyles;
	}

	// Ink closes the last cell's styles at the end of every row.
	if (before !== undefined) text += parts.ansiCodesToString(parts.diffAnsiCodes(before, []));
	return text.trimEnd();
}

/** The row Ink's way: a grid row of cells, the writes copied in in order, then turned back into text. */
function gridRow(parts: InkParts, output: InkOutput, placed: Placed[]): string {
	const row: Array<StyledChar | undefined> = [];
	for (let x = 0; x < output.width; x++) row.push(blankCell);
	for (const {x, chars} of placed) {
		let offsetX = x;
		for (const character of chars) {
			row[offsetX] = character;
			const characterWidth = Math.max(1, output.caches.getStringWidth(character.value));
			for (let index = 1; index < characterWidth; index++) row[offsetX + index] = {type: 'char', value: '', fullWidth: false, styles: character.styles};
			offsetX += characterWidth;
		}
	}

	return parts.styledCharsToString(row.filter((item): item is StyledChar => item !== undefined)).trimEnd();
}

/** What Ink's `Output.get()` returns, for the same operations. */
export function outputGet(output: InkOutput, parts: InkParts): {output: string; height: number} {
	const rows: Placed[][] = Array.from({length: output.height}, () => []);
	const clips: Clip[] = [];
	for (const operation of output.operations) {
		if (operation.type === 'clip') clips.push(operation.clip);
		if (operation.type === 'unclip') clips.pop();
		if (operation.type !== 'write') continue;
		const {text, transformers} = operation;
		let {x, y} = operation;
		let lines = text.split('\n');
		const clip = clips.at(-1);
		if (clip) {
			const clipHorizontally = typeof clip.x1 === 'number' && typeof clip.x2 === 'number';
			const clipVertically = typeof clip.y1 === 'number' && typeof clip.y2 === 'number';
			if (clipHorizontally) {
				const width = output.caches.getWidestLine(text);
				if (x + width < clip.x1! || x > clip.x2!) continue;
			}

			if (clipVertically) {
				const height = lines.length;
				if (y + height < clip.y1! || y > clip.y2!) continue;
			}

			if (clipHorizontally) {
				lines = lines.map(line => {
					const from = x < clip.x1! ? clip.x1! - x : 0;
					const width = output.caches.getStringWidth(line);
					const to = x + width > clip.x2! ? clip.x2! - x : width;
					return parts.sliceAnsi(line, from, to);
				});
				if (x < clip.x1!) x = clip.x1!;
			}

			if (clipVertically) {
				const from = y < clip.y1! ? clip.y1! - y : 0;
				const height = lines.length;
				const to = y + height > clip.y2! ? clip.y2! - y : height;
				lines = lines.slice(from, to);
				if (y < clip.y1!) y = clip.y1!;
			}
		}

		let offsetY = 0;
		for (let [index, line] of lines.entries()) {
			// As in Ink: a line past the grid (or before it) is dropped, and so is every line after it.
			const row = rows[y + offsetY];
			if (row === undefined) continue;
			for (const transformer of transformers) line = transformer(line, index);
			const chars = output.caches.getStyledChars(line);
			if (chars.length > 0) row.push({x, chars});
			offsetY++;
		}
	}

	const text = rows.map(placed => (placed.length === 0 ? '' : (joinedRow(parts, output, placed) ?? gridRow(parts, output, placed)))).join('\n');
	return {output: text, height: rows.length};
}
