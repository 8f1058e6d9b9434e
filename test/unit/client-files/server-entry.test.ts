import {describe, expect, it} from 'vitest';
import {parseDotenv} from '../../../source/client-files/server-entry.js';

describe('envFile', () => {
	it('reads dotenv files', () => {
		expect(parseDotenv('# c\nA=1\nexport B="two words"\nC=\'lit\\n\'\nD=x # note\nnot a line\n')).toEqual({A: '1', B: 'two words', C: 'lit\\n', D: 'x'});
	});
});
