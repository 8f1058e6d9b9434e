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
import {ChildProcess, spawn} from 'node:child_process';
import type {StdioLaunch} from '../config/read-config.js';
import {SpawnError} from './launch-problem.js';
import {launchRefusal} from './launch-refusal.js';
import {ensureWatchdog, registerTree, signalTree, treeOf, unregisterTree} from './process-registry.js';
import {newTreeMarker, treeVariable} from './process-tree.js';

/** What Node's `ChildProcess#spawn` takes (as `child_process.spawn` builds it) and fills in: `stdio` becomes its pipes. */
type SpawnOptions = {
	file: string;
	args: string[];
	cwd: string;
	envPairs: string[];
	stdio: string | Array<{type: string; handle?: {close(): void}; socket?: unknown}>;
	detached: boolean;
	windowsHide: boolean;
};
type Spawnable = ChildProcess & {spawn(options: SpawnOptions): number | undefined};

/**
 * The one way hangar spawns a stdio upstream: its own process group, its tree
 * marker, piped stdio, its environment on top of hangar's. Node's own spawn,
 * not execa's: when a spawn fails for want of a resource (EMFILE, ENFILE,
 * EAGAIN), execa 9 throws "subprocess.stdio is not iterable" and leaves the
 * inner child's `error` event unhandled, which stopped the whole supervisor;
 * Node's child reports every failure on its `error` event, which the caller
 * handles (ChildProcessTransport.start). The exit hook and the watchdog
 * (process-registry.ts) do what execa's `cleanup` did.
 *
 * A launch no system can carry out (a NUL byte, an environment past the
 * kernel's limit: launch-refusal.ts) and a spawn that fails at once
 * (ENOTDIR, E2BIG, which Node throws) throw a `SpawnError` with the reason.
 *
 * A failed spawn gives back every descriptor it took. Node opens the
 * child's stdio pipes before it knows whether the spawn worked, and keeps
 * them after a spawn that failed: at EMFILE and ENFILE it returns before it
 * wraps them in streams (nothing can close them then but their handles,
 * which only the options object it filled in holds: hence `ChildProcess#spawn`
 * with hangar's own options, built as `child_process.spawn` builds them),
 * and after ENOENT or EACCES it leaves its streams open. Each failure at the
 * open-file limit would otherwise keep three descriptors for good.
 */
export function spawnUpstream(launch: StdioLaunch, marker: string): ChildProcess {
	const refusal = launchRefusal(launch);
	if (refusal !== undefined) throw new SpawnError(launch.command, refusal.code, `${refusal.message}. ${refusal.hint}`);
	ensureWatchdog();
	const env = {...process.env, ...launch.env, [treeVariable]: marker};
	if (process.platform === 'win32') return spawn(launch.command, launch.args, {cwd: launch.cwd, env, stdio: 'pipe', detached: true, windowsHide: true});
	const options: SpawnOptions = {
		file: launch.command,
		args: [launch.command, ...launch.args],
		cwd: launch.cwd,
		envPairs: Object.entries(env).flatMap(([name, value]) => (value === undefined ? [] : [`${name}=${value}`])),
		stdio: 'pipe',
		detached: true,
		windowsHide: true,
	};
	const child = new ChildProcess() as Spawnable;
	let failed: number | undefined;
	try {
		failed = child.spawn(options);
	} catch (error) {
		// Node closed the pipes itself before it threw.
		throw new SpawnError(launch.command, (error as NodeJS.ErrnoException).code ?? (error instanceof Error ? error.message : String(error)));
	}

	if (failed !== undefined && failed !== 0) {
		// The `error` event (with the code) still comes, on the next tick: the caller reports it.
		for (const pipe of typeof options.stdio === 'string' ? [] : options.stdio) if (pipe.socket === undefined) pipe.handle?.close();
		for (const stream of [child.stdin, child.stdout, child.stderr]) stream?.destroy();
	}

	return child;
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
	let child: ChildProcess;
	try {
		child = spawnUpstream(launch, marker);
	} catch {
		// Nothing to take: the transport spawns it again, and reports the same failure as its upstream's.
		return;
	}

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
