/**
 * The built binary turns on Node's compile cache in the user's cache dir
 * (source/cli/node-runtime.ts): it is created owner-only and filled, and
 * whether or not it can be, `--version` and a `--stdio` session write
 * nothing but their own output to stdout. A supervisor writes it once its
 * launch has settled (endpoints/runtime.ts), not only at a clean exit.
 */
import fs from 'node:fs';
import path from 'node:path';
import {spawn, spawnSync} from 'node:child_process';
import {randomUUID} from 'node:crypto';
import {describe, expect, it} from 'vitest';
import {cliPath, fixture, processesWithTag, spawnEnv, tempDir, waitFor, writeConfig} from '../support/hangar.js';

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

	it('is written by the daemon a client starts once its launch has settled, so a daemon killed later leaves it warm', async () => {
		const cacheHome = tempDir('hangar-cache-home-');
		const dir = tempDir('hangar-cache-');
		const stateDir = path.join(dir, 'state');
		const config = writeConfig(dir, {fx: fixture('normal', [], {lazy: false})}, {stateDir});
		fs.mkdirSync(stateDir);
		const tag = randomUUID();
		const {NODE_COMPILE_CACHE: _dir, NODE_DISABLE_COMPILE_CACHE: _off, ...env} = spawnEnv({XDG_CACHE_HOME: cacheHome, HANGAR_TEST_TAG: tag});
		const args = [cliPath, 'serve', '--linger', '--config', config, '--state-dir', stateDir, '--log-file', path.join(stateDir, 'hangar.log')];
		const daemon = spawn(process.execPath, args, {env, stdio: 'ignore'});
		const exited = new Promise(resolve => daemon.once('exit', resolve));
		const cache = path.join(cacheHome, 'mcp-hangar', 'compile-cache');
		const entries = () => (fs.existsSync(cache) ? fs.readdirSync(cache).flatMap(version => fs.readdirSync(path.join(cache, version))).length : 0);
		try {
			// The engine, zod and the SDK: about 45 modules (zod is one file and its translations are not loaded: node-runtime.ts), written while the daemon runs.
			await waitFor(() => entries() > 30, 'the running daemon to write its compile cache', 20_000);
		} finally {
			// A kill no exit hook survives: what Node writes at exit is never written.
			daemon.kill('SIGKILL');
			await exited;
		}

		expect(entries()).toBeGreaterThan(30);
		// The watchdog stops the upstream of the killed daemon.
		await waitFor(() => processesWithTag(tag).length === 0, 'the daemon\'s upstream to be stopped');
	});
});
