/**
 * `status` with a damaged state file: the problem is said on one line of
 * its own, whatever the file holds. A JSON parse error quotes the file
 * (Node's message carries a piece of it), newlines and escapes included:
 * written raw, that split the line and let the file's bytes reach the
 * terminal.
 */
import fs from 'node:fs';
import path from 'node:path';
import {afterEach, describe, expect, it} from 'vitest';
import {everything, fastHangar, fixture, runCli, tempDir, writeConfig} from '../support/hangar.js';
import {startDaemon, stopDaemons} from '../support/serve.js';

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

describe('status while the state dir cannot be written', () => {
	afterEach(async () => {
		await stopDaemons();
	});

	it('says which file fails, the error, since when and what to do, in text and JSON, until a write succeeds', async () => {
		const dir = tempDir();
		const config = writeConfig(dir, {fx: fixture('normal')}, fastHangar);
		const stateDir = path.join(dir, 'state');
		await startDaemon(config);
		// A directory where state.json goes: every write of it fails, root or not.
		fs.rmSync(path.join(stateDir, 'state.json'), {force: true});
		fs.mkdirSync(path.join(stateDir, 'state.json', 'x'), {recursive: true});
		// quarantine.json holds a quarantine across restarts: saved there, it is saved, and the failure is said.
		const quarantine = await runCli(['quarantine', 'fx', '--config', config]);
		expect(quarantine.code, quarantine.stderr).toBe(0);
		expect(quarantine.stdout).toMatch(/saved in .*quarantine\.json; .*state\.json could not be written/);
		const json = JSON.parse((await runCli(['status', '--json', '--config', config])).stdout) as {state: {writeFailures: Array<{file: string; error: string; since: string; advice: string}>}};
		expect(json.state.writeFailures).toEqual([expect.objectContaining({file: path.join(stateDir, 'state.json'), advice: expect.stringContaining('move it away') as string})]);
		const text = await runCli(['status', '--config', config]);
		expect(text.stderr + text.stdout).toMatch(/State: cannot write .*state\.json since \d{4}-.*: .*move it away/);
		fs.rmSync(path.join(stateDir, 'state.json'), {recursive: true});
		expect((await runCli(['approve', 'fx', '--config', config])).code).toBe(0);
		const after = JSON.parse((await runCli(['status', '--json', '--config', config])).stdout) as {state: {writeFailures: unknown[]}};
		expect(after.state.writeFailures).toEqual([]);
	});
});
