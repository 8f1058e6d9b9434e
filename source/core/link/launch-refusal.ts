/**
 * Launches no operating system can carry out, found before the spawn, and
 * what a spawn's error code means. A NUL byte cannot be part of a program's
 * path, an argument, its working directory or an environment variable (C
 * strings end there), so Node refuses it by throwing; one argument or
 * environment variable past Linux's limit for one string makes exec fail
 * with E2BIG. (Their total past ARG_MAX also does, but ARG_MAX follows the
 * stack limit, which hangar cannot read: that E2BIG is told by the spawn's
 * code, below, as permanent all the same.)
 * Both are the config's fault and permanent: said in words, naming what to
 * change, instead of an exception that would stop the supervisor.
 */
import type {StdioLaunch} from '../config/read-config.js';
import {describeShortage} from '../base/resource-limits.js';

/** Why a spawn cannot succeed as configured: the system's code, what is wrong, and what to change. */
export type Refusal = {code: string; message: string; hint: string};

/** Linux's MAX_ARG_STRLEN: the longest single argument or `NAME=value` exec takes (32 pages). */
const maxStringBytes = 32 * 4096;

const nulHint = (where: string) => `Remove the NUL byte (\\u0000) from ${where} in its config entry.`;

function nulIn(launch: StdioLaunch): Refusal | undefined {
	const problem = (message: string, where: string): Refusal => ({code: 'ERR_INVALID_ARG_VALUE', message: `${message}, which no process can be given`, hint: nulHint(where)});
	if (launch.command.includes('\0')) return problem('its "command" holds a NUL byte', '"command"');
	const arg = launch.args.findIndex(value => value.includes('\0'));
	if (arg !== -1) return problem(`its "args"[${arg}] holds a NUL byte`, `"args"[${arg}]`);
	if (launch.cwd.includes('\0')) return problem('its working directory ("cwd") holds a NUL byte', '"cwd"');
	for (const [name, value] of Object.entries(launch.env)) {
		if (name.includes('\0')) return problem(`the name of its env variable ${JSON.stringify(name)} holds a NUL byte`, 'that name in "env"');
		if (value.includes('\0')) return {code: 'ERR_INVALID_ARG_VALUE', message: `its env value ${name} holds a NUL byte, which no process environment can carry`, hint: nulHint(`the value of ${name} in "env"`)};
	}

	return undefined;
}

function tooLarge(launch: StdioLaunch): Refusal | undefined {
	const hint = 'Pass large data in a file instead (give the program its path), or shorten it.';
	for (const [index, arg] of [launch.command, ...launch.args].entries()) {
		const bytes = Buffer.byteLength(arg) + 1;
		if (process.platform === 'linux' && bytes > maxStringBytes) {
			const which = index === 0 ? 'its "command"' : `its "args"[${index - 1}]`;
			return {code: 'E2BIG', message: `${which} is ${bytes} bytes, more than the ${maxStringBytes} the system allows one argument`, hint};
		}
	}

	for (const [name, value] of Object.entries({...process.env, ...launch.env})) {
		if (value === undefined) continue;
		const bytes = Buffer.byteLength(name) + Buffer.byteLength(value) + 2;
		if (process.platform === 'linux' && bytes > maxStringBytes) {
			return {code: 'E2BIG', message: `its env variable ${name} is ${bytes} bytes, more than the ${maxStringBytes} the system allows one variable`, hint};
		}
	}

	return undefined;
}

/** Why the system cannot spawn `launch` as configured, found without spawning; undefined when nothing here stops it. */
export function launchRefusal(launch: StdioLaunch): Refusal | undefined {
	return nulIn(launch) ?? tooLarge(launch);
}

/** The spawn errors a retry cannot fix: what each means, and what to change. Those not here (ENOENT, EACCES) are diagnosed on the file system (launch-problem.ts). */
const permanentCodes: Record<string, {message: string; hint: string}> = {
	ENOTDIR: {message: 'a part of the path of its "command" or of its "cwd" is a file, not a directory', hint: 'Fix "command" or "cwd" in its config entry.'},
	E2BIG: {message: 'its arguments and environment are larger than the system allows a program', hint: 'Pass large data in a file instead, or shorten "args" and "env".'},
	EINVAL: {message: 'the system refused its launch as invalid', hint: 'Check "command", "args", "cwd" and "env" in its config entry.'},
	ENAMETOOLONG: {message: 'the path of its "command" or of its "cwd" is longer than the system allows', hint: 'Shorten that path in its config entry.'},
	ELOOP: {message: 'the path of its "command" or of its "cwd" goes round a loop of symbolic links', hint: 'Fix the links, or give the real path in its config entry.'},
	ENOEXEC: {message: 'its "command" is not a program the system can run', hint: 'Give a program, or run the file through its interpreter ("command": "node", "args": ["file"] for a script).'},
	EISDIR: {message: 'its "command" is a directory, not a program', hint: 'Give the path of the program inside it.'},
	ERR_INVALID_ARG_VALUE: {message: 'its command, arguments, "cwd" or "env" hold a NUL byte, which no process can be given', hint: 'Remove the NUL byte from its config entry.'},
};

/** A spawn error code said in words, with whether a retry may fix it (hangar's shortage, or a code hangar does not know). */
export function describeSpawnCode(code: string): {text: string; permanent?: {message: string; hint: string}} {
	const shortage = describeShortage(code);
	if (shortage !== undefined) return {text: shortage};
	const known = Object.hasOwn(permanentCodes, code) ? permanentCodes[code] : undefined;
	return known === undefined ? {text: code} : {text: `${code}: ${known.message}. ${known.hint}`, permanent: known};
}
