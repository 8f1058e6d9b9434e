import {describe, expect, it} from 'vitest';
import {freeServerName, isValidServerName, validServerName} from '../../../source/client-files/server-name.js';

describe('server names from other clients', () => {
	it('makes names valid the way a person would', () => {
		expect(validServerName('github.com/modelcontextprotocol/servers/tree/main/src/github')).toBe('github');
		expect(validServerName('@scope/pkg')).toBe('pkg');
		expect(validServerName('My Database')).toBe('My-Database');
		expect(validServerName('brave.search')).toBe('brave-search');
		expect(validServerName('a__b_')).toBe('a_b');
		expect(validServerName('-x-')).toBe('x');
		expect(validServerName('!!!')).toBe('server');
		expect(validServerName('x'.repeat(40))).toBe('x'.repeat(32));
		for (const name of ['github.com/a/b', 'My Database', 'a__b_', '___', 'é']) expect(isValidServerName(validServerName(name)), name).toBe(true);
		expect(freeServerName('a', name => name === 'a' || name === 'a-2')).toBe('a-3');
		expect(freeServerName('x'.repeat(32), name => name === 'x'.repeat(32))).toBe(`${'x'.repeat(30)}-2`);
	});
});
