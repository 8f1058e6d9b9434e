/**
 * Every process the bench starts carries BENCH_TAG=<uuid> in its environment
 * (hangar passes its environment on to the upstreams it spawns, the hop to
 * its child), so one scan of /proc finds all of them, whatever process group
 * they ended up in. `sweep()` kills what is left; `liveTagged()` is what the
 * bench reports as left behind at the end (it must be empty).
 */
import {randomUUID} from 'node:crypto';
import fs from 'node:fs';

export const benchTag = randomUUID();

/** The environment for every child of the bench: ours plus the tag. */
export function taggedEnv(extra = {}) {
	return {...process.env, BENCH_TAG: benchTag, ...extra};
}

function isZombie(pid) {
	try {
		return /\) Z /.test(fs.readFileSync(`/proc/${pid}/stat`, 'utf8'));
	} catch {
		return true;
	}
}

/** Pids of live (non-zombie) processes carrying our tag, not counting the bench itself. */
export function liveTagged() {
	const needle = `BENCH_TAG=${benchTag}`;
	const found = [];
	for (const entry of fs.readdirSync('/proc')) {
		if (!/^\d+$/.test(entry)) continue;
		const pid = Number(entry);
		if (pid === process.pid) continue;
		try {
			const environ = fs.readFileSync(`/proc/${entry}/environ`, 'utf8');
			if (!environ.split('\0').includes(needle)) continue;
			if (isZombie(pid)) continue;
			found.push(pid);
		} catch {}
	}

	return found;
}

export const sleep = ms => new Promise(resolve => setTimeout(resolve, ms));

/** Waits up to `ms` for every tagged process to exit on its own. Returns what is still alive. */
export async function waitForNoTagged(ms) {
	const deadline = Date.now() + ms;
	let alive = liveTagged();
	while (alive.length > 0 && Date.now() < deadline) {
		await sleep(50);
		alive = liveTagged();
	}

	return alive;
}

/** SIGKILLs every tagged process (and its process group, when it leads one). Returns the pids it signalled. */
export function killTagged() {
	const pids = liveTagged();
	for (const pid of pids) {
		try {
			process.kill(-pid, 'SIGKILL');
		} catch {}

		try {
			process.kill(pid, 'SIGKILL');
		} catch {}
	}

	return pids;
}

/**
 * Waits up to `graceMs` for tagged processes to end by themselves, then kills
 * the rest and waits for them to be gone. Returns how many had to be killed.
 */
export async function sweep(graceMs = 3000) {
	let alive = await waitForNoTagged(graceMs);
	if (alive.length === 0) return 0;
	const killed = killTagged();
	alive = await waitForNoTagged(3000);
	if (alive.length > 0) killTagged();
	return killed.length;
}

/** Resident set size of one process in KiB (VmRSS in /proc/<pid>/status); children are not included. */
export function rssKiB(pid) {
	const status = fs.readFileSync(`/proc/${pid}/status`, 'utf8');
	const match = /^VmRSS:\s+(\d+)\s+kB/m.exec(status);
	if (match === null) throw new Error(`no VmRSS for pid ${pid}`);
	return Number(match[1]);
}

/** User and system time in clock ticks (100 per second on Linux) from the text of a /proc/<pid>/stat or /proc/<pid>/task/<tid>/stat. */
export function statTicks(stat) {
	// Fields after the command: state(0) ... utime(11) stime(12).
	const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
	return {user: Number(fields[11]), system: Number(fields[12])};
}

/** Whether the kernel keeps each thread's time on the CPU in nanoseconds (/proc/<pid>/task/<tid>/schedstat). */
const hasSchedstat = fs.existsSync('/proc/self/schedstat');

/**
 * CPU time (user + system) of one process in ms: the nanoseconds each of its
 * threads has run (the first field of /proc/<pid>/task/<tid>/schedstat,
 * the kernel's own count), summed. /proc/<pid>/stat gives the same time in
 * clock ticks of 10 ms: over a round of 1,600 calls one tick is 6.25 µs a
 * call, 8% of the minimal hop's CPU per call, so a ratio of two paths moved
 * by whole ticks. Where there is no schedstat, the ticks. A thread that
 * exits between two readings takes its time with it: a serving node
 * process keeps its threads (V8's and libuv's) for its life.
 */
export function cpuMs(pid) {
	if (!hasSchedstat) {
		const {user, system} = statTicks(fs.readFileSync(`/proc/${pid}/stat`, 'utf8'));
		return (user + system) * 10;
	}

	let ns = 0;
	for (const tid of fs.readdirSync(`/proc/${pid}/task`)) {
		try {
			ns += Number(fs.readFileSync(`/proc/${pid}/task/${tid}/schedstat`, 'utf8').split(' ')[0]);
		} catch {
			// The thread exited since the listing.
		}
	}

	return ns / 1e6;
}

/** The processes of a session's path by role (proxy, daemon, upstream), leaving out the roles a path does not have. */
export function rolePids({proxyPid, daemonPid, upstreamPid}) {
	return Object.entries({proxy: proxyPid, daemon: daemonPid, upstream: upstreamPid}).filter(([, pid]) => pid !== undefined);
}

/** Direct children of a process (from /proc/<pid>/task/<tid>/children). */
export function childrenOf(pid) {
	const found = new Set();
	try {
		for (const tid of fs.readdirSync(`/proc/${pid}/task`)) {
			try {
				for (const child of fs.readFileSync(`/proc/${pid}/task/${tid}/children`, 'utf8').trim().split(/\s+/)) {
					if (child !== '') found.add(Number(child));
				}
			} catch {}
		}
	} catch {}

	return [...found];
}

/**
 * CPU meter for the processes on one path: the bench itself (the client),
 * the proxy in front of it (hop, hangar or the `--stdio` bridge, when there
 * is one), the daemon the bridge talks to (`mcp-hangar serve`, on the bridge
 * path only) and the upstream. `stop()` returns the CPU ms each used since
 * `start()`; roles a path does not have are left out.
 */
export function cpuMeter(session) {
	const pids = rolePids(session);
	const clientMs = () => {
		const usage = process.cpuUsage();
		return (usage.user + usage.system) / 1000;
	};

	const read = () => ({client: clientMs(), ...Object.fromEntries(pids.map(([role, pid]) => [role, cpuMs(pid)]))});
	const before = read();
	return {
		stop() {
			const after = read();
			return Object.fromEntries(Object.keys(after).map(role => [role, after[role] - before[role]]));
		},
	};
}

function cpuTimes() {
	const line = fs.readFileSync('/proc/stat', 'utf8').split('\n')[0];
	const [user, nice, system, idle, iowait, irq, softirq, steal] = line.trim().split(/\s+/).slice(1).map(Number);
	return {busy: user + nice + system + irq + softirq + steal, idle: idle + iowait};
}

/**
 * How busy the whole machine is over `ms` (0..1, all CPUs together), measured
 * while the bench itself does nothing: other load makes every number noisier.
 */
export async function machineBusy(ms = 250) {
	const before = cpuTimes();
	await sleep(ms);
	const after = cpuTimes();
	const busy = after.busy - before.busy;
	const total = busy + after.idle - before.idle;
	return total === 0 ? 0 : busy / total;
}
