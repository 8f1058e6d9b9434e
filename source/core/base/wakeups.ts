/**
 * Waits that something else ends early: each `wait` resolves after `ms`,
 * when `signal` aborts, or at the next `wake`, whichever comes first, and
 * leaves no timer or listener behind.
 */
export class Wakeups {
	private readonly waiters = new Set<() => void>();

	/** Resolves after `ms`, on `signal`'s abort, or at the next `wake`. */
	async wait(ms: number, signal: AbortSignal): Promise<void> {
		if (signal.aborted) return;
		await new Promise<void>(resolve => {
			const done = (): void => {
				clearTimeout(timer);
				signal.removeEventListener('abort', done);
				this.waiters.delete(done);
				resolve();
			};

			const timer = setTimeout(done, ms);
			signal.addEventListener('abort', done, {once: true});
			this.waiters.add(done);
		});
	}

	/** Ends every wait in progress. */
	wake(): void {
		for (const waiter of [...this.waiters]) waiter();
	}
}
