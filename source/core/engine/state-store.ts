/**
 * What hangar remembers between runs, per upstream: the last tool list and
 * catalog (capabilities, resources, templates, prompts) and when each was
 * verified, counters, the last exit, and the admin state a person set
 * (quarantine) with the pinned tools. Stored with lowdb as one JSON file in
 * the state dir, `state.json`, and the quarantines once more on their own in
 * `quarantine.json`.
 *
 * - One writer: the process that holds `state.lock` (see state-lock.ts).
 *   Another process on the same dir (a `serve` started while the last one
 *   is still stopping, a second `--stdio` client) reads, keeps its changes in
 *   memory, and watches the lock: when its holder is gone (exited, killed,
 *   or the pid now belongs to another process) it takes the lock, reads the
 *   file the holder left, merges its own changes in (state-merge.ts) and
 *   writes. Until then it cannot save a person's action, and says so
 *   (`canSave`): the supervisor refuses the action rather than acknowledge it.
 * - Writes are debounced and atomic (a temp file, fsync, rename: state-files.ts).
 * - Read field by field (state-read.ts, state-schema.ts): a field that does
 *   not fit is dropped with a reason in `problems`, never a crash. A file
 *   that does not parse is repaired as far as it can be (a cut-off file keeps
 *   its quarantines and pins), and the original is moved aside.
 * - A quarantine survives a state file that does not: `quarantine.json`
 *   holds every quarantine too, and an upstream is quarantined when either
 *   file says so.
 * - Every file it writes is created 600 (owner only), like the 700 state
 *   dir: it holds tool lists, stderr tails and quarantine reasons.
 *
 * `new Low(new PrivateJsonFile(...))` is used rather than `JSONFilePreset`,
 * which silently switches to memory when NODE_ENV is "test", and rather than
 * lowdb's JSONFile, whose temp file takes the umask's mode (often 644) and
 * is not synced before the rename. Reading is done here, synchronously, not
 * through the adapter: a takeover reads the holder's file in the middle of a
 * person's command, and a file that does not parse is repaired from its text.
 */
import fs from 'node:fs';
import path from 'node:path';
import {Low} from 'lowdb';
import type {ToolDefinition} from '../config/read-config.js';
import type {Logger} from '../base/logger.js';
import type {PinRecord, PinnedTool, ToolChange} from './upstream/pins.js';
import type {PersistedCatalog} from './upstream/catalog.js';
import type {EraVerdict} from './upstream/upstream-era.js';
import {holderAlive, lockPath, lockStatus, releaseLock, takeLock, type LockHolder} from './state-lock.js';
import {makePrivate, PrivateJsonFile, saveAdvice, writeNow} from './state-files.js';
import {mergeState} from './state-merge.js';
import {parseExact} from '../base/exact-json.js';
import {stateToWrite} from './state-size.js';
import {emptyState, emptyUpstream, quarantinesOf, readDir, readStateTextAsync, type DirContent, type QuarantineFile, type StateText} from './state-read.js';
import {makeDirectory} from '../base/make-directory.js';

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
	/** What it said of itself at its last initialize: `serverInfo` and `instructions` (passed on to clients). */
	identity?: {serverInfo: {name: string; version: string} | null; instructions: string | null} | undefined;
	/** The first request it sent a client (roots, sampling, elicitation): with "instances": "auto" it runs per client since (see instance-mode.ts). */
	clientScoped?: {at: number; method: string; /** The launch (see launchKey) and the server's name@version it was learned of: forgotten when either changes. */ launch?: string | undefined; server?: string | null | undefined} | undefined;
	/** Which protocol generation it speaks, as its last probe found (see upstream-era.ts). */
	era?: EraVerdict | undefined;
	/** Whether it asks its client for roots on its own after a start told `roots` (learned): a start that expects it waits for that request (see connection.ts). */
	rootsAtStart?: {at: number; asked: boolean} | undefined;
};

export type PersistedState = {version: 1; upstreams: Record<string, PersistedUpstream>};

