/**
 * Hangar's own log. It never writes to stdout (that belongs to the MCP
 * protocol in `--stdio` mode and to Ink in the TUI): lines go to stderr or to
 * a file, one line each, `time level [scope] message key=value...`.
 *
 * Every line has its secrets masked (`maskText`), whatever its level, and is
 * made safe for a terminal (`terminalText`: a message quoting an upstream's
 * output or a config's names cannot drive the terminal that shows stderr or
 * `tail`s the file; the lines of a message after its first are indented, so
 * none passes for a line of hangar's own). Neither
 * sink can grow hangar's memory: a file is written synchronously, and stderr
 * (asynchronous when it is a pipe) holds at most `maxQueuedBytes`; past that,
 * lines are dropped, counted, and the drop is reported once stderr drains.
 */
import fs from 'node:fs';
import path from 'node:path';
import type {Writable} from 'node:stream';
import {maskText} from './secret-mask.js';
import {terminalText} from './terminal-text.js';
import {makeDirectory} from './make-directory.js';

export const logLevels = ['debug', 'info', 'warn', 'error', 'silent'] as const;
export type LogLevel = (typeof logLevels)[number];

/** Where lines go; `kind` says whether that is a file (an upstream's output is copied only there, see log-buffer.ts). */
export type LogSink = ((line: string, level: Exclude<LogLevel, 'silent'>) => void) & {readonly kind?: 'stderr' | 'file'};

export class Logger {
	private readonly threshold: number;

	constructor(
		private readonly sink: LogSink,
		level: LogLevel = 'info',
		private readonly scope = 'hangar',
	) {
		this.threshold = logLevels.indexOf(level);
	}

	/** Whether lines go to a file (`--log-file`, the TUI's hangar.log) rather than to stderr. */
	get toFile(): boolean {
		return this.sink.kind === 'file';
	}

	child(scope: string): Logger {
		const child = new Logger(this.sink, logLevels[this.threshold] ?? 'info', scope);
		return child;
	}

	/** Whether a line at `level` is written (to skip building costly debug fields). */
	enabled(level: Exclude<LogLevel, 'silent'>): boolean {
		return logLevels.indexOf(level) >= this.threshold;
	}

	debug(message: string, fields?: Record<string, unknown>): void {
		this.write('debug', message, fields);
	}

	info(message: string, fields?: Record<string, unknown>): void {
		this.write('info', message, fields);
	}

	warn(message: string, fields?: Record<string, unknown>): void {
		this.write('warn', message, fields);
	}

	error(message: string, fields?: Record<string, unknown>): void {
		this.write('error', message, fields);
	}

	private write(level: Exclude<LogLevel, 'silent'>, message: string, fields?: Record<string, unknown>): void {
		if (logLevels.indexOf(level) < this.threshold) return;
		let line = `${new Date().toISOString()} ${level} [${this.scope}] ${message}`;
		if (fields !== undefined) {
			for (const [key, value] of Object.entries(fields)) {
				if (value === undefined) continue;
				line += ` ${key}=${typeof value === 'string' ? JSON.stringify(value) : JSON.stringify(value) ?? String(value)}`;
			}
		}

		// A message of several lines (a config error, a stack) keeps them, each continued line
		// indented, so none can pass for a line of its own.
		this.sink(terminalText(maskText(line), 'lines').replaceAll('\n', '\n    '), level);
	}
}

/**
 * A logger writing to several sinks, each from its own level up: `--stdio`
 * keeps stderr (which clients show people as warnings) to warnings and
 * errors, while the lifecycle at info goes to a file. It counts as a file
 * (see `Logger.toFile`) when every sink that takes info lines is one.
 */
export function splitLogger(sinks: ReadonlyArray<{sink: LogSink; level: LogLevel}>): Logger {
	const index = (level: LogLevel) => logLevels.indexOf(level);
	const lowest = Math.min(...sinks.map(entry => index(entry.level)));
	const takingInfo = sinks.filter(entry => index(entry.level) <= index('info'));
	const kind: 'file' | 'stderr' = takingInfo.length > 0 && takingInfo.every(entry => entry.sink.kind === 'file') ? 'file' : 'stderr';
	const sink = (line: string, level: Exclude<LogLevel, 'silent'>): void => {
		for (const entry of sinks) if (index(level) >= index(entry.level)) entry.sink(line, level);
	};

	return new Logger(Object.assign(sink, {kind}), logLevels[lowest] ?? 'silent');
}

/** Past this many bytes waiting to be written to stderr, log lines are dropped (and counted) instead of queued. */
export const maxQueuedLogBytes = 1024 * 1024;

/**
 * Writes to stderr (or `stream`). Nothing has to read hangar's stderr, and a
 * pipe nobody reads queues every write in memory: past `maxQueuedBytes`
 * waiting, lines are dropped, and once the queue drains one line says how
 * many were lost.
 */
export function stderrSink(stream: Writable = process.stderr, maxQueuedBytes = maxQueuedLogBytes): LogSink {
	let dropped = 0;
	let droppedBytes = 0;
	let since = 0;
	const report = () => {
		const lost = `${new Date().toISOString()} warn [hangar] dropped ${dropped} log line${dropped === 1 ? '' : 's'} (${droppedBytes} bytes) since ${new Date(since).toISOString()}: stderr was not read as fast as hangar wrote to it (at most ${maxQueuedBytes} bytes wait)\n`;
		dropped = 0;
		droppedBytes = 0;
		stream.write(lost);
	};

	const sink = (line: string): void => {
		if (stream.writableLength > maxQueuedBytes) {
			if (dropped === 0) {
				since = Date.now();
				stream.once('drain', report);
			}

			dropped += 1;
			droppedBytes += line.length + 1;
			return;
		}

		stream.write(`${line}\n`);
	};

	return Object.assign(sink, {kind: 'stderr' as const});
}

