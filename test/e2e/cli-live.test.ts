/**
 * The CLI steers the live supervisor: `mcp-hangar start | stop | restart |
 * logs [-f] | reload` against a running `serve`, and what each says when
 * none is running. Errors seen through the CLI name CLI commands, not the
 * tools an MCP client would use. The built binary, real processes.
 */
import {spawn, type ChildProcess} from 'node:child_process';
import {afterEach, describe, expect, it} from 'vitest';
import fs from 'node:fs';
import path from 'node:path';
import {ErrorCode} from '../../source/core/base/errors.js';
import {cliPath, closeHangars, spawnEnv, fastHangar, fixture, openHangar, rpcError, runCli, tempDir, waitFor, waitForExit, writeConfig} from '../support/hangar.js';
import {startDaemon, stopDaemons, type Served} from '../support/serve.js';

afterEach(async () => {
	await closeHangars();
	await stopDaemons('SIGKILL');
});

async function serve(config: string): Promise<Served> {
	const served = await startDaemon(config);
	return served;
}

/** A served config whose one upstream, fx, is ready. */
async function servedFx(): Promise<string> {
	const config = writeConfig(tempDir(), {fx: fixture('normal', [], {lazy: false})}, fastHangar);
	await serve(config);
	await waitFor(async () => (await entry(config, 'fx')).state === 'ready', 'fx ready');
	return config;
}

/** `mcp-hangar logs fx -f` running: what it printed so far, and its exit code once it exits. */
function followLog(config: string): {child: ChildProcess; readonly out: string; readonly err: string; exited: Promise<number | null>} {
	const child = spawn(process.execPath, [cliPath, 'logs', 'fx', '-f', '--config', config], {stdio: ['ignore', 'pipe', 'pipe']});
	const printed = {out: '', err: ''};
	child.stdout!.on('data', (chunk: Buffer) => {
		printed.out += chunk.toString();
	});
	child.stderr!.on('data', (chunk: Buffer) => {
		printed.err += chunk.toString();
	});
	const exited = new Promise<number | null>(resolve => {
		child.on('exit', code => resolve(code));
	});
	return {child, get out() { return printed.out; }, get err() { return printed.err; }, exited};
}

type Entry = {name: string; state: string; pid: number | null};

async function entry(config: string, name: string): Promise<Entry> {
	const run = await runCli(['status', '--json', '--config', config]);
	return (JSON.parse(run.stdout) as {upstreams: Entry[]}).upstreams.find(upstream => upstream.name === name)!;
}

describe('the CLI verbs with no supervisor running', () => {
	it('says so for each, with what to run, and exits 1', async () => {
		const dir = tempDir();
		const config = writeConfig(dir, {fx: fixture('normal')}, fastHangar);
		for (const args of [['start', 'fx'], ['stop', 'fx'], ['restart', 'fx'], ['logs', 'fx'], ['logs', 'fx', '-f'], ['reload']]) {
			const run = await runCli([...args, '--config', config]);
			expect(run.code, args.join(' ')).toBe(1);
			expect(run.stdout).toBe('');
			expect(run.stderr, args.join(' ')).toContain(`no hangar is running for ${config} (state dir ${dir}/state).`);
			expect(run.stderr).toContain(`Start one with \`mcp-hangar serve --config ${config}\``);
		}

		// Given a --state-dir, every command it names carries it: following the hint reaches the same state dir.
		const elsewhere = path.join(dir, 'elsewhere');
		const given = await runCli(['start', 'fx', '--config', config, '--state-dir', elsewhere]);
		const flags = `--config ${config} --state-dir ${elsewhere}`;
		expect(given.stderr).toContain(`Start one with \`mcp-hangar serve ${flags}\` (or \`mcp-hangar tui ${flags}\`); an MCP client's \`mcp-hangar --stdio ${flags}\` starts one by itself.`);

		expect((await runCli(['start', '--config', config])).code).toBe(2);
		expect((await runCli(['reload', 'fx', '--config', config])).code).toBe(2);
	});
});