export type StoreOptions = {
	/**
	 * `mcp-hangar status`: read the state without taking the writer lock, so a hangar
	 * that starts meanwhile still becomes the writer; changes stay in memory.
	 */
	readOnly?: boolean | undefined;
	/** How often a process that does not write checks whether the writer is gone (default 1 s). */
	takeoverPollMs?: number | undefined;
};

/** A write of the state dir that failed, and since when it has (cleared by the next write that succeeds). */
export type WriteFailure = {file: string; error: string; code: string | undefined; since: number};

/**
 * A person's action not saved (or saved in part): which file failed and
 * whether quarantine.json, which alone keeps a quarantine across restarts,
 * was written before it.
 */
export class StateSaveError extends Error {
	constructor(
		readonly file: string,
		readonly quarantinesSaved: boolean,
		override readonly cause: Error,
	) {
		super(cause.message);
	}

	get code(): string | undefined {
		return (this.cause as NodeJS.ErrnoException).code;
	}

	/** What to do about it, for that error (a sentence's start). */
	get advice(): string {
		return saveAdvice(this.code, this.message).replace(/^./, first => first.toUpperCase());
	}
}

/** Why this process cannot save: another live process writes the state dir, or the dir cannot be written at all. */
export type NotWriter = {holder: LockHolder} | {reason: string};

export class StateStore {
	private db: Low<PersistedState> | undefined;
	private timer: NodeJS.Timeout | undefined;
	private dirty = false;
	private writing: Promise<void> = Promise.resolve();
	private writesUnderWay = 0;
	private lockHeld = false;
	private holder: LockHolder | undefined;
	private lockError: string | undefined;
	/** What was read at start, while another process writes: the base of the takeover's merge. */
	private base: PersistedState | undefined;
	private poll: NodeJS.Timeout | undefined;
	private closed = false;
	/** The quarantines as last written to quarantine.json, to write it only when they change. */
	private writtenQuarantines: string | undefined;
	private readonly takeoverListeners: Array<(changed: string[]) => void> = [];
	/** Problems found while loading (or at a takeover), for the log and for status. */
	readonly problems: string[] = [];
	/** The last write that failed, while writes fail. */
	private failure: WriteFailure | undefined;
	/** Per upstream, what its record in state.json leaves out for its size (state-size.ts). */
	private leftOut = new Map<string, string>();
	private readonly stateFile: PrivateJsonFile<PersistedState>;

	private constructor(
		readonly dir: string,
		private readonly logger: Logger,
		private readonly debounceMs: number,
		private readonly readOnly: boolean,
		private readonly takeoverPollMs: number,
	) {
		this.stateFile = new PrivateJsonFile<PersistedState>(this.file);
	}

	get file(): string {
		return path.join(this.dir, 'state.json');
	}

	get quarantineFile(): string {
		return path.join(this.dir, 'quarantine.json');
	}

	get isWriter(): boolean {
		return this.lockHeld;
	}

	/** The pid of the other hangar process that writes this state dir, when this one is not the writer. */
	get writerPid(): number | undefined {
		return this.lockHeld ? undefined : this.holder?.pid;
	}

