/**
 * The `--stdio` bridge's bytes (bridge.ts): what it reads of the
 * supervisor's lines, and how it writes to its two streams.
 *
 * The supervisor checked what it writes, so the bridge forwards its lines as
 * the bytes that arrived, never decoded and encoded again; a read that holds
 * only whole lines the bridge passes on goes out as the very Buffer it came
 * in. Of each line it reads only the ends, to learn which request it answers
 * (the id sits right after `"jsonrpc":"2.0"` in hangar's own writes, and
 * last in the SDK's) or which notification it is, or whether it is a request
 * to the client (a line that starts with its method is searched for an
 * `"id":` key); a line of any other layout is decoded and parsed
 * (peekMessage). The bridge's own lines (its errors, the replayed
 * initialize, its cancellations) are strings, written in the same order.
 *
 * Both streams are written once per read: what a read from the client or
 * the supervisor makes the bridge write is held until the read is handled,
 * then written in one call, with no wait for the end of the event-loop turn
 * (write-coalescer.ts waits for it because a turn may read many HTTP
 * requests; here one read already carries all that arrived together).
 */
import type {Writable} from 'node:stream';
import {peekMessage, type Id} from '../wire/message-classifier.js';
import {Backlog} from '../wire/backlog.js';

/** What the bridge must know of a line from the supervisor. */
export type SupervisorLine =
	| {kind: 'answer'; id: Id; error: boolean}
	| {kind: 'batch'}
	/**
	 * A notification, or a request to the client (`id` set); `method` is undefined when the line has
	 * none (or is not a JSON object).
	 */
	| {kind: 'other'; method: string | undefined; id?: Id | undefined};

const quote = 0x22;
const backslash = 0x5c;
const comma = 0x2c;
const closingBrace = 0x7d;
const minus = 0x2d;

const headId = Buffer.from('{"jsonrpc":"2.0","id":');
const headMethods = [Buffer.from('{"jsonrpc":"2.0","method":"'), Buffer.from('{"method":"')];
const afterIdResult = Buffer.from(',"result"');
const afterIdError = Buffer.from(',"error"');
const resultFirst = Buffer.from('{"result":');
const errorFirst = Buffer.from('{"error":');
const tailIdKey = Buffer.from(',"id":');
const notificationsPrefix = Buffer.from('notifications/');
const idKey = Buffer.from('"id":');

function startsWithAt(bytes: Buffer, at: number, end: number, prefix: Buffer): boolean {
	if (end - at < prefix.length) return false;
	for (let index = 0; index < prefix.length; index++) if (bytes[at + index] !== prefix[index]) return false;
	return true;
}

/**
 * The index just past the JSON string token that starts at `at` (its opening
 * quote), or -1 when it does not end before `end`. Bytes of a multi-byte
 * UTF-8 character are all 0x80 or above, so they are never a quote or a
 * backslash.
 */
function stringEndAt(bytes: Buffer, at: number, end: number): number {
	for (let index = at + 1; index < end; index++) {
		const byte = bytes[index];
		if (byte === backslash) index += 1;
		else if (byte === quote) return index + 1;
	}

	return -1;
}

/** The string written from `at` to `stop` (quotes included), unescaped. */
function stringValue(bytes: Buffer, at: number, stop: number): string {
	const raw = bytes.toString('utf8', at + 1, stop - 1);
	return raw.includes('\\') ? (JSON.parse(bytes.toString('utf8', at, stop)) as string) : raw;
}

/** The id token (`-?\d+` or a string) at `at`: its value and the index past it, or undefined. */
function idAt(bytes: Buffer, at: number, end: number): {id: Id; next: number} | undefined {
	if (bytes[at] === quote) {
		const stop = stringEndAt(bytes, at, end);
		return stop === -1 ? undefined : {id: stringValue(bytes, at, stop), next: stop};
	}

	let index = bytes[at] === minus ? at + 1 : at;
	const digits = index;
	let value = 0;
	while (index < end && bytes[index]! >= 0x30 && bytes[index]! <= 0x39) value = value * 10 + (bytes[index++]! - 0x30);
	if (index === digits) return undefined;
	// Read in place while exact (below 2^53; a supervisor's ids are); a longer number as Number() reads it.
	if (!Number.isSafeInteger(value)) value = Number(bytes.toString('latin1', digits, index));
	return {id: digits === at ? value : -value, next: index};
}

