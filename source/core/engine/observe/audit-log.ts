/**
 * The audit trail: every tool call and every person's action, one JSON
 * object per line, appended to `STATE_DIR/audit.jsonl` (owner-only, 0600).
 *
 * - A call line says who (client name, session), what (upstream, tool, the
 *   arguments' size in bytes), when, how long and the outcome with its error
 *   code. The arguments themselves only with `hangar.auditArguments`, and
 *   then masked the way the calls log masks them (secret-looking keys, the
 *   config's secret values, secrets by shape).
 * - An action line: a person's start, stop, restart, quarantine, approve,
 *   OAuth sign-in (each step: sign-in-audit.ts) or sign-out of a remote upstream (never a token) (who
 *   through which surface, what it said or why it was refused), a config
 *   reload and its outcome, and hangar's own shutdown (who asked, or what
 *   ended it).
 * - Past `hangar.auditMaxBytes` the file is rotated: audit.jsonl becomes
 *   audit.jsonl.1, .1 becomes .2, …, keeping `hangar.auditFiles` files.
 * - Lines are buffered and written together, every 100 ms (or at once past
 *   64 KiB): a write per call would cost more than the rest of a call's
 *   bookkeeping. What is pending is written when the supervisor has shut
 *   down and at process exit, so only a SIGKILL loses the last 100 ms. A
 *   write that fails (a full disk) is logged once and the trail goes on;
 *   a line the disk cut short is ended before the next one is written.
 *
 * The supervisor's calls log is seeded from the file at start, so the TUI's
 * calls view and `mcp-hangar logs --calls` show the calls of earlier runs.
 */
import fs from 'node:fs';
import path from 'node:path';
import {errorMessage} from '../../base/errors.js';
import type {Logger} from '../../base/logger.js';
import {maskText} from '../../base/secret-mask.js';
import {maskedPreview, type CallLog, type CallLogEntry} from '../call-log.js';
import type {ReloadRecord} from '../config/running-config.js';
import type {RequestContext} from '../request-context.js';
import {JsonQuotes, callLine} from './audit-line.js';
import type {ActionRecord, Supervisor} from '../supervisor.js';
import {makeDirectory} from '../../base/make-directory.js';

export const auditFileName = 'audit.jsonl';
/** Characters kept of a call's arguments when they are written (hangar.auditArguments). */
export const auditArgumentChars = 16_384;

/** A call as the calls log holds it (who, what, how long, how it ended), with when as text, the session and the arguments' size. */
export type AuditCall = Pick<CallLogEntry, 'client' | 'upstream' | 'tool' | 'ms' | 'outcome' | 'code' | 'error'> & {
	kind: 'call';
	/** When the call ended (ISO 8601). */
	time: string;
	/** The client session's label ("stdio", "socket#3", an HTTP session id); null for an in-process caller. */
	session: string | null;
	/** The arguments' size as JSON, in bytes. */
	argsBytes: number;
	/** The arguments, masked and cut (only with hangar.auditArguments). */
	args?: string;
};

export type AuditAction = {
	kind: 'action';
	time: string;
	action: ActionRecord['action'] | 'reload' | 'shutdown';
	/** The upstream acted on; null for a reload or a shutdown of hangar. */
	upstream: string | null;
	/** Who, as hangar names them ("a person in the TUI", "mcp-hangar reload", "SIGHUP"). */
	via: string;
	outcome: string;
	message: string;
};

export type AuditRecord = AuditCall | AuditAction;

export type AuditSettings = {maxBytes: number; files: number; arguments: boolean};

/** The second last formatted by isoTime, and its text up to the milliseconds ("2026-11-27T21:05:20."). */
let isoSecond = Number.NaN;
let isoPrefix = '';

/**
 * `new Date(at).toISOString()`, formatting the date once per second: a call
 * line's time was the largest part of the audit's per-call cost.
 */
export function isoTime(at: number): string {
	if (!Number.isInteger(at) || at < 0) return new Date(at).toISOString();
	const second = Math.floor(at / 1000);
	if (second !== isoSecond) {
		isoPrefix = new Date(second * 1000).toISOString().slice(0, -4);
		isoSecond = second;
	}

	const ms = at - second * 1000;
	return `${isoPrefix}${ms < 10 ? '00' : ms < 100 ? '0' : ''}${ms}Z`;
}

const newline = 0x0a;

/** How long lines wait to be written together, and how much may wait. */
const flushDelayMs = 100;
const flushBytes = 64 * 1024;

