/**
 * Upstream children spawned before the rest of hangar has loaded. A
 * supervisor's process spends most of its start-up loading its own code (the
 * MCP SDK, the engine); an upstream it only spawned afterwards would boot
 * after that instead of beside it. `spawnEarly` starts a child exactly as
 * `ChildProcessTransport` would (its own process group, its tree marker,
 * registered with the process registry and the watchdog), and
 * `ChildProcessTransport.start` takes it (`takeEarly`) instead of spawning,
 * when its launch is the same. Until then the child's stdout and stderr are
 * paused, so nothing it writes is lost. `dropEarly` kills those nobody took.
 */
import {spawn, type ChildProcess} from 'node:child_process';
import type {StdioLaunch} from '../config/read-config.js';
import {ensureWatchdog, registerTree, signalTree, treeOf, unregisterTree} from './process-registry.js';
import {newTreeMarker, treeVariable} from './process-tree.js';

/**
 * The one way hangar spawns a stdio upstream: its own process group, its tree
 * marker, piped stdio, its environment on top of hangar's. Node's own spawn,
 * not execa's: when a spawn fails for want of a resource (EMFILE, ENFILE,
 * EAGAIN), execa 9 throws "subprocess.stdio is not iterable" and leaves the
 * inner child's `error` event unhandled, which stopped the whole supervisor;
 * Node's child reports every failure on its `error` event, which the caller
 * handles (ChildProcessTransport.start). The exit hook and the watchdog
 * (process-registry.ts) do what execa's `cleanup` did.
 */
export function spawnUpstream(launch: StdioLaunch, marker: string): ChildProcess {
	ensureWatchdog();
	return spawn(launch.command, launch.args, {
		cwd: launch.cwd,
		env: {...process.env, ...launch.env, [treeVariable]: marker},
		stdio: 'pipe',
		detached: true,
		windowsHide: true,
	});
}

/** A child spawned early, with the tree marker it carries. */
export type EarlyChild = {child: ChildProcess; marker: string};

const early = new Map<string, EarlyChild>();

function keyOf(launch: StdioLaunch): string {
	return JSON.stringify([launch.command, launch.args, launch.cwd, launch.env]);
}

/** Spawns `launch` now, for a transport to take later. */
export function spawnEarly(launch: StdioLaunch): void {
	const key = keyOf(launch);
	if (early.has(key)) return;
	const marker = newTreeMarker();
	const child = spawnUpstream(launch, marker);
	// Held until a transport takes the child, so that whatever the child writes before then is read by it.
	child.stdout?.pause();
	child.stderr?.pause();
	child.once('spawn', () => {
		if (child.pid !== undefined) registerTree(child.pid, marker);
	});
	child.once('error', () => {});
	early.set(key, {child, marker});
}

/**
 * The child spawned early for `launch`, if it is still running; one that
 * failed to spawn or already exited is dropped (the caller spawns anew and
 * reports what happens then).
 */
export function takeEarly(launch: StdioLaunch): EarlyChild | undefined {
	const key = keyOf(launch);
	const found = early.get(key);
	if (found === undefined) return undefined;
	early.delete(key);
	const {child} = found;
	if (child.pid !== undefined && child.exitCode === null && child.signalCode === null && treeOf(child.pid) !== undefined) return found;
	stop(found);
	return undefined;
}

/** Kills every early child nobody took (its upstream was not started after all). */
export function dropEarly(): void {
	for (const found of early.values()) stop(found);
	early.clear();
}

function stop({child, marker}: EarlyChild): void {
	const pid = child.pid;
	if (pid === undefined) return;
	signalTree(treeOf(pid) ?? {pid, startTime: undefined}, marker, 'SIGKILL');
	unregisterTree(pid);
}
