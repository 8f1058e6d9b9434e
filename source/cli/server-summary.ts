/**
 * One line about a server entry for the CLI's reports: its command line or
 * URL, and the names (never the values) of its env variables and headers.
 * Arguments that look like secrets (`--api-key X`, `--token=X`, or a value
 * that is also in env or headers) are masked, since people paste these
 * reports into issues.
 */
import os from 'node:os';
import path from 'node:path';
import type {HangarEntry} from '../client-files/client-model.js';
import {shellWord} from '../core/base/shell-words.js';

const secretFlag = /(?:pass(?:word|wd)?|secret|token|api[-_]?key|auth|credential|private[-_]?key|key)$/i;
const mask = '***';

function maskedArgs(args: readonly string[], secrets: readonly string[]): string[] {
	return args.map((arg, index) => {
		const previous = args[index - 1];
		const inline = /^(--?[A-Za-z][\w-]*)=(.+)$/.exec(arg);
		if (inline !== null && secretFlag.test(inline[1]!)) return `${inline[1]}=***`;
		if (previous !== undefined && /^--?[A-Za-z][\w-]*$/.test(previous) && secretFlag.test(previous)) return mask;
		let out = arg;
		for (const secret of secrets) if (secret.length >= 4) out = out.replaceAll(secret, mask);
		return out;
	});
}

/** The command line as a shell would need it quoted, with masked arguments left readable. */
function displayedCommand(command: string, args: readonly string[]): string {
	return [command, ...args].map(word => (word === mask ? word : shellWord(word))).join(' ');
}

export function summarizeEntry(entry: HangarEntry): string {
	const secrets = [...Object.values(entry.env ?? {}), ...Object.values(entry.headers ?? {})];
	const parts = [entry.url ?? displayedCommand(entry.command ?? '', maskedArgs(entry.args ?? [], secrets))];
	if (entry.type !== undefined) parts.push(`(${entry.type})`);
	if (entry.env !== undefined && Object.keys(entry.env).length > 0) parts.push(`env: ${Object.keys(entry.env).join(', ')}`);
	if (entry.envFile !== undefined) parts.push(`envFile: ${displayPath(entry.envFile)}`);
	if (entry.headers !== undefined && Object.keys(entry.headers).length > 0) parts.push(`headers: ${Object.keys(entry.headers).join(', ')}`);
	if (entry.disabled === true) parts.push('[disabled]');
	return parts.join('  ');
}

/** A path with the home directory shown as ~. */
export function displayPath(file: string): string {
	const home = os.homedir();
	return file === home || file.startsWith(home + path.sep) ? `~${file.slice(home.length)}` : file;
}
