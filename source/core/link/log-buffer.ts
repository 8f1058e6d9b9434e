/**
 * A bounded, line-oriented log for one upstream: child stderr, non-protocol
 * stdout and hangar's own notes about it. However much an upstream writes,
 * the buffer holds at most `limit` lines of at most `maxLineLength`
 * characters each, with their secrets masked:
 *
 * - Old lines fall off the front (a tail, like `tail -n`).
 * - An upstream's output is taken in at most at `outputBudget` (a token
 *   bucket: bytes per second, with a burst). What an upstream writes beyond
 *   that is read and dropped without being decoded, counted per source, and
 *   reported as a note in the buffer (and in hangar's log) at most every few
 *   seconds: "dropped 1.2 M lines (85.3 MiB) of stderr …". So a flooding
 *   upstream costs hangar neither memory nor much CPU, and its calls and
 *   every other upstream's keep being served.
 */
import type {Logger} from '../base/logger.js';
import {maskText} from '../base/secret-mask.js';

export type LogLine = {at: number; source: 'stderr' | 'stdout' | 'hangar'; text: string};

export type OutputSource = 'stderr' | 'stdout';

/** What was dropped of one source's output. */
export type OutputDrops = {lines: number; bytes: number};

/** How much of an upstream's output hangar takes in: bytes per second on average, and the burst it allows. */
export const outputBudget = {bytesPerSecond: 256 * 1024, burstBytes: 1024 * 1024};

/** The first drop report comes this soon after the first dropped line; later ones at most every `reportEveryMs`. */
const firstReportMs = 1000;

/** A copy of `text` that shares no memory with the string it was cut from (V8 keeps a slice's parent alive). */
export function detached(text: string): string {
	return Buffer.from(text, 'utf8').toString('utf8');
}

function count(value: number): string {
	if (value < 1000) return String(value);
	if (value < 1_000_000) return `${(value / 1000).toFixed(1)} k`;
	return `${(value / 1_000_000).toFixed(1)} M`;
}

function size(bytes: number): string {
	if (bytes < 1024) return `${bytes} bytes`;
	if (bytes < 1024 * 1024) return `${(bytes / 1024).toFixed(1)} KiB`;
	return `${(bytes / 1024 / 1024).toFixed(1)} MiB`;
}

export class LogBuffer {
	/**
	 * When hangar last spawned the upstream's process (ms since the epoch): a
	 * start can spawn it more than once (the 2026-07-28 era probe, then the
	 * 2025 initialize), and a failed start quotes the last process's stderr.
	 */
	spawnedAt: number | undefined;
	private readonly lines: LogLine[] = [];
	private readonly listeners = new Set<(line: LogLine) => void>();
	private evicted = 0;
	private readonly totals: Record<OutputSource, OutputDrops> = {stderr: {lines: 0, bytes: 0}, stdout: {lines: 0, bytes: 0}};
	/** Drops not reported yet, since `since`. */
	private unreported: {stderr: OutputDrops; stdout: OutputDrops; since: number} | undefined;
	private reportTimer: NodeJS.Timeout | undefined;
	private lastReportAt = 0;
	private tokens: number;
	private refilledAt = Date.now();

	constructor(
		private readonly limit = 500,
		private readonly maxLineLength = 2000,
		private readonly budget = outputBudget,
		private readonly reportEveryMs = 5000,
	) {
		this.tokens = budget.burstBytes;
	}

	/**
	 * Whether a line of `bytes` of the upstream's output may be kept; when the
	 * budget is spent it is counted as dropped instead. A line is charged at
	 * most `maxLineLength`: that is all of it the buffer keeps.
	 */
	admit(source: OutputSource, bytes: number): boolean {
		const cost = Math.min(bytes, this.maxLineLength);
		if (this.tokens < cost) {
			const now = Date.now();
			this.tokens = Math.min(this.budget.burstBytes, this.tokens + ((now - this.refilledAt) * this.budget.bytesPerSecond) / 1000);
			this.refilledAt = now;
		}

		if (this.tokens >= cost) {
			this.tokens -= cost;
			return true;
		}

		this.drop(source, 1, bytes);
		return false;
	}

	/** Counts output that was read and not kept (`admit` said no, or a line past the transport's limit). */
	drop(source: OutputSource, lines: number, bytes: number): void {
		this.totals[source].lines += lines;
		this.totals[source].bytes += bytes;
		this.unreported ??= {stderr: {lines: 0, bytes: 0}, stdout: {lines: 0, bytes: 0}, since: Date.now()};
		this.unreported[source].lines += lines;
		this.unreported[source].bytes += bytes;
		if (this.reportTimer === undefined) {
			const delay = Math.max(firstReportMs, this.lastReportAt + this.reportEveryMs - Date.now());
			this.reportTimer = setTimeout(() => this.report(), delay);
			this.reportTimer.unref();
		}
	}

