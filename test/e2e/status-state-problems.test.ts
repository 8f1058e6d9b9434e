/**
 * `status` with a damaged state file: the problem is said on one line of
 * its own, whatever the file holds. A JSON parse error quotes the file
 * (Node's message carries a piece of it), newlines and escapes included:
 * written raw, that split the line and let the file's bytes reach the
 * terminal.
 */
import fs from 'node:fs';
import path from 'node:path';
import {describe, expect, it} from 'vitest';
import {everything, runCli, tempDir, writeConfig} from '../support/hangar.js';

describe('status with a damaged state file', () => {
	it('says the problem on one line, the file\'s newlines and escapes shown escaped', async () => {
		const dir = tempDir();
		const config = writeConfig(dir, {ev: everything()});
		const stateDir = path.join(dir, 'state');
		fs.mkdirSync(stateDir, {recursive: true});
		fs.writeFileSync(path.join(stateDir, 'quarantine.json'), '{"version":1,\n"x": oops\n\u001b[31mred\n');

		const run = await runCli(['status', '--config', config, '--state-dir', stateDir]);
		const stateLines = run.stderr.split('\n').filter(line => line.includes('quarantine.json'));
		expect(stateLines, run.stderr).toHaveLength(1);
		expect(stateLines[0]).toMatch(/^State: .*quarantine\.json is unreadable \(.*\\x0a"x": oops\\x0a\\x1b\[31m/);
		expect(run.stderr).not.toContain('\u001b');
		expect(run.stderr.split('\n').some(line => line.startsWith('"x": oops'))).toBe(false);
	});
});
