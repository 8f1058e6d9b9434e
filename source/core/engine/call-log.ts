/**
 * Every tool call across the upstreams, as it finished: when, which client,
 * which upstream and tool, how long, and the result or the error with its
 * code, in a fixed-size ring (`limit` calls; the oldest fall off). Each
 * call's arguments and result are kept only as a preview: serialized with
 * secret-looking keys masked and cut to `previewChars` while serializing
 * (a large result costs neither the time to serialize it whole nor the
 * memory to hold it), then passed through `maskText`, like its error (also
 * cut to `previewChars`: an upstream's error message may be megabytes): the
 * config's secret values wherever they appear, and secrets by shape (auth
 * schemes, URL userinfo, `--token x`). The TUI's calls view and
 * `mcp-hangar logs --calls` read it.
 */
import {HangarError, JsonRpcError, errorMessage} from '../base/errors.js';
import {isSecretName, mask, maskText, maskTextWithin} from '../base/secret-mask.js';
import {BoundedPreview} from '../base/bounded-preview.js';
import {maxNestingDepth, nestedTooDeep} from '../base/nesting.js';
import {isRawJson} from '../base/exact-json.js';
import type {RequestContext} from './request-context.js';
import {ForwardedResult, maskedPreviewOfJson} from '../wire/forwarded-result.js';

export type CallOutcome = 'ok' | 'tool-error' | 'error';

export type CallLogEntry = {
	/** Numbers every call this supervisor logged, from 1: a view scrolled back stays on the same calls. */
	seq: number;
	/** When it finished, in ms since the epoch. */
	at: number;
	/** The client: its name from initialize, else its session label; "hangar" when no client is named. */
	client: string;
	upstream: string;
	tool: string;
	ms: number;
	outcome: CallOutcome;
	/** The error's code: hangar's code name (UpstreamTimeout, CircuitOpen, …) or the upstream's JSON-RPC code; null when it did not fail. */
	code: string | null;
	error: string | null;
	/** A call run as a task (2025-11-25 tasks): the task's status as last seen, kept current; `ms` runs until it ends. Absent for other calls. */
	task?: string;
};

/** A logged call with its arguments and result (or error), each a masked preview cut to a bound. */
export type CallLogDetail = CallLogEntry & {args: string; result: string | null};

/** Calls kept, and characters kept of each call's arguments and of its result. */
export const callLogLimit = 500;
export const callPreviewChars = 2000;

/**
 * `value` as JSON, secret-looking keys' values replaced by *** and every
 * `secrets` string masked, cut to `limit` characters (with how it was cut)
 * as it is written: the walk stops once the bound is reached.
 */
export function maskedPreview(value: unknown, limit: number, secrets: readonly string[] = []): string {
	const preview = new BoundedPreview(limit, secrets);
	const walk = (item: unknown, depth: number): void => {
		if (preview.cut) return;
		if (depth > maxNestingDepth) {
			preview.put(JSON.stringify(nestedTooDeep));
			return;
		}

		if (typeof item === 'string') {
			// Only the part that can still be shown is masked and quoted.
			preview.put(JSON.stringify(preview.scrub(item.length > limit ? item.slice(0, limit) : item)));
			return;
		}

		if (Array.isArray(item)) {
			preview.put('[');
			item.forEach((inner, index) => {
				if (index > 0) preview.put(',');
				walk(inner, depth + 1);
			});
			preview.put(']');
			return;
		}

		// A number kept as its text (base/exact-json.ts) is a leaf: JSON.stringify writes it.
		if (typeof item === 'object' && item !== null && !isRawJson(item)) {
			preview.put('{');
			let first = true;
			for (const [key, inner] of Object.entries(item)) {
				if (inner === undefined) continue;
				if (!first) preview.put(',');
				first = false;
				preview.put(`${JSON.stringify(key)}:`);
				if (isSecretName(key)) preview.put(JSON.stringify(mask));
				else walk(inner, depth + 1);
				if (preview.cut) return;
			}

			preview.put('}');
			return;
		}

		preview.put(item === undefined ? 'null' : (JSON.stringify(item) ?? 'null'));
	};

	walk(value, 0);
	return preview.text();
}

/**
 * A call's arguments and result as it was given them, kept until its
 * details are read (most calls' never are) instead of previewed as it is
 * logged: only when both are small and cannot change (flat arguments,
 * copied; a result kept as its text), so the ring holds at most
 * `limit` × a few KiB of them.
 */
type Given = {args: Record<string, unknown> | undefined; result: ForwardedResult | undefined; secrets: readonly string[] | undefined};

