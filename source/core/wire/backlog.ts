/**
 * How hangar stops reading a peer that does not read what it is sent.
 *
 * A client may send requests and never read their answers (a stuck client,
 * a hostile one, a script that writes everything before it reads). Every
 * answer then waits in memory, in the process that writes to that client:
 * the shared daemon, or the client's own bridge. So each writer to a peer
 * watches how much waits for it; past `backlogBytes` it says so, and the
 * side that produces what it writes stops reading until the peer has read
 * it all (the stream's 'drain') or is gone:
 *
 * - the daemon's and standalone's line transport stop reading that
 *   client's requests (other clients are not affected);
 * - the bridge stops reading the supervisor's socket and the client's stdin
 *   while its stdout is backlogged (the client's own writes stall then, and
 *   the daemon's backlog for that connection holds what it still has for
 *   it), and the client's stdin while the socket is: the chain reaches the
 *   daemon as the same pause.
 *
 * The limit is far above what one burst of answers holds (the streams' own
 * high-water mark is 16 KiB): a slow reader is not slowed further, only one
 * that let megabytes pile up. A peer that writes everything before it reads
 * anything is also stopped, as it would be by a full pipe.
 */
import type {Readable, Writable} from 'node:stream';

/** Past this many bytes waiting for a peer, what feeds its writer is paused. */
export const backlogBytes = 8 * 1024 * 1024;

export class Backlog {
	/** Whether more than the limit waits for the peer now. */
	backlogged = false;

	constructor(
		private readonly stream: Writable,
		/** Told true when the backlog passes the limit, false once the stream drained or closed. */
		private readonly onChange: (backlogged: boolean) => void,
		private readonly limit = backlogBytes,
	) {}

	/** Checks the stream after a write. */
	check(): void {
		if (this.backlogged || this.stream.writableLength <= this.limit) return;
		this.backlogged = true;
		const release = () => {
			this.stream.off('drain', release);
			this.stream.off('close', release);
			this.backlogged = false;
			this.onChange(false);
		};

		// Past the limit, the stream's last write returned false: 'drain' follows once the peer read it all.
		this.stream.on('drain', release);
		this.stream.on('close', release);
		this.onChange(true);
	}
}

/**
 * A stream that more than one backlog pauses (the bridge's stdin: by its
 * stdout's and by the supervisor socket's): paused while any holds it,
 * read again once the last lets go. Each Backlog tells it true once, then
 * false once.
 */
export class ReadGate {
	private holds = 0;

	constructor(private readonly stream: Readable) {}

	hold(held: boolean): void {
		this.holds += held ? 1 : -1;
		if (held && this.holds === 1) this.stream.pause();
		else if (!held && this.holds === 0) this.stream.resume();
	}
}
