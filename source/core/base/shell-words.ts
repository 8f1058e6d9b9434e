/**
 * Commands shown to a person, written so that pasting them into a POSIX
 * shell runs exactly them: a word with anything a shell would read
 * otherwise is single-quoted.
 */

export function shellWord(word: string): string {
	return /^[\w@%+=:,./-]+$/.test(word) ? word : `'${word.replaceAll("'", String.raw`'\''`)}'`;
}

export function commandLine(command: string, args: readonly string[]): string {
	return [command, ...args].map(word => shellWord(word)).join(' ');
}
