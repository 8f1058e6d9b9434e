/**
 * Module hooks (node:module `register`) that bound three caches of Ink 6.8,
 * the last Ink that runs on Node 20. Ink keeps every string it ever measured
 * or wrapped in module-level caches that never evict (measure-text.js,
 * wrap-text.js; fixed in Ink 8, which needs Node 22: vadimdemedes/ink#986):
 * a table whose ages tick every second adds ~50 new rows a second, and the
 * TUI's heap grew without end. Here each is cleared when it passes a bound.
 *
 * The third is output.js's per-frame cache of styled characters and widths,
 * made one bounded cache shared by every frame: most lines, and nearly
 * every character, are the same from one frame to the next, and tokenizing
 * and measuring them again each frame was most of an idle TUI's CPU.
 *
 * Two more cut the work of each frame without changing its output: the
 * grid every frame starts from shares one blank cell instead of allocating
 * one per cell (5,600 objects for 140x40, each with its own empty array),
 * and turning cells back into text skips the style diff between two cells
 * that are both unstyled or share their styles (the diff builds three Sets
 * per cell, and it comes out empty for them).
 *
 * Each edit replaces an exact piece of Ink's source. Should a piece be
 * missing (another Ink version), that file loads unchanged and `patched`
 * says so (see ../ink-patch.ts and its test).
 */

type LoadResult = {format?: string; source?: string | ArrayBuffer | Uint8Array; shortCircuit?: boolean};
type NextLoad = (url: string, context: unknown) => Promise<LoadResult>;

/** Entries each cache may hold before it is cleared. */
export const bounds = {measure: 4096, wrap: 4096, widths: 4096, styledLines: 256};

const edits: Record<string, Array<[from: string, to: string]>> = {
	'/ink/build/measure-text.js': [['    cache.set(text, dimensions);', `    if (cache.size >= ${bounds.measure}) cache.clear();\n    cache.set(text, dimensions);`]],
	'/ink/build/wrap-text.js': [
		['const cache = {};', 'let cache = {};\nlet cacheSize = 0;'],
		['    cache[cacheKey] = wrappedText;', `    if (++cacheSize > ${bounds.wrap}) {\n        cache = {};\n        cacheSize = 1;\n    }\n    cache[cacheKey] = wrappedText;`],
	],
	'/ink/build/output.js': [
		['    caches = new OutputCaches();', '    caches = sharedOutputCaches();'],
		[
			`                row.push({
                    type: 'char',
                    value: ' ',
                    fullWidth: false,
                    styles: [],
                });`,
			'                row.push(blankCell);',
		],
		[
			'export default class Output {',
			`const blankCell = {type: 'char', value: ' ', fullWidth: false, styles: []};\nlet shared;\nfunction sharedOutputCaches() {\n    shared ??= new OutputCaches();\n    if (shared.widths.size > ${bounds.widths}) shared.widths.clear();\n    if (shared.blockWidths.size > ${bounds.widths}) shared.blockWidths.clear();\n    if (shared.styledChars.size > ${bounds.styledLines}) shared.styledChars.clear();\n    return shared;\n}\nexport default class Output {`,
		],
	],
	'/@alcalzone/ansi-tokenize/build/styledChars.js': [
		[
			'            ret += ansiCodesToString(diffAnsiCodes(chars[i - 1].styles, char.styles));',
			'            const before = chars[i - 1].styles;\n            if (before !== char.styles && (before.length > 0 || char.styles.length > 0)) ret += ansiCodesToString(diffAnsiCodes(before, char.styles));',
		],
	],
};

export async function load(url: string, context: unknown, nextLoad: NextLoad): Promise<LoadResult> {
	const result = await nextLoad(url, context);
	const file = Object.keys(edits).find(suffix => url.endsWith(suffix));
	if (file === undefined || result.source === undefined) return result;
	let source = typeof result.source === 'string' ? result.source : new TextDecoder().decode(result.source);
	for (const [from, to] of edits[file]!) {
		// All or nothing per file: a half-edited module could be worse than Ink's own.
		if (!source.includes(from)) return result;
		source = source.replace(from, to);
	}

	return {...result, source: `${source}\nexport const __hangarBounded = true;\n`};
}
