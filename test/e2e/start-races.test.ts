/**
 * Starting the shared supervisor is race-free: clients that start at once
 * get one daemon even when it lingers 0 s (a losing daemon's probe of the
 * socket is not a client, so it never makes the winner exit); an empty
 * endpoint.json (what a failed write leaves) does not hold a start back; and
 * a client whose daemon cannot start on a full disk is told so. Real
 * processes: the built hangar's `--stdio` bridges and the daemons they start.
 *
 * HANGAR_RACE_TRIALS sets how many times the five-client start is tried
 * (default 8, to keep the suite's time; the issue's 20 pass too: HANGAR_RACE_TRIALS=20).
 */
import {spawnSync} from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import {StdioClientTransport} from '@modelcontextprotocol/sdk/client/stdio.js';
import {Client} from '@modelcontextprotocol/sdk/client/index.js';
import type {CallToolResult} from '@modelcontextprotocol/sdk/types.js';
import {afterEach, describe, expect, it} from 'vitest';
import {cliPath, closeHangars, fastHangar, fixture, openHangar, processesWithTag, tempDir, waitFor, writeConfig, type HangarHandle} from '../support/hangar.js';

afterEach(closeHangars);

const trials = Number(process.env['HANGAR_RACE_TRIALS'] ?? 8);

function text(result: unknown): string {
	const content = (result as CallToolResult).content[0];
	return content?.type === 'text' ? content.text : '';
}

const daemonLog = (stateDir: string): string => {
	try {
		return fs.readFileSync(path.join(stateDir, 'hangar.log'), 'utf8');
	} catch {
		return '';
	}
};

/** How many daemons took the endpoint and listened (each logs this once). */
const listened = (stateDir: string): number => daemonLog(stateDir).match(/^\S+ info \[hangar\] listening for MCP clients on/gm)?.length ?? 0;

async function closeAll(handles: HangarHandle[], stateDir: string): Promise<void> {
	await Promise.all(handles.map(async handle => handle.close()));
	const left = (): string[] =>
		handles.flatMap(handle =>
			processesWithTag(handle.tag).map(pid => {
				try {
					return `${pid} ${fs.readFileSync(`/proc/${pid}/cmdline`, 'utf8').replaceAll('\0', ' ')}`;
				} catch {
					return String(pid);
				}
			}),
		);
	try {
		await waitFor(() => left().length === 0, 'no process of the clients or their daemon left', 30_000);
	} catch (error) {
		throw new Error(`${(error as Error).message}: ${left().join('; ')}\n${daemonLog(stateDir)}`);
	}
}

describe('clients that start at once', () => {
	it(`get one daemon that lingers 0 s, in each of ${trials} trials of five`, async () => {
		for (let trial = 0; trial < trials; trial++) {
			const dir = tempDir();
			const stateDir = path.join(dir, 'state');
			const config = writeConfig(dir, {fx: fixture('normal')}, {...fastHangar, lingerSeconds: 0});
			const handles = await Promise.all(Array.from({length: 5}, async () => openHangar(config, {shared: true, args: ['--log-level', 'info']})));
			const pids = await Promise.all(handles.map(async handle => text(await handle.client.callTool({name: 'fx__pid', arguments: {}}))));
			expect(new Set(pids).size, `trial ${trial}: one upstream behind every client`).toBe(1);
			expect(listened(stateDir), `trial ${trial}: one daemon served\n${daemonLog(stateDir)}`).toBe(1);
			await closeAll(handles, stateDir);
		}
	}, 60_000 + trials * 15_000);
});

describe('an endpoint.json that names nobody', () => {
	it('does not hold back the start of a daemon when it is empty', async () => {
		const dir = tempDir();
		const stateDir = path.join(dir, 'state');
		const config = writeConfig(dir, {fx: fixture('normal')}, {...fastHangar, lingerSeconds: 0});
		fs.mkdirSync(stateDir, {mode: 0o700});
		fs.writeFileSync(path.join(stateDir, 'endpoint.json'), '');
		const began = Date.now();
		const handle = await openHangar(config, {shared: true, args: ['--log-level', 'info']});
		expect(text(await handle.client.callTool({name: 'fx__echo', arguments: {message: 'served'}}))).toContain('served');
		// The young empty file was not trusted for its 10 s.
		expect(Date.now() - began).toBeLessThan(10_000);
		expect(daemonLog(stateDir)).toContain('endpoint.json is empty or unreadable, and nothing answers on the socket');
		await closeAll([handle], stateDir);
	});
});

/** Whether this machine lets a process mount a tmpfs in a mount namespace of its own (root, or unprivileged user namespaces). */
function canMountTmpfs(): boolean {
	const dir = tempDir();
	return spawnSync('unshare', ['-rm', 'sh', '-c', `mount -t tmpfs -o size=64k tmpfs "${dir}"`]).status === 0;
}

describe('a client whose daemon cannot start on a full disk', () => {
	it('is told "no space left on device"', async () => {
		// A full disk needs a small file system: a 64 KiB tmpfs over the state dir, in a mount namespace of the client's own.
		expect(canMountTmpfs(), 'unshare -rm cannot mount a tmpfs here (needs root or unprivileged user namespaces)').toBe(true);
		const dir = tempDir();
		const stateDir = path.join(dir, 'state');
		fs.mkdirSync(stateDir, {mode: 0o700});
		// The default 60 s that the bridge holds a request: the client must learn why well before that, and before its own timeout.
		const config = writeConfig(dir, {fx: fixture('normal')}, fastHangar);
		const script = `mount -t tmpfs -o size=64k,mode=700 tmpfs "$1" && (cat /dev/zero > "$1/filler" 2>/dev/null; true) && exec "$2" "$3" --stdio --config "$4"`;
		const transport = new StdioClientTransport({
			command: 'unshare',
			args: ['-rm', 'sh', '-c', script, 'sh', stateDir, process.execPath, cliPath, config],
			env: process.env as Record<string, string>,
			stderr: 'pipe',
		});
		let stderr = '';
		transport.stderr?.on('data', (chunk: Buffer) => {
			stderr += chunk.toString();
		});
		const client = new Client({name: 'full-disk', version: '1.0.0'});
		try {
			const refused = await client.connect(transport, {timeout: 30_000}).then(() => undefined, (error: unknown) => error as Error);
			expect(refused?.message).toMatch(/the supervisor this client started could not start: no space left on device.*Fix that, then restart this client/s);
		} finally {
			await client.close();
		}

		expect(stderr).toMatch(/could not serve: no space left on device/);
	});
});
