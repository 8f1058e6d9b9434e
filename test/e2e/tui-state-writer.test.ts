/**
 * The TUI's header tells the truth about who writes the state dir: while
 * another live process holds `state.lock`, it says quarantine and approve
 * are refused; once that process is gone and this hangar took the dir over,
 * the notice goes and a quarantine is saved. The real `mcp-hangar tui` in
 * tmux, a lock naming a live process (its pid, start time and command line).
 * Build first (npm test does).
 */
import {spawn, type ChildProcess} from 'node:child_process';
import {randomUUID} from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import {afterEach, describe, expect, it} from 'vitest';
import {cliPath, fastHangar, fixture, processesWithTag, tempDir, waitFor, writeConfig} from '../support/hangar.js';
import {TmuxSession} from '../support/tmux.js';

const sessions: TmuxSession[] = [];
const holders: ChildProcess[] = [];

afterEach(() => {
	for (const session of sessions.splice(0)) session.kill();
	for (const holder of holders.splice(0)) holder.kill('SIGKILL');
});

/** Field 22 of /proc/PID/stat, as state.lock records it. */
const startTime = (pid: number): string => {
	const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
	return stat.slice(stat.lastIndexOf(')') + 2).split(' ')[19]!;
};

describe('the TUI on a state dir another process writes', () => {
	it('says quarantine and approve are refused while the writer lives, and stops saying it once it took the dir over', async () => {
		const dir = tempDir('hangar-tui-writer-');
		const stateDir = path.join(dir, 'state');
		const config = writeConfig(dir, {fx: fixture('normal', [], {lazy: false})}, fastHangar);
		fs.mkdirSync(stateDir, {recursive: true, mode: 0o700});
		// A live process that state.lock names whole: as another hangar that still stops its upstreams.
		const holder = spawn('sleep', ['120'], {stdio: 'ignore'});
		holders.push(holder);
		await waitFor(() => fs.readFileSync(`/proc/${holder.pid}/cmdline`, 'utf8').startsWith('sleep'), 'sleep to exec');
		const bootId = fs.readFileSync('/proc/sys/kernel/random/boot_id', 'utf8').trim();
		const cmdline = fs.readFileSync(`/proc/${holder.pid}/cmdline`, 'utf8').replaceAll('\0', ' ').trimEnd();
		fs.writeFileSync(path.join(stateDir, 'state.lock'), JSON.stringify({pid: holder.pid, startTime: startTime(holder.pid!), cmdline, bootId}));

		const tag = randomUUID();
		const tui = new TmuxSession();
		sessions.push(tui);
		tui.start([process.execPath, cliPath, 'tui', '--config', config], {env: {HANGAR_TEST_TAG: tag, CI: 'true'}, columns: 180, rows: 30});
		await tui.waitForScreen(`state dir held by hangar pid ${holder.pid}`);
		await tui.waitForScreen(/fx\s+ready/, 'fx ready');

		holder.kill('SIGKILL');
		// The takeover is checked every second; the header follows it.
		await tui.waitForScreen(screen => !screen.includes('state dir held by') && /fx\s+ready/.test(screen), 'the notice to go after the takeover', 15_000);
		expect(fs.readFileSync(path.join(stateDir, 'state.lock'), 'utf8')).not.toContain(`"pid":${holder.pid}`);

		// And what it no longer warns about works: a quarantine is saved.
		tui.keys('u');
		await tui.waitForScreen('Quarantine "fx"?');
		tui.keys('y');
		await tui.waitForScreen(/✓ quarantined "fx"/, 'the quarantine acknowledged');
		await waitFor(() => fs.readFileSync(path.join(stateDir, 'quarantine.json'), 'utf8').includes('"fx"'), 'the quarantine saved');

		tui.keys('q');
		await tui.waitForExit();
		await waitFor(() => processesWithTag(tag).length === 0, 'no process left', 10_000);
	}, 60_000);
});
