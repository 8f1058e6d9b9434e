/**
 * Why a subprocess upstream cannot run at all, told apart: its working
 * directory is missing, its command is not on PATH, the file is not
 * executable, or its `#!` line names an interpreter that is not there. The
 * operating system answers all of these with a bare ENOENT or EACCES (or,
 * through `/usr/bin/env`, an exit code 127), which says nothing a person can
 * act on; this module looks at the file system the way `execvp` does and
 * says which it is, with the PATH it searched.
 *
 * These problems are permanent: retrying cannot fix them, only an edit of
 * the config or of the machine can. The upstream asks for a diagnosis only
 * after a start failed with the process gone, so a check that is wrong can
 * never keep a working command from starting.
 */
import fs from 'node:fs';
import path from 'node:path';
import type {StdioLaunch} from '../config/read-config.js';
import {describeSpawnCode, launchRefusal} from './launch-refusal.js';

export type LaunchProblemKind = 'missing-cwd' | 'command-not-found' | 'not-executable' | 'bad-interpreter' | 'unspawnable';

export type LaunchProblem = {
	kind: LaunchProblemKind;
	/** What is wrong, as a sentence fragment naming the file or directory. */
	message: string;
	/** What to change. */
	hint: string;
};

/**
 * The spawn of a subprocess failed before it ran (the child's `error` event):
 * the system's code, e.g. ENOENT, said in words (launch-refusal.ts): a
 * resource that ran out (EMFILE at the open-file limit, EAGAIN, ENOMEM), or
 * a launch the system cannot carry out (ENOTDIR, E2BIG, a NUL byte), or
 * `detail` when the caller knows more.
 */
export class SpawnError extends Error {
	constructor(
		readonly command: string,
		readonly code: string,
		detail?: string,
	) {
		super(`cannot spawn "${command}": ${detail ?? describeSpawnCode(code).text}`);
		this.name = 'SpawnError';
	}
}

function statOf(file: string): fs.Stats | undefined {
	try {
		return fs.statSync(file);
	} catch {
		return undefined;
	}
}

function isExecutable(file: string): boolean {
	try {
		fs.accessSync(file, fs.constants.X_OK);
		return true;
	} catch {
		return false;
	}
}

/** The PATH the child gets: its own `env` wins over the environment hangar runs in (as `spawnUpstream` builds it). */
function searchPath(launch: StdioLaunch): string[] {
	const value = launch.env['PATH'] ?? process.env['PATH'] ?? '';
	return value.split(path.delimiter).map(dir => (dir === '' ? launch.cwd : path.resolve(launch.cwd, dir)));
}

type Found = {file: string} | {nonExecutable: string} | {searched: string[]};

/** Finds `command` as execvp would: a name with a slash is a path (from cwd), else the first executable file on PATH. */
function findCommand(command: string, launch: StdioLaunch): Found {
	if (command.includes('/')) {
		const file = path.resolve(launch.cwd, command);
		return statOf(file) === undefined ? {searched: []} : {file};
	}

	const dirs = searchPath(launch);
	let nonExecutable: string | undefined;
	for (const dir of dirs) {
		const file = path.join(dir, command);
		if (statOf(file)?.isFile() !== true) continue;
		if (isExecutable(file)) return {file};
		nonExecutable ??= file;
	}

	return nonExecutable === undefined ? {searched: dirs} : {nonExecutable};
}

const notFoundHint = 'Check the spelling of "command" in its config entry, give the absolute path of the program, or add its directory to PATH (in the entry\'s "env", or in the environment hangar starts in).';

function notExecutable(file: string, why: string): LaunchProblem {
	return {
		kind: 'not-executable',
		message: `"${file}" ${why}`,
		hint: `Make it executable (chmod +x "${file}"), or run it through its interpreter ("command": "node", "args": ["${file}"] for a script).`,
	};
}

/** The first line of `file` when it starts with `#!`, without the `#!`. */
function shebangOf(file: string): string | undefined {
	let fd: number | undefined;
	try {
		fd = fs.openSync(file, 'r');
		const buffer = Buffer.alloc(256);
		const read = fs.readSync(fd, buffer, 0, buffer.length, 0);
		const head = buffer.subarray(0, read).toString('latin1');
		if (!head.startsWith('#!')) return undefined;
		const end = head.indexOf('\n');
		return head.slice(2, end === -1 ? undefined : end);
	} catch {
		return undefined;
	} finally {
		if (fd !== undefined) fs.closeSync(fd);
	}
}

