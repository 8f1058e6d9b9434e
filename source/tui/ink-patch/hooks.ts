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
 * The rest cut the work of each frame without changing its output (a
 * TUI whose ages tick redraws its whole screen every second):
 * - output.js's `get()`, which turns a frame's writes into lines, joins
 *   each row from whole written pieces (output-get.ts) instead of a grid
 *   of one cell object per character;
 * - render-node-to-output.js measures a text's width through Ink's own
 *   cache (measure-text.js) instead of measuring it again every frame;
 * - sanitize-ansi.js, run on every text of every frame, keeps its results
 *   for the strings it has seen (bounded too);
 * - dom.js does not mark a text's layout dirty when its new value has the
 *   same size in a box that holds it unwrapped (an age going from 41s to
 *   42s), so Yoga does not lay the table out again for it;
 * - styledChars.js gives a run of characters with the same styles one
 *   styles array, and skips the style diff between two cells that share
 *   their styles or are both unstyled (the diff builds three Sets a cell).
 *
 * Each edit replaces an exact piece of Ink's source. Should a piece be
 * missing (another Ink version), that file loads unchanged and `patched`
 * says so (see ../ink-patch.ts and its test).
 */

type LoadResult = {format?: string; source?: string | ArrayBuffer | Uint8Array; shortCircuit?: boolean};
type NextLoad = (url: string, context: unknown) => Promise<LoadResult>;

/** Entries each cache may hold before it is cleared. */
export const bounds = {measure: 4096, wrap: 4096, widths: 4096, styledLines: 256, sanitized: 4096};

const edits: Record<string, Array<[from: string, to: string]>> = {
	'/ink/build/measure-text.js': [['    cache.set(text, dimensions);', `    if (cache.size >= ${bounds.measure}) cache.clear();\n    cache.set(text, dimensions);`]],
	'/ink/build/wrap-text.js': [
		['const cache = {};', 'let cache = {};\nlet cacheSize = 0;'],
		['    cache[cacheKey] = wrappedText;', `    if (++cacheSize > ${bounds.wrap}) {\n        cache = {};\n        cacheSize = 1;\n    }\n    cache[cacheKey] = wrappedText;`],
	],
	'/ink/build/output.js': [
		['    caches = new OutputCaches();', '    caches = sharedOutputCaches();'],
		[
			"import { styledCharsFromTokens, styledCharsToString, tokenize, } from '@alcalzone/ansi-tokenize';",
			`import { ansiCodesToString, diffAnsiCodes, styledCharsFromTokens, styledCharsToString, tokenize, } from '@alcalzone/ansi-tokenize';\nimport { outputGet } from ${JSON.stringify(new URL('output-get.js', import.meta.url).href)};\nconst inkParts = { sliceAnsi, ansiCodesToString, diffAnsiCodes, styledCharsToString };`,
		],
		['    get() {\n        // Initialize output array', '    get() {\n        return outputGet(this, inkParts);\n    }\n    inkGet() {\n        // Initialize output array'],
		[
			'export default class Output {',
			`let shared;\nfunction sharedOutputCaches() {\n    shared ??= new OutputCaches();\n    if (shared.widths.size > ${bounds.widths}) shared.widths.clear();\n    if (shared.blockWidths.size > ${bounds.widths}) shared.blockWidths.clear();\n    if (shared.styledChars.size > ${bounds.styledLines}) shared.styledChars.clear();\n    return shared;\n}\nexport default class Output {`,
		],
	],
	'/ink/build/dom.js': [
		[
			'    node.nodeValue = text;\n    markNodeAsDirty(node);',
			'    const box = boxOf(node);\n    node.nodeValue = text;\n    if (box !== undefined && sameBox(box, boxOf(node))) {\n        return;\n    }\n    markNodeAsDirty(node);',
		],
		[
			'export const setTextNodeValue = ',
			`// The text's size, while it is the only text of a laid-out <Text> whose box holds it unwrapped.
const boxOf = (node) => {
    const parent = node.parentNode;
    if (parent?.nodeName !== 'ink-text' || parent.childNodes.length !== 1 || !parent.yogaNode) {
        return undefined;
    }
    const size = measureText(squashTextNodes(parent));
    return size.width <= parent.yogaNode.getComputedWidth() ? size : undefined;
};
const sameBox = (before, after) => after !== undefined && before.width === after.width && before.height === after.height;
export const setTextNodeValue = `,
		],
	],
	'/ink/build/sanitize-ansi.js': [
		['const sgrParametersRegex = ', 'const sanitized = new Map();\nconst sgrParametersRegex = '],
		['        return text;\n    }\n    let output = \'\';', '        return text;\n    }\n    const known = sanitized.get(text);\n    if (known !== undefined) {\n        return known;\n    }\n    let output = \'\';'],
		['    return output;\n};\nexport default sanitizeAnsi;', `    if (sanitized.size >= ${bounds.sanitized}) sanitized.clear();\n    sanitized.set(text, output);\n    return output;\n};\nexport default sanitizeAnsi;`],
	],
	'/ink/build/render-node-to-output.js': [
		["import widestLine from 'widest-line';", "import measureText from './measure-text.js';"],
		['                const currentWidth = widestLine(text);', '                const currentWidth = measureText(text).width;'],
	],
	'/@alcalzone/ansi-tokenize/build/styledChars.js': [
		[
			`            ret.push({
                ...token,
                styles: [...codes],
            });`,
			`            if (codes !== sharedFor) {
                sharedFor = codes;
                shared = [...codes];
            }
            ret.push({
                ...token,
                styles: shared,
            });`,
		],
		['    let codes = [];\n    const ret = [];', '    let codes = [];\n    let sharedFor;\n    let shared;\n    const ret = [];'],
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