/** A logged call: its previews, or (until they are asked for) what they are made from. */
type Stored = CallLogEntry & {args: string; result: string | null; given?: Given};

/** What arguments are kept as given: at most this many members, each a number, boolean, null or a string of at most this many characters. */
const givenMembers = 32;
const givenStringChars = 512;

/** `args` copied when it is flat and small (see Given), else undefined. */
function flatCopy(args: unknown): Record<string, unknown> | undefined {
	if (typeof args !== 'object' || args === null || Array.isArray(args)) return undefined;
	const copy: Record<string, unknown> = {};
	let members = 0;
	for (const key in args) {
		if (!Object.hasOwn(args, key)) continue;
		const value = (args as Record<string, unknown>)[key];
		if (++members > givenMembers || key.length > givenStringChars) return undefined;
		if (typeof value === 'string' ? value.length > givenStringChars : value !== null && value !== undefined && typeof value !== 'number' && typeof value !== 'boolean') return undefined;
		copy[key] = value;
	}

	return copy;
}

/**
 * Told of every tools/call as its record is written (the metrics, the audit
 * file): the entry as logged, the request's context and its arguments.
 */
export type CallObserver = (entry: CallLogEntry, context: Pick<RequestContext, 'record' | 'client'>, args: unknown) => void;

export class CallLog {
	private readonly ring: Stored[] = [];
	private next = 0;
	private seq = 0;
	private readonly listeners = new Set<() => void>();
	private readonly observers: CallObserver[] = [];

	constructor(
		readonly limit = callLogLimit,
		private readonly previewChars = callPreviewChars,
	) {}

	/** Calls held now. */
	get size(): number {
		return this.ring.length;
	}

	/** How many calls were ever logged: the newest one's `seq`. */
	get lastSeq(): number {
		return this.seq;
	}

	record(call: Omit<CallLogEntry, 'seq'> & {args: unknown; result: unknown; secrets?: readonly string[]}): CallLogEntry {
		const task = call.task;
		this.seq += 1;
		// Built field by field: rest and spread copies cost more than the rest of a call's bookkeeping.
		const stored: Stored = {
			seq: this.seq,
			at: call.at,
			client: call.client,
			upstream: call.upstream,
			tool: call.tool,
			ms: call.ms,
			outcome: call.outcome,
			code: call.code,
			error: call.error === null ? null : maskTextWithin(call.error, this.previewChars),
			args: '',
			result: null,
		};
		if (task !== undefined) stored.task = task;
		// Kept as given when small (see Given): previewed when read.
		const givenArgs = call.args === undefined ? undefined : flatCopy(call.args);
		const givenResult = call.result instanceof ForwardedResult && call.result.json.length <= this.previewChars * 4 ? call.result : undefined;
		if ((call.args === undefined || givenArgs !== undefined) && (call.result === undefined || givenResult !== undefined)) {
			stored.given = {args: givenArgs, result: givenResult, secrets: call.secrets};
		} else {
			stored.args = this.preview(call.args, call.secrets);
			stored.result = call.result === undefined ? null : this.preview(call.result, call.secrets);
		}

		if (this.ring.length < this.limit) {
			this.ring.push(stored);
		} else {
			this.ring[this.next] = stored;
			this.next = (this.next + 1) % this.limit;
		}

		for (const listener of this.listeners) listener();
		return stored;
	}

	/** A call's arguments or result as the log shows them: masked, cut to `previewChars`. */
	private preview(value: unknown, secrets: readonly string[] | undefined): string {
		return maskText(value instanceof ForwardedResult ? maskedPreviewOfJson(value.json, this.previewChars, secrets) : maskedPreview(value ?? {}, this.previewChars, secrets));
	}

	/** The call with its previews, made now if they were not yet. */
	private detail(stored: Stored): CallLogDetail {
		const given = stored.given;
		if (given !== undefined) {
			delete stored.given;
			stored.args = this.preview(given.args, given.secrets);
			stored.result = given.result === undefined ? null : this.preview(given.result, given.secrets);
		}

		return stored;
	}

	/** Tells `observer` of every call written from now on (see CallObserver); returns the unsubscribe function. */
	observe(observer: CallObserver): () => void {
		this.observers.push(observer);
		return () => {
			const at = this.observers.indexOf(observer);
			if (at >= 0) this.observers.splice(at, 1);
		};
	}

