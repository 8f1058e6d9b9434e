/**
 * Waiting for something with a time limit: a command's outcome, the calls in
 * flight of a closing session, the last connection of a closing endpoint.
 * Each waits for its promise or the time, whichever comes first, and leaves
 * no timer behind to hold the process open.
 */

/**
 * `promise`'s value if it settles within `ms` (its rejection if it rejects),
 * else undefined. With 0 it still sees what settles without waiting for I/O.
 */
export async function settleWithin<T>(promise: Promise<T>, ms: number): Promise<T | undefined> {
	let timer: NodeJS.Timeout | undefined;
	const later = new Promise<undefined>(resolve => {
		if (ms > 0) timer = setTimeout(() => resolve(undefined), ms);
		else setImmediate(() => resolve(undefined));
	});
	try {
		return await Promise.race([promise, later]);
	} finally {
		clearTimeout(timer);
	}
}
