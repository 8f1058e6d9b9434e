/**
 * Whether a process exists, for the ownership checks of the state dir, the
 * socket and a client's daemon. Signal 0 checks without sending anything.
 * A zombie (a process that exited and that its parent has not reaped) still
 * takes signal 0, but it serves nothing: under a container's init that
 * reaps nobody, a supervisor that was killed stays one for as long as the
 * container runs, and taking it for alive would keep every client from
 * starting the next supervisor.
 */
import fs from 'node:fs';

/** The state letter of /proc/PID/stat (R, S, D, Z, …); undefined without /proc. The name may hold spaces and parentheses. */
function procState(pid: number): string | undefined {
	try {
		const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
		return stat.slice(stat.lastIndexOf(')') + 2, stat.lastIndexOf(')') + 3);
	} catch {
		return undefined;
	}
}

/** Whether a process with this pid exists and has not exited (EPERM: it does, as another user's). */
export function isAlive(pid: number): boolean {
	try {
		process.kill(pid, 0);
	} catch (error) {
		if ((error as NodeJS.ErrnoException).code !== 'EPERM') return false;
	}

	const state = procState(pid);
	return state !== 'Z' && state !== 'X';
}
