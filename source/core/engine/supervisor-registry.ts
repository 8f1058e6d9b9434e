/**
 * Which supervisors run a config right now, whatever state dir each resolved
 * to. One supervisor per config is the rule (a `--stdio` client bridges to
 * the one whose state dir its config resolves to), but a client that trims
 * its environment (the SDK's default stdio env keeps only HOME, PATH, SHELL
 * and TERM) can resolve another state dir than the person's shell
 * (XDG_STATE_HOME, MCP_HANGAR_STATE_DIR), and then two supervisors run one
 * config. Each supervisor registers itself here while it runs, so each can
 * see the other and say so (log, status, the TUI header).
 *
 * Where: `/tmp/mcp-hangar-<uid>/supervisors/<hash of the config's real
 * path>/<pid>.json`. Not `os.tmpdir()` (TMPDIR) and not `$XDG_RUNTIME_DIR`:
 * both come from the environment, which is exactly what differs between the
 * two clients; /tmp and the uid do not. The per-user directory is created
 * 0700 and used only when it is a real directory (not a symlink) owned by
 * this user, so another user can neither read nor plant entries.
 *
 * An entry names its process by pid, start time (field 22 of
 * /proc/PID/stat), command line and boot id (state-lock.ts's holder), so an
 * entry whose process is gone, or whose pid was reused, is stale: it is
 * ignored and removed when read.
 */
import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import {holderAlive, parseHolder, selfHolder, type LockHolder} from './state-lock.js';

export type SupervisorKind = 'tui' | 'serve' | 'serve --linger' | 'stdio';

/** One running supervisor of a config, as its entry says. */
export type SupervisorEntry = {
	pid: number;
	kind: SupervisorKind;
	/** ISO time it registered. */
	startedAt: string;
	config: string;
	stateDir: string;
	/** Its local socket; absent for a standalone `--stdio`, which has none. */
	socket?: string | undefined;
	holder: LockHolder;
};

/** The per-user root; `root` is for tests. */
export function registryRoot(root = '/tmp'): string {
	const uid = process.getuid?.() ?? 0;
	return path.join(root, `mcp-hangar-${uid}`);
}

/** The config file's real path (symlinks and relative paths resolved), which keys the registry. */
function realConfigPath(configPath: string): string {
	try {
		return fs.realpathSync(configPath);
	} catch {
		return path.resolve(configPath);
	}
}

function configKey(configPath: string): string {
	return crypto.createHash('sha256').update(realConfigPath(configPath)).digest('hex').slice(0, 24);
}

/** A directory of this user's, owner-only, never followed through a symlink; undefined when it cannot be had safely. */
function ownDir(dir: string): string | undefined {
	try {
		fs.mkdirSync(dir, {mode: 0o700});
	} catch (error) {
		if ((error as NodeJS.ErrnoException).code !== 'EEXIST') return undefined;
	}

	try {
		const stat = fs.lstatSync(dir);
		const uid = process.getuid?.();
		if (!stat.isDirectory() || (uid !== undefined && stat.uid !== uid)) return undefined;
		if ((stat.mode & 0o077) !== 0) fs.chmodSync(dir, 0o700);
		return dir;
	} catch {
		return undefined;
	}
}

/** The directory of `configPath`'s entries, created when `create`; undefined when it is missing or unsafe. */
function configDir(configPath: string, root: string, create: boolean): string | undefined {
	const top = registryRoot(root);
	const dir = path.join(top, 'supervisors', configKey(configPath));
	if (!create) {
		try {
			const stat = fs.lstatSync(top);
			const uid = process.getuid?.();
			if (!stat.isDirectory() || (uid !== undefined && stat.uid !== uid)) return undefined;
			return dir;
		} catch {
			return undefined;
		}
	}

	if (ownDir(top) === undefined || ownDir(path.join(top, 'supervisors')) === undefined) return undefined;
	return ownDir(dir);
}

function parseEntry(text: string): SupervisorEntry | undefined {
	try {
		const value = JSON.parse(text) as Partial<SupervisorEntry>;
		const holder = parseHolder(JSON.stringify(value.holder ?? {}));
		if (holder === undefined || typeof value.stateDir !== 'string' || typeof value.config !== 'string' || typeof value.kind !== 'string') return undefined;
		return {
			pid: holder.pid,
			kind: value.kind,
			startedAt: typeof value.startedAt === 'string' ? value.startedAt : '',
			config: value.config,
			stateDir: value.stateDir,
			...(typeof value.socket === 'string' ? {socket: value.socket} : {}),
			holder,
		};
	} catch {
		return undefined;
	}
}

/** The live entries in one config's directory, this process left out; stale and unreadable ones are removed. */
function liveEntries(dir: string): SupervisorEntry[] {
	let names: string[];
	try {
		names = fs.readdirSync(dir);
	} catch {
		return [];
	}

	const live: SupervisorEntry[] = [];
	for (const name of names) {
		if (!/^\d+\.json$/.test(name)) continue;
		const file = path.join(dir, name);
		let text: string;
		try {
			text = fs.readFileSync(file, 'utf8');
		} catch {
			continue;
		}

		const entry = parseEntry(text);
		if (entry !== undefined && entry.pid === process.pid) continue;
		if (entry !== undefined && holderAlive(entry.holder)) {
			live.push(entry);
			continue;
		}

		// Written whole (a rename), so an unreadable entry is junk; a dead one is stale.
		fs.rmSync(file, {force: true});
	}

	return live.sort((a, b) => a.pid - b.pid);
}

/** The live supervisors registered for `configPath`, this process left out (stale entries removed). */
export function listSupervisors(configPath: string, options: {root?: string} = {}): SupervisorEntry[] {
	const dir = configDir(configPath, options.root ?? '/tmp', false);
	return dir === undefined ? [] : liveEntries(dir);
}

