/**
 * Tool search for `hangar_find_tools`: ranks the exposed tools for a query a
 * person or a model types ("remember facts about people", "serch nodes").
 * Pure: it gets the tool list and returns scored hits; the supervisor builds
 * one index per exposed set, lazily, and drops it when the set changes.
 *
 * Query and tool text are cut into words (camelCase, snake_case and
 * kebab-case names too) and reduced by a light stemmer, so "entities" meets
 * "entity" and "relations" meets "relation". Each query word is scored on
 * its own against each tool: the best of an exact or stemmed word (1), a
 * prefix, infix, abbreviation or typo of it (fuse.js over the index's
 * vocabulary, rated by how much of the word matched), and the words tool
 * authors use for the same intent (`intents` below, `expansionWeight` of an
 * exact word). That is weighed by where the word was found (name, title,
 * description, server) and, gently, by how rare the word is among the tools,
 * so "read" beats "get" when both fit. A tool's score is the mean over the
 * query words, in 0..1; hits under `minimumScore` are noise and are dropped.
 */
import Fuse from 'fuse.js';

/** What the search reads of a tool: structurally an `ExposedTool`. */
export type SearchableTool = {
	/** `<server>__<tool>`: ties are ordered by it. */
	name: string;
	server: string;
	/** The upstream's own name for it. */
	tool: string;
	definition: {title?: string | undefined; description?: string | undefined; annotations?: Record<string, unknown> | undefined};
};

export type ToolSearchHit<T> = {
	tool: T;
	/** 0..1, higher is a better match; three decimals. */
	score: number;
};

/** Where a word was found counts this much (the best field wins). */
const fieldWeights = {tool: 1, title: 0.9, description: 0.7, server: 0.5} as const;

/** An intent word's expansion counts this much of the word itself. */
const expansionWeight = 0.6;

/** Hits scoring less matched only a stray prefix or typo of one word among several. */
export const minimumScore = 0.15;

/** fuse.js's cut-off: a near word may differ by this many errors per letter of the query word. */
const fuzzyThreshold = 0.3;

/** How much a word found in every tool is worth, against 1 for a word found in one (it only breaks near-ties). */
const commonWordFloor = 0.75;

/** Words too common to tell tools apart: never matched literally (but see `intents`). */
const stopWords: ReadonlySet<string> = new Set([
	'a', 'about', 'all', 'an', 'and', 'any', 'are', 'as', 'at', 'be', 'by', 'can', 'could', 'do', 'for', 'from', 'has', 'have', 'how', 'i', 'if', 'in', 'into', 'is',
	'it', 'its', 'like', 'me', 'my', 'need', 'of', 'on', 'or', 'our', 'please', 'should', 'so', 'some', 'something', 'that', 'the', 'their', 'them', 'then', 'there',
	'this', 'to', 'tool', 'tools', 'us', 'want', 'we', 'what', 'which', 'will', 'with', 'would', 'you', 'your',
]);

/**
 * Plain-language intent words (`say`) and the words tool authors use for
 * the same thing (`mean`). One direction only: "remember" finds
 * create/add tools, but "create" does not find every "store" tool. A stop
 * word listed in `say` ("all") is not matched literally but still expands,
 * because a quantifier says what is wanted, not which words a tool uses.
 * General vocabulary, not a table of queries: extend it with words many
 * tools share.
 */
const intents: ReadonlyArray<{say: readonly string[]; mean: readonly string[]}> = [
	// Keeping something for later.
	{say: ['remember', 'save', 'store', 'record', 'note', 'keep', 'memorize', 'persist', 'jot'], mean: ['create', 'add', 'write', 'save', 'store', 'insert']},
	// Making a new one.
	{say: ['make', 'new', 'create', 'add', 'insert', 'register'], mean: ['create', 'add', 'new', 'insert']},
	// Getting rid of one.
	{say: ['forget', 'remove', 'erase', 'drop', 'discard', 'clear', 'delete', 'purge', 'destroy', 'wipe', 'unlink'], mean: ['delete', 'remove', 'clear', 'erase', 'drop']},
	// Connecting two things.
	{say: ['link', 'connect', 'relate', 'associate', 'join', 'relationship'], mean: ['relation', 'relationship', 'link', 'connect']},
	// Looking at what is there.
	{say: ['list', 'show', 'display', 'view', 'print', 'enumerate', 'dump', 'browse', 'see'], mean: ['read', 'list', 'get', 'show', 'display']},
	// Fetching one thing.
	{say: ['fetch', 'retrieve', 'load', 'obtain', 'download'], mean: ['get', 'fetch', 'read', 'load', 'download']},
	// The whole of something.
	{say: ['all', 'every', 'everything', 'entire', 'whole', 'full'], mean: ['all', 'entire', 'whole', 'every', 'full']},
	// Looking for something.
	{say: ['find', 'lookup', 'look', 'locate', 'search', 'query', 'seek', 'discover'], mean: ['search', 'query', 'find', 'lookup']},
	// Changing something.
	{say: ['change', 'update', 'edit', 'modify', 'alter', 'rename'], mean: ['update', 'edit', 'modify', 'set', 'change']},
	// Starting work.
	{say: ['run', 'execute', 'start', 'launch', 'trigger', 'invoke', 'kick'], mean: ['run', 'execute', 'start', 'trigger', 'invoke']},
	// Making it smaller.
	{say: ['compress', 'zip', 'archive', 'pack', 'shrink'], mean: ['compress', 'zip', 'gzip', 'archive']},
	// Who.
	{say: ['people', 'person', 'user', 'contact', 'someone', 'somebody', 'human', 'individual', 'customer'], mean: ['entity', 'person', 'people', 'user', 'contact']},
	// What.
	{say: ['thing', 'item', 'object', 'entity'], mean: ['entity', 'node', 'item', 'object']},
	// What is known about it.
	{say: ['fact', 'information', 'info', 'detail', 'note', 'attribute', 'property'], mean: ['observation', 'fact', 'note', 'detail', 'info', 'attribute']},
	// Words.
	{say: ['text', 'string', 'message', 'words'], mean: ['text', 'string', 'message']},
];