	private report(): void {
		this.reportTimer = undefined;
		const drops = this.unreported;
		this.unreported = undefined;
		if (drops === undefined) return;
		this.lastReportAt = Date.now();
		const parts = (['stderr', 'stdout'] as const)
			.filter(source => drops[source].lines > 0)
			.map(source => `${count(drops[source].lines)} line${drops[source].lines === 1 ? '' : 's'} (${size(drops[source].bytes)}) of ${source}`);
		const seconds = ((Date.now() - drops.since) / 1000).toFixed(1);
		this.push(
			'hangar',
			`dropped ${parts.join(' and ')} in ${seconds} s: it wrote faster than hangar keeps an upstream's output (${size(this.budget.bytesPerSecond)}/s); the lines around the gap are kept`,
		);
	}

	/** Output dropped since hangar started, per source. */
	get dropped(): Record<OutputSource, OutputDrops> {
		return {stderr: {...this.totals.stderr}, stdout: {...this.totals.stdout}};
	}

	push(source: LogLine['source'], text: string, at = Date.now()): void {
		let shown: string;
		if (text.length > this.maxLineLength) {
			// Masked before the final cut, so a secret across the cut is still recognised whole.
			const masked = maskText(text.slice(0, this.maxLineLength * 2));
			shown = `${detached(masked.slice(0, this.maxLineLength))}… (${text.length} chars)`;
		} else {
			shown = maskText(text);
		}

		const line: LogLine = {at, source, text: shown};
		this.lines.push(line);
		if (this.lines.length > this.limit) {
			this.lines.shift();
			this.evicted += 1;
		}

		for (const listener of this.listeners) listener(line);
	}

	tail(count: number, source?: LogLine['source']): LogLine[] {
		const pool = source === undefined ? this.lines : this.lines.filter(line => line.source === source);
		return pool.slice(Math.max(0, pool.length - count));
	}

	/** How many lines the buffer holds now. */
	get size(): number {
		return this.lines.length;
	}

	/** Lines that fell off the front (the buffer keeps the newest `limit`). */
	get droppedLines(): number {
		return this.evicted;
	}

	onLine(listener: (line: LogLine) => void): () => void {
		this.listeners.add(listener);
		return () => this.listeners.delete(listener);
	}
}

/** An upstream's output lines copied to hangar's log at most this many a second on average… */
export const copiedLinesPerSecond = 20;
/** …in bursts of at most this many (a stack trace); the rest is counted and said at most every 5 s. */
export const copiedLinesBurst = 200;

/**
 * Copies an upstream's log into hangar's own log. Its output (stderr, stray
 * stdout) goes there only when hangar logs to a file (`--log-file`, the TUI's
 * hangar.log), or at debug level: on hangar's stderr, which an MCP client
 * may show or may never read, it would be every upstream's chatter at once.
 * At most `copiedLinesPerSecond` lines a second of each upstream are copied
 * (bursts of `copiedLinesBurst`), so one upstream's flood cannot fill the
 * file or crowd out the rest; the lines left out are counted and said at
 * most every 5 s (its own log, `mcp-hangar logs NAME`, still has its recent
 * lines). Reports of dropped output are always logged, at warn.
 */
export function copyToLog(log: LogBuffer, logger: Logger, upstream: string, now: () => number = Date.now): void {
	const level = logger.toFile ? 'info' : 'debug';
	let tokens = copiedLinesBurst;
	let refilled = now();
	let skipped = 0;
	let skippedSince = 0;
	let report: NodeJS.Timeout | undefined;
	const tell = (): void => {
		report = undefined;
		if (skipped === 0) return;
		logger.warn(`${skipped} line${skipped === 1 ? '' : 's'} of its output not written to this log in ${((now() - skippedSince) / 1000).toFixed(1)} s (more than ${copiedLinesPerSecond} a second); mcp-hangar logs ${upstream} shows its recent lines`, {upstream});
		skipped = 0;
	};

	log.onLine(line => {
		if (line.source !== 'hangar') {
			if (!logger.enabled(level)) return;
			const at = now();
			tokens = Math.min(copiedLinesBurst, tokens + ((at - refilled) / 1000) * copiedLinesPerSecond);
			refilled = at;
			if (tokens < 1) {
				if (skipped === 0) skippedSince = at;
				skipped += 1;
				report ??= setTimeout(tell, 5000).unref();
				return;
			}

			tokens -= 1;
			logger[level](`${line.source}: ${line.text}`, {upstream});
		} else if (line.text.startsWith('dropped ')) {
			logger.warn(`output ${line.text}`, {upstream});
		}
	});
}

/**
 * Splits an upstream's output (bytes) into lines for its log. A line is
 * decoded only when the log admits it, and only its first `keepBytes`; the
 * rest of a long line, and every line not admitted, is counted and skipped
 * without ever becoming a string.
 */
export class OutputLineSplitter {
	private partial: Buffer[] = [];
	private partialKept = 0;
	private partialBytes = 0;

	constructor(
		/** A kept line: its first `keepBytes` decoded, and its length in bytes. */
		private readonly onLine: (text: string, bytes: number) => void,
		/** Whether a line of `bytes` may be kept (see LogBuffer.admit). */
		private readonly admit: (bytes: number) => boolean = () => true,
		private readonly keepBytes = 2000,
	) {}