/**
 * Removes the stale entries of every config, and the directories left
 * empty: a supervisor killed with SIGKILL cannot remove its own entry, and
 * nobody may ever list its config again. Run once at registration.
 */
function sweep(top: string, keep: string): void {
	let keys: string[];
	try {
		keys = fs.readdirSync(top);
	} catch {
		return;
	}

	for (const key of keys) {
		if (key === keep) continue;
		const dir = path.join(top, key);
		if (liveEntries(dir).length > 0) continue;
		try {
			// Fails (and is left) when not empty: this process's or a newcomer's entry.
			fs.rmdirSync(dir);
		} catch {}
	}
}

/** The other live supervisors of `configPath` whose state dir is not `stateDir`: the ones a client can reach instead of this one. */
export function otherSupervisors(configPath: string, stateDir: string, options: {root?: string} = {}): SupervisorEntry[] {
	const here = path.resolve(stateDir);
	return listSupervisors(configPath, options).filter(entry => path.resolve(entry.stateDir) !== here);
}

/** What to do about another supervisor of the same config, in one sentence. */
export function otherSupervisorAdvice(entry: Pick<SupervisorEntry, 'pid' | 'kind' | 'stateDir' | 'config'>): string {
	// A standalone --stdio has no socket to be told to stop on: its client owns it.
	const stop =
		entry.kind === 'stdio'
			? `stop it by closing the client that launched it (or \`kill ${entry.pid}\`)`
			: `stop it with \`mcp-hangar shutdown --state-dir ${entry.stateDir} --config ${entry.config}\``;
	return (
		`another supervisor (pid ${entry.pid}, mcp-hangar ${entry.kind === 'stdio' ? '--stdio' : entry.kind}, state dir ${entry.stateDir}) runs this config: ` +
		`clients started with a different environment reach it instead of this one (its upstreams, quarantines and state are its own); ` +
		`${stop} and pin the state dir in your clients with \`mcp-hangar setup CLIENT\``
	);
}

/**
 * Writes this process's entry whole (a rename), after sweeping the other
 * configs' stale entries; tried again when another process's sweep removed
 * the config's directory between its creation and the write.
 */
function writeEntry(config: string, root: string, text: string): {dir: string; file: string} | undefined {
	for (let attempt = 0; attempt < 3; attempt++) {
		// Checked to be this user's own before anything in it is read or removed.
		const dir = configDir(config, root, true);
		if (dir === undefined) return undefined;
		if (attempt === 0) sweep(path.dirname(dir), path.basename(dir));
		const file = path.join(dir, `${process.pid}.json`);
		const temp = `${file}.tmp`;
		try {
			fs.writeFileSync(temp, text, {mode: 0o600});
			fs.renameSync(temp, file);
			return {dir, file};
		} catch (error) {
			fs.rmSync(temp, {force: true});
			if ((error as NodeJS.ErrnoException).code !== 'ENOENT') return undefined;
		}
	}

	return undefined;
}

export type Registration = {
	/** Removes the entry (at exit). Safe to call more than once. */
	close: () => void;
};

/**
 * Registers this process as a supervisor of `configPath` while it runs.
 * Never throws: without a safe place to register, the check is skipped
 * (and undefined says so).
 */
export function registerSupervisor(
	entry: {config: string; stateDir: string; kind: SupervisorKind; socket?: string | undefined},
	options: {root?: string} = {},
): Registration | undefined {
	const root = options.root ?? '/tmp';
	const record = {
		pid: process.pid,
		kind: entry.kind,
		startedAt: new Date().toISOString(),
		config: realConfigPath(entry.config),
		stateDir: path.resolve(entry.stateDir),
		...(entry.socket === undefined ? {} : {socket: entry.socket}),
		holder: selfHolder(),
	};
	const written = writeEntry(entry.config, root, `${JSON.stringify(record, null, 2)}\n`);
	if (written === undefined) return undefined;
	const {dir, file} = written;

	let closed = false;
	const close = (): void => {
		if (closed) return;
		closed = true;
		fs.rmSync(file, {force: true});
		try {
			fs.rmdirSync(dir);
		} catch {}
	};

	process.once('exit', close);
	return {close};
}

/**
 * Registers this supervisor and keeps checking (every `intervalMs`, a
 * directory listing) for others of the same config in another state dir:
 * each one is warned about in hangar's log when first seen, with what to do,
 * and said gone when it stops. The other may start long after this one.
 */
export function registerAndWatch(
	entry: {config: string; stateDir: string; kind: SupervisorKind; socket?: string | undefined},
	logger: {warn: (message: string) => void; info: (message: string) => void},
	options: {root?: string; intervalMs?: number} = {},
): Registration {
	const registration = registerSupervisor(entry, options);
	if (registration === undefined) logger.info(`could not register in ${registryRoot(options.root)} (missing, not a directory of this user's, or not writable): a second supervisor of this config would go unnoticed`);
	const seen = new Map<number, SupervisorEntry>();
	const check = (): void => {
		const now = otherSupervisors(entry.config, entry.stateDir, options);
		for (const other of now) {
			if (!seen.has(other.pid)) logger.warn(otherSupervisorAdvice(other));
		}

		for (const [pid, other] of seen) {
			if (!now.some(entry => entry.pid === pid)) logger.info(`the other supervisor of this config (pid ${pid}, state dir ${other.stateDir}) is gone`);
		}

		seen.clear();
		for (const other of now) seen.set(other.pid, other);
	};

	check();
	const timer = setInterval(check, options.intervalMs ?? 5000);
	timer.unref();
	return {
		close() {
			clearInterval(timer);
			registration?.close();
		},
	};
}
