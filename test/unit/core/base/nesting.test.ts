/**
 * What an upstream or a client sends can be nested arbitrarily deep
 * (JSON.parse takes a million levels). Hangar's own walks over such a value
 * (masking an error's data, the call log's preview, a tool's pin) stop at
 * `maxNestingDepth` instead of overflowing the stack.
 */
import {describe, expect, it} from 'vitest';
import {canonicalJson} from '../../../../source/core/base/canonical-json.js';
import {maxNestingDepth, nestedTooDeep, NestingTooDeepError} from '../../../../source/core/base/nesting.js';
import {maskSecrets, maskStrings} from '../../../../source/core/base/secret-mask.js';
import {maskedPreview} from '../../../../source/core/engine/call-log.js';
import {pinTools} from '../../../../source/core/engine/upstream/pins.js';

/** `[[[…1…]]]` nested `levels` deep, parsed as hangar parses a line. */
function nestedArrays(levels: number): unknown {
	return JSON.parse(`${'['.repeat(levels)}1${']'.repeat(levels)}`);
}

function nestedObjects(levels: number): unknown {
	return JSON.parse(`${'{"a":'.repeat(levels)}1${'}'.repeat(levels)}`);
}

/** How many levels of arrays `value` keeps before something else. */
function depthOf(value: unknown): number {
	let depth = 0;
	for (let item = value; Array.isArray(item); item = item[0] as unknown) depth++;
	return depth;
}

describe('a value nested 100,000 levels deep', () => {
	const deep = nestedArrays(100_000);

	it('is masked (maskSecrets, maskStrings) down to maxNestingDepth levels, the rest replaced by a note', () => {
		for (const masked of [maskSecrets(deep), maskStrings(deep), maskSecrets(nestedObjects(100_000))]) {
			expect(() => JSON.stringify(masked)).not.toThrow();
			expect(JSON.stringify(masked)).toContain(JSON.stringify(nestedTooDeep));
		}

		expect(depthOf(maskStrings(deep))).toBe(maxNestingDepth + 1);
	});

	it('leaves a value within the bound whole', () => {
		const within = nestedArrays(maxNestingDepth);
		expect(maskStrings(within)).toEqual(within);
		expect(maskSecrets(within)).toEqual(within);
	});

	it('is previewed for the call log, cut with a note', () => {
		for (const value of [deep, {args: nestedObjects(100_000)}]) {
			const preview = maskedPreview(value, 100_000);
			expect(preview).toContain(JSON.stringify(nestedTooDeep));
		}
	});

	it('is refused by a pin with the tool it is in named, not with a stack overflow', () => {
		expect(() => canonicalJson(deep)).toThrow(NestingTooDeepError);
		expect(() => pinTools([{name: 'deep', description: 'd', inputSchema: {type: 'object', properties: nestedObjects(100_000)} as never}])).toThrow(
			/tool list cannot be pinned: the input schema of tool "deep" is nested deeper than 512 levels/,
		);
		expect(canonicalJson(nestedArrays(maxNestingDepth - 1))).toBe(JSON.stringify(nestedArrays(maxNestingDepth - 1)));
	});
});
