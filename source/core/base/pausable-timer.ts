/**
 * A one-shot timer that can be paused and resumed, keeping the time it had
 * left. A call's deadline is one: it stops while the upstream waits for a
 * client to answer a request of its own (an elicitation waits for a person),
 * and goes on from where it was once the answer is in.
 */
export class PausableTimer {
	private timer: NodeJS.Timeout | undefined;
	private remaining: number;
	private startedAt = 0;
	private done = false;

	constructor(
		ms: number,
		private readonly fire: () => void,
		paused = false,
	) {
		this.remaining = ms;
		if (!paused) this.run();
	}

	get paused(): boolean {
		return !this.done && this.timer === undefined;
	}

	/** The time left, as of now. */
	get left(): number {
		return this.timer === undefined ? this.remaining : Math.max(0, this.remaining - (performance.now() - this.startedAt));
	}

	pause(): void {
		if (this.done || this.timer === undefined) return;
		clearTimeout(this.timer);
		this.timer = undefined;
		this.remaining = Math.max(0, this.remaining - (performance.now() - this.startedAt));
	}

	resume(): void {
		if (this.done || this.timer !== undefined) return;
		this.run();
	}

	/** Stops it for good; it never fires afterwards. */
	clear(): void {
		this.done = true;
		clearTimeout(this.timer);
		this.timer = undefined;
	}

	private run(): void {
		this.startedAt = performance.now();
		this.timer = setTimeout(() => {
			this.timer = undefined;
			this.done = true;
			this.fire();
		}, this.remaining);
	}
}