/** The number id of a line that ends with `,"id":N}`, or undefined (a string id, another end). */
function tailNumberId(bytes: Buffer, start: number, end: number): Id | undefined {
	if (bytes[end - 1] !== closingBrace) return undefined;
	let index = end - 2;
	while (index > start && bytes[index]! >= 0x30 && bytes[index]! <= 0x39) index--;
	if (bytes[index] === minus) index--;
	const key = index + 1 - tailIdKey.length;
	if (key <= start || !startsWithAt(bytes, key, end, tailIdKey)) return undefined;
	const id = idAt(bytes, key + tailIdKey.length, end);
	return id?.next === end - 1 ? id.id : undefined;
}

/**
 * Reads what the bridge needs of one line from the supervisor, `bytes` from
 * `start` to `end` (no newline). Only layouts whose ends are unambiguous in
 * valid JSON are read from the ends: a key right after the opening brace is
 * a member of the outermost object, and so is a `,"id":N}` that ends the
 * line (`,"id":` cannot occur inside a string, whose quotes are escaped).
 * A request to the client (hangar's own layout puts its id right after
 * `"jsonrpc":"2.0"`, the SDK's last) is rare: one whose ends say less is parsed.
 */
export function readSupervisorLine(bytes: Buffer, start: number, end: number): SupervisorLine {
	if (bytes[start] === 0x5b /* [ */) return {kind: 'batch'};
	if (startsWithAt(bytes, start, end, headId)) {
		const id = idAt(bytes, start + headId.length, end);
		if (id !== undefined) {
			if (startsWithAt(bytes, id.next, end, afterIdResult)) return {kind: 'answer', id: id.id, error: false};
			if (startsWithAt(bytes, id.next, end, afterIdError)) return {kind: 'answer', id: id.id, error: true};
		}
	} else if (startsWithAt(bytes, start, end, resultFirst) || startsWithAt(bytes, start, end, errorFirst)) {
		const key = bytes.lastIndexOf(tailIdKey, end - tailIdKey.length);
		if (key > start && bytes[end - 1] === closingBrace) {
			const id = idAt(bytes, key + tailIdKey.length, end);
			if (id?.next === end - 1) return {kind: 'answer', id: id.id, error: bytes[start + 2] === 0x65 /* e of "error" */};
		}
	} else {
		for (const head of headMethods) {
			if (!startsWithAt(bytes, start, end, head)) continue;
			const at = start + head.length - 1;
			const stop = stringEndAt(bytes, at, end);
			// The method must be followed by another member or the end of the object.
			if (stop === -1 || (bytes[stop] !== comma && bytes[stop] !== closingBrace)) break;
			// A notifications/ method, or no `"id":` anywhere: a notification (its params may hold an "id", a log's data say).
			// A number id that ends the line is the request's (the SDK's layout).
			if (startsWithAt(bytes, at + 1, stop, notificationsPrefix) || bytes.subarray(stop, end).indexOf(idKey) === -1) return {kind: 'other', method: stringValue(bytes, at, stop)};
			const id = tailNumberId(bytes, start, end);
			if (id !== undefined) return {kind: 'other', method: stringValue(bytes, at, stop), id};
			break;
		}
	}

	const peek = peekMessage(bytes.toString('utf8', start, end));
	if (peek?.response === true && peek.id !== undefined) return {kind: 'answer', id: peek.id, error: peek.error};
	return {kind: 'other', method: peek?.method, id: peek?.method === undefined ? undefined : peek.id};
}

/** A byte limit on a line: a longer one is discarded as it streams in, and `onDiscarded` told its start and size. */
export type LineLimit = {maxBytes: number; onDiscarded: (prefix: string, bytes: number) => void};

