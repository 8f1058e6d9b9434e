/**
 * `fs.mkdirSync(dir, {recursive: true})` that says why it could not: Node's
 * recursive mkdir reports a directory it cannot create on a read-only file
 * system (or in one it may not write) as ENOENT, "no such file or
 * directory", which sends a person looking for a missing path. The first
 * missing directory, made on its own, gets the system's real answer
 * (EROFS, EACCES, ENOSPC, …), and that is what is thrown.
 */
import fs from 'node:fs';
import path from 'node:path';

export function makeDirectory(dir: string, mode?: number): void {
	try {
		fs.mkdirSync(dir, {recursive: true, mode});
	} catch (error) {
		if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
		let missing = path.resolve(dir);
		while (path.dirname(missing) !== missing && !fs.existsSync(path.dirname(missing))) missing = path.dirname(missing);
		// Throws the real reason; if it succeeds (the cause went away meanwhile), the rest is made as asked.
		fs.mkdirSync(missing, {mode});
		fs.mkdirSync(dir, {recursive: true, mode});
	}
}
