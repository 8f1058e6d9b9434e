/**
 * A series of numbers as a line of block characters (▁▂▃▄▅▆▇█), the
 * picture that answers "is it getting worse?" and "since when?" sooner than
 * a number. Buckets are merged to fit the width (counts added, latencies by
 * their maximum), the newest at the right. A bucket with no data is a space;
 * a zero is the lowest block, and any value above zero at least the second,
 * so one failure among none does not vanish.
 */

const blocks = ['▁', '▂', '▃', '▄', '▅', '▆', '▇', '█'] as const;

export type Merge = 'sum' | 'max';

/** `values` merged into at most `width` buckets, the newest kept whole at the right. */
export function mergeBuckets(values: ReadonlyArray<number | null>, width: number, merge: Merge): Array<number | null> {
	if (width <= 0) return [];
	if (values.length <= width) return [...values];
	const per = Math.ceil(values.length / width);
	const out: Array<number | null> = [];
	// Groups are counted from the newest end, so the last group is always a full, current one.
	for (let end = values.length; end > 0 && out.length < width; end -= per) {
		let merged: number | null = null;
		for (let index = Math.max(0, end - per); index < end; index++) {
			const value = values[index] ?? null;
			if (value === null) continue;
			merged = merged === null ? value : merge === 'sum' ? merged + value : Math.max(merged, value);
		}

		out.unshift(merged);
	}

	return out;
}

/** The series as `width` characters at most (the scale: 0 to `max`, default the largest value). */
export function sparkline(values: ReadonlyArray<number | null>, width: number, merge: Merge, max?: number): string {
	const merged = mergeBuckets(values, width, merge);
	const top = max ?? Math.max(0, ...merged.map(value => value ?? 0));
	return merged
		.map(value => {
			if (value === null) return ' ';
			if (value <= 0 || top <= 0) return blocks[0];
			const level = Math.ceil((value / top) * (blocks.length - 1));
			return blocks[Math.min(blocks.length - 1, Math.max(1, level))];
		})
		.join('');
}
