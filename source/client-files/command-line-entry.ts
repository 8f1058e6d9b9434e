/**
 * A whole command line in `command` with no `args` (`"command": "npx -y
 * @modelcontextprotocol/server-memory"`), as people paste it from a
 * server's README: no client starts a program of that name, and neither
 * would hangar. Import splits it as a POSIX shell splits words (quotes and
 * backslashes honoured, nothing expanded) into the program and its
 * arguments, with a note. A command that names an existing file (a path
 * with spaces in it) is left alone.
 */
import fs from 'node:fs';
import type {HangarEntry} from './client-model.js';

/** The words of `line` as a POSIX shell splits them, or undefined when a quote is left open. */
export function shellSplit(line: string): string[] | undefined {
	const words: string[] = [];
	let word: string | undefined;
	let quote: '"' | "'" | undefined;
	for (let index = 0; index < line.length; index++) {
		const char = line[index]!;
		if (quote === "'") {
			if (char === "'") quote = undefined;
			else word += char;
		} else if (char === '\\' && index + 1 < line.length && (quote === undefined || '"\\$`'.includes(line[index + 1]!))) {
			word = (word ?? '') + line[++index]!;
		} else if (quote === '"') {
			if (char === '"') quote = undefined;
			else word += char;
		} else if (char === '"' || char === "'") {
			quote = char;
			word ??= '';
		} else if (/\s/.test(char)) {
			if (word !== undefined) words.push(word);
			word = undefined;
		} else {
			word = (word ?? '') + char;
		}
	}

	if (quote !== undefined) return undefined;
	if (word !== undefined) words.push(word);
	return words;
}

/** Splits a command line written whole in `command` into command and args, in place; notes what changed. */
export function fromCommandLine(entry: HangarEntry, notes: string[], exists: (file: string) => boolean = fs.existsSync): void {
	const {command} = entry;
	if (command === undefined || (entry.args ?? []).length > 0 || !/\s/.test(command.trim()) || exists(command)) return;
	const words = shellSplit(command.trim());
	if (words === undefined || words.length < 2) return;
	entry.command = words[0]!;
	entry.args = words.slice(1);
	notes.push(`"command" held a whole command line: written as command ${JSON.stringify(entry.command)} with args ${JSON.stringify(entry.args)}`);
}
