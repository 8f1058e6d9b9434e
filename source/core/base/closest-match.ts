/**
 * "Did you mean …?" for the CLI: the known word nearest to a typo, by edit
 * distance. A suggestion is only made when it is close enough to be the
 * likely intent, so a word that resembles nothing gets no wild guess.
 */

/** Levenshtein distance, counting a swap of two neighbours as one edit (the commonest typo: --conifg). */
export function editDistance(a: string, b: string): number {
	const rows = a.length + 1;
	const columns = b.length + 1;
	const d: number[][] = Array.from({length: rows}, (_, i) => Array.from({length: columns}, (_, j) => (i === 0 ? j : j === 0 ? i : 0)));
	for (let i = 1; i < rows; i++) {
		for (let j = 1; j < columns; j++) {
			const cost = a[i - 1] === b[j - 1] ? 0 : 1;
			let best = Math.min(d[i - 1]![j]! + 1, d[i]![j - 1]! + 1, d[i - 1]![j - 1]! + cost);
			if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) best = Math.min(best, d[i - 2]![j - 2]! + 1);
			d[i]![j] = best;
		}
	}

	return d[a.length]![b.length]!;
}

/** The candidate nearest to `word` (case-insensitive), or undefined when none is within about a third of its length. */
export function closestMatch(word: string, candidates: Iterable<string>): string | undefined {
	const lower = word.toLowerCase();
	let best: string | undefined;
	let bestDistance = Number.POSITIVE_INFINITY;
	for (const candidate of candidates) {
		const distance = editDistance(lower, candidate.toLowerCase());
		if (distance < bestDistance) {
			best = candidate;
			bestDistance = distance;
		}
	}

	const limit = Math.max(1, Math.min(3, Math.floor(word.length / 3)));
	return bestDistance <= limit ? best : undefined;
}

/**
 * The candidates `word` is the start of (`claude` for `claude-desktop` and
 * `claude-code`): a short form people type for a longer name. Words under
 * three letters start too much to mean anything.
 */
export function prefixMatches(word: string, candidates: Iterable<string>): string[] {
	const lower = word.toLowerCase();
	if (lower.length < 3) return [];
	return [...candidates].filter(candidate => candidate.toLowerCase() !== lower && candidate.toLowerCase().startsWith(lower));
}

/** " Did you mean X?" (or "X or Y?" when the word starts several), or "", to end an error sentence with. */
export function didYouMean(word: string, candidates: Iterable<string>, format: (match: string) => string = match => `"${match}"`): string {
	const list = [...candidates];
	const starts = prefixMatches(word, list);
	const matches = starts.length > 0 ? starts : [closestMatch(word, list)].filter(match => match !== undefined);
	if (matches.length === 0) return '';
	const shown = matches.map(format);
	return ` Did you mean ${shown.length === 1 ? shown[0] : `${shown.slice(0, -1).join(', ')} or ${shown.at(-1)}`}?`;
}

/** Names for an error message: all of them, or the first `max` and how many more (an upstream of 500 tools must not bury the message). */
export function namesInBrief(names: readonly string[], max = 20): string {
	if (names.length === 0) return 'none';
	return names.length <= max ? names.join(', ') : `${names.slice(0, max).join(', ')}, … and ${names.length - max} more`;
}

/**
 * Up to `limit` candidates close to `word`, closest first: one of whose
 * names (`names`: a namespaced tool's exposed name and its own) is within
 * closestMatch's distance of `word` or of its part after "__", or starts
 * with it (three letters or more). A word that resembles none gets none.
 */
export function closeMatches<T>(word: string, candidates: readonly T[], names: (candidate: T) => string[], limit: number): T[] {
	const lower = word.toLowerCase();
	const split = lower.indexOf('__');
	const words = split > 0 && split + 2 < lower.length ? [lower, lower.slice(split + 2)] : [lower];
	const near: Array<{candidate: T; distance: number}> = [];
	for (const candidate of candidates) {
		let best = Number.POSITIVE_INFINITY;
		for (const name of names(candidate)) {
			const own = name.toLowerCase();
			for (const typed of words) {
				const limitFor = Math.max(1, Math.min(3, Math.floor(typed.length / 3)));
				const distance = typed.length >= 3 && own.startsWith(typed) ? 0.5 : editDistance(typed, own);
				if (distance <= limitFor && distance < best) best = distance;
			}
		}

		if (best !== Number.POSITIVE_INFINITY) near.push({candidate, distance: best});
	}

	return near.sort((a, b) => a.distance - b.distance).slice(0, limit).map(match => match.candidate);
}
