/**
 * The process groups of every upstream child that is alive right now. It is
 * the last line of defence against orphans: whatever way hangar exits, the
 * `exit` hook SIGKILLs any group still listed (synchronously, because nothing
 * asynchronous runs at that point).
 */
export const liveProcessGroups = new Set<number>();

export function killAllProcessGroupsSync(): void {
	for (const pid of liveProcessGroups) {
		try {
			process.kill(-pid, 'SIGKILL');
		} catch {
			try {
				process.kill(pid, 'SIGKILL');
			} catch {}
		}
	}

	liveProcessGroups.clear();
}

