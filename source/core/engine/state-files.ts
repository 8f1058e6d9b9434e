/**
 * How the state store writes its files: owner only (600), synced before an
 * atomic rename, so a crash or power loss leaves the old file or the new
 * one, never a cut-off one; asynchronously through lowdb's adapter, or at
 * once for a person's action (see state-store.ts).
 */
import fs from 'node:fs';
import {chmod, open, rename, rm} from 'node:fs/promises';
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
		try {
			const handle = await open(temp, 'w', privateMode);
			try {
				for (const chunk of jsonChunks(data)) await handle.write(chunk, null, 'utf8');
				await handle.sync();
			} finally {
				await handle.close();
			}

			// A temp file left by an older hangar keeps its mode when it is written again.
			await chmod(temp, privateMode);
			await rename(temp, this.file);
		} catch (error) {
			// A full disk leaves a 0-byte or cut temp file: not left behind for the next write to meet.
			await rm(temp, {force: true}).catch(() => {});
			throw error;
		}
	}
}

/**
 * The same write, synchronous: for a person's action, saved before hangar
 * says it is done without a turn of the event loop in between. Its own temp
 * file, so it never meets an async write's half-written one.
 */
export function writeNow(file: string, data: unknown): void {
	const temp = path.join(path.dirname(file), `.${path.basename(file)}.now.tmp`);
	try {
		const fd = fs.openSync(temp, 'w', privateMode);
		try {
			for (const chunk of jsonChunks(data)) fs.writeFileSync(fd, chunk, 'utf8');
			fs.fsyncSync(fd);
		} finally {
			fs.closeSync(fd);
		}

		fs.chmodSync(temp, privateMode);
		fs.renameSync(temp, file);
	} catch (error) {
		try {
			fs.rmSync(temp, {force: true});
		} catch {}

		throw error;
	}
}

const isRecord = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value);

/**
 * `JSON.stringify(data, null, 2)` in pieces, one per upstream of a state
 * (`{"version":1,"upstreams":{...}}`): the file is never one string, so
 * its size is bounded by what each upstream may take (state-size.ts), not by
 * V8's longest string (what once made every write fail).
 */
export function* jsonChunks(data: unknown): Generator<string> {
	const upstreams = isRecord(data) ? data['upstreams'] : undefined;
	if (!isRecord(data) || !isRecord(upstreams) || Object.keys(upstreams).length === 0) {
		yield JSON.stringify(data, null, 2);
		return;
	}

	const {upstreams: _, ...rest} = data;
	const head = JSON.stringify(rest, null, 2);
	yield `${head.length > 2 ? `${head.slice(0, -2)},\n` : '{\n'}  "upstreams": {`;
	let first = true;
	for (const [name, record] of Object.entries(upstreams)) {
		if (record === undefined) continue;
		yield `${first ? '' : ','}\n    ${JSON.stringify(name)}: ${JSON.stringify(record, null, 2).replaceAll('\n', '\n    ')}`;
		first = false;
	}

	yield '\n  }\n}';
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

/** What to do about a write of the state dir that failed, for that error. */
export function saveAdvice(code: string | undefined, message: string): string {
	if (code === 'ENOSPC' || code === 'EDQUOT') return "free space on the state dir's disk (or raise the user's quota)";
	if (code === 'EACCES' || code === 'EPERM') return 'make the state dir and its files writable by the user hangar runs as';
	if (code === 'EROFS') return 'the state dir is on a read-only file system: start hangar with a writable --state-dir';
	if (code === 'EMFILE' || code === 'ENFILE') return 'hangar is out of file descriptors: raise its limit (ulimit -n) or close some of its clients';
	if (code === 'EISDIR' || code === 'ENOTDIR') return 'something other than a file is in the way of that file (a directory?): move it away';
	if (code === 'EIO') return "check the state dir's disk (an I/O error)";
	return `this is not a disk or permission problem (${message}): report it with hangar's log`;
}