	static async open(dir: string, logger: Logger, debounceMs = 250, options: StoreOptions = {}): Promise<StateStore> {
		const store = new StateStore(dir, logger, debounceMs, options.readOnly ?? false, options.takeoverPollMs ?? 1000);
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

	/**
	 * Whether a change made now would be saved: this process writes, or the
	 * writer is gone and this process takes over now. Undefined when it
	 * can; else why not.
	 */
	whyNotSaved(): NotWriter | undefined {
		if (this.lockHeld) return undefined;
		if (!this.readOnly && !this.closed) this.tryTakeover();
		if (this.lockHeld) return undefined;
		if (this.holder !== undefined) return {holder: this.holder};
		return {reason: this.readOnly ? 'this process only reads the state dir' : (this.lockError ?? `another hangar process is taking ${lockPath(this.dir)} over right now`)};
	}

	/**
	 * Writes both files now, synchronously; throws the write's error. For a
	 * person's action: on disk before hangar says it is done. An async write
	 * already under way may finish after it with older content, so one more
	 * is queued behind it.
	 */
	saveNow(): void {
		const db = this.db;
		if (db === undefined || !this.lockHeld) throw new Error('this process does not write the state dir');
		const quarantines = quarantinesOf(db.data);
		const text = JSON.stringify(quarantines);
		let file = this.quarantineFile;
		let quarantinesSaved = false;
		try {
			writeNow(file, quarantines);
			this.writtenQuarantines = text;
			quarantinesSaved = true;
			file = this.file;
			writeNow(file, this.toWrite(db.data));
			this.written();
		} catch (error) {
			this.failed(file, error as Error);
			throw new StateSaveError(file, quarantinesSaved, error as Error);
		}

		this.dirty = this.writesUnderWay > 0;
		if (this.dirty) this.schedule();
	}

	/**
	 * Saves a person's action now (saveNow): '' once saved whole. A
	 * quarantine is saved once quarantine.json is (that file alone keeps it
	 * across restarts): then a note says state.json was not. Throws when the
	 * action is not saved.
	 */
	saveAction(action: string): string {
		try {
			this.saveNow();
			return '';
		} catch (error) {
			if (action !== 'quarantine' || !(error instanceof StateSaveError) || !error.quarantinesSaved) throw error;
			return ` (saved in ${this.quarantineFile}; ${this.file} could not be written: ${error.message})`;
		}
	}

	/** Told when this process takes over the state dir, with the upstreams whose quarantine the holder changed. */
	onTakeover(listener: (changed: string[]) => void): void {
		this.takeoverListeners.push(listener);
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
		this.closed = true;
		if (this.poll !== undefined) clearInterval(this.poll);
		this.poll = undefined;
		await this.flush();
		clearTimeout(this.retry);
		if (this.lockHeld) {
			try {
				releaseLock(lockPath(this.dir));
			} catch {}

			this.lockHeld = false;
		}
	}

	private async load(): Promise<void> {
		// A reader (status, --check-config) writes nothing, not even the directory: a missing one reads as empty state.
		if (!this.readOnly) makeDirectory(this.dir, 0o700);
		if (this.readOnly) {
			const status = safeLockStatus(this.dir);
			if (status?.kind === 'held' && status.holder.pid !== process.pid && holderAlive(status.holder)) this.holder = status.holder;
		} else {
			this.takeLock();
		}

		if (this.lockHeld) {
			makePrivate(this.file);
			makePrivate(this.quarantineFile);
		}

		const content = this.readContent(await readStateTextAsync(this.file));
		const db = new Low<PersistedState>(new PrivateJsonFile<PersistedState>(this.file), emptyState());
		db.data = content.state;
		this.db = db;
		if (this.lockHeld) {
			this.keepAside(content);
		} else if (content.problems.length > 0) {
			this.problems.push(...content.problems, 'this process does not write the state dir, so the file stays as it is for now');
		}

		if (!this.lockHeld && !this.readOnly) {
			// A copy through JSON: a number kept as its text (exact-json.ts) cannot be structuredClone'd.
			this.base = parseExact(JSON.stringify(content.state)) as PersistedState;
			this.logger.info(
				`${this.holder === undefined ? 'the state dir cannot be written now' : `hangar pid ${this.holder.pid} writes this state dir`}; this one keeps its state changes in memory and takes over when it can`,
				{dir: this.dir},
			);
			this.watch();
		}
	}

	private readContent(read?: StateText): DirContent {
		try {
			return readDir(this.dir, read);
		} catch (error) {
			return {state: emptyState(), problems: [`the state dir ${this.dir} is unreadable (${(error as Error).message}); started with empty state`], damaged: false};
		}
	}

	/** As the writer: keeps a damaged file's original aside and writes what was kept of it at once. */
	private keepAside(content: DirContent): void {
		if (content.damaged) {
			const aside = `${this.file}.corrupt-${Date.now()}`;
			try {
				fs.renameSync(this.file, aside);
				content.problems.push(`moved the original to ${aside}`);
			} catch {}

			this.dirty = true;
			this.write();
		}

		this.problems.push(...content.problems);
	}

	private takeLock(): void {
		const result = takeLock(lockPath(this.dir));
		this.lockHeld = result.taken;
		this.holder = 'holder' in result ? result.holder : undefined;
		this.lockError = 'error' in result ? result.error : undefined;
	}

	/** Checks for the writer's end every takeoverPollMs (a read of state.lock and of /proc). */
	private watch(): void {
		this.poll = setInterval(() => {
			this.tryTakeover();
		}, this.takeoverPollMs);
		this.poll.unref();
	}

	private tryTakeover(): void {
		if (this.lockHeld || this.closed) return;
		this.takeLock();
		if (!this.lockHeld) return;
		if (this.poll !== undefined) clearInterval(this.poll);
		this.poll = undefined;
		const theirs = this.readContent();
		const changed = mergeState(this.base ?? emptyState(), this.data, theirs.state);
		this.base = undefined;
		makePrivate(this.file);
		makePrivate(this.quarantineFile);
		this.keepAside(theirs);
		for (const problem of theirs.problems) this.logger.warn(problem);
		this.logger.info(`took over the state dir ${this.dir} (its writer is gone); saving the changes made meanwhile`);
		this.dirty = true;
		this.write();
		for (const listener of this.takeoverListeners) listener(changed);
	}

	/** The last write that failed, while writes fail (for status). */
	get writeFailure(): WriteFailure | undefined {
		return this.failure;
	}

	/** What state.json leaves out of an upstream's record for its size, one line per upstream (for status). */
	get notWritten(): string[] {
		return [...this.leftOut].map(([name, what]) => `${name}: ${what}`);
	}

	/** The state as written, saying in the log what an upstream's record leaves out the first time it does. */
	private toWrite(data: PersistedState): PersistedState {
		const {state, leftOut} = stateToWrite(data);
		for (const [name, what] of leftOut) if (this.leftOut.get(name) !== what) this.logger.warn(`state.json: upstream ${name}: ${what}`);
		this.leftOut = leftOut;
		return state;
	}

	private written(): void {
		if (this.failure === undefined) return;
		this.logger.info(`wrote ${this.file} again (writes had failed since ${new Date(this.failure.since).toISOString()}: ${this.failure.error})`);
		this.failure = undefined;
	}

	/** Logs a failed write once per error (not at every write while the disk stays full), and keeps it for status. */
	private failed(file: string, error: Error): void {
		const code = (error as NodeJS.ErrnoException).code;
		if (this.failure?.file === file && this.failure.error === error.message) return;
		this.failure = {file, error: error.message, code, since: this.failure?.since ?? Date.now()};
		this.logger.error(`cannot write ${file}: ${error.message}; the state is kept in memory and written again at its next change`);
	}

	/** The retry of a failed write (see write). */
	private retry: NodeJS.Timeout | undefined;

	private schedule(): void {
		if (!this.lockHeld || this.timer !== undefined) return;
		this.timer = setTimeout(() => {
			this.timer = undefined;
			this.write();
		}, this.debounceMs);
		this.timer.unref();
	}

	/** Queues a write of both files (quarantine.json first); a failure is logged, and the next write tries again. */
	private write(): void {
		const db = this.db;
		if (db === undefined || !this.lockHeld) return;
		this.dirty = false;
		this.writesUnderWay += 1;
		this.writing = this.writing.then(async () => {
			let file = this.quarantineFile;
			try {
				const quarantines = quarantinesOf(db.data);
				const text = JSON.stringify(quarantines);
				if (text !== this.writtenQuarantines) {
					await new PrivateJsonFile<QuarantineFile>(file).write(quarantines);
					this.writtenQuarantines = text;
				}

				file = this.file;
				await this.stateFile.write(this.toWrite(db.data));
				this.written();
			} catch (error) {
				this.failed(file, error as Error);
				// Still to be written: at the next change, at exit (flush), and by itself every retryMs meanwhile.
				this.dirty = true;
				this.retry ??= setTimeout(() => {
					this.retry = undefined;
					if (this.dirty) this.schedule();
				}, retryMs).unref();
			} finally {
				this.writesUnderWay -= 1;
			}
		});
	}
}

/** How long after a failed write the state is written again when nothing changes meanwhile. */
const retryMs = 5000;

function safeLockStatus(dir: string): ReturnType<typeof lockStatus> | undefined {
	try {
		return lockStatus(lockPath(dir));
	} catch {
		return undefined;
	}
}
