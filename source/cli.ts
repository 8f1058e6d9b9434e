#!/usr/bin/env node
/**
 * The `mcp-hangar` binary. The CLI itself is `cli/main.tsx`; this entry
 * stays at `dist/cli.js` because the client configs that `setup` wrote
 * (and people's own) launch that path. It checks the Node version and turns
 * on the compile cache (cli/node-runtime.ts) before the CLI's modules load,
 * which is why the CLI is imported, not a static import.
 *
 * A plain `--stdio` (what every MCP client launches) first tries to attach
 * to the supervisor already running for its config, loading only the
 * bridge's few modules (core/endpoints/stdio-bridge.ts): every client
 * after the first starts in about the time of a bare node process that
 * connects to a socket. When that declines, the CLI decides as always.
 * The daemon a bridge starts (`serve --linger` with the same flags) and
 * `--stdio --standalone` skip the CLI too (core/endpoints/quick-main.ts):
 * less to hold at idle.
 *
 * `npm run build` bundles this file with the bridge into dist/cli.js, one
 * file, and quick-main.ts with what it loads into dist/bundle/
 * (scripts/bundle.js): fewer modules for the ESM loader to resolve.
 */
import {enableCompileCache, skipUnusedModuleParts, unsupportedNode} from './cli/node-runtime.js';
import {lingeringServeArgs, plainStdioArgs, standaloneStdioArgs} from './cli/stdio-args.js';

const unsupported = unsupportedNode(undefined, undefined, {script: process.argv[1], argv: process.argv.slice(2)});
if (unsupported === undefined) {
	enableCompileCache();
	const argv = process.argv.slice(2);
	const stdio = process.stdin.isTTY ? undefined : plainStdioArgs(argv);
	const daemon = process.stdin.isTTY ? undefined : lingeringServeArgs(argv);
	const standalone = process.stdin.isTTY ? undefined : standaloneStdioArgs(argv);
	// Before anything that loads zod or the SDK (not the quick attach, which loads neither). zod's one file is built beside the engine's.
	const zodBundle = new URL('bundle/zod.js', import.meta.url);
	if (daemon !== undefined || standalone !== undefined) skipUnusedModuleParts(zodBundle);
	if (daemon !== undefined) await (await import('./core/endpoints/quick-main.js')).runLingeringServe(daemon);
	else if (standalone !== undefined) await (await import('./core/endpoints/quick-main.js')).runStandaloneStdio(standalone);
	else {
		const attached = stdio !== undefined && (await (await import('./core/endpoints/stdio-bridge.js')).attachQuickly(stdio).catch(() => false));
		if (!attached) {
			skipUnusedModuleParts(zodBundle);
			await import('./cli/main.js');
		}
	}
} else {
	process.stderr.write(unsupported);
	process.exitCode = 1;
}
