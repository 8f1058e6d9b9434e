/**
 * Splits a stream of text into lines (newline-delimited JSON-RPC) with a
 * byte limit per line: a line that grows past the limit is discarded as it
 * streams in, keeping only its first kilobyte (to find its id), so one huge
 * message cannot grow memory without bound.
 */
export class LineSplitter {
	private chunks: string[] = [];
	private size = 0;
	private discarding: {prefix: string; bytes: number} | undefined;

	constructor(
		private readonly maxBytes: number,
		private readonly onLine: (line: string) => void,
		private readonly onOversize: (prefix: string, bytes: number) => void,
	) {}

	push(chunk: string): void {
		let start = 0;
		while (start < chunk.length) {
			const newline = chunk.indexOf('\n', start);
			const piece = chunk.slice(start, newline === -1 ? chunk.length : newline);
			start = newline === -1 ? chunk.length : newline + 1;

			if (this.discarding !== undefined) {
				this.discarding.bytes += Buffer.byteLength(piece, 'utf8');
			} else {
				this.chunks.push(piece);
				// The limit is in bytes: a character outside ASCII takes 2-4 of them.
				this.size += this.maxBytes === Infinity ? 0 : Buffer.byteLength(piece, 'utf8');
				if (this.size > this.maxBytes) {
					this.discarding = {prefix: this.chunks.join('').slice(0, 1024), bytes: this.size};
					this.chunks = [];
					this.size = 0;
				}
			}

			if (newline !== -1) this.endLine();
		}
	}

	private endLine(): void {
		if (this.discarding !== undefined) {
			const {prefix, bytes} = this.discarding;
			this.discarding = undefined;
			this.onOversize(prefix, bytes);
			return;
		}

		const line = this.chunks.length === 1 ? this.chunks[0]! : this.chunks.join('');
		this.chunks = [];
		this.size = 0;
		const trimmed = line.endsWith('\r') ? line.slice(0, -1) : line;
		if (trimmed.trim() === '') return;
		this.onLine(trimmed);
	}
}
