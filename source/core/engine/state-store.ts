/**
 * What hangar remembers between runs, per upstream: the last tool list and
 * catalog (capabilities, resources, templates, prompts) and when each was verified, counters, the last exit, and the admin state a person
 * set (quarantine). Stored with lowdb as one JSON file in the state dir.
 *
 * - One writer: the first process to take `state.lock` writes; any other
 *   process (a second `--stdio` client on the same state dir) reads and keeps
 *   its changes in memory, and says so in its log.
 * - Writes are debounced and atomic (lowdb writes a temp file and renames).
 * - A corrupt or unreadable file is moved aside and reported, never a crash.
 *
 * - Every file it writes is created 600 (owner only), like the 700 state
 *   dir: it holds tool lists, stderr tails and quarantine reasons.
 *
 * `new Low(new PrivateJsonFile(...))` is used rather than `JSONFilePreset`,
 * which silently switches to memory when NODE_ENV is "test", and rather than
 * lowdb's JSONFile, whose temp file takes the umask's mode (often 644).
 */
import fs from 'node:fs';
import {chmod, readFile, rename, writeFile} from 'node:fs/promises';
import path from 'node:path';
import {Low, type Adapter} from 'lowdb';
import type {ToolDefinition} from '../config/read-config.js';
import type {Logger} from '../base/logger.js';
import {isAlive} from '../base/process-alive.js';
import type {PinRecord, PinnedTool, ToolChange} from './upstream/pins.js';
import type {PersistedCatalog} from './upstream/catalog.js';

export type PersistedExit = {code: number | null; signal: string | null; at: number; stderrTail: string[]};

export type PersistedUpstream = {
	tools?: ToolDefinition[] | undefined;
	toolsVerifiedAt?: number | undefined;
	/** Its capabilities, resources, templates and prompts as last read (see Catalog). */
	catalog?: PersistedCatalog | undefined;
	counters: {starts: number; crashes: number; calls: number; failures: number};
	lastExit?: PersistedExit | undefined;
	/**
	 * A person's quarantine (or one set by hangar: new upstream, changed pinned
	 * tool), with the diff for a rug pull and the whole tool list it served then
	 * (`seen`): what a person who approves the change pins.
	 */
	admin?: {state: 'quarantined'; at: number; reason: string; changes?: ToolChange[] | undefined; seen?: Record<string, PinnedTool> | undefined} | undefined;
	/** The pinned tools, taken at their first listing or by a person's approval (see pins.ts). */
	pins?: PinRecord | undefined;
	/** When this state dir first saw the upstream in a config. */
	firstSeenAt?: number | undefined;
};

export type PersistedState = {version: 1; upstreams: Record<string, PersistedUpstream>};

/** Owner only: read and write for the user who runs hangar. */
const privateMode = 0o600;

/**
 * lowdb's JSON file adapter, written the same way (a temp file, then an
 * atomic rename; the store queues writes one after another), except that
 * the file is created 600.
 */
class PrivateJsonFile<T> implements Adapter<T> {
	constructor(private readonly file: string) {}

	async read(): Promise<T | null> {
		let text: string;
		try {
			text = await readFile(this.file, 'utf8');
		} catch (error) {
			if ((error as NodeJS.ErrnoException).code === 'ENOENT') return null;
			throw error;
		}

		return JSON.parse(text) as T;
	}

	async write(data: T): Promise<void> {
		const temp = path.join(path.dirname(this.file), `.${path.basename(this.file)}.tmp`);
		await writeFile(temp, JSON.stringify(data, null, 2), {encoding: 'utf8', mode: privateMode});
		// A temp file left by an older hangar keeps its mode when it is written again.
		await chmod(temp, privateMode);
		await rename(temp, this.file);
	}
}

/** Makes an existing file owner-only (one an older hangar wrote 644); a missing one is fine. */
function makePrivate(file: string): void {
	try {
		if ((fs.statSync(file).mode & 0o077) !== 0) fs.chmodSync(file, privateMode);
	} catch {}
}

const emptyState = (): PersistedState => ({version: 1, upstreams: {}});

export function emptyUpstream(): PersistedUpstream {
	return {counters: {starts: 0, crashes: 0, calls: 0, failures: 0}};
}

/**
 * The upstreams the state file in `dir` holds quarantined, read without
 * opening the store (no lock, nothing written): what `--stdio` checks before
 * it spawns any upstream early. Undefined when the file cannot be read as a
 * state file: then nothing may be assumed about any upstream.
 */
export function quarantinedIn(dir: string): Set<string> | undefined {
	let text: string;
	try {
		text = fs.readFileSync(path.join(dir, 'state.json'), 'utf8');
	} catch (error) {
		return (error as NodeJS.ErrnoException).code === 'ENOENT' ? new Set() : undefined;
	}

	try {
		const state = JSON.parse(text) as Partial<PersistedState>;
		if (typeof state.upstreams !== 'object' || state.upstreams === null) return undefined;
		return new Set(Object.entries(state.upstreams).filter(([, upstream]) => upstream?.admin?.state === 'quarantined').map(([name]) => name));
	} catch {
		return undefined;
	}
}

export class StateStore {
	private db: Low<PersistedState> | undefined;
	private timer: NodeJS.Timeout | undefined;
	private dirty = false;
	private writing: Promise<void> = Promise.resolve();
	private lockHeld = false;
	private owner: number | undefined;
	/** Problems found while loading, for the log and for status. */
	readonly problems: string[] = [];

	private constructor(
		readonly dir: string,
		private readonly logger: Logger,
		private readonly debounceMs: number,
		private readonly readOnly: boolean,
	) {}

	get file(): string {
		return path.join(this.dir, 'state.json');
	}

