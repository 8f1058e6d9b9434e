/**
 * The built binary turns on Node's compile cache in the user's cache dir
 * (source/cli/node-runtime.ts): it is created owner-only and filled, and
 * whether or not it can be, `--version` and a `--stdio` session write
 * nothing but their own output to stdout.
 */
import fs from 'node:fs';
import path from 'node:path';
import {spawnSync} from 'node:child_process';
import {describe, expect, it} from 'vitest';
import {cliPath, tempDir, writeConfig} from '../support/hangar.js';

const initialize = JSON.stringify({jsonrpc: '2.0', id: 1, method: 'initialize', params: {protocolVersion: '2025-06-18', capabilities: {}, clientInfo: {name: 'cache-test', version: '1.0.0'}}});

function run(args: string[], cacheHome: string, input?: string) {
	// Node's own variables would choose for it.
	const {NODE_COMPILE_CACHE: _dir, NODE_DISABLE_COMPILE_CACHE: _off, ...env} = process.env;
	return spawnSync(process.execPath, [cliPath, ...args], {env: {...env, XDG_CACHE_HOME: cacheHome}, input, encoding: 'utf8', timeout: 30_000});
}

/** A one-shot `--stdio` session: initialize, then stdin closes; every line of stdout must be JSON-RPC. */
function stdioSession(cacheHome: string) {
	const dir = tempDir('hangar-cache-');
	const config = writeConfig(dir, {});
	const result = run(['--stdio', '--standalone', '--config', config], cacheHome, `${initialize}\n`);
	const lines = result.stdout.split('\n').filter(line => line !== '');
	return {result, messages: lines.map(line => JSON.parse(line) as {jsonrpc: string; id?: number; result?: {serverInfo?: {name: string}}})};
}

describe('the compile cache', () => {
	it('is made owner-only under $XDG_CACHE_HOME and filled by a run, with stdout untouched', () => {
		const cacheHome = tempDir('hangar-cache-home-');
		const version = run(['--version'], cacheHome);
		expect(version.status).toBe(0);
		expect(version.stdout).toMatch(/^\d+\.\d+\.\d+\n$/);
		expect(version.stderr).toBe('');
		const cache = path.join(cacheHome, 'mcp-hangar', 'compile-cache');
		expect(fs.statSync(cache).mode & 0o777).toBe(0o700);
		// Node keeps one folder per Node version and flags, with an entry per module it compiled.
		const [versionDir] = fs.readdirSync(cache);
		expect(versionDir).toContain(process.version);
		expect(fs.readdirSync(path.join(cache, versionDir!)).length).toBeGreaterThan(5);

		const {result, messages} = stdioSession(cacheHome);
		expect(result.status).toBe(0);
		expect(messages).toHaveLength(1);
		expect(messages[0]).toMatchObject({jsonrpc: '2.0', id: 1, result: {serverInfo: {name: 'mcp-hangar'}}});
	});

	it('is skipped without a word when it cannot be created', () => {
		// A file where the cache home should be: nothing can be made under it.
		const cacheHome = path.join(tempDir('hangar-cache-home-'), 'not-a-dir');
		fs.writeFileSync(cacheHome, '');
		const version = run(['--version'], cacheHome);
		expect(version.status).toBe(0);
		expect(version.stdout).toMatch(/^\d+\.\d+\.\d+\n$/);
		expect(version.stderr).toBe('');

		const {result, messages} = stdioSession(cacheHome);
		expect(result.status).toBe(0);
		expect(messages).toHaveLength(1);
		expect(messages[0]).toMatchObject({jsonrpc: '2.0', id: 1, result: {serverInfo: {name: 'mcp-hangar'}}});
	});
});
