/**
 * Restart intensity, as OTP and systemd do it: at most `maxRestarts`
 * automatic restarts within `windowMs`; the crash after that leaves the
 * upstream dead until a person starts it. The delay before each automatic restart grows with the number of
 * crashes still inside the window (min doubling to max), so it resets by
 * itself once the upstream has run long enough without crashing.
 */

export type RestartPolicyOptions = {
	maxRestarts: number;
	windowMs: number;
	minDelayMs: number;
	maxDelayMs: number;
};

export class RestartPolicy {
	private crashes: number[] = [];

	constructor(private readonly options: RestartPolicyOptions) {}

	/** Records a crash; returns the delay before the next restart, or undefined when the budget is spent. */
	recordCrash(now: number): number | undefined {
		this.prune(now);
		this.crashes.push(now);
		if (this.crashes.length > this.options.maxRestarts) return undefined;
		const exponent = this.crashes.length - 1;
		return Math.min(this.options.maxDelayMs, this.options.minDelayMs * 2 ** exponent);
	}

	/**
	 * The delay before retrying a start that failed because hangar itself ran
	 * out of a resource (EMFILE, ENFILE, EAGAIN, ENOMEM at spawn): not the
	 * upstream's crash, so it spends no budget and is retried for as long as
	 * the shortage lasts, at the longest backoff but at most every 10 s, so it
	 * starts soon after the resource is back.
	 */
	get shortageDelayMs(): number {
		return Math.min(this.options.maxDelayMs, Math.max(this.options.minDelayMs, 10_000));
	}

	get budget(): {maxRestarts: number; windowMs: number} {
		return {maxRestarts: this.options.maxRestarts, windowMs: this.options.windowMs};
	}

	/** A person started the upstream: give it a fresh budget. */
	reset(): void {
		this.crashes = [];
	}

	private prune(now: number): void {
		const since = now - this.options.windowMs;
		while (this.crashes.length > 0 && this.crashes[0]! <= since) this.crashes.shift();
	}
}
