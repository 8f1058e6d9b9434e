/**
 * The wait a client's first tools/list and prompts/list make for upstreams
 * still learning their tools for the first time (hangar.firstListWaitSeconds),
 * so a first run does not answer with the hangar_* tools alone. Driven by
 * the supervisor's transitions (every start ends in one), never by polling.
 */
/** What is waited on: the supervisor's transitions. */
type Transitions = {on(event: 'transition', listener: () => void): unknown; off(event: 'transition', listener: () => void): unknown};

/** Resolves once `discovering()` is false, or after `ms`; woken by each `transition` of `events`. */
export async function waitForDiscovery(events: Transitions, ms: number, discovering: () => boolean): Promise<void> {
	if (ms <= 0) return;
	const deadline = Date.now() + ms;
	while (discovering()) {
		const left = deadline - Date.now();
		if (left <= 0) return;
		await new Promise<void>(resolve => {
			const done = (): void => {
				clearTimeout(timer);
				events.off('transition', done);
				resolve();
			};

			const timer = setTimeout(done, left);
			events.on('transition', done);
		});
	}
}
