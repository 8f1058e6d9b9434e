/**
 * A bounded, line-oriented log for one upstream: child stderr, non-protocol
 * stdout and hangar's own notes about it. Old lines fall off the front, so a
 * chatty child can never grow hangar's memory without bound.
 */

export type LogLine = {at: number; source: 'stderr' | 'stdout' | 'hangar'; text: string};

export class LogBuffer {
	private readonly lines: LogLine[] = [];
	private readonly listeners = new Set<(line: LogLine) => void>();
	private dropped = 0;

	constructor(
		private readonly limit = 500,
		private readonly maxLineLength = 2000,
	) {}

	push(source: LogLine['source'], text: string, at = Date.now()): void {
		const line: LogLine = {
			at,
			source,
			text: text.length > this.maxLineLength ? `${text.slice(0, this.maxLineLength)}… (${text.length} chars)` : text,
		};
		this.lines.push(line);
		if (this.lines.length > this.limit) {
			this.lines.shift();
			this.dropped += 1;
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

	get droppedLines(): number {
		return this.dropped;
	}

	onLine(listener: (line: LogLine) => void): () => void {
		this.listeners.add(listener);
		return () => this.listeners.delete(listener);
	}
}
