/**
 * Live config reload: a running supervisor (`mcp-hangar serve`) watches its
 * config file. Added servers appear, removed ones stop and their tools leave,
 * changed ones (env included) restart, unchanged ones are not touched (a call
 * in flight completes). A file that does not validate is refused: the old
 * config keeps serving and status says the file differs. `mcp-hangar reload`
 * and SIGHUP reload too. Real processes: the built binary, two `--stdio`
 * bridges driven by SDK clients, fixture upstreams.
 */
import fs from 'node:fs';
import path from 'node:path';
import {ToolListChangedNotificationSchema, type CallToolResult} from '@modelcontextprotocol/sdk/types.js';
import {afterEach, describe, expect, it} from 'vitest';
import {closeHangars, fastHangar, fixture, isAlive, openHangar, runCli, statusOf, tempDir, waitFor, waitForExit, type HangarHandle, type ServerEntry} from '../support/hangar.js';
import {startDaemon, stopDaemons} from '../support/serve.js';

afterEach(async () => {
	await closeHangars();
	await stopDaemons('SIGKILL');
});

function text(result: unknown): string {
	const content = (result as CallToolResult).content[0];
	return content?.type === 'text' ? content.text : '';
}

function write(file: string, dir: string, servers: Record<string, ServerEntry>): void {
	// As editors save: a new file renamed over the old one.
	const temporary = `${file}.tmp`;
	fs.writeFileSync(temporary, JSON.stringify({hangar: {...fastHangar, stateDir: path.join(dir, 'state')}, mcpServers: servers}, null, 2));
	fs.renameSync(temporary, file);
}

function watch(handle: HangarHandle): () => number {
	let count = 0;
	handle.client.setNotificationHandler(ToolListChangedNotificationSchema, () => {
		count += 1;
	});
	return () => count;
}

async function toolNames(handle: HangarHandle): Promise<string[]> {
	return (await handle.client.listTools()).tools.map(tool => tool.name);
}

type Status = {drift: {state: string; message: string} | null; lastReload: {outcome: string; summary: string} | null; upstreams: Array<{name: string}>};

async function statusJson(config: string): Promise<Status> {
	const run = await runCli(['status', '--json', '--config', config]);
	expect(run.code).toBe(0);
	return JSON.parse(run.stdout) as Status;
}

