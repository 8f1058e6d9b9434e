/**
 * A command that writes a file on a full or read-only disk is refused with
 * one sentence (which command, what the system said, what to do) and no
 * stack trace, and the file it would have changed is as it was. Real
 * processes: the built CLI, on a tiny tmpfs in a mount namespace of its own.
 * Build first (npm test does).
 */
import {spawnSync} from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import {describe, expect, it} from 'vitest';
import {cliPath, tempDir} from '../support/hangar.js';

/** Runs the CLI with `args` inside `unshare -rm` (`input` on its stdin), after a 64 KiB tmpfs is mounted on `dir` with `config` in it and `prepare` ran. */
function onSmallDisk(dir: string, config: string, prepare: string, args: string[], input = ''): {code: number | null; stdout: string; stderr: string; after: string} {
	const script = `dir=$1; config=$2; node=$3; cli=$4; shift 4
mount -t tmpfs -o size=64k tmpfs "$dir" && printf '%s' "$config" > "$dir/config.json" && ${prepare} && "$node" "$cli" "$@"
code=$?; cat "$dir/config.json" > "$dir.after"; exit $code`;
	const run = spawnSync('unshare', ['-rm', 'sh', '-c', script, 'sh', dir, config, process.execPath, cliPath, ...args], {encoding: 'utf8', input});
	return {code: run.status, stdout: run.stdout, stderr: run.stderr, after: fs.readFileSync(`${dir}.after`, 'utf8')};
}

/** Whether this machine lets a process mount a tmpfs in a mount namespace of its own (root, or unprivileged user namespaces). */
function canMountTmpfs(): boolean {
	return spawnSync('unshare', ['-rm', 'sh', '-c', `mount -t tmpfs -o size=64k tmpfs "${tempDir()}"`]).status === 0;
}

describe('a command that cannot write its file', () => {
	const config = '{"mcpServers": {"a": {"command": "node", "args": ["x"]}}}\n';

	it.each([
		['a full disk', '(cat /dev/zero > "$dir/filler" 2>/dev/null; true)', 'ENOSPC: no space left on device', 'free space on that disk'],
		['a read-only file system', 'mount -o remount,ro "$dir"', 'EROFS: read-only file system', 'the file system is mounted read-only'],
	])('on %s, add and remove say so in a sentence and leave the config as it was', (_what, prepare, said, remedy) => {
		expect(canMountTmpfs(), 'unshare -rm cannot mount a tmpfs here (needs root or unprivileged user namespaces)').toBe(true);
		for (const args of [['add', 'b'], ['remove', 'a']]) {
			const dir = path.join(tempDir(), 'disk');
			fs.mkdirSync(dir);
			const file = path.join(dir, 'config.json');
			const run = onSmallDisk(dir, config, prepare, [...args, '--config', file, ...(args[0] === 'add' ? ['--', 'node', 'y'] : [])]);
			expect(run.code, run.stderr).toBe(1);
			expect(run.stderr).toMatch(new RegExp(`^mcp-hangar: ${args[0]} failed: ${said}.*It stopped there; ${remedy}.*, then run it again\\.\\n$`, 's'));
			expect(run.stderr, 'no stack trace').not.toMatch(/\n\s+at /);
			expect(run.after).toBe(config);
		}
	});

	it('--stdio --standalone on a read-only file system says so in a sentence on stderr, not a stack trace', () => {
		expect(canMountTmpfs(), 'unshare -rm cannot mount a tmpfs here (needs root or unprivileged user namespaces)').toBe(true);
		const dir = path.join(tempDir(), 'disk');
		fs.mkdirSync(dir);
		const run = onSmallDisk(dir, config, 'mount -o remount,ro "$dir"', ['--stdio', '--standalone', '--config', path.join(dir, 'config.json'), '--state-dir', path.join(dir, 'state')]);
		expect(run.code, run.stderr).toBe(1);
		// The system's own reason, not the ENOENT ("no such file or directory") Node's recursive mkdir reports for it.
		expect(run.stderr).toMatch(/^mcp-hangar: --stdio --standalone failed: EROFS: read-only file system, mkdir .*It stopped there; the file system is mounted read-only: .*, then run it again\.\n$/s);
		expect(run.stderr, 'no stack trace').not.toMatch(/\n\s+at /);
	});

	it('--stdio bridged to a supervisor on a read-only file system answers its client with the reason the system gave', () => {
		expect(canMountTmpfs(), 'unshare -rm cannot mount a tmpfs here (needs root or unprivileged user namespaces)').toBe(true);
		const dir = path.join(tempDir(), 'disk');
		fs.mkdirSync(dir);
		const initialize = JSON.stringify({jsonrpc: '2.0', id: 1, method: 'initialize', params: {protocolVersion: '2025-06-18', capabilities: {}, clientInfo: {name: 'c', version: '1'}}});
		const run = onSmallDisk(dir, config, 'mount -o remount,ro "$dir"', ['--stdio', '--config', path.join(dir, 'config.json'), '--state-dir', path.join(dir, 'state')], `${initialize}\n`);
		const answer = JSON.parse(run.stdout) as {id: number; error: {code: number; message: string}};
		expect(answer.id).toBe(1);
		expect(answer.error.code).toBe(-32_012);
		expect(answer.error.message).toMatch(/could not start: .*EROFS: read-only file system/);
		expect(run.stderr).toMatch(/EROFS: read-only file system/);
		expect(run.stderr + run.stdout).not.toMatch(/ENOENT/);
	});
});
