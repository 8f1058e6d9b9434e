import {spawn, type ChildProcess} from 'node:child_process';
import {once} from 'node:events';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import {afterEach, describe, expect, it} from 'vitest';
import {listSupervisors, otherSupervisors, registerAndWatch, registerSupervisor, registryRoot} from '../../../../source/core/engine/supervisor-registry.js';
import {processStartTime} from '../../../../source/core/engine/state-lock.js';

const children: ChildProcess[] = [];
const dirs: string[] = [];

afterEach(() => {
	for (const child of children.splice(0)) child.kill('SIGKILL');
	for (const dir of dirs.splice(0)) fs.rmSync(dir, {recursive: true, force: true});
});

function tempRoot(): {root: string; config: string} {
	const root = fs.mkdtempSync(path.join(os.tmpdir(), 'hangar-registry-'));
	dirs.push(root);
	const config = path.join(root, 'config.json');
	fs.writeFileSync(config, '{"mcpServers": {}}');
	return {root, config};
}

/** A live process that is not this one. */
function sleeper(): number {
	const child = spawn(process.execPath, ['-e', 'setInterval(() => {}, 1000)'], {stdio: 'ignore'});
	children.push(child);
	return child.pid!;
}

/** The one config's directory of entries under `root` (each test has its own root and config). */
function entriesDir(root: string): string {
	const top = path.join(registryRoot(root), 'supervisors');
	return path.join(top, fs.readdirSync(top)[0]!);
}

/** Writes an entry as another supervisor would, next to this process's own. */
function writeEntry(dir: string, pid: number, fields: Record<string, unknown>): string {
	const file = path.join(dir, `${pid}.json`);
	fs.writeFileSync(file, JSON.stringify({pid, kind: 'serve', startedAt: new Date().toISOString(), ...fields}));
	return file;
}

