/**
 * The config file behind a running supervisor: which text it runs (by
 * hash), whether the file on disk still says the same (drift), the reloads
 * so far, and the watch that notices edits. Editors save by writing a new
 * file and renaming it over the old one, so the directory is watched, not
 * the file, and a burst of events makes one reload after a short quiet.
 *
 * Drift is judged from memory (what the watch last read), so status never
 * waits on the disk; `check()` reads the file again where a person asked
 * (`mcp-hangar status`), in case the watch missed an edit (network file
 * systems, a watch limit reached).
 */
import {createHash} from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import type {ConfigDiff} from './config-diff.js';

export type ReloadRecord = {
	/** ms since the epoch. */
	at: number;
	/** What asked for it: "the config file changed", "mcp-hangar reload", "SIGHUP". */
	trigger: string;
	/** applied: the new file runs; unchanged: it says what already runs; refused: it does not validate, the running config stays. */
	outcome: 'applied' | 'unchanged' | 'refused';
	/** One line for people: what changed, or why it was refused. */
	summary: string;
	diff: ConfigDiff | null;
	/** The validation errors of a refused file. */
	error: string | null;
};

/**
 * How the file on disk differs from what runs: `invalid` (the last reload
 * was refused and the file still says that), `pending` (it changed and no
 * reload has taken it yet), `restart` (applied, except settings that need a
 * restart of hangar).
 */
export type ConfigDrift =
	| {state: 'invalid'; since: number; error: string}
	| {state: 'pending'; since: number}
	| {state: 'restart'; since: number; settings: string[]};

const keptReloads = 20;

export function hashText(text: string): string {
	return createHash('sha256').update(text).digest('hex');
}

/** The file's hash now, or undefined when it cannot be read. */
function hashFile(file: string): string | undefined {
	try {
		return hashText(fs.readFileSync(file, 'utf8'));
	} catch {
		return undefined;
	}
}

export class ConfigFile {
	/** Hash of the text the running config was read from (undefined: a config built in code, or an unreadable file). */
	private appliedHash: string | undefined;
	/** Hash of the file as last read. */
	private diskHash: string | undefined;
	private diskChangedAt = Date.now();
	private refused: {hash: string | undefined; at: number; error: string} | undefined;
	private unapplied: {settings: string[]; at: number} | undefined;
	private readonly records: ReloadRecord[] = [];
	private watcher: fs.FSWatcher | undefined;
	private debounce: NodeJS.Timeout | undefined;
	appliedAt = Date.now();

	constructor(readonly path: string) {
		this.appliedHash = hashFile(path);
		this.diskHash = this.appliedHash;
	}

	/** The last reloads, oldest first. */
	get reloads(): readonly ReloadRecord[] {
		return this.records;
	}

	/** Records a reload; `hash` is the text it read (applied or refused), `unapplied` the settings left for a restart. */
	record(record: ReloadRecord, hash: string | undefined, unapplied: string[] = []): void {
		this.records.push(record);
		if (this.records.length > keptReloads) this.records.shift();
		this.diskHash = hash;
		if (record.outcome === 'refused') {
			this.refused = {hash, at: record.at, error: record.error ?? record.summary};
			return;
		}

		this.refused = undefined;
		this.appliedHash = hash;
		this.appliedAt = record.at;
		if (unapplied.length > 0) this.unapplied = {settings: unapplied, at: this.unapplied?.at ?? record.at};
		else if (record.outcome === 'applied') this.unapplied = undefined;
	}

	/** Whether `hash` is the text that runs now (a reload of it would change nothing). */
	runs(hash: string): boolean {
		return hash === this.appliedHash && this.refused === undefined;
	}

	get drift(): ConfigDrift | undefined {
		if (this.appliedHash === undefined && this.refused === undefined) return undefined;
		if (this.refused !== undefined && this.refused.hash === this.diskHash) return {state: 'invalid', since: this.refused.at, error: this.refused.error};
		if (this.diskHash !== this.appliedHash) return {state: 'pending', since: this.diskChangedAt};
		if (this.unapplied !== undefined) return {state: 'restart', since: this.unapplied.at, settings: this.unapplied.settings};
		return undefined;
	}

	/** Reads the file again and returns the drift it shows. */
	check(): ConfigDrift | undefined {
		this.noteDisk(hashFile(this.path));
		return this.drift;
	}

	private noteDisk(hash: string | undefined): void {
		if (hash === this.diskHash) return;
		this.diskHash = hash;
		this.diskChangedAt = Date.now();
	}

	/**
	 * Watches the file's directory; `onChange` runs once the file has been
	 * quiet for `quietMs` after an event that changed its content.
	 */
	watch(onChange: () => void, onError: (error: Error) => void, quietMs = 250): void {
		if (this.watcher !== undefined || this.appliedHash === undefined) return;
		const base = path.basename(this.path);
		try {
			this.watcher = fs.watch(path.dirname(this.path), {persistent: false}, (_event, name) => {
				if (name !== null && name !== base) return;
				clearTimeout(this.debounce);
				this.debounce = setTimeout(() => {
					const hash = hashFile(this.path);
					const before = this.diskHash;
					this.noteDisk(hash);
					if (hash !== before) onChange();
				}, quietMs);
			});
			this.watcher.on('error', onError);
		} catch (error) {
			onError(error as Error);
		}
	}

	close(): void {
		clearTimeout(this.debounce);
		this.watcher?.close();
		this.watcher = undefined;
	}
}
