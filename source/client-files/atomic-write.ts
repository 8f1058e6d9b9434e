/**
 * Writes a file so that a reader (a client starting, a hangar reloading)
 * sees the old content or the new, never half of it: a temp file in the same
 * directory, then a rename over the original. The file keeps its mode, and a
 * symlinked file is written where the link points, so the link survives.
 */
import {randomBytes} from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import {makeDirectory} from '../core/base/make-directory.js';

/** The file a path names, following symlinks (the path itself when it does not exist yet). */
function target(file: string): string {
	try {
		return fs.realpathSync(file);
	} catch {
		return path.resolve(file);
	}
}

/**
 * Writes `content` to `file` atomically. A new file gets `newFileMode`
 * (default 0600: config files hold secrets); an existing one keeps its mode.
 */
export function writeFileAtomic(file: string, content: string | Uint8Array, newFileMode = 0o600): void {
	const destination = target(file);
	let mode = newFileMode;
	try {
		mode = fs.statSync(destination).mode & 0o7777;
	} catch {
		makeDirectory(path.dirname(destination));
	}

	const temporary = path.join(path.dirname(destination), `.${path.basename(destination)}.${randomBytes(6).toString('hex')}.tmp`);
	try {
		fs.writeFileSync(temporary, content, {mode, flag: 'wx'});
		// The umask may have narrowed the mode given to open().
		fs.chmodSync(temporary, mode);
		fs.renameSync(temporary, destination);
	} catch (error) {
		fs.rmSync(temporary, {force: true});
		throw error;
	}
}
