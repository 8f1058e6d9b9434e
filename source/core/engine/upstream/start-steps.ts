/**
 * The requests a start is waiting on, so that a start that runs out of time
 * names the one that did not answer (`initialize`, `tools/list`,
 * `prompts/list`, the closing `ping`s, ...) instead of a guess. Some run side
 * by side (the lists): every one still pending is named.
 */
export class StartSteps {
	private readonly pending = new Set<string>();

	/** `promise`, with `step` named as pending until it settles. */
	async wait<T>(step: string, promise: Promise<T>): Promise<T> {
		this.pending.add(step);
		try {
			return await promise;
		} finally {
			this.pending.delete(step);
		}
	}

	/** What it is waiting on now, as a phrase: "tools/list and prompts/list"; `fallback` between steps. */
	waitingOn(fallback: string): string {
		const steps = [...this.pending];
		if (steps.length === 0) return fallback;
		return steps.length === 1 ? steps[0]! : `${steps.slice(0, -1).join(', ')} and ${steps.at(-1)!}`;
	}
}
