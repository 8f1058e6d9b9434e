/**
 * Per-upstream circuit breaker. Pure timing logic (no timers): the upstream
 * asks it what to do and schedules the probe itself.
 *
 * closed: calls flow; consecutive failures are counted. At `threshold` it opens.
 * open: calls fail fast until `nextProbeAt`; then one probe runs (half-open).
 * A probe success closes it and resets the backoff; a probe failure reopens it
 * with the backoff doubled (exponential with jitter, bounded by `maxMs`).
 */

export type BreakerState = 'closed' | 'open' | 'half-open';

export type BreakerOptions = {
	/** Consecutive failures that open the breaker. */
	threshold: number;
	/** First backoff after opening, in ms. */
	minMs: number;
	/** Upper bound of the backoff, in ms. */
	maxMs: number;
	/** Fraction of random spread added to each backoff (0.2 = up to +20%). */
	jitter?: number;
	random?: () => number;
};

export class CircuitBreaker {
	private current: BreakerState = 'closed';
	private consecutive = 0;
	private opens = 0;
	private probeAt: number | undefined;

	constructor(private readonly options: BreakerOptions) {}

	get state(): BreakerState {
		return this.current;
	}

	get consecutiveFailures(): number {
		return this.consecutive;
	}

	/** When the next probe runs (epoch ms), while open. */
	get nextProbeAt(): number | undefined {
		return this.current === 'open' ? this.probeAt : undefined;
	}

	/** The backoff the next opening would use, without jitter. */
	backoffMs(opens = this.opens): number {
		const exponent = Math.max(0, opens - 1);
		return Math.min(this.options.maxMs, this.options.minMs * 2 ** Math.min(exponent, 30));
	}

	/** A call or probe succeeded: close and forget past failures. */
	recordSuccess(): void {
		this.current = 'closed';
		this.consecutive = 0;
		this.opens = 0;
		this.probeAt = undefined;
	}

	/**
	 * A call or probe failed. Returns true when this failure opened the
	 * breaker (or reopened it after a failed probe).
	 */
	recordFailure(now: number): boolean {
		this.consecutive += 1;
		if (this.current === 'half-open' || (this.current === 'closed' && this.consecutive >= this.options.threshold)) {
			this.open(now);
			return true;
		}

		return false;
	}

	/** Marks the start of the single probe. */
	beginProbe(): void {
		if (this.current === 'open') this.current = 'half-open';
	}

	private open(now: number): void {
		this.opens += 1;
		const base = this.backoffMs(this.opens);
		const jitter = this.options.jitter ?? 0.2;
		const random = this.options.random ?? Math.random;
		this.probeAt = now + Math.round(base * (1 + jitter * random()));
		this.current = 'open';
	}
}
