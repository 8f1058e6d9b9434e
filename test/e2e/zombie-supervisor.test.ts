/**
 * A supervisor that was killed and never reaped (a zombie: its parent does
 * not wait, as a container's init that reaps nobody) still takes signal 0,
 * and endpoint.json still names it. It serves nothing: a `--stdio` client
 * must start the next supervisor and be served, not wait on it until its
 * own timeout. Real processes: `serve` under a parent that never reaps, the
 * built `--stdio` bridge and the daemon it starts.
 */
import {spawn} from 'node:child_process';
import {randomUUID} from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import type {CallToolResult} from '@modelcontextprotocol/sdk/types.js';
import {afterEach, describe, expect, it} from 'vitest';
import {cliPath, closeHangars, fastHangar, fixture, openHangar, processesWithTag, tempDir, waitFor, writeConfig} from '../support/hangar.js';
import {killAll, procState} from '../support/proc-state.js';

const parents: number[] = [];

afterEach(async () => {
	await closeHangars();
	killAll(parents);
});


describe('a supervisor killed and left a zombie', () => {
	it('does not keep a --stdio client from starting the next one: the client is served at once', async () => {
		const dir = tempDir();
		const stateDir = path.join(dir, 'state');
		const config = writeConfig(dir, {fx: fixture('normal')}, {...fastHangar, lingerSeconds: 1});
		const tag = randomUUID();
		// `serve` in the background of a shell that then becomes `sleep`, which never reaps it.
		const parent = spawn('sh', ['-c', '"$1" "$2" serve --config "$3" 2>/dev/null & echo $!; exec sleep 120', 'sh', process.execPath, cliPath, config], {
			stdio: ['ignore', 'pipe', 'ignore'],
			env: {...process.env, HANGAR_TEST_TAG: tag},
		});
		parents.push(parent.pid!);
		let output = '';
		parent.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
		await waitFor(() => /^\d+\n/.test(output), 'the pid of serve');
		const killed = Number(output.trim());
		const endpoint = path.join(stateDir, 'endpoint.json');
		await waitFor(() => fs.existsSync(endpoint) && (JSON.parse(fs.readFileSync(endpoint, 'utf8')) as {pid: number}).pid === killed, 'serve to take the endpoint', 30_000);
		process.kill(killed, 'SIGKILL');
		await waitFor(() => procState(killed) === 'Z', 'serve to be a zombie');

		const began = Date.now();
		const handle = await openHangar(config, {shared: true, tag});
		const result = (await handle.client.callTool({name: 'fx__echo', arguments: {message: 'served'}})) as CallToolResult;
		expect(result.content[0]).toMatchObject({type: 'text', text: expect.stringContaining('served') as string});
		// Well before the 60 s a client waits for its initialize.
		expect(Date.now() - began).toBeLessThan(30_000);
		expect((JSON.parse(fs.readFileSync(endpoint, 'utf8')) as {pid: number}).pid).not.toBe(killed);

		await handle.close();
		await waitFor(() => processesWithTag(tag).filter(pid => pid !== parent.pid).length === 0, 'no process of hangar left', 30_000);
	}, 120_000);
});
