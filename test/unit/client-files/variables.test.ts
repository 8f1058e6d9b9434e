import {describe, expect, it} from 'vitest';
import {inputVariable} from '../../../source/client-files/variables.js';

describe('client variables', () => {
	it('turns VS Code input ids into variable names', () => {
		expect(inputVariable('perplexity-key')).toBe('PERPLEXITY_KEY');
		expect(inputVariable('db.url')).toBe('DB_URL');
		expect(inputVariable('1st')).toBe('INPUT_1ST');
	});
});