/**
 * Light suffix stripping, the same for query and tool words: plurals and
 * verb endings (-s, -es, -ies, -ing, -ed) and a final e ("create",
 * "created", "creating" all become "creat"). Not a linguistic stemmer; it
 * only has to be consistent and rarely merge unrelated words, so stems stay
 * at least four letters ("note" and "noted" do not become "not").
 */
export function stem(word: string): string {
	let base = word;
	if (base.length > 4 && (base.endsWith('ies') || base.endsWith('ied'))) return `${base.slice(0, -3)}y`;
	if (base.length > 4 && /(?:ch|sh|ss|x|z)es$/.test(base)) base = base.slice(0, -2);
	else if (base.length > 3 && base.endsWith('s') && !/(?:ss|us|is)$/.test(base)) base = base.slice(0, -1);
	else if (base.length > 6 && base.endsWith('ing')) base = base.slice(0, -3);
	else if (base.length > 5 && base.endsWith('ed')) base = base.slice(0, -2);
	if (base.length > 4 && base.endsWith('e') && !base.endsWith('ee')) base = base.slice(0, -1);
	return base;
}

/** Distinct pairs of adjacent letters. */
function letterPairs(word: string): Set<string> {
	const pairs = new Set<string>();
	for (let index = 0; index + 1 < word.length; index++) pairs.add(word.slice(index, index + 2));
	return pairs;
}

/** Lower-case words of a text, split at camelCase humps and at anything not a letter or digit. */
function words(text: string): string[] {
	return text
		.replaceAll(/(\p{Ll}|\p{N})(\p{Lu})/gu, '$1 $2')
		.toLowerCase()
		.split(/[^\p{L}\p{N}]+/u)
		.filter(word => word.length > 0);
}

/** Intent word stem -> expansion stem -> weight. */
const expansions: ReadonlyMap<string, ReadonlyMap<string, number>> = (() => {
	const map = new Map<string, Map<string, number>>();
	for (const {say, mean} of intents) {
		for (const word of say) {
			const targets = map.get(stem(word)) ?? new Map<string, number>();
			for (const target of mean) targets.set(stem(target), expansionWeight);
			map.set(stem(word), targets);
		}
	}

	return map;
})();

/**
 * How close a query word is to a different tool word that fuse.js found
 * near it, 0..1: a prefix ("num" for "numbers") beats an infix ("zip" in
 * "gzip"), which beats a typo ("serch" for "search"); each is rated by how
 * much of the tool word the query word covers, so a short run inside a
 * long word counts little.
 */
function closeness(word: string, token: string, fuseScore: number): number {
	const coverage = Math.min(word.length, token.length) / Math.max(word.length, token.length);
	if (token.startsWith(word)) return 0.3 + 0.5 * coverage;
	if (token.includes(word)) return 0.5 * coverage ** 2;
	return Math.max(0, 1 - 2 * fuseScore) * 0.8 * coverage ** 2;
}

/** A search index over one tool list; build it once per list. */
export class ToolSearchIndex<T extends SearchableTool> {
	/** Stem -> tool position -> the weight of the best field it occurs in, times its rarity. */
	private readonly postings = new Map<string, Map<number, number>>();
	/** Every distinct tool word, as written: fuse.js finds prefixes, infixes and typos among them. */
	private readonly vocabulary: string[];
	private readonly known: ReadonlySet<string>;
	/** Letter pair -> positions in `vocabulary` of the words containing it, so fuse.js only rates words that can be near. */
	private readonly pairs = new Map<string, number[]>();