/** How much of a discarded line's start is kept to find its id (as line-splitter.ts keeps). */
const discardedPrefixLength = 1024;

/**
 * Splits a stream into lines and forwards the ones `onLine` passes (it
 * returns true) as the bytes that came, each as a slice of its read (an
 * Outlet holding them joins the slices of one read back into it). A line
 * that spans reads is joined once, when its newline comes. A line `onLine`
 * keeps (returns false) it handles itself: the bridge answers it, hides
 * it, or writes something else. With a limit, a longer line is discarded
 * as it streams in, keeping only its first kilobyte.
 */
export class ByteLines {
	private carried: Buffer[] = [];
	private carriedBytes = 0;
	private discarding: {prefix: string; bytes: number} | undefined;

	constructor(
		private readonly onLine: (bytes: Buffer, start: number, end: number) => boolean,
		private readonly forward: (bytes: Buffer) => void,
		private readonly limit?: LineLimit,
	) {}

	write(chunk: Buffer): void {
		let start = 0;
		if (this.discarding !== undefined || this.carried.length > 0) {
			const newline = chunk.indexOf(0x0a);
			if (newline === -1) {
				this.carry(chunk);
				return;
			}

			this.carry(chunk.subarray(0, newline + 1));
			this.endCarried(true);
			start = newline + 1;
		}

		const maxBytes = this.limit?.maxBytes ?? Infinity;
		// A read that ends with its last line's newline (the usual one) is not searched past it.
		while (start < chunk.length) {
			const newline = chunk.indexOf(0x0a, start);
			if (newline === -1) break;
			if (newline - start > maxBytes) this.limit!.onDiscarded(prefixOf([chunk.subarray(start, newline)]), newline - start);
			else this.take(chunk, start, newline, newline + 1);
			start = newline + 1;
		}

		if (start < chunk.length) this.carry(chunk.subarray(start));
	}

	/** Passes on an unterminated last line (the stream ended without a newline). */
	flush(): void {
		if (this.discarding !== undefined || this.carried.length > 0) this.endCarried(false);
	}

	/** Keeps the start of an unfinished line, or counts it once it is being discarded. */
	private carry(piece: Buffer): void {
		if (this.discarding !== undefined) {
			this.discarding.bytes += piece.length;
			return;
		}

		this.carried.push(piece);
		this.carriedBytes += piece.length;
		// The newline (if the piece ends with it) is not part of the line.
		const lineBytes = this.carriedBytes - (piece[piece.length - 1] === 0x0a ? 1 : 0);
		if (this.limit !== undefined && lineBytes > this.limit.maxBytes) {
			this.discarding = {prefix: prefixOf(this.carried), bytes: this.carriedBytes};
			this.carried = [];
			this.carriedBytes = 0;
		}
	}

	/** The carried line is complete: with its newline (`terminated`) or at the end of the stream. */
	private endCarried(terminated: boolean): void {
		if (this.discarding !== undefined) {
			const {prefix, bytes} = this.discarding;
			this.discarding = undefined;
			this.limit!.onDiscarded(prefix, bytes - (terminated ? 1 : 0));
			return;
		}

		const line = this.carried.length === 1 ? this.carried[0]! : Buffer.concat(this.carried);
		this.carried = [];
		this.carriedBytes = 0;
		if (terminated) this.take(line, 0, line.length - 1, line.length);
		else this.take(Buffer.concat([line, newlineBytes]), 0, line.length, line.length + 1);
	}

	/**
	 * One line, `start` to `end`, its newline up to `next`: forwarded as it
	 * came when onLine passes it. A `\r` before the newline is dropped, as for
	 * every line hangar reads, and a blank line is skipped.
	 */
	private take(bytes: Buffer, start: number, end: number, next: number): void {
		if (end > start && bytes[end - 1] === 0x0d) {
			if (end - 1 > start && this.onLine(bytes, start, end - 1)) this.forward(Buffer.concat([bytes.subarray(start, end - 1), newlineBytes]));
			return;
		}

		if (end > start && this.onLine(bytes, start, end)) this.forward(start === 0 && next === bytes.length ? bytes : bytes.subarray(start, next));
	}
}

