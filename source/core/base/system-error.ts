/**
 * What a command prints when the system refused it a file: a full disk, a
 * read-only or unwritable directory, no file descriptor left. That is the
 * person's machine, not a bug in hangar: said as one sentence with what to
 * do, never a stack trace. (An error that is hangar's own bug keeps its
 * stack, for the report.)
 */
import {describeShortage} from './resource-limits.js';

const remedies: Record<string, string> = {
	ENOSPC: 'free space on that disk',
	EDQUOT: 'free space within the disk quota',
	EROFS: 'the file system is mounted read-only: use a writable place (--config, --state-dir) or remount it',
	EACCES: 'check the permissions of that file and its directory',
	EPERM: 'check the permissions of that file and its directory',
	ENOENT: 'check that the directory exists and can be written',
	ENOTDIR: 'a part of that path is a file, not a directory',
	EISDIR: 'that path is a directory, not a file',
};

/** The sentence for `error` when it is a system error of a file or resource (it has an errno code and a syscall); undefined otherwise. */
export function systemErrorSentence(error: unknown, command: string | undefined): string | undefined {
	if (!(error instanceof Error)) return undefined;
	const {code, syscall} = error as NodeJS.ErrnoException;
	if (typeof code !== 'string' || !/^E[A-Z0-9]+$/.test(code) || typeof syscall !== 'string') return undefined;
	const remedy = remedies[code] ?? describeShortage(code) ?? 'fix that';
	const what = command === undefined ? 'the command' : command;
	return `${what} failed: ${error.message.replace(/[.\s]+$/, '')}. It stopped there; ${remedy}, then run it again.`;
}
