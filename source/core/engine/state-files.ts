/**
 * How the state store writes its files: owner only (600), synced before an
 * atomic rename, so a crash or power loss leaves the old file or the new
 * one, never a cut-off one; asynchronously through lowdb's adapter, or at
 * once for a person's action (see state-store.ts).
 */
import fs from 'node:fs';
import {chmod, open, rename} from 'node:fs/promises';
import path from 'node:path';
import type {Adapter} from 'lowdb';

/** Owner only: read and write for the user who runs hangar. */
const privateMode = 0o600;

/**
 * lowdb's JSON file adapter, written the same way (a temp file, then an
 * atomic rename; the store queues writes one after another), except that
 * the file is created 600 and synced before the rename, so a crash or power
 * loss leaves the old file or the new one, not a cut-off one. Those two are
 * why it exists: lowdb's `JSONFile` writes through steno, whose
 * `writeFile(temp, data, 'utf-8')` takes the umask's mode (measured: 644
 * under the usual umask 022) and does not sync, and lowdb has no option for
 * either. Everything else is lowdb's as its authors intend it:
 * `new Low(adapter, defaults)`, `read()`, change `data`, `write()`.
 */
export class PrivateJsonFile<T> implements Adapter<T> {
	constructor(private readonly file: string) {}

	async read(): Promise<T | null> {
		const text = readText(this.file);
		return text === undefined ? null : (JSON.parse(text) as T);
	}

	async write(data: T): Promise<void> {
		const temp = path.join(path.dirname(this.file), `.${path.basename(this.file)}.tmp`);
		const handle = await open(temp, 'w', privateMode);
		try {
			await handle.writeFile(JSON.stringify(data, null, 2), 'utf8');
			await handle.sync();
		} finally {
			await handle.close();
		}

		// A temp file left by an older hangar keeps its mode when it is written again.
		await chmod(temp, privateMode);
		await rename(temp, this.file);
	}
}

/**
 * The same write, synchronous: for a person's action, saved before hangar
 * says it is done without a turn of the event loop in between. Its own temp
 * file, so it never meets an async write's half-written one.
 */
export function writeNow(file: string, data: unknown): void {
	const temp = path.join(path.dirname(file), `.${path.basename(file)}.now.tmp`);
	const fd = fs.openSync(temp, 'w', privateMode);
	try {
		fs.writeFileSync(fd, JSON.stringify(data, null, 2), 'utf8');
		fs.fsyncSync(fd);
	} finally {
		fs.closeSync(fd);
	}

	fs.chmodSync(temp, privateMode);
	fs.renameSync(temp, file);
}

/** A file's text; undefined when it does not exist. */
export function readText(file: string): string | undefined {
	try {
		return fs.readFileSync(file, 'utf8');
	} catch (error) {
		if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
		throw error;
	}
}

/** Makes an existing file owner-only (one an older hangar wrote 644); a missing one is fine. */
export function makePrivate(file: string): void {
	try {
		if ((fs.statSync(file).mode & 0o077) !== 0) fs.chmodSync(file, privateMode);
	} catch {}
}

