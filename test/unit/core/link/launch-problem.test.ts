import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import {describe, expect, it} from 'vitest';
import type {StdioLaunch} from '../../../../source/core/config/read-config.js';
import {diagnoseLaunch, diagnoseSpawnFailure, SpawnError} from '../../../../source/core/link/launch-problem.js';

const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'hangar-launch-'));
const launch = (command: string, extra: Partial<StdioLaunch> = {}): StdioLaunch => ({kind: 'stdio', command, args: [], env: {}, cwd: dir, ...extra});
const script = (name: string, text: string, mode: number) => {
	const file = path.join(dir, name);
	fs.writeFileSync(file, text, {mode});
	return file;
};

describe('diagnoseLaunch', () => {
	it('finds nothing wrong with a program on PATH', () => {
		expect(diagnoseLaunch(launch('node'))).toBeUndefined();
		expect(diagnoseLaunch(launch(process.execPath))).toBeUndefined();
	});

	it('names a command not on PATH, with the PATH searched (the entry\'s own PATH first)', () => {
		expect(diagnoseLaunch(launch('npxx', {env: {PATH: '/a:/b'}}))).toMatchObject({kind: 'command-not-found', message: 'command "npxx" was not found on PATH (searched: /a:/b)'});
		expect(diagnoseLaunch(launch('./missing.js'))).toMatchObject({kind: 'command-not-found', message: `command "./missing.js" does not exist (looked for ${path.join(dir, 'missing.js')})`});
	});

	it('tells a file that is not executable, and a directory, apart', () => {
		const file = script('plain.sh', '#!/bin/sh\n', 0o644);
		expect(diagnoseLaunch(launch(file))).toMatchObject({kind: 'not-executable', message: `"${file}" is not executable`});
		expect(diagnoseLaunch(launch(os.tmpdir()))).toMatchObject({kind: 'not-executable', message: `"${os.tmpdir()}" is a directory, not a program`});
		// A directory is not made a program by chmod +x: the hint says to name the program instead.
		expect(diagnoseLaunch(launch(os.tmpdir()))?.hint).not.toContain('chmod');
		expect(diagnoseLaunch(launch(os.tmpdir()))?.hint).toContain('Give the path of the program to run');
	});

	it('names a missing #! interpreter, one env cannot find, and Windows line endings', () => {
		const missing = script('missing-interp', '#!/opt/nothing/bin/python9\n', 0o755);
		expect(diagnoseLaunch(launch(missing))).toMatchObject({kind: 'bad-interpreter', message: `"${missing}" starts with "#!/opt/nothing/bin/python9", but "/opt/nothing/bin/python9" does not exist`});
		const viaEnv = script('via-env', '#!/usr/bin/env -S no-such-runtime --flag\n', 0o755);
		expect(diagnoseLaunch(launch(viaEnv))?.message).toMatch(/but "no-such-runtime" was not found on PATH/);
		const crlf = script('crlf', '#!/usr/bin/env node\r\nconsole.log(1)\r\n', 0o755);
		expect(diagnoseLaunch(launch(crlf))?.message).toMatch(/has Windows line endings/);
	});

	it('names a missing working directory before anything else', () => {
		expect(diagnoseLaunch(launch('npxx', {cwd: path.join(dir, 'nope')}))).toMatchObject({kind: 'missing-cwd', message: `its working directory "${path.join(dir, 'nope')}" (the entry's "cwd") does not exist`});
	});
});

describe('launches no system can carry out', () => {
	it('names a NUL byte in the command, an argument, the cwd or an env name or value, with what to change', () => {
		expect(diagnoseLaunch(launch('no\u0000de'))).toMatchObject({kind: 'unspawnable', message: 'its "command" holds a NUL byte, which no process can be given'});
		expect(diagnoseLaunch(launch('node', {args: ['a', 'b\u0000']}))?.message).toBe('its "args"[1] holds a NUL byte, which no process can be given');
		expect(diagnoseLaunch(launch('node', {cwd: `${dir}\u0000`}))?.message).toBe('its working directory ("cwd") holds a NUL byte, which no process can be given');
		expect(diagnoseLaunch(launch('node', {env: {'A\u0000': '1'}}))?.message).toContain('the name of its env variable');
		const value = diagnoseLaunch(launch('node', {env: {A: 'x\u0000y'}}));
		expect(value).toMatchObject({kind: 'unspawnable', message: 'its env value A holds a NUL byte, which no process environment can carry'});
		expect(value?.hint).toBe('Remove the NUL byte (\\u0000) from the value of A in "env" in its config entry.');
	});

	it.runIf(process.platform === 'linux')('names an argument or env variable past the kernel\'s limit for one string', () => {
		expect(diagnoseLaunch(launch('node', {env: {BIG: 'x'.repeat(200_000)}}))?.message).toBe('its env variable BIG is 200005 bytes, more than the 131072 the system allows one variable');
		expect(diagnoseLaunch(launch('node', {args: ['x'.repeat(140_000)]}))?.message).toBe('its "args"[0] is 140001 bytes, more than the 131072 the system allows one argument');
		expect(diagnoseLaunch(launch('node', {env: {OK: 'x'.repeat(100_000)}}))).toBeUndefined();
	});

	it('tells a spawn error no retry fixes (ENOTDIR, E2BIG, EINVAL) from hangar\'s shortage and unknown codes', () => {
		expect(diagnoseSpawnFailure(launch('node'), 'ENOTDIR')).toMatchObject({kind: 'unspawnable', message: 'cannot spawn "node": ENOTDIR: a part of the path of its "command" or of its "cwd" is a file, not a directory'});
		expect(diagnoseSpawnFailure(launch('node'), 'E2BIG')?.kind).toBe('unspawnable');
		expect(diagnoseSpawnFailure(launch('node'), 'EINVAL')?.kind).toBe('unspawnable');
		for (const transient of ['EMFILE', 'ENFILE', 'EAGAIN', 'ENOMEM', 'ESOMETHING']) expect(diagnoseSpawnFailure(launch('node'), transient)).toBeUndefined();
		// What the file system shows comes first.
		expect(diagnoseSpawnFailure(launch('npxx', {env: {PATH: '/a'}}), 'ENOENT')?.kind).toBe('command-not-found');
		expect(new SpawnError('node', 'E2BIG').message).toBe('cannot spawn "node": E2BIG: its arguments and environment are larger than the system allows a program. Pass large data in a file instead, or shorten "args" and "env".');
		expect(new SpawnError('node', 'EMFILE').message).toMatch(/^cannot spawn "node": EMFILE: hangar has as many files open as its limit allows/);
	});
});
