/**
 * A second supervisor of the same config is detected: `serve` runs from a
 * shell with XDG_STATE_HOME set, and a hand-written client entry (no
 * --state-dir) launches `--stdio` with the SDK's trimmed environment, so it
 * resolves another state dir and starts a `serve --linger` there. Each
 * supervisor's log warns about the other, `status` from either environment
 * names the other (text and --json), and once the other stops (with the
 * command the advice gives), the warning goes away.
 */
import fs from 'node:fs';
import path from 'node:path';
import {execFile} from 'node:child_process';
import {Client} from '@modelcontextprotocol/sdk/client/index.js';
import {StdioClientTransport} from '@modelcontextprotocol/sdk/client/stdio.js';
import {afterEach, describe, expect, it} from 'vitest';
import {clientHome} from '../support/client-homes.js';
import {cliPath, fixture, waitFor} from '../support/hangar.js';
import {startDaemon, stopDaemons} from '../support/serve.js';

const clients: Client[] = [];
const cleanups: Array<() => Promise<void>> = [];

afterEach(async () => {
	await Promise.all(clients.splice(0).map(async client => client.close()));
	await stopDaemons();
	for (const cleanup of cleanups.splice(0)) await cleanup();
});

type Run = {code: number | null; stdout: string; stderr: string};

async function hangar(args: string[], env: Record<string, string>, cwd: string): Promise<Run> {
	return new Promise(resolve => {
		execFile(process.execPath, [cliPath, ...args], {env, cwd}, (error, stdout, stderr) => {
			resolve({code: error === null ? 0 : typeof error.code === 'number' ? error.code : null, stdout, stderr});
		});
	});
}

type StatusJson = {otherSupervisors: Array<{pid: number; kind: string; stateDir: string; advice: string}>};

describe('a second supervisor of the same config', () => {
	it('is named by each one in its log and status, until it stops', async () => {
		const home = clientHome(() => false);
		const config = path.join(home.root, 'hangar.json');
		fs.writeFileSync(config, JSON.stringify({mcpServers: {fx: fixture('normal')}}));
		const stateHome = path.join(home.root, 'xdg-state');
		const shellStateDir = path.join(stateHome, 'mcp-hangar');
		const bareStateDir = path.join(home.home, '.local', 'state', 'mcp-hangar');
		const shell = {...home.env, PATH: process.env['PATH'] ?? '/usr/bin:/bin', XDG_STATE_HOME: stateHome, MCP_HANGAR_STATE_DIR: ''};
		const bare = {HOME: home.home, PATH: process.env['PATH'] ?? '/usr/bin:/bin', SHELL: '/bin/sh', TERM: 'dumb'};

		const served = await startDaemon(config, {env: shell});

		// A hand-written client entry: no --state-dir, and the SDK's default environment.
		const transport = new StdioClientTransport({command: process.execPath, args: [cliPath, '--stdio', '--config', config], env: bare, stderr: 'pipe'});
		const client = new Client({name: 'trimmed', version: '1.0.0'});
		clients.push(client);
		await client.connect(transport);
		expect((await client.listTools()).tools.map(tool => tool.name)).toContain('fx__echo');
		// Stopped by the test if it is still up at the end (the bridge's daemon outlives the client for lingerSeconds).
		cleanups.push(async () => {
			await hangar(['shutdown', '--config', config, '--state-dir', bareStateDir], bare, home.project);
		});

		// The second one (the bridge's serve --linger) warns at start, in its log in its state dir.
		const daemonLog = path.join(bareStateDir, 'hangar.log');
		const read = (file: string): string => (fs.existsSync(file) ? fs.readFileSync(file, 'utf8') : '');
		await waitFor(() => read(daemonLog).includes(`another supervisor (pid ${served.pid}, mcp-hangar serve, state dir ${shellStateDir})`) || undefined, 'the second supervisor to warn about the first');
		const daemonPid = Number(/another supervisor \(pid (\d+), mcp-hangar serve --linger/.exec(await waitFor(() => /another supervisor \(pid \d+, mcp-hangar serve --linger/.exec(served.stderr())?.[0], 'the first supervisor to warn about the second'))![1]);
		expect(served.stderr()).toContain(`mcp-hangar shutdown --state-dir ${bareStateDir} --config`);

		// status from the person's shell: its supervisor names the other.
		const fromShell = await hangar(['status', '--config', config], shell, home.project);
		expect(fromShell.code).toBe(0);
		expect(fromShell.stderr).toContain(`Warning: another supervisor (pid ${daemonPid}, mcp-hangar serve --linger, state dir ${bareStateDir}) runs this config`);
		expect(fromShell.stderr).toContain('mcp-hangar setup CLIENT');
		const shellJson = JSON.parse((await hangar(['status', '--json', '--config', config], shell, home.project)).stdout) as StatusJson;
		expect(shellJson.otherSupervisors.map(other => [other.pid, other.kind, other.stateDir])).toEqual([[daemonPid, 'serve --linger', bareStateDir]]);

		// status with the trimmed environment: the other supervisor names serve.
		const fromBare = await hangar(['status', '--config', config], bare, home.project);
		expect(fromBare.stderr).toContain(`Warning: another supervisor (pid ${served.pid}, mcp-hangar serve, state dir ${shellStateDir}) runs this config`);
		const bareJson = JSON.parse((await hangar(['status', '--json', '--config', config], bare, home.project)).stdout) as StatusJson;
		expect(bareJson.otherSupervisors.map(other => [other.pid, other.kind, other.stateDir])).toEqual([[served.pid, 'serve', shellStateDir]]);

		// Stopped as the advice says: the warning goes away.
		await client.close();
		const stop = await hangar(['shutdown', '--state-dir', bareStateDir, '--config', config], bare, home.project);
		expect(stop.code).toBe(0);
		const after = await hangar(['status', '--json', '--config', config], shell, home.project);
		expect((JSON.parse(after.stdout) as StatusJson).otherSupervisors).toEqual([]);
		expect((await hangar(['status', '--config', config], shell, home.project)).stderr).not.toContain('another supervisor');
		await waitFor(() => served.stderr().includes(`the other supervisor of this config (pid ${daemonPid}, state dir ${bareStateDir}) is gone`) || undefined, 'serve to log that the other is gone');
	});
});
