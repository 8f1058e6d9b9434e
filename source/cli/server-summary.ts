/**
 * One line about a server entry for the CLI's reports: its command line or
 * URL, and the names (never the values) of its env variables and headers.
 * Secrets in the command line or URL are masked as everywhere else hangar
 * shows a launch (secret-mask.ts: `--api-key X`, `--token=X`, URL
 * userinfo `postgresql://***@host`, `?api_key=***`), and so is a value that
 * is also in env or headers, since people paste these reports into issues.
 */
import os from 'node:os';
import path from 'node:path';
import type {HangarEntry} from '../client-files/client-model.js';
import {mask, maskArgs, maskText} from '../core/base/secret-mask.js';
import {shellWord} from '../core/base/shell-words.js';

type Output = {out: (text: string) => void; err: (text: string) => void};

/** Flags whose value this report masks besides secret-mask's (`--license-key X`). */
const secretFlag = /(?:pass(?:word|wd)?|secret|token|api[-_]?key|auth|credential|private[-_]?key|key)$/i;

/** The arguments masked as the TUI and hangar_details show them, after a secret-looking flag, and any value that is also in env or headers. */
function maskedArgs(args: readonly string[], secrets: readonly string[]): string[] {
	return maskArgs(args).map((arg, index) => {
		const previous = args[index - 1];
		const inline = /^(--?[A-Za-z][\w-]*)=(.+)$/.exec(arg);
		if (inline !== null && secretFlag.test(inline[1]!)) return `${inline[1]}=${mask}`;
		if (previous !== undefined && /^--?[A-Za-z][\w-]*$/.test(previous) && secretFlag.test(previous)) return mask;
		let out = arg;
		for (const secret of secrets) if (secret.length >= 4) out = out.replaceAll(secret, mask);
		return out;
	});
}

/** A word quoted as a shell would need it; one with a mask in it left readable (it cannot be pasted anyway). */
function displayedWord(word: string): string {
	return word.includes(mask) && /^[\w@%+=:,./*-]+$/.test(word) ? word : shellWord(word);
}

export function summarizeEntry(entry: HangarEntry): string {
	const secrets = [...Object.values(entry.env ?? {}), ...Object.values(entry.headers ?? {})];
	const launch = entry.url === undefined ? [maskText(entry.command ?? ''), ...maskedArgs(entry.args ?? [], secrets)].map(word => displayedWord(word)).join(' ') : maskText(entry.url);
	const parts = [launch];
	if (entry.type !== undefined) parts.push(`(${entry.type})`);
	if (entry.env !== undefined && Object.keys(entry.env).length > 0) parts.push(`env: ${Object.keys(entry.env).join(', ')}`);
	if (entry.envFile !== undefined) parts.push(`envFile: ${displayPath(entry.envFile)}`);
	if (entry.headers !== undefined && Object.keys(entry.headers).length > 0) parts.push(`headers: ${Object.keys(entry.headers).join(', ')}`);
	if (entry.disabled === true) parts.push('[disabled]');
	return parts.join('  ');
}

/**
 * `io` with every secret a line holds masked (secret-mask.ts), as the TUI
 * and hangar's errors show them: an imported entry's notes and problems
 * quote what the client's file holds. The files written keep the values.
 */
export function maskedOutput(io: Output): Output {
	return {out: text => io.out(maskText(text)), err: text => io.err(maskText(text))};
}

/** A path with the home directory shown as ~. */
export function displayPath(file: string): string {
	const home = os.homedir();
	return file === home || file.startsWith(home + path.sep) ? `~${file.slice(home.length)}` : file;
}