	get isWriter(): boolean {
		return this.lockHeld;
	}

	/** The pid of the other hangar process that writes this state dir, when this one is not the writer. */
	get writerPid(): number | undefined {
		return this.owner;
	}

	/**
	 * `readOnly` (`mcp-hangar status`): read the state without taking the writer lock, so a hangar
	 * that starts meanwhile still becomes the writer; changes stay in memory.
	 */
	static async open(dir: string, logger: Logger, debounceMs = 250, options: {readOnly?: boolean} = {}): Promise<StateStore> {
		const store = new StateStore(dir, logger, debounceMs, options.readOnly ?? false);
		await store.load();
		return store;
	}

	get data(): PersistedState {
		return this.db?.data ?? emptyState();
	}

	/** Whether there is any record of this upstream (it is not new to this state dir). */
	has(name: string): boolean {
		return Object.hasOwn(this.data.upstreams, name);
	}

	upstream(name: string): PersistedUpstream {
		const data = this.data;
		data.upstreams[name] ??= emptyUpstream();
		return data.upstreams[name];
	}

	/**
	 * Changes one upstream's record. By default the file is rewritten soon
	 * (debounced); `lazily` only marks it dirty, for changes too frequent to
	 * deserve a write of their own (call counters on the hot path): they go out
	 * with the next scheduled write, or at flush/close.
	 */
	update(name: string, change: (upstream: PersistedUpstream) => void, lazily = false): void {
		change(this.upstream(name));
		this.dirty = true;
		if (!lazily) this.schedule();
	}

	/**
	 * Changes one upstream's record and writes the file at once, not
	 * debounced: for what a later run must find even if this one is killed a
	 * moment later (a tool list just learned, which a one-shot client's next
	 * run needs).
	 */
	updateNow(name: string, change: (upstream: PersistedUpstream) => void): void {
		change(this.upstream(name));
		this.dirty = true;
		if (this.timer !== undefined) {
			clearTimeout(this.timer);
			this.timer = undefined;
		}

		this.write();
	}

	/** Writes any pending change now. */
	async flush(): Promise<void> {
		if (this.timer !== undefined) {
			clearTimeout(this.timer);
			this.timer = undefined;
		}

		if (this.dirty) this.write();
		await this.writing;
	}

	async close(): Promise<void> {
		await this.flush();
		if (this.lockHeld) {
			try {
				fs.rmSync(this.lockFile);
			} catch {}

			this.lockHeld = false;
		}
	}

	private get lockFile(): string {
		return path.join(this.dir, 'state.lock');
	}

	private async load(): Promise<void> {
		fs.mkdirSync(this.dir, {recursive: true, mode: 0o700});
		this.lockHeld = this.readOnly ? false : this.takeLock();
		if (this.readOnly) {
			this.owner = this.liveOwner();
		} else if (!this.lockHeld) {
			this.logger.info('another hangar process writes this state dir; this one keeps its state changes in memory', {dir: this.dir});
		}

		if (this.lockHeld) makePrivate(this.file);
		const db = new Low<PersistedState>(new PrivateJsonFile<PersistedState>(this.file), emptyState());
		try {
			await db.read();
			if (!isPersistedState(db.data)) throw new Error('unexpected shape (expected {"version":1,"upstreams":{...}})');
		} catch (error) {
			const problem = `state file ${this.file} is unreadable (${(error as Error).message})`;
			db.data = emptyState();
			if (this.lockHeld) {
				const aside = `${this.file}.corrupt-${Date.now()}`;
				try {
					fs.renameSync(this.file, aside);
					this.problems.push(`${problem}; moved it to ${aside} and started with empty state`);
				} catch {
					this.problems.push(`${problem}; started with empty state`);
				}
			} else {
				this.problems.push(`${problem}; using empty state in memory`);
			}

			this.logger.warn(this.problems.at(-1)!);
		}

		this.db = db;
	}

	/** The pid in state.lock when it is another live process, else undefined. */
	private liveOwner(): number | undefined {
		let owner: number;
		try {
			owner = Number.parseInt(fs.readFileSync(this.lockFile, 'utf8'), 10);
		} catch {
			return undefined;
		}

		return Number.isInteger(owner) && owner !== process.pid && isAlive(owner) ? owner : undefined;
	}

	private takeLock(): boolean {
		for (let attempt = 0; attempt < 2; attempt++) {
			try {
				fs.writeFileSync(this.lockFile, String(process.pid), {flag: 'wx', mode: 0o600});
				return true;
			} catch (error) {
				if ((error as NodeJS.ErrnoException).code !== 'EEXIST') {
					this.problems.push(`cannot create ${this.lockFile}: ${(error as Error).message}`);
					return false;
				}

				const owner = this.liveOwner();
				if (owner !== undefined) {
					this.owner = owner;
					return false;
				}

				// The owner is gone: the lock is stale.
				try {
					fs.rmSync(this.lockFile);
				} catch {}
			}
		}

		return false;
	}

	private schedule(): void {
		if (!this.lockHeld || this.timer !== undefined) return;
		this.timer = setTimeout(() => {
			this.timer = undefined;
			this.write();
		}, this.debounceMs);
		this.timer.unref();
	}

	private write(): void {
		const db = this.db;
		if (db === undefined || !this.lockHeld) return;
		this.dirty = false;
		this.writing = this.writing
			.then(async () => db.write())
			.catch((error: unknown) => {
				this.logger.error(`cannot write ${this.file}: ${(error as Error).message}`);
			});
	}
}

function isPersistedState(value: unknown): value is PersistedState {
	if (typeof value !== 'object' || value === null) return false;
	const state = value as Record<string, unknown>;
	return state['version'] === 1 && typeof state['upstreams'] === 'object' && state['upstreams'] !== null;
}
