import {maxNestingDepth, NestingTooDeepError} from './nesting.js';
import {isRawJson} from './exact-json.js';

/**
 * JSON with object keys sorted, so equal values serialize equally whatever their key order.
 * A value nested deeper than `maxNestingDepth` throws NestingTooDeepError (not a stack overflow).
 */
export function canonicalJson(value: unknown, depth = 0): string {
	if (depth > maxNestingDepth) throw new NestingTooDeepError('the value');
	// A number kept as its text (base/exact-json.ts) as JSON.parse reads it: a tool pinned before numbers were kept hashes the same.
	if (isRawJson(value)) return JSON.stringify(Number(value.rawJSON));
	if (Array.isArray(value)) return `[${value.map(item => canonicalJson(item, depth + 1)).join(',')}]`;
	if (typeof value === 'object' && value !== null) {
		const entries = Object.entries(value as Record<string, unknown>)
			.filter(([, item]) => item !== undefined)
			.sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
		return `{${entries.map(([key, item]) => `${JSON.stringify(key)}:${canonicalJson(item, depth + 1)}`).join(',')}}`;
	}

	return JSON.stringify(value) ?? 'null';
}
