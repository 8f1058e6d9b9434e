/**
 * An upstream's whole process tree: the child hangar spawned and everything
 * it started, including processes that left its process group or session
 * (`setsid`, a double fork) or lost their parent.
 *
 * Each upstream is spawned with `MCP_HANGAR_TREE=<hangar instance>.<n>` in
 * its environment, which its descendants inherit. On Linux a snapshot of
 * /proc finds the tree by that marker (whatever became of the parent links)
 * and by parent pid (for a descendant that cleared its environment but is
 * still attached). Elsewhere (macOS) `ps` gives parent links only, so the
 * tree is the process group plus the descendants still attached to it.
 *
 * Every kill is checked against a fresh snapshot: a pid is signalled only
 * while it is the process the snapshot identified (its start time), never a
 * recycled one.
 */
import {execFileSync} from 'node:child_process';
import {randomUUID} from 'node:crypto';
import fs from 'node:fs';

/** The environment variable that marks an upstream's tree. */
export const treeVariable = 'MCP_HANGAR_TREE';

/** This hangar process's part of every marker it hands out. */
export const instanceId = randomUUID();

let serial = 0;

/** A new marker for one upstream start: `<instance>.<n>`. */
export function newTreeMarker(): string {
	serial += 1;
	return `${instanceId}.${serial}`;
}

export type ProcessInfo = {
	pid: number;
	ppid: number;
	pgid: number;
	/** When it started, in the platform's own terms (clock ticks since boot on Linux, `ps` lstart elsewhere). */
	startTime: string;
	/** The value of MCP_HANGAR_TREE in its environment (Linux, processes of this user only). */
	marker?: string | undefined;
};

/** Whether /proc can be read (Linux); otherwise `ps` is used. */
export const hasProc = process.platform === 'linux' && fs.existsSync('/proc/self/stat');

/** Parses /proc/PID/stat: the command may hold spaces and parentheses, so fields are read after the last ")". */
function readStat(pid: string): Omit<ProcessInfo, 'marker'> | undefined {
	let stat: string;
	try {
		stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
	} catch {
		return undefined;
	}

	const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
	// After the command: state(0) ppid(1) pgrp(2) ... starttime(19). A zombie is dead already.
	if (fields[0] === 'Z') return undefined;
	return {pid: Number(pid), ppid: Number(fields[1]), pgid: Number(fields[2]), startTime: fields[19] ?? ''};
}

const markerPrefix = `${treeVariable}=`;

function readMarker(pid: string): string | undefined {
	let environ: string;
	try {
		environ = fs.readFileSync(`/proc/${pid}/environ`, 'latin1');
	} catch {
		return undefined;
	}

	const at = environ.startsWith(markerPrefix) ? 0 : environ.indexOf(`\0${markerPrefix}`);
	if (at === -1) return undefined;
	const start = at === 0 ? markerPrefix.length : at + 1 + markerPrefix.length;
	const end = environ.indexOf('\0', start);
	return environ.slice(start, end === -1 ? undefined : end);
}

/**
 * Markers are looked for only in processes started after this (clock ticks
 * since boot): those started before the hangar that hands out the markers
 * cannot carry one, and reading every process's environment at each exit
 * would cost milliseconds per upstream with hundreds of them.
 */
let markerFloor: number | undefined;

/** Sets the start time before which no process can carry a marker (the watchdog's: its hangar's). */
export function setMarkerFloor(startTime: string | undefined): void {
	markerFloor = startTime === undefined ? undefined : Number(startTime);
}

function procSnapshot(): ProcessInfo[] {
	const out: ProcessInfo[] = [];
	for (const entry of fs.readdirSync('/proc')) {
		if (entry.charCodeAt(0) < 48 || entry.charCodeAt(0) > 57) continue;
		const info = readStat(entry);
		if (info === undefined) continue;
		const mayCarryMarker = markerFloor === undefined || Number(info.startTime) >= markerFloor;
		out.push({...info, marker: mayCarryMarker ? readMarker(entry) : undefined});
	}

	return out;
}

