/**
 * Batches the lines written to one stream during an event-loop turn into a
 * single write. Under load a turn handles many messages (a read of a pipe
 * often carries several lines), and one write system call per message was
 * the largest single cost of the proxy path; a sequential call pays only the
 * wait until the end of the current turn (setImmediate). The end of the turn,
 * not of the current task (a microtask): over HTTP each request arrives in a
 * callback of its own, and only the turn's end joins the calls of the
 * requests read together (with a microtask flush, serve --http at 32 in
 * flight spent a third of its busy time in one write per call to the
 * upstream; see docs/performance.md).
 *
 * The first line of a turn goes out at once, though, when nothing waits
 * before it: a sequential call writes one line per turn (the request to the
 * upstream in the turn that read it from the client, the answer to the
 * client in the turn that read it from the upstream), and scheduling a
 * flush for it cost a tenth of standalone's instructions a call and a wait for the
 * turn's end on every hop. Only the lines after it wait to be joined. A
 * turn is told from the next by the count of chunks read (read-turn.ts).
 *
 * A large message (a `hangar_list` of a few hundred upstreams is ~200 KB)
 * goes out at once and on its own: batching cannot save a system call's
 * worth of anything next to it, waiting for the turn's end only delays it,
 * and joining it with the small lines around it would copy it whole into
 * yet another string of that size.
 *
 * Writes nobody waits for (a progress notification relayed from an upstream)
 * are `droppable`: once `maxQueuedBytes` wait for a reader that does not
 * read, they are dropped and counted instead of queued, so an upstream that
 * floods progress cannot grow hangar's memory through a slow client. Answers
 * are never dropped: each one is bounded by a request the client sent.
 */
import type {Writable} from 'node:stream';
import type {Backlog} from './backlog.js';
import {readTurn} from './read-turn.js';

/** From this length (UTF-16 code units) a message is written at once, by itself. */
const largeWriteLength = 16 * 1024;

/** Past this many bytes waiting to be written, droppable writes are dropped. */
export const maxQueuedBytes = 8 * 1024 * 1024;

export class CoalescingWriter {
	private pending: string[] = [];
	private pendingLength = 0;
	private scheduled = false;
	private blocked = false;
	/** readTurn's count at the last line written at once (see the module comment). */
	private immediateTurn = -1;
	private drainWaiters: Array<() => void> = [];
	/** Droppable writes dropped so far. */
	dropped = 0;

	constructor(
		private readonly stream: Writable,
		/** `backlog`: checked after each write, to stop reading a peer that lets answers pile up (backlog.ts). */
		private readonly options: {maxQueuedBytes?: number; onDrop?: (dropped: number) => void; backlog?: Backlog} = {},
	) {}

	/**
	 * Queues `data`. Undefined when the caller may go on at once; a promise
	 * that resolves once the stream drains when it is applying backpressure.
	 * Not async: a promise per line written (two per call, the upstream's and
	 * the client's) was a fair part of a call's own work, and nobody waits
	 * for a write that is not held back.
	 */
	write(data: string, droppable = false): Promise<void> | undefined {
		if (droppable && this.stream.writableLength + this.pendingLength > (this.options.maxQueuedBytes ?? maxQueuedBytes)) {
			this.dropped += 1;
			this.options.onDrop?.(this.dropped);
			return undefined;
		}

		if (data.length >= largeWriteLength) {
			// What was queued before it goes first, then the large message alone.
			this.flush();
			this.writeNow(data);
		} else if (this.pending.length === 0 && this.immediateTurn !== readTurn.count) {
			this.immediateTurn = readTurn.count;
			this.writeNow(data);
		} else {
			this.pending.push(data);
			this.pendingLength += data.length;
			if (!this.scheduled) {
				this.scheduled = true;
				setImmediate(this.flush);
			}
		}

		return this.blocked ? new Promise<void>(resolve => this.drainWaiters.push(resolve)) : undefined;
	}

	/** Writes whatever is queued now (before ending the stream, say). */
	readonly flush = (): void => {
		this.scheduled = false;
		if (this.pending.length === 0) return;
		const data = this.pending.length === 1 ? this.pending[0]! : this.pending.join('');
		this.pending = [];
		this.pendingLength = 0;
		this.writeNow(data);
	};

	private writeNow(data: string): void {
		if (this.stream.destroyed || !this.stream.writable) return;
		const took = this.stream.write(data);
		this.options.backlog?.check();
		if (!took && !this.blocked) {
			this.blocked = true;
			const release = () => {
				this.stream.off('drain', release);
				this.stream.off('close', release);
				this.blocked = false;
				for (const waiter of this.drainWaiters.splice(0)) waiter();
			};

			this.stream.on('drain', release);
			this.stream.on('close', release);
		}
	}
}
