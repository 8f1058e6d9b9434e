import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import {describe, expect, it} from 'vitest';
import type {StdioLaunch} from '../../../../source/core/config/read-config.js';
import {diagnoseLaunch} from '../../../../source/core/link/launch-problem.js';

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
