/**
 * The process trees of every upstream child alive right now, and the
 * defences that make sure none outlives hangar:
 *
 * - However hangar exits on its own (signal, error, end of input), the
 *   synchronous `exit` hook SIGKILLs every tree still listed
 *   (`killAllTreesSync`): process groups, marked descendants (see
 *   process-tree.ts), and descendants still attached.
 * - No hook runs when hangar is SIGKILLed. For that, the first upstream
 *   spawn starts a watchdog (`watchdog.ts`): a small detached process that
 *   holds one end of a pipe and learns each tree's root over it. When the
 *   pipe closes, hangar is gone, and the watchdog kills what is left of
 *   every tree it knows of, then exits.
 */
import {spawn, type ChildProcess} from 'node:child_process';
import fs from 'node:fs';
import type net from 'node:net';
import {fileURLToPath} from 'node:url';
import {instanceId, signalTrees, startTimeOf, type TreeRoot} from './process-tree.js';

type LiveTree = TreeRoot & {marker: string};

/** The trees of upstream children alive now, by the child's pid. */
const liveTrees = new Map<number, LiveTree>();

/** Records a spawned upstream child (the leader of its process group, carrying `marker`). */
export function registerTree(pid: number, marker: string): void {
	const tree = {pid, marker, startTime: startTimeOf(pid)};
	liveTrees.set(pid, tree);
	tellWatchdog(`root ${pid} ${tree.startTime ?? '-'}`);
}

/** The child exited: what is left of its tree is killed by whoever stops it (see ChildProcessTransport). */
export function unregisterTree(pid: number): void {
	if (!liveTrees.delete(pid)) return;
	tellWatchdog(`gone ${pid}`);
}

/** The recorded root of `pid`'s tree, when it is one. */
export function treeOf(pid: number): LiveTree | undefined {
	return liveTrees.get(pid);
}

/**
 * Sends `signal` to `pid`'s process group and to every process of its tree
 * (marked with `marker`, or a descendant); returns how many were signalled.
 */
export function signalTree(root: TreeRoot, marker: string, signal: NodeJS.Signals): number {
	try {
		process.kill(-root.pid, signal);
	} catch {}

	return signalTrees([root], candidate => candidate === marker, signal);
}

/** SIGKILLs every upstream tree of this hangar, synchronously (the last thing an exiting hangar does). */
export function killAllTreesSync(): void {
	const roots = [...liveTrees.values()];
	for (const root of roots) {
		try {
			process.kill(-root.pid, 'SIGKILL');
		} catch {}
	}

	// Every marker this hangar handed out, including those of trees whose root is gone already.
	if (spawnedAny) signalTrees(roots, marker => marker.startsWith(`${instanceId}.`), 'SIGKILL');
	liveTrees.clear();
}

/** Whether this hangar ever spawned an upstream (else there is nothing to look for at exit). */
let spawnedAny = false;

// ---------------------------------------------------------------------------
// The watchdog

/** The compiled watchdog next to this module (absent when running from sources, e.g. in-process tests). */
const watchdogScript = fileURLToPath(new URL('watchdog.js', import.meta.url));

let watchdog: ChildProcess | undefined;

/** The watchdog's pid, once one runs. */
export function watchdogPid(): number | undefined {
	return watchdog?.pid;
}

/** Starts the watchdog once, before the first upstream is spawned. */
export function ensureWatchdog(): void {
	spawnedAny = true;
	if (watchdog !== undefined || !fs.existsSync(watchdogScript)) return;
	// Detached (its own session, so a terminal's Ctrl-C or a kill of hangar's group spares it), with an
	// empty environment (it needs none, and must not look like one of the upstreams it watches).
	const child = spawn(process.execPath, [watchdogScript, String(process.pid)], {detached: true, stdio: ['pipe', 'ignore', 'ignore'], env: {}});
	watchdog = child;
	child.on('error', () => {
		watchdog = undefined;
	});
	child.on('exit', () => {
		// It should outlive hangar; if it died, the next spawn starts another.
		if (watchdog === child) watchdog = undefined;
	});
	child.stdin?.on('error', () => {});
	// Neither the watchdog nor the pipe to it may keep hangar running.
	child.unref();
	(child.stdin as net.Socket | null)?.unref();
	tellWatchdog(`instance ${instanceId}`);
	for (const tree of liveTrees.values()) tellWatchdog(`root ${tree.pid} ${tree.startTime ?? '-'}`);
}

function tellWatchdog(line: string): void {
	const stdin = watchdog?.stdin;
	if (stdin === undefined || stdin === null || stdin.destroyed) return;
	stdin.write(`${line}\n`);
}