export class AuditLog {
	readonly file: string;
	private fd: number | undefined;
	private size = 0;
	private pending: string[] = [];
	private pendingLength = 0;
	private timer: NodeJS.Timeout | undefined;
	private failed = false;
	/** Whether the file ends in a line a failed write cut short (see write). */
	private cut = false;
	/** Unsubscribes it from what it records (see startAudit); run by close(). */
	readonly detach: Array<() => void> = [];
	private readonly onExit = (): void => this.flush();
	/** The strings call lines repeat, quoted once (audit-line.ts). */
	private readonly quotes = new JsonQuotes();

	constructor(
		readonly dir: string,
		private readonly settings: () => AuditSettings,
		private readonly logger: Logger,
	) {
		this.file = path.join(dir, auditFileName);
		process.once('exit', this.onExit);
	}

	/** Appends one record (written within 100 ms, see the module comment). */
	append(record: AuditRecord): void {
		this.appendLine(`${JSON.stringify(record)}\n`);
	}

	private appendLine(line: string): void {
		this.pending.push(line);
		this.pendingLength += line.length;
		if (this.pendingLength >= flushBytes) {
			this.flush();
			return;
		}

		if (this.timer !== undefined) return;
		this.timer = setTimeout(() => this.flush(), flushDelayMs);
		// Pending lines must not keep an exiting process alive: the exit hook writes them.
		this.timer.unref();
	}

	/** A tools/call as the calls log wrote it. */
	call(entry: CallLogEntry, context: Pick<RequestContext, 'client'>, args: unknown): void {
		const settings = this.settings();
		let argsBytes = 0;
		if (args !== undefined) {
			try {
				argsBytes = Buffer.byteLength(JSON.stringify(args) ?? '');
			} catch {}
		}

		const record: AuditCall = {
			kind: 'call',
			time: isoTime(entry.at),
			client: entry.client,
			session: context.client?.label ?? null,
			upstream: entry.upstream,
			tool: entry.tool,
			ms: Math.round(entry.ms * 1000) / 1000,
			outcome: entry.outcome,
			code: entry.code,
			error: entry.error,
			argsBytes,
		};
		if (settings.arguments) record.args = maskText(maskedPreview(args ?? {}, auditArgumentChars));
		this.appendLine(`${callLine(record, this.quotes, true)}\n`);
	}

	/** Writes what is pending now, synchronously. */
	flush(): void {
		clearTimeout(this.timer);
		this.timer = undefined;
		if (this.pending.length === 0) return;
		const text = this.pending.join('');
		this.pending = [];
		this.pendingLength = 0;
		try {
			this.fd ??= this.open();
			this.write(this.fd, text);
			this.failed = false;
			if (this.size >= this.settings().maxBytes) this.rotate();
		} catch (error) {
			if (!this.failed) this.logger.warn(`cannot write the audit file ${this.file} (${errorMessage(error)}); records are lost until a write succeeds again`);
			this.failed = true;
		}
	}

	/**
	 * Writes `text` whole, or as much as the disk takes: a full disk (or a
	 * file-size limit) takes part of a write and refuses the rest. A line
	 * cut that way is ended before the next write, so that the next record
	 * starts a line of its own instead of being glued to a broken one.
	 */
	private write(fd: number, text: string): void {
		const bytes = Buffer.from(this.cut ? `\n${text}` : text);
		let written = 0;
		try {
			while (written < bytes.length) written += fs.writeSync(fd, bytes, written);
		} finally {
			this.size += written;
			if (written > 0) this.cut = bytes[written - 1] !== newline;
		}
	}

	private open(): number {
		makeDirectory(this.dir, 0o700);
		// Read as well as append: whether an earlier run left a cut line at the end.
		const fd = fs.openSync(this.file, 'a+', 0o600);
		// A file made by an older hangar or by hand is made owner-only too.
		fs.fchmodSync(fd, 0o600);
		this.size = fs.fstatSync(fd).size;
		this.cut = false;
		if (this.size > 0) {
			const last = Buffer.alloc(1);
			fs.readSync(fd, last, 0, 1, this.size - 1);
			this.cut = last[0] !== newline;
		}

		return fd;
	}

	/** audit.jsonl → audit.jsonl.1 → .2 …; the oldest beyond `files` goes. */
	private rotate(): void {
		if (this.fd !== undefined) fs.closeSync(this.fd);
		this.fd = undefined;
		const {files} = this.settings();
		const name = (index: number): string => (index === 0 ? this.file : `${this.file}.${index}`);
		fs.rmSync(name(files - 1), {force: true});
		for (let index = files - 2; index >= 0; index--) {
			if (fs.existsSync(name(index))) fs.renameSync(name(index), name(index + 1));
		}

		this.size = 0;
	}

	close(): void {
		for (const off of this.detach.splice(0)) off();
		this.flush();
		if (this.fd !== undefined) fs.closeSync(this.fd);
		this.fd = undefined;
		process.off('exit', this.onExit);
	}
}

