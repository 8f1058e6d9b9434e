/**
 * The second half of `npm run build`: after tsc has written dist/, esbuild
 * bundles the two start paths that run without the CLI, so that they load a
 * few files of hangar's instead of one per module (docs/performance.md,
 * "Issue 28, sixth round"). Packages are never bundled: they load from
 * node_modules as before.
 *
 * - dist/cli.js, the bin, becomes one file with everything the quick attach
 *   of `--stdio` runs (core/endpoints/stdio-bridge.ts and its imports: the
 *   bridge, the socket client, the wire's line handling, the logger). Every
 *   MCP client launches it, and every client after the first attaches to a
 *   running supervisor: one module to resolve instead of about 25, which
 *   takes the ESM loader's resolution (and the TurboFan code it made hot)
 *   off the bridge's start and idle memory. What it imports later stays
 *   tsc's output, loaded only when a path needs it: the CLI
 *   (`./cli/main.js`) when the quick attach declines.
 * - dist/bundle/ holds core/endpoints/quick-main.ts bundled, with code
 *   splitting, so the engine and the rest still load only when a path
 *   needs them: the daemon a bridge starts (`serve --linger`) and
 *   `--stdio --standalone`, which dist/cli.js imports from there. The
 *   watchdog the daemon spawns by path is bundled beside it.
 *
 * The build fails when a bundle would import a file of hangar's that it
 * does not list (a file loaded both inlined and from dist/ is two modules,
 * with two copies of any state), or inline a module that finds files next
 * to itself (`import.meta.url`) and is not known to work from a bundle.
 */
import {build} from 'esbuild';
import fs from 'node:fs';
import path from 'node:path';
import {fileURLToPath} from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const dist = path.join(root, 'dist');

/** What dist/cli.js imports that stays a file of its own: the specifier in source/cli.ts, and where it is in dist/. */
const loadedLater = new Map([
	['./cli/main.js', './cli/main.js'],
	['./core/endpoints/quick-main.js', './bundle/quick-main.js'],
]);

/**
 * The modules that use `import.meta` and may be inlined, each for a reason
 * that holds in that bundle: cli.ts is the entry, always dist/cli.js, and
 * finds dist/bundle/zod.js from there; protocol.ts walks up to the nearest
 * package.json; process-registry.ts spawns watchdog.js from its own folder,
 * which dist/bundle/ has (dist/ does not); the other two only resolve
 * packages by name.
 */
const placeIndependent = ['source/core/wire/protocol.ts', 'source/core/gateway/protocol-era.ts', 'source/core/link/oauth-keychain.ts'];
const placeIndependentBeside = {watchdog: 'source/core/link/process-registry.ts'};

