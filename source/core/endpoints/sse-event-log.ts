/**
 * The resume window of one HTTP session: the SSE events it sent lately, so a
 * client whose event stream broke can ask for what it missed with
 * `Last-Event-ID` (MCP 2025-11-25, "Resumability and Redelivery").
 *
 * Every event id names its stream and a session-wide sequence number,
 * `<stream>-<seq>`: stream 0 is the session's GET stream, every POST answered
 * as an event stream gets the next number. A resume replays only the events
 * of the stream the id names, after it, and only from this session's log:
 * nothing from another stream or session is ever replayed.
 *
 * The window is bounded by `resumeWindow` in events and in bytes per
 * session, and in bytes for all the sessions of the endpoint together,
 * whatever clients do: the oldest events go first, and a resume from before an event
 * of its stream that was let go is refused as expired rather than replayed
 * with a hole. What is kept per stream (a few numbers) lives only while the
 * stream has events in the window or is still open.
 */

/** How much of a session's event traffic stays replayable. */
export const resumeWindow = {
	/** Events kept per session. */
	events: 1000,
	/** Bytes of event text kept per session; one event larger than this is sent but never replayable. */
	bytes: 4 * 1024 * 1024,
	/** Bytes kept by all the sessions of one endpoint together: past it, a session makes room by letting its own oldest events go. */
	totalBytes: 64 * 1024 * 1024,
} as const;

/** The bytes all the logs of one endpoint hold, shared by them. */
export type ResumeBudget = {used: number; limit: number};

export function resumeBudget(limit: number = resumeWindow.totalBytes): ResumeBudget {
	return {used: 0, limit};
}

/** What a client is told to wait before it reconnects a broken stream (the SSE `retry` field), in ms. */
export const retryMs = 1000;

type Entry = {seq: number; stream: number; text: string; bytes: number};

type StreamInfo = {
	/** Its events in the window. */
	held: number;
	/** The highest seq of its events that left the window (or never entered it); 0: none. */
	lostUpTo: number;
	/** Its last event's seq. */
	lastSeq: number;
	/** No event will follow (answered or cancelled). */
	finished: boolean;
};

export type Replay = {texts: string[]; finished: boolean} | {problem: string};

export class SseEventLog {
	/** Oldest first; `head` is the first live entry (shifted lazily). */
	private entries: Entry[] = [];
	private head = 0;
	private bytes = 0;
	private nextSeq = 1;
	private readonly streams = new Map<number, StreamInfo>();

	constructor(
		private readonly limits: {events: number; bytes: number} = resumeWindow,
		private readonly budget: ResumeBudget = resumeBudget(),
	) {}

	/** Events held right now (for tests and the log). */
	get size(): {events: number; bytes: number; streams: number} {
		return {events: this.entries.length - this.head, bytes: this.bytes, streams: this.streams.size};
	}

	/** Records one event of `stream`, `text` being its whole SSE text after the id line, and returns the id to send with it. */
	append(stream: number, text: string): string {
		const seq = this.nextSeq++;
		let info = this.streams.get(stream);
		if (info === undefined) {
			info = {held: 0, lostUpTo: 0, lastSeq: 0, finished: false};
			this.streams.set(stream, info);
		}

		info.lastSeq = seq;
		const bytes = Buffer.byteLength(text);
		if (bytes > this.limits.bytes) {
			info.lostUpTo = seq;
			return `${stream}-${seq}`;
		}

		this.entries.push({seq, stream, text, bytes});
		info.held += 1;
		this.bytes += bytes;
		this.budget.used += bytes;
		while (this.entries.length > this.head && (this.entries.length - this.head > this.limits.events || this.bytes > this.limits.bytes || this.budget.used > this.budget.limit)) {
			this.evictOldest();
		}

		return `${stream}-${seq}`;
	}

	/** No more events on `stream`: what it holds stays replayable until it leaves the window. */
	finish(stream: number): void {
		const info = this.streams.get(stream);
		if (info === undefined) return;
		info.finished = true;
		if (info.held === 0) this.streams.delete(stream);
	}

	/** The stream an event id names, or undefined when it is not an id of this log's form. */
	static streamOf(id: string): {stream: number; seq: number} | undefined {
		const match = /^(\d{1,15})-(\d{1,15})$/.exec(id);
		if (match === null) return undefined;
		return {stream: Number(match[1]), seq: Number(match[2])};
	}

	/** The events of the stream `id` names that came after it, or why they cannot be replayed. */
	after(id: string): Replay {
		const at = SseEventLog.streamOf(id);
		const window = `the last ${this.limits.events} events or ${this.limits.bytes} bytes of this session`;
		if (at === undefined) return {problem: `Last-Event-ID ${JSON.stringify(id)} is not an event id this endpoint sent; resume with the id of the last event received on this session`};
		const info = this.streams.get(at.stream);
		if (info === undefined || at.seq > info.lastSeq || at.seq < 1) {
			return {problem: `Last-Event-ID ${id} names no stream of this session that can still be resumed (its events are no longer within ${window}, or it was never sent); send the request again`};
		}

		if (at.seq < info.lostUpTo) return {problem: `Last-Event-ID ${id} is too old: events after it left the resume window (${window}); send the request again`};
		const texts: string[] = [];
		for (let index = this.head; index < this.entries.length; index++) {
			const entry = this.entries[index]!;
			if (entry.stream === at.stream && entry.seq > at.seq) texts.push(`id: ${at.stream}-${entry.seq}\n${entry.text}`);
		}

		return {texts, finished: info.finished};
	}

	/** Lets every event go (the session ended), giving its bytes back to the endpoint's budget. */
	clear(): void {
		this.budget.used -= this.bytes;
		this.bytes = 0;
		this.entries = [];
		this.head = 0;
		this.streams.clear();
	}

	private evictOldest(): void {
		const entry = this.entries[this.head]!;
		this.entries[this.head] = undefined as unknown as Entry;
		this.head += 1;
		if (this.head > 1024 && this.head * 2 > this.entries.length) {
			this.entries = this.entries.slice(this.head);
			this.head = 0;
		}

		this.bytes -= entry.bytes;
		this.budget.used -= entry.bytes;
		const info = this.streams.get(entry.stream)!;
		info.held -= 1;
		info.lostUpTo = entry.seq;
		if (info.held === 0 && info.finished) this.streams.delete(entry.stream);
	}
}