/** Past this size a log file is rotated: hangar.log becomes hangar.log.1, .1 becomes .2, and so on. */
export const logFileMaxBytes = 10 * 1024 * 1024;
/** Log files kept, the current one included (like audit.jsonl's default); the oldest goes. */
export const logFilesKept = 3;

/** Free space kept on the log's file system (at most a quarter of it) before older log lines are removed. */
export const lowSpaceReserve = 1024 * 1024;

/** A log file this process cannot write now: since when, and why (for status). */
export type LogFileFailure = {file: string; error: string; code: string | undefined; since: number; lostLines: number};

const failures = new Map<string, LogFileFailure>();

/** The log files of this process whose writes fail now. */
export function logFileFailures(): LogFileFailure[] {
	return [...failures.values()].map(failure => ({...failure}));
}

/**
 * Appends to a file (created 600: logs hold what upstreams print); the
 * directory is created if needed. Synchronous, so nothing is lost on exit
 * and nothing waits in memory. A regular file is rotated past `maxBytes`
 * (`files` kept); several processes share hangar.log (a daemon and its
 * bridges), so each one checks the file's size and identity at least every
 * second and follows another's rotation. A write that fails (a full disk)
 * loses its line, never the process: the failure is kept for status
 * (`logFileFailures`) and, once writes succeed again, a line says how many
 * were lost.
 */
export function fileSink(file: string, options: {maxBytes?: number; files?: number} = {}): LogSink {
	const maxBytes = options.maxBytes ?? logFileMaxBytes;
	const files = Math.max(1, options.files ?? logFilesKept);
	makeDirectory(path.dirname(file));
	let fd = fs.openSync(file, 'a', 0o600);
	let regular = false;
	let ino = 0;
	let size = 0;
	let checked = Date.now();
	const learn = (): void => {
		const stats = fs.fstatSync(fd);
		regular = stats.isFile();
		ino = stats.ino;
		size = stats.size;
	};

	try {
		learn();
		// A file an older hangar created 644; never a device (--log-file /dev/stderr).
		if (regular) fs.fchmodSync(fd, 0o600);
	} catch {}

	const reopen = (): void => {
		const next = fs.openSync(file, 'a', 0o600);
		fs.closeSync(fd);
		fd = next;
		learn();
	};

	const rotate = (): void => {
		for (let index = files - 1; index >= 1; index--) {
			try {
				fs.renameSync(index === 1 ? file : `${file}.${index - 1}`, `${file}.${index}`);
			} catch {}
		}

		if (files === 1) fs.rmSync(file, {force: true});
		reopen();
	};

	/** Whether the file system is short of room, keeping a reserve (a quarter of a small one, else 1 MiB) for the state files. */
	const short = (): boolean => {
		try {
			const room = fs.statfsSync(path.dirname(file));
			return room.bavail * room.bsize < Math.min(lowSpaceReserve, (room.blocks * room.bsize) / 4);
		} catch {
			return false;
		}
	};

	/** Follows another process's rotation, and rotates when the file is past its size. */
	const check = (): void => {
		checked = Date.now();
		let onDisk: fs.Stats | undefined;
		try {
			onDisk = fs.statSync(file);
		} catch {}

		if (onDisk?.ino !== ino) reopen();
		else size = onDisk.size;
		if (size >= maxBytes) rotate();
		if (size === 0 || !short()) return;
		// The state files (a person's quarantine) matter more than old log lines: the rotated ones go, then this one is emptied.
		for (let index = 1; index < files; index++) fs.rmSync(`${file}.${index}`, {force: true});
		if (!short()) return;
		fs.ftruncateSync(fd, 0);
		size = fs.writeSync(fd, `${new Date().toISOString()} warn [hangar] emptied ${file}: the disk of ${path.dirname(file)} is nearly full, and its room is kept for the state files\n`);
	};

	const sink = (line: string): void => {
		const text = `${line}\n`;
		try {
			if (regular && (size >= maxBytes || Date.now() - checked >= 1000)) check();
			const failure = failures.get(file);
			if (failure !== undefined) {
				fs.writeSync(fd, `${new Date().toISOString()} warn [hangar] lost ${failure.lostLines} log line${failure.lostLines === 1 ? '' : 's'} since ${new Date(failure.since).toISOString()}: writing ${file} failed (${failure.error})\n`);
				failures.delete(file);
			}

			size += fs.writeSync(fd, text);
		} catch (error) {
			// A full disk must not take the gateway down with it. The next line checks the file again (a failed reopen left the old one).
			checked = 0;
			const failure = failures.get(file);
			if (failure === undefined) failures.set(file, {file, error: (error as Error).message, code: (error as NodeJS.ErrnoException).code, since: Date.now(), lostLines: 1});
			else failure.lostLines += 1;
		}
	};

	return Object.assign(sink, {kind: 'file' as const});
}

export const silentLogger = new Logger(() => {}, 'silent');