	constructor(private readonly tools: readonly T[]) {
		const surface = new Set<string>();
		tools.forEach((tool, position) => {
			const fields: Array<[string | undefined, number]> = [
				[tool.tool, fieldWeights.tool],
				[tool.definition.title ?? (typeof tool.definition.annotations?.['title'] === 'string' ? tool.definition.annotations['title'] : undefined), fieldWeights.title],
				[tool.definition.description, fieldWeights.description],
				[tool.server, fieldWeights.server],
			];
			for (const [text, weight] of fields) {
				for (const word of words(text ?? '')) {
					if (stopWords.has(word)) continue;
					surface.add(word);
					const key = stem(word);
					const found = this.postings.get(key) ?? new Map<number, number>();
					found.set(position, Math.max(found.get(position) ?? 0, weight));
					this.postings.set(key, found);
				}
			}
		});
		for (const found of this.postings.values()) {
			const rarity = 1 - (1 - commonWordFloor) * (found.size / tools.length);
			for (const [position, weight] of found) found.set(position, weight * rarity);
		}

		this.known = surface;
		this.vocabulary = [...surface];
		this.vocabulary.forEach((word, position) => {
			for (const pair of letterPairs(word)) {
				const holders = this.pairs.get(pair) ?? [];
				holders.push(position);
				this.pairs.set(pair, holders);
			}
		});
	}

	/** The best `limit` tools for `query`, best first, ties by name; none under `minimumScore`. */
	search(query: string, limit: number): Array<ToolSearchHit<T>> {
		const queryWords = [...new Set(words(query))].filter(word => !stopWords.has(word) || expansions.has(stem(word)));
		if (queryWords.length === 0) return [];
		const totals = new Map<number, number>();
		for (const word of queryWords) {
			const best = new Map<number, number>();
			for (const [key, weight] of this.candidates(word)) {
				for (const [position, fieldWeight] of this.postings.get(key) ?? []) {
					best.set(position, Math.max(best.get(position) ?? 0, weight * fieldWeight));
				}
			}

			for (const [position, score] of best) totals.set(position, (totals.get(position) ?? 0) + score);
		}

		return [...totals]
			.map(([position, total]) => ({tool: this.tools[position]!, score: Math.round((total / queryWords.length) * 1000) / 1000}))
			.filter(hit => hit.score >= minimumScore)
			.sort((a, b) => b.score - a.score || a.tool.name.localeCompare(b.tool.name))
			.slice(0, limit);
	}

	/** Tool word stems a query word stands for, each with how well (0..1). */
	private candidates(word: string): Map<string, number> {
		const found = new Map<string, number>();
		const offer = (key: string, weight: number) => {
			if (weight > (found.get(key) ?? 0)) found.set(key, weight);
		};

		const key = stem(word);
		if (!stopWords.has(word)) {
			offer(key, 1);
			if (word.length >= 3) {
				for (const [near, score] of this.nearWords(word)) offer(stem(near), closeness(word, near, score));
				// Abbreviations a tool uses for the query word ("env" for "environment"), which fuse.js does not find.
				for (let length = word.length - 1; length >= 3; length--) {
					const prefix = word.slice(0, length);
					if (this.known.has(prefix)) offer(stem(prefix), closeness(prefix, word, 0));
				}
			}
		}

		for (const [target, weight] of expansions.get(key) ?? []) offer(target, weight);
		return found;
	}

	/**
	 * Tool words fuse.js finds near a query word (containing it, or it with a
	 * typo), with fuse.js's score (0 is exact). fuse.js rates words one at a
	 * time, too slowly to rate thousands on every query, so it only sees the
	 * words that share enough letter pairs to be within its error budget:
	 * each error breaks at most two pairs (the q-gram lemma).
	 */
	private nearWords(word: string): Array<[string, number]> {
		const errors = Math.floor(word.length * fuzzyThreshold);
		const own = letterPairs(word);
		const needed = Math.max(1, own.size - 2 * errors);
		const shared = new Map<number, number>();
		for (const pair of own) {
			for (const position of this.pairs.get(pair) ?? []) shared.set(position, (shared.get(position) ?? 0) + 1);
		}

		const near: string[] = [];
		for (const [position, count] of shared) {
			const candidate = this.vocabulary[position]!;
			if (count >= needed && candidate.length >= word.length - errors) near.push(candidate);
		}

		if (near.length === 0) return [];
		const fuse = new Fuse(near, {includeScore: true, threshold: fuzzyThreshold, ignoreLocation: true, isCaseSensitive: true});
		return fuse.search(word).map(hit => [hit.item, hit.score ?? 1]);
	}
}
