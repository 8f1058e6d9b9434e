/**
 * Test support: `mcp-hangar serve` as a real daemon process, resolved once
 * its log says it listens, with its output kept and a stop that checks the
 * daemon wrote nothing to stdout.
 */
import {spawn, type ChildProcess} from 'node:child_process';
import {randomUUID} from 'node:crypto';
import {cliPath, spawnEnv, waitFor} from './hangar.js';

export type Exit = {code: number | null; signal: NodeJS.Signals | null};

export type Served = {
	child: ChildProcess;
	pid: number;
	/** HANGAR_TEST_TAG of the daemon and so of its upstreams. */
	tag: string;
	stderr: () => string;
	exited: Promise<Exit>;
	/** Sends `signal` (default SIGTERM) unless it has exited, waits for the exit, and fails if it wrote to stdout. */
	stop: (signal?: NodeJS.Signals) => Promise<Exit>;
};

export type ServeOptions<T> = {
	env?: Record<string, string>;
	/** Where its log is read from (default: its stderr). */
	log?: (stderr: string) => string;
	/** What the log shows once it listens (the value resolved with), or undefined until then. */
	listening: (log: string) => T | undefined;
};

/** Spawns `mcp-hangar ...args` (a `serve` command line) and resolves once `listening` finds its mark in the log. */
export async function spawnServe<T>(args: string[], options: ServeOptions<T>): Promise<{served: Served; ready: T}> {
	const tag = randomUUID();
	const child = spawn(process.execPath, [cliPath, ...args], {env: spawnEnv({...options.env, HANGAR_TEST_TAG: tag}), stdio: ['ignore', 'pipe', 'pipe']});
	let stderr = '';
	let stdout = '';
	child.stderr!.on('data', (chunk: Buffer) => {
		stderr += chunk.toString();
	});
	child.stdout!.on('data', (chunk: Buffer) => {
		stdout += chunk.toString();
	});
	let gone = false;
	const exited = new Promise<Exit>(resolve => {
		child.on('exit', (code, signal) => {
			gone = true;
			resolve({code, signal});
		});
	});
	const served: Served = {
		child,
		pid: child.pid!,
		tag,
		stderr: () => stderr,
		exited,
		async stop(signal = 'SIGTERM') {
			if (!gone) child.kill(signal);
			const exit = await exited;
			if (stdout !== '') throw new Error(`mcp-hangar serve wrote to stdout: ${stdout.slice(0, 500)}`);
			return exit;
		},
	};
	// Exiting ends the wait at once (waitFor would retry a throw until it times out).
	const found = await waitFor(
		() => {
			if (gone) return {exited: true as const};
			const value = options.listening(options.log?.(stderr) ?? stderr);
			return value === undefined ? undefined : {exited: false as const, value};
		},
		`mcp-hangar ${args[0] ?? ''} to listen`,
	);
	if (found.exited) throw new Error(`mcp-hangar ${args.join(' ')} exited before listening:\n${stderr}`);
	const ready = found.value;
	return {served, ready};
}

/** What `serve` logs once it listens on its socket (stdio clients attach then). */
export function listensOnSocket(log: string): true | undefined {
	return /serving \d+ upstreams? to MCP clients on/.test(log) || undefined;
}

/** The daemons `startDaemon` started and `stopDaemons` has not stopped yet. */
const daemons: Served[] = [];

/**
 * Starts `mcp-hangar serve --config config` (with `args` before `--config`,
 * e.g. `--linger`) and resolves once it listens; `stopDaemons` (an afterEach)
 * stops it unless the test did.
 */
export async function startDaemon(config: string, options: {args?: string[]; env?: Record<string, string>} = {}): Promise<Served> {
	const {served} = await spawnServe(['serve', ...(options.args ?? []), '--config', config], {env: options.env, listening: listensOnSocket});
	daemons.push(served);
	return served;
}

/** Stops every daemon `startDaemon` started (with SIGTERM, a graceful stop, or `signal`), one after another. */
export async function stopDaemons(signal?: NodeJS.Signals): Promise<void> {
	for (const daemon of daemons.splice(0)) await daemon.stop(signal);
}
