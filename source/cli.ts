#!/usr/bin/env node
/**
 * The `mcp-hangar` binary. The CLI itself is `cli/main.tsx`; this entry
 * stays at `dist/cli.js` because the client configs that `setup` wrote
 * (and people's own) launch that path.
 */
import './cli/main.js';