describe('a config edit while clients are attached', () => {
	it('adds, removes and restarts what changed, leaves the rest alone, and refuses a broken file', async () => {
		const dir = tempDir();
		const file = path.join(dir, 'mcp-hangar.json');
		const eager = (extra: ServerEntry = {}) => fixture('normal', [], {lazy: false, ...extra});
		write(file, dir, {fx: eager(), gone: eager(), chg: eager({env: {LEVEL: '1'}})});
		const served = await startDaemon(file);
		const a = await openHangar(file, {shared: true});
		const b = await openHangar(file, {shared: true});
		const changesA = watch(a);
		const changesB = watch(b);
		for (const name of ['fx', 'gone', 'chg']) await waitFor(async () => (await statusOf(a.client, name)).state === 'ready', `${name} ready`);
		const fxPid = (await statusOf(a.client, 'fx')).pid!;
		const gonePid = (await statusOf(a.client, 'gone')).pid!;
		const chgPid = (await statusOf(a.client, 'chg')).pid!;

		// A call in flight to fx, which the edit does not touch.
		const inFlight = a.client.callTool({name: 'fx__sleep', arguments: {ms: 2000}});
		await waitFor(async () => (await statusOf(b.client, 'fx')).inFlight === 1, 'the call to be in flight');
		write(file, dir, {fx: eager(), chg: eager({env: {LEVEL: '2'}}), gx: eager()});

		await waitFor(() => changesA() >= 1 && changesB() >= 1, 'both clients to get tools/list_changed');
		for (const client of [a, b]) {
			await waitFor(async () => {
				const names = await toolNames(client);
				return names.includes('gx__echo') && !names.includes('gone__echo') && names.includes('fx__echo');
			}, 'the new tool set');
		}

		expect(text(await inFlight)).toBe('slept 2000');
		expect((await statusOf(a.client, 'fx')).pid).toBe(fxPid);
		await waitForExit(gonePid);
		await waitForExit(chgPid);
		await waitFor(async () => (await statusOf(b.client, 'chg')).state === 'ready', 'chg started again with its new env');
		expect((await statusOf(b.client, 'chg')).pid).not.toBe(chgPid);
		expect(text(await b.client.callTool({name: 'gx__echo', arguments: {message: 'new'}}))).toBe('new');

		// The record of what changed and why: the log, the upstream's details, status.
		expect(served.stderr()).toContain('config reload (the config file changed): applied: added gx; removed gone; restarted chg (launch.env.LEVEL changed)');
		const details = (await a.client.callTool({name: 'hangar_details', arguments: {server: 'chg'}})).structuredContent as {reloads: Array<{trigger: string; summary: string}>};
		expect(details.reloads).toEqual([expect.objectContaining({trigger: 'the config file changed', summary: expect.stringContaining('restarted chg (launch.env.LEVEL changed)')})]);
		expect(await statusJson(file)).toMatchObject({drift: null, lastReload: {outcome: 'applied'}});

		// A broken edit is refused and reported; the running config keeps serving.
		const before = changesA();
		fs.writeFileSync(file, JSON.stringify({hangar: {stateDir: path.join(dir, 'state')}, mcpServers: {fx: {comand: 'typo'}}}));
		await waitFor(() => served.stderr().includes('config reload (the config file changed): refused'), 'the refusal in the log');
		expect(served.stderr()).toContain('unknown key "comand"');
		const status = await statusJson(file);
		expect(status.drift).toMatchObject({state: 'invalid', message: expect.stringContaining('does not validate, so it was not applied: the previous config still runs')});
		expect(status.upstreams.map(entry => entry.name).sort()).toEqual(['chg', 'fx', 'gx']);
		const table = await runCli(['status', '--config', file]);
		expect(table.stderr).toContain(`Config: ${file} changed but does not validate`);
		expect(text(await a.client.callTool({name: 'fx__echo', arguments: {message: 'still'}}))).toBe('still');
		// A client launched meanwhile attaches to the supervisor that runs the previous file.
		const late = await openHangar(file, {shared: true});
		expect(text(await late.client.callTool({name: 'gx__echo', arguments: {message: 'late'}}))).toBe('late');
		expect(late.stderr()).toContain('Attaching to the supervisor that runs its previous version.');
		expect(changesA()).toBe(before);
		expect(await runCli(['reload', '--config', file])).toMatchObject({code: 1, stderr: expect.stringContaining('mcp-hangar: reload refused: Invalid configuration in')});

		// Fixed: applied; SIGHUP to serve reloads (and does not stop it).
		write(file, dir, {fx: eager(), chg: eager({env: {LEVEL: '2'}}), gx: eager()});
		await waitFor(async () => (await statusJson(file)).drift === null, 'the drift to clear');
		served.child.kill('SIGHUP');
		await waitFor(() => served.stderr().includes('config reload (SIGHUP): unchanged'), 'the SIGHUP reload');
		expect(isAlive(served.pid)).toBe(true);
		expect(await runCli(['reload', '--config', file])).toMatchObject({code: 0, stdout: `nothing to reload: ${file} (and the envFiles it names) says what already runs\n`});
		await a.close();
		await b.close();
		expect(await served.stop()).toEqual({code: 0, signal: null});
	});

	it('reads an edited envFile again on mcp-hangar reload, restarting the server whose environment changed', async () => {
		const dir = tempDir();
		const file = path.join(dir, 'mcp-hangar.json');
		const envFile = path.join(dir, 'tokens.env');
		fs.writeFileSync(envFile, 'TOKEN=first\n');
		write(file, dir, {fx: fixture('normal', [], {lazy: false, envFile}), same: fixture('normal', [], {lazy: false})});
		const served = await startDaemon(file);
		const client = await openHangar(file, {shared: true});
		for (const name of ['fx', 'same']) await waitFor(async () => (await statusOf(client.client, name)).state === 'ready', `${name} ready`);
		const fxPid = (await statusOf(client.client, 'fx')).pid!;
		const samePid = (await statusOf(client.client, 'same')).pid!;

		// The config file itself is unchanged: only what its envFile says.
		fs.writeFileSync(envFile, 'TOKEN=second\n');
		const reloaded = await runCli(['reload', '--config', file]);
		expect(reloaded.code, reloaded.stderr).toBe(0);
		expect(reloaded.stdout).toMatch(/^reloaded .*fx/);
		await waitForExit(fxPid);
		await waitFor(async () => (await statusOf(client.client, 'fx')).state === 'ready', 'fx ready again');
		expect((await statusOf(client.client, 'fx')).pid).not.toBe(fxPid);
		expect((await statusOf(client.client, 'same')).pid).toBe(samePid);
		await client.close();
		expect(await served.stop()).toEqual({code: 0, signal: null});
	});
});