	write(chunk: Buffer): void {
		let start = 0;
		while (start < chunk.length) {
			const newline = chunk.indexOf(10, start);
			if (newline === -1) {
				this.hold(chunk, start, chunk.length);
				return;
			}

			if (this.partialBytes === 0) {
				this.emit(chunk, start, newline);
			} else {
				this.hold(chunk, start, newline);
				this.flush();
			}

			start = newline + 1;
		}
	}

	/** Ends the line in progress, if any (the stream ended without a newline). */
	flush(): void {
		if (this.partialBytes === 0) return;
		const joined = Buffer.concat(this.partial);
		const bytes = this.partialBytes;
		this.partial = [];
		this.partialKept = 0;
		this.partialBytes = 0;
		this.emit(joined, 0, joined.length, bytes);
	}

	private hold(chunk: Buffer, start: number, end: number): void {
		this.partialBytes += end - start;
		const room = this.keepBytes + 1 - this.partialKept;
		if (room <= 0) return;
		// A copy: a slice would keep the whole chunk alive.
		const kept = Buffer.from(chunk.subarray(start, Math.min(end, start + room)));
		this.partial.push(kept);
		this.partialKept += kept.length;
	}

	private emit(buffer: Buffer, start: number, end: number, bytes = end - start): void {
		let stop = Math.min(end, start + this.keepBytes);
		if (stop > start && stop === end && buffer[stop - 1] === 13) stop -= 1;
		if (stop <= start || !this.admit(bytes)) return;
		this.onLine(buffer.toString('utf8', start, stop), bytes);
	}
}

/** How many of an upstream's newest stderr lines a failure message looks through for the ones that say why. */
export const stderrLinesRead = 40;

// What says nothing of why a process failed: blank lines, stack frames (JavaScript's and Java's "    at …",
// Python's '  File "…", line 3'), a frame count ("... 4 more"), Node's version footer and lines of bare
// punctuation (the "^" under a quoted line of code, the braces around an error's properties).
const noise = /^\s*$|^\s+at\s|^\s+File ".*", line \d|^\s*\.\.\. \d+ more\b|^Node\.js v\d|^[\s{}[\]()^~]+$/;
// A line that names the failure, at the start of an unindented line (an indented one is a quoted line of code
// such as "    throw new TypeError(…)"): "Error: Cannot find module …", "Error [ERR_MODULE_NOT_FOUND]: …",
// "ModuleNotFoundError: …", "java.lang.IllegalStateException: …", "error: …", "fatal: …", "panic: …", and the
// same after a program's name ("docker: Error response …", "npm error …", "npm ERR! …").
const failureLine = /^(?:[\w./@-]+: |npm )?(?:Uncaught )?(?:[\w.$]*(?:Error|Exception)\b|(?:error|ERROR|fatal|FATAL|panic)\b|ERR!)/;

/**
 * The stderr lines that say why a process failed, at most `max`: a crash's
 * last lines are mostly its stack (Node's MODULE_NOT_FOUND ends in
 * "at node:internal/main/run_main_module… { code: 'MODULE_NOT_FOUND' … }
 * Node.js v22"), so the line that names the error comes first (the first
 * such line: "Error: Cannot find module '/path/server.js'", npm's "npm error
 * code E404" before its "npm error A complete log …"), then the newest lines
 * after it; stack frames, blank lines and Node's version footer are left
 * out. Without such a line, the newest lines that are not noise; when every
 * line is noise, the newest lines as they are. Each without its indent: the
 * quote is one line ("… | code: 'MODULE_NOT_FOUND'").
 */
export function stderrSummary(lines: readonly string[], max = 5): string[] {
	if (max <= 0) return [];
	const trimmed = (kept: readonly string[]): string[] => kept.map(line => line.trim());
	const meaningful = lines.filter(line => !noise.test(line));
	if (meaningful.length === 0) return trimmed(lines.filter(line => line.trim() !== '').slice(-max));
	// Tested before the indent goes: an indented line is quoted code, not the error.
	const failure = meaningful.findIndex(line => failureLine.test(line));
	if (failure === -1) return trimmed(meaningful.slice(-max));
	const after = max === 1 ? [] : meaningful.slice(failure + 1).slice(-(max - 1));
	return trimmed([meaningful[failure]!, ...after]);
}

/**
 * The stderr lines a failed start should quote: this attempt's own (since
 * `since`), so a start that failed five times does not repeat every earlier
 * attempt's "boom"; when this attempt wrote nothing, the newest earlier
 * line, marked `earlier` so the message says it is not this attempt's. Of
 * either, the lines that say why (`stderrSummary`).
 */
export function attemptStderr(tail: readonly LogLine[], since: number, max = 5): {lines: string[]; earlier: boolean} {
	const own = tail.filter(line => line.at >= since).map(line => line.text);
	if (own.length > 0 || tail.length === 0) return {lines: stderrSummary(own, max), earlier: false};
	return {lines: stderrSummary(tail.map(line => line.text), 1), earlier: true};
}
