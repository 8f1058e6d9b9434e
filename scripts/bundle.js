/**
 * The second half of `npm run build`: after tsc has written dist/, esbuild
 * replaces dist/cli.js with a bundle of source/cli.ts and everything the
 * quick attach of `--stdio` runs (core/endpoints/stdio-bridge.ts and its
 * imports: the bridge, the socket client, the wire's line handling, the
 * logger), in one file. Every MCP client launches `dist/cli.js --stdio`, and
 * every client after the first attaches to a running supervisor: that
 * process now loads one module of hangar's instead of about 25, which takes
 * the ESM loader's resolution (and the TurboFan code it made hot) off its
 * start and its idle memory (docs/performance.md, sixth round).
 *
 * What the bundle imports dynamically stays tsc's output, loaded only when a
 * path needs it: the CLI (`./cli/main.js`) when the quick attach declines, and
 * the daemon and `--stdio --standalone` (`./core/endpoints/quick-main.js`).
 * Packages stay imports too (the attach path uses none). The build fails if
 * the bundle would import any other file of hangar's: a file loaded both
 * inlined and from dist/ is two modules, with two copies of any state.
 */
import {build} from 'esbuild';
import path from 'node:path';
import {fileURLToPath} from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const entry = path.join(root, 'source', 'cli.ts');
/** What source/cli.ts imports that stays a file of its own (relative to dist/cli.js, as to source/cli.ts). */
const loadedLater = new Set(['./cli/main.js', './core/endpoints/quick-main.js']);

const laterStaysExternal = {
	name: 'later-stays-external',
	setup(bundler) {
		bundler.onResolve({filter: /^\.\//}, args => (args.importer === entry && loadedLater.has(args.path) ? {path: args.path, external: true} : undefined));
	},
};

/**
 * Node's modules are taken with `require` (createRequire), not `import`: an
 * ES import of a builtin builds a module namespace of all its exports, which
 * reads every getter on it (`fs.promises` loads node:fs/promises,
 * `node:process` a dozen more), about 1.4 MiB of an attached bridge's idle
 * RSS, measured (docs/performance.md, sixth round).
 */
const builtinsByRequire = {
	name: 'builtins-by-require',
	setup(bundler) {
		bundler.onResolve({filter: /^node:/}, args => ({path: args.path, namespace: 'node-builtin'}));
		bundler.onLoad({filter: /.*/, namespace: 'node-builtin'}, args => ({contents: `module.exports = __nodeRequire(${JSON.stringify(args.path)});`, loader: 'js'}));
	},
};

const result = await build({
	absWorkingDir: root,
	entryPoints: [entry],
	outfile: path.join(root, 'dist', 'cli.js'),
	bundle: true,
	platform: 'node',
	format: 'esm',
	target: 'node22',
	packages: 'external',
	sourcemap: true,
	metafile: true,
	logLevel: 'warning',
	banner: {js: "import {createRequire as __createRequire} from 'node:module';\nconst __nodeRequire = __createRequire(import.meta.url);"},
	plugins: [laterStaysExternal, builtinsByRequire],
});

const imports = Object.values(result.metafile.outputs).flatMap(output => output.imports.filter(i => i.external).map(i => i.path));
const unexpected = imports.filter(specifier => !loadedLater.has(specifier));
if (unexpected.length > 0) {
	process.stderr.write(`scripts/bundle.js: dist/cli.js would import ${unexpected.join(', ')}; inline it or add it to loadedLater on purpose\n`);
	process.exit(1);
}
