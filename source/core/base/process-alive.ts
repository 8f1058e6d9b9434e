/**
 * Whether a process exists, for the ownership checks of the state dir, the
 * socket and a client's daemon. Signal 0 checks without sending anything.
 */

/** Whether a process with this pid exists (EPERM: it does, as another user's). */
export function isAlive(pid: number): boolean {
	try {
		process.kill(pid, 0);
		return true;
	} catch (error) {
		return (error as NodeJS.ErrnoException).code === 'EPERM';
	}
}
