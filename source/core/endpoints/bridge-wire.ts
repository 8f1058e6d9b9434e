/**
 * The `--stdio` bridge's bytes (bridge.ts): what it reads of the
 * supervisor's lines, and how it writes to its two streams.
 *
 * The supervisor checked what it writes, so the bridge forwards its lines as
 * the bytes that arrived, never decoded and encoded again; a read that holds
 * only whole lines the bridge passes on goes out as the very Buffer it came
 * in. Of each line it reads only the ends, to learn which request it answers
 * (the id sits right after `"jsonrpc":"2.0"` in hangar's own writes, and
 * last in the SDK's) or which notification it is; a line of any other
 * layout is decoded and parsed (peekMessage). The bridge's own lines (its
 * errors, the replayed initialize) are strings, written in the same order.
 *
 * Both streams are written once per read: what a read from the client or
 * the supervisor makes the bridge write is held until the read is handled,
 * then written in one call, with no wait for the end of the event-loop turn
 * (write-coalescer.ts waits for it because a turn may read many HTTP
 * requests; here one read already carries all that arrived together).
 */
import type {Writable} from 'node:stream';
import {peekMessage, type Id} from '../wire/message-classifier.js';

/** What the bridge must know of a line from the supervisor. */
export type SupervisorLine =
	| {kind: 'answer'; id: Id; error: boolean}
	| {kind: 'batch'}
	/** A notification or a request to the client; `method` is undefined when the line has none (or is not a JSON object). */
	| {kind: 'other'; method: string | undefined};

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
	while (index < end && bytes[index]! >= 0x30 && bytes[index]! <= 0x39) index += 1;
	if (index === digits) return undefined;
	return {id: Number(bytes.toString('latin1', at, index)), next: index};
}

/**
 * Reads what the bridge needs of one line from the supervisor, `bytes` from
 * `start` to `end` (no newline). Only layouts whose ends are unambiguous in
 * valid JSON are read from the ends: a key right after the opening brace is
 * a member of the outermost object, and so is a `,"id":N}` that ends the
 * line (`,"id":` cannot occur inside a string, whose quotes are escaped).
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
			if (stop !== -1 && (bytes[stop] === comma || bytes[stop] === closingBrace)) return {kind: 'other', method: stringValue(bytes, at, stop)};
		}
	}

	const peek = peekMessage(bytes.toString('utf8', start, end));
	if (peek?.response === true && peek.id !== undefined) return {kind: 'answer', id: peek.id, error: peek.error};
	return {kind: 'other', method: peek?.method};
}

/**
 * Splits the supervisor's stream into lines and forwards the ones `onLine`
 * passes (it returns true) as the bytes that came: consecutive passed lines
 * of one read go on as one slice of it. A line that spans reads is joined
 * once, when its newline comes. A line `onLine` keeps (returns false) it
 * handles itself: the bridge hides it, or writes something else.
 */
export class SupervisorLines {
	private carried: Buffer[] = [];

	constructor(
		private readonly onLine: (bytes: Buffer, start: number, end: number) => boolean,
		private readonly forward: (bytes: Buffer) => void,
	) {}

	write(chunk: Buffer): void {
		let start = 0;
		if (this.carried.length > 0) {
			const newline = chunk.indexOf(0x0a);
			if (newline === -1) {
				this.carried.push(chunk);
				return;
			}

			const line = Buffer.concat([...this.carried, chunk.subarray(0, newline + 1)]);
			this.carried = [];
			const taken = this.take(line, 0, line.length - 1);
			if (taken !== false) this.forward(taken === true ? line : taken);
			start = newline + 1;
		}

		// The start of a run of passed lines not yet forwarded.
		let run = start;
		for (;;) {
			const newline = chunk.indexOf(0x0a, start);
			if (newline === -1) break;
			const taken = this.take(chunk, start, newline);
			if (taken !== true) {
				if (start > run) this.forward(chunk.subarray(run, start));
				run = newline + 1;
				if (taken !== false) this.forward(taken);
			}

			start = newline + 1;
		}

		if (start > run) this.forward(run === 0 && start === chunk.length ? chunk : chunk.subarray(run, start));
		if (start < chunk.length) this.carried.push(chunk.subarray(start));
	}

	/**
	 * Whether the line passes as it came (true), is kept (false), or passes
	 * rewritten (the bytes to forward instead): a `\r` before its newline is
	 * dropped, as for every line hangar reads, and a blank line is kept.
	 */
	private take(bytes: Buffer, start: number, end: number): boolean | Buffer {
		if (end > start && bytes[end - 1] === 0x0d) {
			const passed = end - 1 > start && this.onLine(bytes, start, end - 1);
			return passed ? Buffer.concat([bytes.subarray(start, end - 1), newlineBytes]) : false;
		}

		return end > start && this.onLine(bytes, start, end);
	}
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

	constructor(private readonly stream: Writable) {}

	write(data: string | Buffer): void {
		if (this.held === undefined) {
			this.writeNow(data);
		} else if (data.length >= largeWrite) {
			// Joining a large message with the small ones around it would copy it whole again.
			this.flush();
			this.writeNow(data);
		} else {
			this.held.push(data);
		}
	}

	/** Runs `work` (the handling of one read) holding the writes of `outlets`, then writes what each holds. */
	static holdingDuring(outlets: Array<Outlet | undefined>, work: () => void): void {
		for (const outlet of outlets) outlet?.hold();
		try {
			work();
		} finally {
			for (const outlet of outlets) outlet?.release();
		}
	}

	/** Holds the writes until release. */
	hold(): void {
		this.held ??= [];
	}

	/** Writes what is held and stops holding. */
	release(): void {
		this.flush();
		this.held = undefined;
	}

	/** Writes what is held now (before ending the stream, say); still holding after. */
	flush(): void {
		const held = this.held;
		if (held === undefined || held.length === 0) return;
		this.held = [];
		if (held.length === 1) this.writeNow(held[0]!);
		else if (held.every(piece => typeof piece === 'string')) this.writeNow(held.join(''));
		else this.writeNow(Buffer.concat(held.map(piece => (typeof piece === 'string' ? Buffer.from(piece) : piece))));
	}

	private writeNow(data: string | Buffer): void {
		if (this.stream.destroyed || !this.stream.writable) return;
		this.stream.write(data);
	}
}
