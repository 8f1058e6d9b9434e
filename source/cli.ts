#!/usr/bin/env node
/**
 * The `mcp-hangar` binary. The CLI itself is `cli/main.tsx`; this entry
 * stays at `dist/cli.js` because the client configs that `setup` wrote
 * (and people's own) launch that path. It checks the Node version and turns
 * on the compile cache (cli/node-runtime.ts) before the CLI's modules load,
 * which is why the CLI is imported, not a static import.
 */
import {enableCompileCache, unsupportedNode} from './cli/node-runtime.js';

const unsupported = unsupportedNode();
if (unsupported === undefined) {
	enableCompileCache();
	await import('./cli/main.js');
} else {
	process.stderr.write(unsupported);
	process.exitCode = 1;
}
