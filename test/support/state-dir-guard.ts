/**
 * Vitest global setup: no test touches the person's own hangar state or
 * config. Before any test runs it points HOME and the XDG base directories
 * at a temporary home and unsets MCP_HANGAR_STATE_DIR, so every hangar a
 * test spawns (they inherit this environment) keeps its state there unless
 * its config names a state dir of its own. After the run it compares the
 * real state and config dirs, found from the real HOME before the switch,
 * with what they held before, and fails the run if anything in them was
 * created, changed or removed.
 *
 * npm keeps working from the temporary home: its cache and user config stay
 * the real ones (npm_config_cache, npm_config_userconfig).
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

/** The environment variable that tells spawn helpers the guard is on: the temporary home. */
export const guardedHomeVariable = 'HANGAR_TEST_HOME';

/** Hangar's state and config dirs for an environment, as source/core/config/paths.ts resolves them on Linux and macOS. */
function hangarDirs(env: NodeJS.ProcessEnv): string[] {
	const home = env['HOME'] ?? os.homedir();
	if (process.platform === 'darwin') return [path.join(home, 'Library', 'Application Support', 'mcp-hangar')];
	const state = env['MCP_HANGAR_STATE_DIR'] ? path.resolve(env['MCP_HANGAR_STATE_DIR']) : path.join(env['XDG_STATE_HOME'] ?? path.join(home, '.local', 'state'), 'mcp-hangar');
	return [state, path.join(env['XDG_CONFIG_HOME'] ?? path.join(home, '.config'), 'mcp-hangar')];
}

/** Every entry under `dir` with its kind, size and modification time; "absent" when the dir does not exist. */
export function snapshot(dir: string): Map<string, string> {
	const out = new Map<string, string>();
	const walk = (at: string) => {
		let stat: fs.Stats;
		try {
			stat = fs.lstatSync(at);
		} catch {
			out.set(at, 'absent');
			return;
		}

		out.set(at, `${stat.isDirectory() ? 'dir' : 'file'} ${stat.size} ${stat.mtimeMs}`);
		if (stat.isDirectory()) for (const name of fs.readdirSync(at).sort()) walk(path.join(at, name));
	};

	walk(dir);
	return out;
}

/** What differs between two snapshots, one line per path. */
export function changes(before: Map<string, string>, after: Map<string, string>): string[] {
	const lines: string[] = [];
	for (const [at, was] of before) {
		const now = after.get(at);
		if (now === undefined) lines.push(`removed: ${at}`);
		else if (now !== was) lines.push(`${was === 'absent' ? 'created' : 'changed'}: ${at}`);
	}

	for (const at of after.keys()) if (!before.has(at)) lines.push(`created: ${at}`);
	return lines;
}

/**
 * Removes `dir`, again while something still writes in it, for up to
 * `withinMs`: a node process that exits as the run ends writes Node's
 * compile cache at exit (the run's NODE_COMPILE_CACHE dir, or hangar's own
 * under $XDG_CACHE_HOME when a test runs it without that), and a removal racing those writes
 * fails with ENOTEMPTY. Node 22's own `maxRetries` does not help: it retries
 * the failed rmdir, not the files written since.
 */
export function removeTree(dir: string, withinMs = 10_000): void {
	const until = Date.now() + withinMs;
	for (;;) {
		try {
			fs.rmSync(dir, {recursive: true, force: true});
			return;
		} catch (error) {
			const code = (error as NodeJS.ErrnoException).code;
			if ((code !== 'ENOTEMPTY' && code !== 'EBUSY') || Date.now() >= until) throw error;
		}

		// A teardown is synchronous: wait 50 ms without spinning.
		Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 50);
	}
}

export default function setup(): () => void {
	// Set up once per run, however many projects ask for it.
	if (process.env[guardedHomeVariable] !== undefined) return () => {};
	const real = hangarDirs(process.env);
	const before = real.map(dir => snapshot(dir));
	const realHome = process.env['HOME'] ?? os.homedir();
	const home = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'hangar-test-home-')));

	process.env['npm_config_cache'] ??= path.join(realHome, '.npm');
	if (process.env['npm_config_userconfig'] === undefined && fs.existsSync(path.join(realHome, '.npmrc'))) process.env['npm_config_userconfig'] = path.join(realHome, '.npmrc');
	process.env['HOME'] = home;
	process.env['XDG_STATE_HOME'] = path.join(home, '.local', 'state');
	process.env['XDG_CONFIG_HOME'] = path.join(home, '.config');
	process.env['XDG_DATA_HOME'] = path.join(home, '.local', 'share');
	process.env['XDG_CACHE_HOME'] = path.join(home, '.cache');
	delete process.env['MCP_HANGAR_STATE_DIR'];
	// One Node compile cache for every node process the run starts (upstreams such as server-everything and
	// the conformance fixture, the bench, the test workers): each script is compiled once per run instead of
	// once per process. Hangar's own processes then use it too, instead of their cache in XDG_CACHE_HOME
	// (test/e2e/compile-cache.test.ts runs hangar without it to check that one). A dir of its own, removed
	// as well as can be: processes still exiting when the run ends write to it.
	const compileCache = process.env['NODE_COMPILE_CACHE'] === undefined ? fs.mkdtempSync(path.join(os.tmpdir(), 'hangar-test-compile-cache-')) : undefined;
	if (compileCache !== undefined) process.env['NODE_COMPILE_CACHE'] = compileCache;
	process.env[guardedHomeVariable] = home;

	return () => {
		const touched = real.flatMap((dir, index) => changes(before[index]!, snapshot(dir)));
		removeTree(home);
		try {
			if (compileCache !== undefined) removeTree(compileCache);
		} catch {}
		if (touched.length > 0) {
			// Vitest reports an error thrown here but still exits 0, so the exit code is set as well.
			process.exitCode = 1;
			throw new Error(`A test touched hangar's real state or config dir (every test must use a temporary one):\n${touched.join('\n')}`);
		}
	};
}