describe('the CLI verbs against a running supervisor', () => {
	it('stops, starts and restarts an upstream, shows its log, and words hints for a shell', async () => {
		const dir = tempDir();
		const config = writeConfig(dir, {fx: fixture('normal', [], {lazy: false})}, fastHangar);
		await serve(config);
		await waitFor(async () => (await entry(config, 'fx')).state === 'ready', 'fx ready');
		const first = (await entry(config, 'fx')).pid!;

		expect(await runCli(['stop', 'fx', '--config', config])).toMatchObject({code: 0, stdout: 'stopped "fx": it does not start on demand until it is started again\n'});
		await waitForExit(first);
		expect((await entry(config, 'fx')).state).toBe('stopped');
		// The refusal names what a shell user has: the CLI command, not the hangar_start tool.
		const refused = await runCli(['call', 'fx', 'echo', '--args', '{"message":"x"}', '--config', config]);
		expect(refused.code).toBe(1);
		expect(refused.stderr).toContain('Start it again: key s in mcp-hangar tui, or mcp-hangar start fx.');
		expect(refused.stderr).not.toContain('hangar_start');

		const started = await runCli(['start', 'fx', '--config', config]);
		expect(started.code).toBe(0);
		expect(started.stdout).toMatch(/^started "fx" \(ready, pid \d+, 6 tools\)\n$/);
		const second = (await entry(config, 'fx')).pid!;
		expect(second).not.toBe(first);

		const restarted = await runCli(['restart', 'fx', '--config', config]);
		expect(restarted).toMatchObject({code: 0, stdout: expect.stringMatching(/^restarted "fx" \(ready, pid \d+\)\n$/)});
		await waitForExit(second);

		const logs = await runCli(['logs', 'fx', '--config', config]);
		expect(logs.code).toBe(0);
		expect(logs.stdout).toMatch(/^\S+Z hangar ready -> stopping: stopped by a person \(mcp-hangar stop\)/m);
		expect(logs.stdout).toMatch(/^\S+Z stderr fixture-server mode=normal pid=\d+$/m);
		expect(logs.stdout).toContain('restarted by a person (mcp-hangar restart)');

		expect(await runCli(['start', 'nosuch', '--config', config])).toMatchObject({code: 1, stderr: 'mcp-hangar: upstream "nosuch": lookup failed: no upstream of that name is configured. Configured upstreams: fx.\n'});
		expect(await runCli(['reload', '--config', config])).toMatchObject({code: 0, stdout: `nothing to reload: ${config} (and the envFiles it names) says what already runs\n`});
	});

	it('follows an upstream\'s log with -f until Ctrl-C', async () => {
		const config = await servedFx();
		const follow = followLog(config);
		await waitFor(() => follow.out.includes('starting -> ready'), 'the log so far');
		expect(follow.out).not.toContain('stopped by a person');

		expect((await runCli(['stop', 'fx', '--config', config])).code).toBe(0);
		await waitFor(() => follow.out.includes('stopping -> stopped: stopped by a person (mcp-hangar stop)'), 'the new lines to follow');
		follow.child.kill('SIGINT');
		expect(await follow.exited).toBe(0);
	});

	it('logs --calls ends quietly when its reader stops reading (| head): no EPIPE stack, exit 0', async () => {
		const config = await servedFx();
		expect((await runCli(['call', 'fx', 'echo', '--args', '{"message":"x"}', '--config', config])).code).toBe(0);
		const child = spawn(process.execPath, [cliPath, 'logs', '--calls', '--config', config], {env: spawnEnv(), stdio: ['ignore', 'pipe', 'pipe']});
		child.stdout.destroy();
		let stderr = '';
		child.stderr.on('data', (chunk: Buffer) => {
			stderr += chunk.toString();
		});
		expect(await new Promise(resolve => child.on('close', resolve))).toBe(0);
		expect(stderr).toBe('');
	});

	it('is no MCP client while it follows: shutdown stops the supervisor without asking over it, and the follower says its supervisor went', async () => {
		const config = await servedFx();
		const follow = followLog(config);
		await waitFor(() => follow.out.includes('starting -> ready'), 'the log so far');

		// Without a terminal, shutdown refuses while MCP clients are attached: the follower is a person's command, not one.
		const stopped = await runCli(['shutdown', '--config', config]);
		expect(stopped.stderr).not.toContain('MCP client is attached');
		expect(stopped.code, stopped.stderr).toBe(0);
		// Its supervisor gone, the follower says so and ends, not blaming an open-file limit.
		expect(await follow.exited).toBe(0);
		expect(follow.err).toMatch(/^mcp-hangar: hangar pid \d+ \(mcp-hangar serve\) closed the connection: it stopped or is stopping, so there is nothing more to follow\./);
		expect(follow.err).not.toContain('ulimit');
	});

	it('says, stopping a serve a person started, that its clients start none and their calls fail, which they do', async () => {
		const dir = tempDir();
		const config = writeConfig(dir, {fx: fixture('normal', [], {lazy: false})}, {...fastHangar, callTimeoutSeconds: 2});
		const served = await serve(config);
		await waitFor(async () => (await entry(config, 'fx')).state === 'ready', 'fx ready');
		const client = await openHangar(config, {shared: true});
		await client.client.listTools();

		const stopped = await runCli(['shutdown', '--yes', '--config', config]);
		expect(stopped.code, stopped.stderr).toBe(0);
		expect(stopped.stdout).toContain(`Stopped hangar pid ${served.pid} (mcp-hangar serve) and its upstreams. Its clients do not start another`);
		expect(stopped.stdout).toContain('their calls wait for one and then fail (after 2 s, hangar.callTimeoutSeconds) with -32012 "supervisor unavailable"');
		expect(stopped.stdout).toContain(`serve --config ${config}\``);
		expect(stopped.stdout).not.toContain('start a new supervisor at once');
		await served.exited;

		// What it said is what happens: the client's next call waits and fails, and no supervisor was started for it.
		const failed = await rpcError(client.client.callTool({name: 'fx__echo', arguments: {message: 'x'}}));
		expect(failed.code).toBe(ErrorCode.SupervisorUnavailable);
		expect(fs.existsSync(path.join(dir, 'state', 'endpoint.json'))).toBe(false);
	});
});
