import {describe, expect, it} from 'vitest';
import {ToolFilter} from '../../../../source/core/engine/routing/tool-filter.js';

describe('ToolFilter', () => {
	it('serves everything when neither list is set', () => {
		const filter = new ToolFilter(undefined, undefined);
		expect(filter.active).toBe(false);
		expect(filter.ruleFor('anything')).toBeUndefined();
	});

	it('matches globs whole: "*" any run of characters, "?" one, everything else literally', () => {
		const filter = new ToolFilter(undefined, ['delete_*', 'drop?', 'a.b']);
		expect(filter.ruleFor('delete_all')).toBe('excludeTools "delete_*"');
		expect(filter.ruleFor('undelete_all')).toBeUndefined();
		expect(filter.ruleFor('drops')).toBe('excludeTools "drop?"');
		expect(filter.ruleFor('drop')).toBeUndefined();
		expect(filter.ruleFor('a.b')).toBe('excludeTools "a.b"');
		expect(filter.ruleFor('axb')).toBeUndefined();
	});

	it('serves only what an include list matches, and lets exclude win over include', () => {
		const filter = new ToolFilter(['read_*', 'search'], ['read_secrets']);
		expect(filter.ruleFor('read_file')).toBeUndefined();
		expect(filter.ruleFor('search')).toBeUndefined();
		expect(filter.ruleFor('write_file')).toBe('includeTools ["read_*","search"] (it matches none of them)');
		expect(filter.ruleFor('read_secrets')).toBe('excludeTools "read_secrets"');
	});
});
