/**
 * The real upstreams the peers bench (bench/peers.js) puts behind every
 * path: `@modelcontextprotocol/server-everything` (tool `echo`) and
 * `@modelcontextprotocol/server-memory` (tool `read_graph`, its graph in a
 * temp file: without MEMORY_FILE_PATH it writes into its own package dir).
 * Both run as `node <package bin>` from node_modules, offline.
 */
import fs from 'node:fs';
import path from 'node:path';
import {root, tempDir} from './paths.js';

const bin = name => path.join(root, 'node_modules', '@modelcontextprotocol', name, 'dist', 'index.js');
export const everythingBin = bin('server-everything');
export const memoryBin = bin('server-memory');

/**
 * One upstream instance: `{kind, command, args, env, tool, args, check(result), cleanup()}`.
 * `env` must reach the upstream (server-memory's file); `check` tells a
 * right answer to the call from a wrong one.
 */
export function realUpstream(kind) {
	if (kind === 'everything') {
		return {
			kind,
			command: process.execPath,
			args: [everythingBin],
			env: {},
			tool: 'echo',
			callArgs: {message: 'bench'},
			check: result => result.content?.[0]?.text === 'Echo: bench',
			cleanup() {},
		};
	}

	if (kind === 'memory') {
		const dir = tempDir('hangar-bench-memory-');
		return {
			kind,
			command: process.execPath,
			args: [memoryBin],
			env: {MEMORY_FILE_PATH: path.join(dir, 'memory.jsonl')},
			tool: 'read_graph',
			callArgs: {},
			check: result => result.isError !== true && typeof result.content?.[0]?.text === 'string' && result.content[0].text.includes('entities'),
			cleanup: () => fs.rmSync(dir, {recursive: true, force: true}),
		};
	}

	throw new Error(`unknown upstream kind ${kind}`);
}
