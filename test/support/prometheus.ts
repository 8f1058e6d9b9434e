/**
 * Reads a Prometheus text exposition with a real parser
 * (parse-prometheus-text-format, prom2json's shape), so tests check what a
 * scraper would see rather than grepping lines.
 */
// @ts-expect-error: the package ships no types; its shape is declared below.
import parsePrometheusTextFormat from 'parse-prometheus-text-format';

export type Sample = {labels?: Record<string, string>; value?: string; buckets?: Record<string, string>; count?: string; sum?: string};
export type Family = {name: string; help: string; type: 'COUNTER' | 'GAUGE' | 'HISTOGRAM' | 'SUMMARY' | 'UNTYPED'; metrics: Sample[]};

export function parseMetrics(text: string): Map<string, Family> {
	const families = (parsePrometheusTextFormat as (text: string) => Family[])(text);
	return new Map(families.map(family => [family.name, family]));
}

/** The samples of `name` whose labels include `labels`. */
export function samples(families: Map<string, Family>, name: string, labels: Record<string, string> = {}): Sample[] {
	const family = families.get(name);
	if (family === undefined) return [];
	return family.metrics.filter(sample => Object.entries(labels).every(([key, value]) => sample.labels?.[key] === value));
}

/** The sum of the values of `name`'s samples whose labels include `labels`. */
export function total(families: Map<string, Family>, name: string, labels: Record<string, string> = {}): number {
	return samples(families, name, labels).reduce((sum, sample) => sum + Number(sample.value ?? sample.count ?? 0), 0);
}

/**
 * One series of histogram `name`: its buckets, count and sum. The parser
 * merges every label set of a histogram into one (it keeps only `le`), so
 * the series' lines are picked out of the text first, the chosen labels
 * taken off, and those lines parsed alone.
 */
export function histogram(text: string, name: string, labels: Record<string, string>): {buckets: Array<[number, number]>; count: number; sum: number} {
	const wanted = Object.entries(labels).map(([key, value]) => `${key}=${JSON.stringify(value)}`);
	const lines = text.split('\n').filter(line => {
		if (line.startsWith('#')) return line.startsWith(`# TYPE ${name} `) || line.startsWith(`# HELP ${name} `);
		return /^(\w+)/.exec(line)?.[1]?.startsWith(`${name}_`) === true && wanted.every(label => line.includes(label));
	});
	const stripped = lines.map(line => wanted.reduce((out, label) => out.replace(`,${label}`, '').replace(`${label},`, '').replace(`{${label}}`, ''), line));
	const [sample] = parseMetrics(`${stripped.join('\n')}\n`).get(name)?.metrics ?? [];
	if (sample?.buckets === undefined) throw new Error(`no series of ${name} with ${wanted.join(',')}`);
	return {
		buckets: Object.entries(sample.buckets).map(([le, count]) => [le === '+Inf' ? Number.POSITIVE_INFINITY : Number(le), Number(count)] as [number, number]).sort((a, b) => a[0] - b[0]),
		count: Number(sample.count),
		sum: Number(sample.sum),
	};
}