const loadedLaterStaysExternal = {
	name: 'loaded-later-stays-external',
	setup(bundler) {
		const entry = path.join(root, 'source', 'cli.ts');
		bundler.onResolve({filter: /^\.\//}, args => (args.importer === entry && loadedLater.has(args.path) ? {path: loadedLater.get(args.path), external: true} : undefined));
	},
};

/**
 * In dist/cli.js, Node's modules are taken with `require` (createRequire),
 * not `import`: an ES import of a builtin builds a namespace of all its
 * exports, reading every getter on it, and `node:process`'s alone was
 * 0.7 MiB of an attached bridge's idle RSS (measured).
 */
const builtinsByRequire = {
	name: 'builtins-by-require',
	setup(bundler) {
		bundler.onResolve({filter: /^node:/}, args => ({path: args.path, namespace: 'node-builtin'}));
		bundler.onLoad({filter: /.*/, namespace: 'node-builtin'}, args => ({contents: `module.exports = __nodeRequire(${JSON.stringify(args.path)});`, loader: 'js'}));
	},
};

/**
 * Whitespace and comments go (names stay, for stack traces; the source maps
 * beside each file map positions back): V8 keeps every module's source text
 * on the heap, and the bundles' comments were about 1 MiB of an idle
 * daemon's RSS (75.1–75.6 MiB settled, 74.5 without them; docs/performance.md).
 */
const common = {absWorkingDir: root, bundle: true, platform: 'node', format: 'esm', target: 'node22', packages: 'external', sourcemap: true, metafile: true, logLevel: 'warning', minifyWhitespace: true};

const attach = await build({
	...common,
	entryPoints: ['source/cli.ts'],
	outfile: path.join(dist, 'cli.js'),
	banner: {js: "import {createRequire as __createRequire} from 'node:module';\nconst __nodeRequire = __createRequire(import.meta.url);"},
	plugins: [loadedLaterStaysExternal, builtinsByRequire],
});

const bundleDir = path.join(dist, 'bundle');
fs.rmSync(bundleDir, {recursive: true, force: true});
const supervisor = await build({
	...common,
	entryPoints: {'quick-main': 'source/core/endpoints/quick-main.ts', watchdog: 'source/core/link/watchdog.ts'},
	outdir: bundleDir,
	splitting: true,
	chunkNames: '[name]-[hash]',
});

/**
 * zod as one file, dist/bundle/zod.js, which hangar's `import 'zod'` and the
 * SDK's `import 'zod/v4'` both load (cli/node-runtime.ts,
 * skipUnusedModuleParts): about 35 modules fewer for the ES loader at every
 * start that loads zod. The only package bundled, because it is the only
 * one with that many small modules; English alone, as the hook reads zod's
 * index of translations (`z.locales`), and the build fails if any other
 * translation gets in (zod's files moved, say).
 */
const zodLocales = /[\\/]node_modules[\\/]zod[\\/]v4[\\/]locales[\\/]/;
const zod = await build({
	...common,
	packages: undefined,
	stdin: {contents: "export * from 'zod';\nexport {default} from 'zod';\n", resolveDir: root, sourcefile: 'zod-entry.js'},
	outfile: path.join(bundleDir, 'zod.js'),
	plugins: [
		{
			name: 'zod-english-only',
			setup(bundler) {
				bundler.onLoad({filter: new RegExp(`${zodLocales.source}index\\.js$`)}, args => {
					if (!fs.existsSync(path.join(path.dirname(args.path), 'en.js'))) return undefined;
					return {contents: 'export {default as en} from "./en.js";\n', loader: 'js', resolveDir: path.dirname(args.path)};
				});
			},
		},
	],
});

const problems = [];
// Hangar imports 'zod', the SDK 'zod/v4', and both load the one file: only while both name the same bindings.
const [zodRoot, zodV4] = await Promise.all([import('zod'), import('zod/v4')]);
if (Object.keys(zodRoot).sort().join() !== Object.keys(zodV4).sort().join() || zodRoot.object !== zodV4.object) problems.push("dist/bundle/zod.js: 'zod' and 'zod/v4' no longer export the same bindings; hangar's one zod file cannot stand for both");
const translations = Object.keys(zod.metafile.inputs).filter(input => zodLocales.test(`/${input}`));
if (translations.map(input => path.basename(input)).sort().join() !== 'en.js,index.js') problems.push(`dist/bundle/zod.js: holds zod's translations ${translations.join(', ')}, not English alone`);
for (const [name, result, allowed, placeFree] of [
	['dist/cli.js', attach, specifier => [...loadedLater.values()].includes(specifier), [...placeIndependent, 'source/cli.ts']],
	['dist/bundle/', supervisor, specifier => /^(node:|@?[a-z])/.test(specifier), [...placeIndependent, placeIndependentBeside.watchdog]],
	['dist/bundle/zod.js', zod, specifier => specifier.startsWith('node:'), []],
]) {
	for (const [file, output] of Object.entries(result.metafile.outputs)) {
		for (const {path: specifier, external} of output.imports) if (external && !allowed(specifier)) problems.push(`${file} would import ${specifier}`);
	}

	for (const input of Object.keys(result.metafile.inputs)) {
		if (input.startsWith('source/') && !placeFree.includes(input) && fs.readFileSync(path.join(root, input), 'utf8').includes('import.meta')) problems.push(`${name} would inline ${input}, which uses import.meta`);
	}
}

if (problems.length > 0) {
	process.stderr.write(`scripts/bundle.js:\n  ${problems.join('\n  ')}\n`);
	process.exit(1);
}
