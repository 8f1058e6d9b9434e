/**
 * A process as /proc shows it, for tests of processes that exited and were
 * never reaped: a zombie still has a pid and takes signal 0.
 */
import fs from 'node:fs';

/** The state letter of /proc/PID/stat (R, S, Z, …); undefined when the process is gone. The name may hold spaces and parentheses. */
export function procState(pid: number): string | undefined {
	try {
		const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
		return stat.slice(stat.lastIndexOf(')') + 2).split(' ')[0];
	} catch {
		return undefined;
	}
}

/** SIGKILLs each pid that is still there (a test's non-reaping parents), emptying the list. */
export function killAll(pids: number[]): void {
	for (const pid of pids.splice(0)) {
		try {
			process.kill(pid, 'SIGKILL');
		} catch {}
	}
}