/** `ps` output, one process a line: pid, ppid, pgid, then the start time (lstart, which holds spaces). */
export function parsePs(output: string): ProcessInfo[] {
	const out: ProcessInfo[] = [];
	for (const line of output.split('\n')) {
		const match = /^\s*(\d+)\s+(\d+)\s+(\d+)\s+(.+?)\s*$/.exec(line);
		if (match !== null) out.push({pid: Number(match[1]), ppid: Number(match[2]), pgid: Number(match[3]), startTime: match[4]!});
	}

	return out;
}

export function psSnapshot(): ProcessInfo[] {
	try {
		return parsePs(execFileSync('ps', ['-A', '-o', 'pid=,ppid=,pgid=,lstart='], {encoding: 'utf8', timeout: 5000, stdio: ['ignore', 'pipe', 'ignore']}));
	} catch {
		return [];
	}
}

/** Every process of the machine (that this user may see), now. */
export function snapshot(): ProcessInfo[] {
	return hasProc ? procSnapshot() : psSnapshot();
}

/** When `pid` started (see ProcessInfo.startTime), or undefined when it is gone. */
export function startTimeOf(pid: number): string | undefined {
	if (hasProc) return readStat(String(pid))?.startTime;
	return psSnapshot().find(info => info.pid === pid)?.startTime;
}

/**
 * Whether `pid` is stopped by a signal (SIGSTOP, SIGTSTP: state T in
 * /proc/PID/stat). Linux only (false elsewhere); a process a debugger holds
 * (state t) is not counted: someone is looking at it on purpose.
 */
export function isStopped(pid: number): boolean {
	if (!hasProc) return false;
	try {
		const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
		return stat.slice(stat.lastIndexOf(')') + 2, stat.lastIndexOf(')') + 3) === 'T';
	} catch {
		return false;
	}
}

// In hangar, the floor is its own start; the watchdog moves it to its hangar's.
if (hasProc) setMarkerFloor(startTimeOf(process.pid));

/** A process that heads a tree: its pid and start time, as recorded when it was spawned. */
export type TreeRoot = {pid: number; startTime: string | undefined};

/**
 * The members of the trees that `roots` head or that carry a marker
 * `matches` accepts: the roots themselves (while they are the recorded
 * processes), their process groups, every process with a matching marker,
 * and every descendant of any of those. Never this process.
 */
export function treeMembers(processes: readonly ProcessInfo[], roots: readonly TreeRoot[], matches: (marker: string) => boolean): ProcessInfo[] {
	const byPid = new Map(processes.map(info => [info.pid, info]));
	const members = new Map<number, ProcessInfo>();
	const liveRoots = roots.filter(root => {
		const info = byPid.get(root.pid);
		return info !== undefined && (root.startTime === undefined || info.startTime === root.startTime);
	});
	// A root's process group outlives the root while any member is left, and Linux never hands out a pid
	// that is still a group's id: when the pid is free (or still the root's), that group is the root's.
	const groups = new Set(roots.filter(root => liveRoots.includes(root) || !byPid.has(root.pid)).map(root => root.pid));
	for (const info of processes) {
		if ((info.marker !== undefined && matches(info.marker)) || groups.has(info.pgid) || liveRoots.some(root => root.pid === info.pid)) members.set(info.pid, info);
	}

	const children = new Map<number, ProcessInfo[]>();
	for (const info of processes) {
		const siblings = children.get(info.ppid);
		if (siblings === undefined) children.set(info.ppid, [info]);
		else siblings.push(info);
	}

	const queue = [...members.values()];
	for (let info = queue.shift(); info !== undefined; info = queue.shift()) {
		for (const child of children.get(info.pid) ?? []) {
			if (members.has(child.pid)) continue;
			members.set(child.pid, child);
			queue.push(child);
		}
	}

	members.delete(process.pid);
	return [...members.values()];
}

/** Sends `signal` to every member of the trees (see treeMembers), from a fresh snapshot; returns how many were signalled. */
export function signalTrees(roots: readonly TreeRoot[], matches: (marker: string) => boolean, signal: NodeJS.Signals): number {
	let signalled = 0;
	for (const info of treeMembers(snapshot(), roots, matches)) {
		try {
			process.kill(info.pid, signal);
			signalled += 1;
		} catch {}
	}

	return signalled;
}