/** The records of the audit files in `dir` (the one rotated before the current one, then the current one), oldest first, that `keep` accepts; lines that do not parse are skipped. */
function readAuditRecords<T extends AuditRecord>(dir: string, keep: (record: Partial<T>) => boolean): T[] {
	const file = path.join(dir, auditFileName);
	const records: T[] = [];
	for (const name of [`${file}.1`, file]) {
		let text: string;
		try {
			text = fs.readFileSync(name, 'utf8');
		} catch {
			continue;
		}

		for (const line of text.split('\n')) {
			if (line === '') continue;
			try {
				const record = JSON.parse(line) as Partial<T>;
				if (keep(record)) records.push(record as T);
			} catch {}
		}
	}

	return records;
}

/** The last `max` calls of the audit files in `dir`, oldest first. */
export function readAuditCalls(dir: string, max: number): AuditCall[] {
	const calls = readAuditRecords<AuditCall>(dir, record => record.kind === 'call' && typeof record.time === 'string' && typeof record.upstream === 'string' && typeof record.tool === 'string');
	return calls.slice(-max);
}

/** The last `max` person's actions and reloads of the audit files in `dir`, oldest first (`mcp-hangar logs --actions`). */
export function readAuditActions(dir: string, max: number): AuditAction[] {
	const actions = readAuditRecords<AuditAction>(
		dir,
		record => record.kind === 'action' && typeof record.time === 'string' && typeof record.action === 'string' && typeof record.via === 'string' && typeof record.outcome === 'string',
	);
	return actions.slice(-max);
}

/** The calls log seeded with the calls of earlier runs, as the audit file has them (arguments shown by size unless kept). */
export function restoreCalls(log: CallLog, calls: readonly AuditCall[]): void {
	for (const call of calls) {
		log.record({
			at: Date.parse(call.time),
			client: String(call.client),
			upstream: call.upstream,
			tool: call.tool,
			ms: Number(call.ms) || 0,
			outcome: call.outcome,
			code: call.code ?? null,
			error: call.error ?? null,
			args: call.args ?? `(from the audit file: ${call.argsBytes} bytes of arguments, not kept)`,
			result: undefined,
		});
	}
}

/**
 * Starts the audit trail of `supervisor` (when hangar.auditLog is on and it
 * writes its state dir): its calls log seeded from the file, then every
 * call, person's action and reload appended. Returns the log, or undefined.
 */
export function startAudit(supervisor: Supervisor, logger: Logger): AuditLog | undefined {
	const settings = supervisor.config.hangar;
	if (!settings.auditLog || !supervisor.store.isWriter) return undefined;
	const dir = supervisor.store.dir;
	restoreCalls(supervisor.calls, readAuditCalls(dir, supervisor.calls.limit));
	const audit = new AuditLog(
		dir,
		() => {
			const hangar = supervisor.config.hangar;
			return {maxBytes: hangar.auditMaxBytes, files: hangar.auditFiles, arguments: hangar.auditArguments};
		},
		logger,
	);
	const offCalls = supervisor.calls.observe((entry, context, args) => {
		if (supervisor.config.hangar.auditLog) audit.call(entry, context, args);
	});
	const onAction = (record: ActionRecord): void => {
		if (!supervisor.config.hangar.auditLog) return;
		audit.append({kind: 'action', time: new Date(record.at).toISOString(), action: record.action, upstream: record.upstream, via: record.via, outcome: record.outcome, message: maskText(record.message)});
	};

	const onReload = (record: ReloadRecord): void => {
		if (!supervisor.config.hangar.auditLog) return;
		audit.append({kind: 'action', time: new Date(record.at).toISOString(), action: 'reload', upstream: null, via: record.trigger, outcome: record.outcome, message: maskText(record.error ?? record.summary)});
	};

	// Hangar's own stop, last: who asked (mcp-hangar shutdown names the person), or what ended it (a signal, the linger, the TUI's quit).
	const onClosed = (record: {at: number; reason: string; upstreams: number}): void => {
		if (supervisor.config.hangar.auditLog) {
			const message = `stopped hangar (pid ${process.pid}) and its ${record.upstreams} upstream${record.upstreams === 1 ? '' : 's'}`;
			audit.append({kind: 'action', time: new Date(record.at).toISOString(), action: 'shutdown', upstream: null, via: maskText(record.reason), outcome: 'done', message});
		}

		audit.close();
	};
	supervisor.on('action', onAction);
	supervisor.on('reload', onReload);
	supervisor.once('closed', onClosed);
	audit.detach.push(offCalls, () => supervisor.off('action', onAction), () => supervisor.off('reload', onReload), () => supervisor.off('closed', onClosed));

	return audit;
}