	/**
	 * Writes the one record of a tools/call (see RequestContext.record) as it
	 * ended: with its result, or with the error it failed with. A request is
	 * written once; a second write of the same one is ignored.
	 */
	write(context: Pick<RequestContext, 'record' | 'client'>, args: unknown, answer: {result: {isError?: unknown; [key: string]: unknown} | ForwardedResult} | {error: unknown}): void {
		const record = context.record;
		if (record.written) return;
		record.written = true;
		const ms = performance.now() - record.began;
		const upstream = record.upstream ?? '?';
		const tool = record.target ?? '?';
		let entry: CallLogEntry;
		// Field by field, no spreads: this runs once per call on the hot path.
		if ('result' in answer) {
			const {result} = answer;
			const task = result instanceof ForwardedResult ? (result.hasTask ? result.value()['task'] : undefined) : result['task'];
			const status = typeof task === 'object' && task !== null ? (task as {status?: unknown}).status : undefined;
			entry = this.record({at: Date.now(), client: record.caller, upstream, tool, ms, outcome: answer.result.isError === true ? 'tool-error' : 'ok', code: null, error: null, args, result: answer.result, task: typeof status === 'string' ? status : undefined});
		} else {
			const {error} = answer;
			const code = error instanceof HangarError ? error.codeName : error instanceof JsonRpcError ? String(error.code) : null;
			entry = this.record({at: Date.now(), client: record.caller, upstream, tool, ms, outcome: 'error', code, error: errorMessage(error), args, result: undefined});
		}

		for (let index = 0; index < this.observers.length; index++) this.observers[index]!(entry, context, args);
	}

	/**
	 * A task's row follows the task: its status, how long it has run, and
	 * why it failed; listeners are told (the calls view redraws).
	 */
	updateTask(seq: number, update: {status: string; ms: number; error: string | null}): void {
		const stored = this.get(seq);
		if (stored?.task === undefined) return;
		stored.task = update.status;
		stored.ms = update.ms;
		if (update.status === 'failed' || update.status === 'cancelled') {
			stored.outcome = 'error';
			stored.code = `task ${update.status}`;
			stored.error = update.error === null ? null : maskTextWithin(update.error, this.previewChars);
		}

		for (const listener of this.listeners) listener();
	}

	/** Calls `listener` after each call is logged (`logs --calls -f` waits on it); returns the unsubscribe function. */
	onRecord(listener: () => void): () => void {
		this.listeners.add(listener);
		return () => this.listeners.delete(listener);
	}

	/** The calls held, newest first, that `matches` keeps, at most `max` of them, without their arguments and results. */
	newest(max: number, matches: (entry: CallLogEntry) => boolean = () => true): CallLogEntry[] {
		const out: CallLogEntry[] = [];
		const size = this.ring.length;
		for (let index = 0; index < size && out.length < max; index++) {
			const stored = this.ring[(this.next - 1 - index + size * 2) % size]!;
			if (matches(stored)) out.push(entryOf(stored));
		}

		return out;
	}

	/** The calls held with a seq after `after`, oldest first (what `logs --calls -f` prints next), with their details. */
	after(after: number): CallLogDetail[] {
		const size = this.ring.length;
		const out: CallLogDetail[] = [];
		for (let index = 0; index < size; index++) {
			const stored = this.ring[(this.next + index) % size]!;
			if (stored.seq > after) out.push(this.detail(stored));
		}

		return out;
	}

	/** One call with its arguments and result, while it is still held. */
	get(seq: number): CallLogDetail | undefined {
		const size = this.ring.length;
		const position = seq - this.oldestSeq;
		if (size === 0 || position < 0 || position >= size) return undefined;
		const stored = this.ring[(this.start + position) % size];
		return stored?.seq === seq ? this.detail(stored) : undefined;
	}

	/** The seq of the oldest call still held (0 when none). */
	get oldestSeq(): number {
		return this.ring[this.start]?.seq ?? 0;
	}

	/** Where the oldest call sits in the ring. */
	private get start(): number {
		return this.ring.length < this.limit ? 0 : this.next;
	}
}

function entryOf(stored: Stored): CallLogEntry {
	const {args: _args, result: _result, given: _given, ...entry} = stored;
	return entry;
}

/**
 * Whether a call matches a calls-view filter: every word must appear in its
 * client, upstream, tool, outcome or code (case-insensitive), so `fx error`
 * lists fx's failed calls and `timeout` the timeouts.
 */
export function callMatches(entry: CallLogEntry, query: string): boolean {
	const words = query.toLowerCase().split(/\s+/).filter(word => word !== '');
	if (words.length === 0) return true;
	const haystack = `${entry.client} ${entry.upstream} ${entry.tool} ${entry.upstream}__${entry.tool} ${entry.outcome} ${entry.code ?? ''}${entry.task === undefined ? '' : ` task ${entry.task}`}`.toLowerCase();
	return words.every(word => haystack.includes(word));
}