function checkInterpreter(file: string, launch: StdioLaunch): LaunchProblem | undefined {
	const line = shebangOf(file);
	if (line === undefined) return undefined;
	const hint = `Fix the first line of "${file}", install the interpreter it names, or run the script through an interpreter that exists ("command": "node", "args": ["${file}"] for a Node script).`;
	if (line.endsWith('\r')) {
		return {kind: 'bad-interpreter', message: `"${file}" has Windows line endings: its first line "#!${line.trim()}" ends in a carriage return, so the system looks for an interpreter whose name ends in one`, hint: `Convert "${file}" to Unix line endings (e.g. dos2unix), or run it through its interpreter.`};
	}

	const [interpreter, ...rest] = line.trim().split(/\s+/);
	if (interpreter === undefined || interpreter === '') return {kind: 'bad-interpreter', message: `"${file}" starts with an empty "#!" line`, hint};
	const stat = statOf(interpreter);
	if (stat === undefined || !stat.isFile() || !isExecutable(interpreter)) {
		return {kind: 'bad-interpreter', message: `"${file}" starts with "#!${line.trim()}", but "${interpreter}" ${stat === undefined ? 'does not exist' : 'is not an executable file'}`, hint};
	}

	// `#!/usr/bin/env node`: env looks the program up on PATH and exits 127 when it is not there.
	if (path.basename(interpreter) === 'env') {
		const program = rest.find(word => !word.startsWith('-'));
		if (program !== undefined && !program.includes('=')) {
			const found = findCommand(program, launch);
			if ('searched' in found) {
				return {
					kind: 'bad-interpreter',
					message: `"${file}" starts with "#!${line.trim()}", but "${program}" was not found on PATH (searched: ${found.searched.join(path.delimiter) || 'nothing: PATH is empty'})`,
					hint: `Install ${program} or add its directory to PATH (in the entry's "env", or in the environment hangar starts in), or run the script through an interpreter that exists.`,
				};
			}
		}
	}

	return undefined;
}

/**
 * Why `launch` cannot be started, or undefined when nothing here explains
 * it (then the failure is the program's own: its exit, its stderr). POSIX
 * only: Windows resolves commands differently (PATHEXT, no `#!`), and there
 * only the working directory is checked.
 */
export function diagnoseLaunch(launch: StdioLaunch): LaunchProblem | undefined {
	const refusal = launchRefusal(launch);
	if (refusal !== undefined) return {kind: 'unspawnable', message: refusal.message, hint: refusal.hint};
	const cwd = statOf(launch.cwd);
	if (cwd === undefined) {
		return {kind: 'missing-cwd', message: `its working directory "${launch.cwd}" (the entry's "cwd") does not exist`, hint: 'Create that directory, or fix "cwd" in its config entry (a relative "cwd" is read from the config file\'s directory).'};
	}

	if (!cwd.isDirectory()) {
		return {kind: 'missing-cwd', message: `its working directory "${launch.cwd}" (the entry's "cwd") is not a directory`, hint: 'Fix "cwd" in its config entry (a relative "cwd" is read from the config file\'s directory).'};
	}

	if (process.platform === 'win32') return undefined;
	const found = findCommand(launch.command, launch);
	if ('searched' in found) {
		if (launch.command.includes('/')) {
			return {kind: 'command-not-found', message: `command "${launch.command}" does not exist (looked for ${path.resolve(launch.cwd, launch.command)})`, hint: notFoundHint};
		}

		const searched = found.searched.join(path.delimiter);
		return {kind: 'command-not-found', message: `command "${launch.command}" was not found on PATH (searched: ${searched === '' ? 'nothing: PATH is empty' : searched})`, hint: notFoundHint};
	}

	if ('nonExecutable' in found) return notExecutable(found.nonExecutable, 'is the only match on PATH, and it is not executable');
	const stat = statOf(found.file);
	if (stat?.isDirectory() === true) {
		return {kind: 'not-executable', message: `"${found.file}" is a directory, not a program`, hint: `Give the path of the program to run (a file, perhaps one inside "${found.file}") as "command" in its config entry.`};
	}
	if (!isExecutable(found.file)) return notExecutable(found.file, 'is not executable');
	return checkInterpreter(found.file, launch);
}

/**
 * Why a spawn that failed with `code` cannot succeed by itself, or undefined
 * when a retry may fix it: what the file system shows (above), else the
 * code's own meaning when it is one no retry changes (ENOTDIR, E2BIG, EINVAL…).
 */
export function diagnoseSpawnFailure(launch: StdioLaunch, code: string | undefined): LaunchProblem | undefined {
	const found = diagnoseLaunch(launch);
	if (found !== undefined || code === undefined) return found;
	const permanent = describeSpawnCode(code).permanent;
	return permanent === undefined ? undefined : {kind: 'unspawnable', message: `cannot spawn "${launch.command}": ${code}: ${permanent.message}`, hint: permanent.hint};
}