describe('the supervisor registry', () => {
	it('lists a live supervisor of the same config in another state dir, and not one in the same state dir', () => {
		const {root, config} = tempRoot();
		const registration = registerSupervisor({config, stateDir: path.join(root, 'a'), kind: 'serve'}, {root})!;
		const dir = entriesDir(root);
		const pid = sleeper();
		writeEntry(dir, pid, {config, stateDir: path.join(root, 'b'), holder: {pid, startTime: processStartTime(pid)}});
		expect(otherSupervisors(config, path.join(root, 'a'), {root}).map(entry => [entry.pid, entry.stateDir])).toEqual([[pid, path.join(root, 'b')]]);
		expect(otherSupervisors(config, path.join(root, 'b'), {root})).toEqual([]);
		// Through a symlink to the config, the same config.
		const link = path.join(root, 'link.json');
		fs.symlinkSync(config, link);
		expect(listSupervisors(link, {root}).map(entry => entry.pid)).toEqual([pid]);
		registration.close();
		expect(fs.existsSync(path.join(dir, `${process.pid}.json`))).toBe(false);
	});

	it('ignores and removes entries of dead processes, reused pids and unreadable files', async () => {
		const {root, config} = tempRoot();
		const registration = registerSupervisor({config, stateDir: path.join(root, 'a'), kind: 'tui'}, {root})!;
		const dir = entriesDir(root);

		const gone = spawn(process.execPath, ['-e', ''], {stdio: 'ignore'});
		const gonePid = gone.pid!;
		await once(gone, 'exit');
		const dead = writeEntry(dir, gonePid, {config, stateDir: path.join(root, 'b'), holder: {pid: gonePid}});

		const reusedPid = sleeper();
		// The pid lives, but it started at another time: another process got the pid.
		const reused = writeEntry(dir, reusedPid, {config, stateDir: path.join(root, 'c'), holder: {pid: reusedPid, startTime: '1'}});
		const junk = path.join(dir, '99999999.json');
		fs.writeFileSync(junk, '{"pid": ');
		const livePid = sleeper();
		const live = writeEntry(dir, livePid, {config, stateDir: path.join(root, 'd'), holder: {pid: livePid, startTime: processStartTime(livePid)}});

		expect(listSupervisors(config, {root}).map(entry => entry.pid)).toEqual([livePid]);
		expect([dead, reused, junk].map(file => fs.existsSync(file))).toEqual([false, false, false]);
		expect(fs.existsSync(live)).toBe(true);
		registration.close();
	});

	it('sweeps the stale entries of other configs when registering, and leaves no empty directory behind', async () => {
		const {root, config} = tempRoot();
		const other = path.join(root, 'other.json');
		fs.writeFileSync(other, '{}');
		registerSupervisor({config: other, stateDir: path.join(root, 'a'), kind: 'serve'}, {root})!.close();
		const top = path.join(registryRoot(root), 'supervisors');
		expect(fs.readdirSync(top)).toEqual([]);
		// A supervisor of `other` killed with SIGKILL: its entry stays until someone sweeps.
		fs.mkdirSync(path.join(top, 'deadbeef'));
		const gone = spawn(process.execPath, ['-e', ''], {stdio: 'ignore'});
		await once(gone, 'exit');
		writeEntry(path.join(top, 'deadbeef'), gone.pid!, {config: other, stateDir: path.join(root, 'b'), holder: {pid: gone.pid!}});
		const registration = registerSupervisor({config, stateDir: path.join(root, 'a'), kind: 'serve'}, {root})!;
		expect(fs.readdirSync(top)).toHaveLength(1);
		expect(fs.existsSync(path.join(top, 'deadbeef'))).toBe(false);
		registration.close();
		expect(fs.readdirSync(top)).toEqual([]);
	});

	it('refuses a per-user directory that is a symlink or open to others: no registration, nothing listed', () => {
		const {root, config} = tempRoot();
		const elsewhere = fs.mkdtempSync(path.join(os.tmpdir(), 'hangar-elsewhere-'));
		dirs.push(elsewhere);
		fs.symlinkSync(elsewhere, registryRoot(root));
		expect(registerSupervisor({config, stateDir: path.join(root, 'a'), kind: 'serve'}, {root})).toBeUndefined();
		expect(listSupervisors(config, {root})).toEqual([]);
		expect(fs.readdirSync(elsewhere)).toEqual([]);

		const {root: open, config: openConfig} = tempRoot();
		fs.mkdirSync(registryRoot(open), {mode: 0o777});
		fs.chmodSync(registryRoot(open), 0o777);
		expect(registerSupervisor({config: openConfig, stateDir: path.join(open, 'a'), kind: 'serve'}, {root: open})).toBeDefined();
		expect(fs.statSync(registryRoot(open)).mode & 0o777).toBe(0o700);
	});

	it('warns in the log when another appears, and says when it is gone', async () => {
		const {root, config} = tempRoot();
		const lines: string[] = [];
		const logger = {warn: (line: string) => lines.push(`warn ${line}`), info: (line: string) => lines.push(`info ${line}`)};
		const watch = registerAndWatch({config, stateDir: path.join(root, 'a'), kind: 'serve'}, logger, {root, intervalMs: 20});
		try {
			const dir = entriesDir(root);
			const child = spawn(process.execPath, ['-e', 'setInterval(() => {}, 1000)'], {stdio: 'ignore'});
			children.push(child);
			const pid = child.pid!;
			writeEntry(dir, pid, {kind: 'stdio', config, stateDir: path.join(root, 'b'), holder: {pid, startTime: processStartTime(pid)}});
			await expect.poll(() => lines.filter(line => line.startsWith('warn ')), {timeout: 5000}).toEqual([
				expect.stringContaining(`warn another supervisor (pid ${pid}, mcp-hangar --stdio, state dir ${path.join(root, 'b')}) runs this config`),
			]);
			expect(lines[0]).toContain(`stop it by closing the client that launched it (or \`kill ${pid}\`)`);
			child.kill('SIGKILL');
			await once(child, 'exit');
			await expect.poll(() => lines.at(-1), {timeout: 5000}).toBe(`info the other supervisor of this config (pid ${pid}, state dir ${path.join(root, 'b')}) is gone`);
			// Warned once, not at every check.
			expect(lines.filter(line => line.startsWith('warn '))).toHaveLength(1);
		} finally {
			watch.close();
		}
	});
});
