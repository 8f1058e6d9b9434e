import {execFileSync} from 'node:child_process';
import {describe, expect, it} from 'vitest';
import {commandHelps, generalHelpText} from '../../../source/cli/help.js';

/** The words a POSIX shell passes to mcp-hangar for an example line, with none of its variables set. */
function shellWords(example: string): string[] {
	const out = execFileSync('sh', ['-c', `set -- ${example.replace(/^mcp-hangar /, '')}; printf '%s\\0' "$@"`], {env: {PATH: process.env['PATH'] ?? '/usr/bin:/bin'}, encoding: 'utf8'});
	return out.split('\0').slice(0, -1);
}

describe('the help', () => {
	it('quotes every ${VAR} of an example so a shell passes it to hangar as written, not expanded to nothing', () => {
		const examples = commandHelps.flatMap(help => help.examples).filter(example => /\$\{[A-Z_]+\}/.test(example));
		expect(examples.length).toBeGreaterThan(0);
		for (const example of examples) {
			const variables = example.match(/\$\{[A-Z_]+\}/g)!;
			const words = shellWords(example).join(' ');
			for (const variable of variables) expect(words, example).toContain(variable);
		}
	});

	it('shows in the overview the arguments each command takes, not only its bare form', () => {
		expect(generalHelpText()).toContain('$ mcp-hangar import [CLIENT|all|FILE] [--dry-run] [--config PATH]');
	});
});
