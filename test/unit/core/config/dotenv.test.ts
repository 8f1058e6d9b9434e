import {describe, expect, it} from 'vitest';
import {parseDotenv} from '../../../../source/core/config/dotenv.js';

describe('envFile reading', () => {
	it('drops a comment after a quoted value, and the quotes with it', () => {
		expect(parseDotenv('A="v" # c\nB=\'two words\' # c\nC=`tick` # c')).toEqual({A: 'v', B: 'two words', C: 'tick'});
	});

	it('drops a comment after an unquoted value', () => {
		expect(parseDotenv('A=v # c\nB=v#c')).toEqual({A: 'v', B: 'v'});
	});

	it('reads a quoted value over several lines', () => {
		expect(parseDotenv('KEY="-----BEGIN-----\nabc\n-----END-----"\nNEXT=1')).toEqual({KEY: '-----BEGIN-----\nabc\n-----END-----', NEXT: '1'});
	});

	it('turns \\n into a line break in double quotes only', () => {
		expect(parseDotenv('A="a\\nb"\nB=\'a\\nb\'')).toEqual({A: 'a\nb', B: String.raw`a\nb`});
	});

	it('reads export prefixes, spaces around "=", CRLF line ends and empty values', () => {
		expect(parseDotenv('export A=1\r\n  B  =  spaced value  \r\nC=\r\n')).toEqual({A: '1', B: 'spaced value', C: ''});
	});

	it('skips comment lines and lines without "=", and lets the last of two equal keys win', () => {
		expect(parseDotenv('# comment\nJUSTWORD\nA=1\nA=2')).toEqual({A: '2'});
	});

	it('keeps the order in which the file names its variables', () => {
		expect(Object.keys(parseDotenv('Z=1\nexport A.B=2\nM="x\ny"\n  C = 3\nZ=4'))).toEqual(['Z', 'A.B', 'M', 'C']);
	});

	it('never sets "__proto__" on the result', () => {
		const out = parseDotenv('__proto__=x\nA=1');
		expect(Object.keys(out)).toEqual(['A']);
		expect(Object.getPrototypeOf(out)).toBe(Object.prototype);
	});
});
