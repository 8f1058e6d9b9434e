/**
 * One set of Ink's output caches for every frame, bounded. Ink 8 turns each
 * frame's text into terminal lines in `Output.get()` (ink/build/output.js),
 * with caches of each line's styled characters and of string widths that
 * belong to that frame's `Output`: every frame tokenizes every line of the
 * screen again. A TUI whose ages tick redraws its whole table every second,
 * and nearly every line and character is the same as in the frame before;
 * that re-tokenizing was most of an idle second's CPU (docs/tui.md,
 * "Refresh and cost"). Here `Output.prototype.get` hands each frame the
 * caches of the first one, cleared whenever one passes `bound` entries.
 *
 * The caches are keyed by the text itself, so a frame comes out the same
 * with them shared (test/unit/tui/ink-output-caches.test.tsx renders the
 * same frames both ways). This reaches into Ink's build: when that module
 * no longer looks as expected, nothing is changed and it returns false.
 */

type OutputCaches = {styledChars: Map<string, unknown>; widths: Map<string, number>; blockWidths: Map<string, number>};
type InkOutput = {caches: OutputCaches};
type OutputClass = {prototype: {get: (this: InkOutput) => unknown}};

/** Entries a cache may hold before it is cleared. */
export const outputCacheBound = 4096;

let shared: OutputCaches | undefined;
let installed = false;

function isOutputCaches(value: unknown): value is OutputCaches {
	const caches = value as Partial<OutputCaches> | undefined;
	return caches?.styledChars instanceof Map && caches.widths instanceof Map && caches.blockWidths instanceof Map;
}

/** Makes every Ink `Output` in this process draw with one bounded set of caches; true once that is in place. */
export async function shareInkOutputCaches(bound: number = outputCacheBound): Promise<boolean> {
	if (installed) return true;
	let Output: OutputClass | undefined;
	try {
		// The module Ink itself loads (same URL, so the same class); the package exports only its entry.
		Output = ((await import(new URL('output.js', import.meta.resolve('ink')).href)) as {default?: OutputClass}).default;
	} catch {
		return false;
	}

	const get = Output?.prototype?.get;
	if (Output === undefined || typeof get !== 'function') return false;
	Output.prototype.get = function (this: InkOutput) {
		if (!isOutputCaches(this.caches)) return get.call(this);
		if (shared === undefined) shared = this.caches;
		else {
			if (shared.styledChars.size > bound) shared.styledChars.clear();
			if (shared.widths.size > bound) shared.widths.clear();
			if (shared.blockWidths.size > bound) shared.blockWidths.clear();
			this.caches = shared;
		}

		return get.call(this);
	};
	installed = true;
	return true;
}

/** How many entries the shared caches hold now (for tests). */
export function sharedOutputCacheSizes(): {styledChars: number; widths: number; blockWidths: number} | undefined {
	return shared === undefined ? undefined : {styledChars: shared.styledChars.size, widths: shared.widths.size, blockWidths: shared.blockWidths.size};
}
