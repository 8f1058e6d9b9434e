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
 */
import {enableCompileCache, unsupportedNode} from './cli/node-runtime.js';
import {plainStdioArgs} from './cli/stdio-args.js';

const unsupported = unsupportedNode();
if (unsupported === undefined) {
	enableCompileCache();
	const stdio = process.stdin.isTTY ? undefined : plainStdioArgs(process.argv.slice(2));
	const attached = stdio !== undefined && (await (await import('./core/endpoints/stdio-bridge.js')).attachQuickly(stdio).catch(() => false));
	if (!attached) await import('./cli/main.js');
} else {
	process.stderr.write(unsupported);
	process.exitCode = 1;
}