/** The first kilobyte of a line, as text (a character cut at its end is the reader's problem, see idTextOfPrefix). */
function prefixOf(pieces: Buffer[]): string {
	// Enough bytes for a kilobyte of characters of up to four bytes, joined before decoding (a character may span pieces).
	const start: Buffer[] = [];
	let bytes = 0;
	for (const piece of pieces) {
		start.push(piece.subarray(0, 4 * discardedPrefixLength - bytes));
		bytes += start.at(-1)!.length;
		if (bytes >= 4 * discardedPrefixLength) break;
	}

	return Buffer.concat(start).toString('utf8').slice(0, discardedPrefixLength);
}

const newlineBytes = Buffer.from('\n');

/** From this many bytes (or UTF-16 code units) a write goes out on its own, never joined with what is held. */
const largeWrite = 16 * 1024;

/**
 * One of the bridge's two streams. A write goes out at once, except while
 * the bridge handles a read (hold ... release): then the writes are joined
 * and go out as one when it is handled.
 */
export class Outlet {
	private held: Array<string | Buffer> | undefined;
	/** The array of the last hold, kept for the next (a hold per read, on every read). */
	private spare: Array<string | Buffer> | undefined;

	/** `backlog`: checked after each write, to stop reading what feeds a peer that does not read (core/wire/backlog.ts). */
	constructor(
		private readonly stream: Writable,
		readonly backlog?: Backlog,
	) {}

	write(data: string | Buffer): void {
		if (this.held === undefined) {
			this.writeNow(data);
			return;
		}

		const last = this.held.at(-1);
		if (typeof data !== 'string' && typeof last !== 'string' && last !== undefined && last.buffer === data.buffer && last.byteOffset + last.length === data.byteOffset) {
			// The next slice of the same read: the two are one slice of it (no copy).
			this.held[this.held.length - 1] = Buffer.from(data.buffer, last.byteOffset, last.length + data.length);
		} else if (data.length >= largeWrite) {
			// Joining a large message with the small ones around it would copy it whole again.
			this.flush();
			this.writeNow(data);
		} else {
			this.held.push(data);
		}
	}

	/** An outlet to `stream` that tells `onBacklog` when `stream` becomes backlogged (true) and when it drained (false). */
	static pausing(stream: Writable, onBacklog: (backlogged: boolean) => void, limit?: number): Outlet {
		return new Outlet(stream, new Backlog(stream, onBacklog, limit));
	}

	/** Runs `work` (the handling of one read) holding the writes of both outlets, then writes what each holds. */
	static holdingDuring(first: Outlet | undefined, second: Outlet, work: () => void): void {
		first?.hold();
		second.hold();
		try {
			work();
		} finally {
			first?.release();
			second.release();
		}
	}

	/** Holds the writes until release. */
	hold(): void {
		if (this.held !== undefined) return;
		this.held = this.spare ?? [];
		this.spare = undefined;
	}

	/** Writes what is held and stops holding. */
	release(): void {
		// A write that the flush's own write caused (an error it handles) is held meanwhile: written too, never dropped.
		while (this.held !== undefined && this.held.length > 0) this.flush();
		this.spare = this.held;
		this.held = undefined;
	}

	/** Writes what is held now (before ending the stream, say); still holding after. */
	flush(): void {
		const held = this.held;
		if (held === undefined || held.length === 0) return;
		const data = held.length === 1 ? held[0]! : held.every(piece => typeof piece === 'string') ? held.join('') : Buffer.concat(held.map(piece => (typeof piece === 'string' ? Buffer.from(piece) : piece)));
		// Emptied before the write: what the write makes the bridge write (an error it handles) is held after it.
		held.length = 0;
		this.writeNow(data);
	}

	private writeNow(data: string | Buffer): void {
		if (this.stream.destroyed || !this.stream.writable) return;
		this.stream.write(data);
		this.backlog?.check();
	}
}
