/**
 * A client that pipes its lines (the README's example: initialize,
 * initialized and a tools/call written at once, then stdin closed) gets the
 * initialize answer first, as from the upstream directly, although on a
 * first run hangar's initialize waits for the upstreams and the call could
 * finish before it. Pings are not held behind it.
 */
import {spawn} from 'node:child_process';
import readline from 'node:readline';
import {afterEach, describe, expect, it} from 'vitest';
import {cliPath, everything, fixture, runCli, spawnEnv, tempDir, writeConfig} from '../support/hangar.js';

const configs: string[] = [];

afterEach(async () => {
	for (const file of configs.splice(0)) await runCli(['shutdown', '--yes', '--config', file]);
});

/** The ids of the answers, in the order they came, to `lines` piped into `mcp-hangar --stdio ...args` and stdin closed. */
async function answerOrder(args: string[], lines: Array<Record<string, unknown>>): Promise<Array<string | number>> {
	const child = spawn(process.execPath, [cliPath, '--stdio', ...args], {stdio: ['pipe', 'pipe', 'ignore'], env: spawnEnv({})});
	const ids: Array<string | number> = [];
	const closed = new Promise<void>(resolve => {
		readline
			.createInterface({input: child.stdout!})
			.on('line', line => {
				const message = JSON.parse(line) as {id?: string | number; method?: string};
				if (message.id !== undefined && message.method === undefined) ids.push(message.id);
			})
			.on('close', resolve);
	});
	child.stdin!.end(lines.map(line => `${JSON.stringify(line)}\n`).join(''));
	await closed;
	return ids;
}

const initialize = {jsonrpc: '2.0', id: 1, method: 'initialize', params: {protocolVersion: '2025-06-18', capabilities: {}, clientInfo: {name: 'me', version: '1'}}};
const initialized = {jsonrpc: '2.0', method: 'notifications/initialized'};
const call = {jsonrpc: '2.0', id: 2, method: 'tools/call', params: {name: 'everything__echo', arguments: {message: 'hi'}}};

describe('requests piped behind initialize', () => {
	it('are answered after initialize on a first run through the daemon, as the README\'s example pipes them', async () => {
		// A second upstream slow to start: initialize waits for it; the call to everything is done long before.
		const file = writeConfig(tempDir(), {everything: everything(), slow: fixture('slow-start', ['--delay-ms', '1500'], {lazy: false})});
		configs.push(file);
		expect(await answerOrder(['--config', file], [initialize, initialized, call])).toEqual([1, 2]);
	});

	it('are answered after initialize standalone, with a ping not held', async () => {
		const file = writeConfig(tempDir(), {everything: everything(), slow: fixture('slow-start', ['--delay-ms', '1500'], {lazy: false})});
		const ids = await answerOrder(['--standalone', '--config', file], [initialize, initialized, call, {jsonrpc: '2.0', id: 3, method: 'tools/list'}, {jsonrpc: '2.0', id: 'p', method: 'ping'}]);
		expect(ids.indexOf(1)).toBeLessThan(ids.indexOf(2));
		expect(ids.indexOf(1)).toBeLessThan(ids.indexOf(3));
		expect(ids.sort()).toEqual([1, 2, 3, 'p']);
	});
});
