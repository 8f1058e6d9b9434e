/**
 * `state.lock`: which hangar process writes the state dir. The lock names
 * its holder by pid, start time (field 22 of /proc/PID/stat), command line
 * (/proc/PID/cmdline) and boot, so a pid the kernel handed to another
 * process after a crash (routine in containers, where pids restart at 1) is
 * not taken for the holder. Where /proc does not exist (macOS) only the pid
 * is checked; so is a lock an older hangar wrote (a bare pid).
 *
 * Taking a lock is an exclusive create. Breaking a stale one (its holder is
 * gone) is serialised by a second exclusive file, `state.lock.break`, held
 * for a few synchronous calls: without it, two processes that both judged
 * the lock stale could each remove it, one of them removing the other's
 * fresh lock, and both would write.
 */
import fs from 'node:fs';
import path from 'node:path';
import {isAlive} from '../base/process-alive.js';

/** Who holds a lock. `startTime`, `cmdline` and `bootId` are absent where /proc is. */
export type LockHolder = {pid: number; startTime?: string | undefined; cmdline?: string | undefined; bootId?: string | undefined};

/** A lock file that exists but cannot be parsed yet is a holder writing it, for this long. */
const unreadableGraceMs = 2000;

function readProc(file: string): string | undefined {
	try {
		return fs.readFileSync(file, 'utf8');
	} catch {
		return undefined;
	}
}

/** Field 22 of /proc/PID/stat (clock ticks after boot when it started); the name in field 2 may hold spaces and parentheses. */
export function processStartTime(pid: number): string | undefined {
	const stat = readProc(`/proc/${pid}/stat`);
	if (stat === undefined) return undefined;
	const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
	// Field 3 is the first after the name, so field 22 is the 20th.
	return fields[19];
}

export function processCmdline(pid: number): string | undefined {
	return readProc(`/proc/${pid}/cmdline`)?.replaceAll('\0', ' ').trimEnd();
}

function bootId(): string | undefined {
	return readProc('/proc/sys/kernel/random/boot_id')?.trim();
}

/** This process, as a lock names it. */
export function selfHolder(): LockHolder {
	return {pid: process.pid, startTime: processStartTime(process.pid), cmdline: processCmdline(process.pid), bootId: bootId()};
}

/** Whether the process a lock names is still that process (not gone, not a reused pid). */
export function holderAlive(holder: LockHolder): boolean {
	if (!isAlive(holder.pid)) return false;
	if (holder.bootId !== undefined) {
		const now = bootId();
		if (now !== undefined && now !== holder.bootId) return false;
	}

	if (holder.startTime !== undefined) {
		const startTime = processStartTime(holder.pid);
		// Unreadable (another user's process under hidepid): alive is all that can be known.
		if (startTime !== undefined && startTime !== holder.startTime) return false;
	}

	if (holder.cmdline !== undefined) {
		const cmdline = processCmdline(holder.pid);
		if (cmdline !== undefined && cmdline !== holder.cmdline) return false;
	}

	return true;
}

/** A lock file's holder: a JSON record, or a bare pid (an older hangar's lock). Undefined when it cannot be read as either. */
export function parseHolder(text: string): LockHolder | undefined {
	const trimmed = text.trim();
	if (/^\d+$/.test(trimmed)) return {pid: Number(trimmed)};
	try {
		const value = JSON.parse(trimmed) as Record<string, unknown>;
		if (typeof value !== 'object' || value === null || !Number.isSafeInteger(value['pid']) || (value['pid'] as number) <= 0) return undefined;
		const text = (key: string) => (typeof value[key] === 'string' ? (value[key] as string) : undefined);
		return {pid: value['pid'] as number, startTime: text('startTime'), cmdline: text('cmdline'), bootId: text('bootId')};
	} catch {
		return undefined;
	}
}

export type LockStatus =
	| {kind: 'free'}
	| {kind: 'held'; holder: LockHolder}
	/** Exists but names nobody: being written now (young) or left broken (old). */
	| {kind: 'unreadable'; young: boolean};

export function lockStatus(file: string): LockStatus {
	let text: string;
	let mtimeMs: number;
	try {
		text = fs.readFileSync(file, 'utf8');
		mtimeMs = fs.statSync(file).mtimeMs;
	} catch (error) {
		if ((error as NodeJS.ErrnoException).code === 'ENOENT') return {kind: 'free'};
		throw error;
	}

	const holder = parseHolder(text);
	if (holder === undefined) return {kind: 'unreadable', young: Date.now() - mtimeMs < unreadableGraceMs};
	return {kind: 'held', holder};
}

/** What an attempt to take the lock found. */
export type TakeResult =
	| {taken: true}
	/** Another live process holds it. */
	| {taken: false; holder: LockHolder}
	/** Someone else is breaking it or writing it right now: try again shortly. */
	| {taken: false; busy: true}
	| {taken: false; error: string};

function create(file: string, holder: LockHolder): boolean {
	try {
		fs.writeFileSync(file, JSON.stringify(holder), {flag: 'wx', mode: 0o600});
		return true;
	} catch (error) {
		if ((error as NodeJS.ErrnoException).code === 'EEXIST') return false;
		throw error;
	}
}

/** Takes `file` for this process unless a live process holds it; a stale lock is broken under `file.break`. */
export function takeLock(file: string): TakeResult {
	const self = selfHolder();
	try {
		if (create(file, self)) return {taken: true};
		const status = lockStatus(file);
		if (status.kind === 'held' && status.holder.pid === process.pid) return {taken: true};
		if (status.kind === 'held' && holderAlive(status.holder)) return {taken: false, holder: status.holder};
		if (status.kind === 'unreadable' && status.young) return {taken: false, busy: true};
		return breakStale(file, self);
	} catch (error) {
		return {taken: false, error: `cannot create ${file}: ${(error as Error).message}`};
	}
}

function breakStale(file: string, self: LockHolder): TakeResult {
	const guard = `${file}.break`;
	if (!create(guard, self)) {
		// A breaker that died between its two calls leaves the guard: judged like a lock.
		const status = lockStatus(guard);
		if (status.kind === 'held' && !holderAlive(status.holder)) fs.rmSync(guard, {force: true});
		else if (status.kind === 'unreadable' && !status.young) fs.rmSync(guard, {force: true});
		return {taken: false, busy: true};
	}

	try {
		// Judged again under the guard: another breaker may have taken it since.
		const status = lockStatus(file);
		if (status.kind === 'held' && holderAlive(status.holder)) return {taken: false, holder: status.holder};
		if (status.kind === 'unreadable' && status.young) return {taken: false, busy: true};
		fs.rmSync(file, {force: true});
		return create(file, self) ? {taken: true} : {taken: false, busy: true};
	} finally {
		fs.rmSync(guard, {force: true});
	}
}

/** Removes the lock if this process holds it. */
export function releaseLock(file: string): void {
	const status = lockStatus(file);
	if (status.kind === 'held' && status.holder.pid === process.pid) fs.rmSync(file, {force: true});
}

export const lockPath = (dir: string): string => path.join(dir, 'state.lock');
