/**
 * Splits a stream of text into lines: newline-delimited JSON-RPC from a
 * client or an upstream, and the lines of an upstream's stderr. A `\r`
 * before the newline is dropped; every line, blank ones included, is passed
 * on (what a blank line means is the reader's business).
 *
 * A line may have a byte limit, and each use says what happens past it:
 * JSON-RPC input discards the line as it streams in, keeping only its first
 * kilobyte (to find its id), so one huge message cannot grow memory without
 * bound and half a message is never read as a whole one; a log splits the
 * runaway line into pieces, since every part of it is worth showing. Without
 * a limit (a peer hangar trusts, e.g. its own supervisor) lines may be of any
 * length.
 */

import {readTurn} from './read-turn.js';

export type Overflow =
	| {maxBytes: number; policy: 'discard'; onDiscarded: (prefix: string, bytes: number, suffix: string) => void}
	| {maxBytes: number; policy: 'split'};

/** How much of a discarded line's start and end is kept to find its id (the SDK writes an answer's id last). */
const discardedPrefixLength = 1024;

export class LineSplitter {
	// The pieces of the unfinished line, joined once when it ends: re-scanning
	// a growing string on every chunk made long lines quadratic.
	private chunks: string[] = [];
	/** Bytes of the first `measured` chunks; the characters of the rest, `unmeasured` (see write). */
	private size = 0;
	private measured = 0;
	private unmeasured = 0;
	private discarding: {prefix: string; bytes: number; suffix: string} | undefined;
	/** The current line was split (policy 'split'): an empty rest is not a line of its own. */
	private split = false;
	private readonly maxBytes: number;

	constructor(
		private readonly onLine: (line: string) => void,
		private readonly overflow?: Overflow,
	) {
		this.maxBytes = overflow?.maxBytes ?? Infinity;
	}

	write(chunk: string): void {
		readTurn.count += 1;
		let start = 0;
		while (start < chunk.length) {
			const newline = chunk.indexOf('\n', start);
			const piece = chunk.slice(start, newline === -1 ? chunk.length : newline);
			start = newline === -1 ? chunk.length : newline + 1;

			if (this.discarding !== undefined) {
				this.discarding.bytes += Buffer.byteLength(piece, 'utf8');
				this.discarding.suffix = (this.discarding.suffix + piece.slice(-discardedPrefixLength)).slice(-discardedPrefixLength);
			} else if (piece !== '') {
				this.chunks.push(piece);
				// The limit is in bytes, and a UTF-16 unit takes at most 3 of them: the pieces are measured
				// (each once) only when that bound could pass the limit, not every line that stays far below it.
				if (this.maxBytes !== Infinity) {
					this.unmeasured += piece.length;
					if (this.size + this.unmeasured * 3 > this.maxBytes) {
						for (; this.measured < this.chunks.length; this.measured++) this.size += Buffer.byteLength(this.chunks[this.measured]!, 'utf8');
						this.unmeasured = 0;
						if (this.size > this.maxBytes) this.overflowed();
					}
				}
			}

			if (newline !== -1) this.endLine();
		}
	}

	/** Passes on an unterminated last line (the stream ended without a newline). */
	flush(): void {
		if (this.discarding !== undefined || this.chunks.length > 0) this.endLine();
	}

	private overflowed(): void {
		const overflow = this.overflow!;
		if (overflow.policy === 'split') {
			this.emit(this.take());
			this.split = true;
			return;
		}

		// Only the ends are kept: joining the pieces of a line at the limit would copy up to the limit once more.
		const bytes = this.size;
		let prefix = '';
		for (const chunk of this.chunks) {
			prefix += chunk.slice(0, discardedPrefixLength - prefix.length);
			if (prefix.length >= discardedPrefixLength) break;
		}

		let suffix = '';
		for (let index = this.chunks.length - 1; index >= 0 && suffix.length < discardedPrefixLength; index--) suffix = this.chunks[index]!.slice(-(discardedPrefixLength - suffix.length)) + suffix;
		this.chunks = [];
		this.size = 0;
		this.measured = 0;
		this.unmeasured = 0;
		this.discarding = {prefix, bytes, suffix};
	}

	private endLine(): void {
		if (this.discarding !== undefined) {
			const {prefix, bytes, suffix} = this.discarding;
			this.discarding = undefined;
			(this.overflow as Extract<Overflow, {policy: 'discard'}>).onDiscarded(prefix, bytes, suffix);
			return;
		}

		const rest = this.take();
		if (!(this.split && rest === '')) this.emit(rest);
		this.split = false;
	}

	private emit(line: string): void {
		this.onLine(line.endsWith('\r') ? line.slice(0, -1) : line);
	}

	private take(): string {
		const line = this.chunks.length === 1 ? this.chunks[0]! : this.chunks.join('');
		this.chunks = [];
		this.size = 0;
		this.measured = 0;
		this.unmeasured = 0;
		return line;
	}
}
