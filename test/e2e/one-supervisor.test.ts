/**
 * Whoever starts first owns the supervisor: a client's `mcp-hangar --stdio`
 * with no supervisor running starts a detached `serve --linger` daemon and
 * bridges to it; later clients, the CLI and the TUI attach to the same one.
 * The daemon outlives the client that started it while another is
 * attached, lingers `hangar.lingerSeconds` once none is, and exits leaving
 * no process behind. Real processes throughout (the built dist/ binary,
 * server-memory, the fixture server). Build first (npm test does).
 */
import {spawn} from 'node:child_process';
import {randomUUID} from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import {pathToFileURL} from 'node:url';
import {ToolListChangedNotificationSchema, type CallToolResult} from '@modelcontextprotocol/sdk/types.js';
import {afterEach, describe, expect, it} from 'vitest';
import {ErrorCode} from '../../source/core/base/errors.js';
import type {EndpointOwner} from '../../source/core/endpoints/socket-client.js';
import {
	cliPath,
	closeHangars,
	everything,
	fastHangar,
	fixture,
	isAlive,
	memory,
	openHangar,
	processesWithTag,
	rpcError,
	runCli,
	spawnEnv,
	statusOf,
	tempDir,
	waitFor,
	waitForExit,
	writeConfig,
	type HangarHandle,
} from '../support/hangar.js';

/** Daemons a test started through its clients: killed if a test fails before they linger out. */
const daemons: number[] = [];

afterEach(async () => {
	await closeHangars();
	for (const pid of daemons.splice(0)) {
		try {
			process.kill(pid, 'SIGKILL');
		} catch {}
	}
});

function text(result: unknown): string {
	const content = (result as CallToolResult).content[0];
	return content?.type === 'text' ? content.text : '';
}

/** The owner of the state dir's endpoint, once one listens. */
async function owner(stateDir: string): Promise<EndpointOwner> {
	const found = await waitFor(() => {
		try {
			return JSON.parse(fs.readFileSync(path.join(stateDir, 'endpoint.json'), 'utf8')) as EndpointOwner;
		} catch {
			return undefined;
		}
	}, 'a supervisor to own the state dir');
	daemons.push(found.pid);
	return found;
}

function listChanges(handle: HangarHandle): () => number {
	let count = 0;
	handle.client.setNotificationHandler(ToolListChangedNotificationSchema, () => {
		count += 1;
	});
	return () => count;
}

const daemonLog = (stateDir: string): string => fs.readFileSync(path.join(stateDir, 'hangar.log'), 'utf8');

describe('a client first: --stdio with no supervisor running', () => {
	it('leaves no daemon behind when the config is refused (one was started before the CLI loaded), and exits with the reason', async () => {
		const dir = tempDir();
		const config = path.join(dir, 'mcp-hangar.json');
		fs.writeFileSync(config, JSON.stringify({hangar: {stateDir: path.join(dir, 'state')}, mcpServers: {fx: {comand: 'typo'}}}));
		const tag = randomUUID();
		const client = spawn(process.execPath, [cliPath, '--stdio', '--config', config], {env: spawnEnv({HANGAR_TEST_TAG: tag}), stdio: ['pipe', 'pipe', 'pipe']});
		let stderr = '';
		let stdout = '';
		client.stderr.on('data', (chunk: Buffer) => {
			stderr += chunk.toString();
		});
		client.stdout.on('data', (chunk: Buffer) => {
			stdout += chunk.toString();
		});
		const code = await new Promise<number | null>(resolve => client.once('exit', resolve));
		expect(code, stderr).toBe(1);
		expect(stderr).toContain('unknown key "comand"');
		expect(stdout).toBe('');
		// The daemon started early is gone too: stopped, or exited on the same config.
		await waitFor(() => processesWithTag(tag).length === 0, 'no process of the client left');
		expect(fs.existsSync(path.join(dir, 'state', 'endpoint.json'))).toBe(false);
	});

	it('starts the daemon from the first client without loading the CLI: that bridge is the one file every later client runs', async () => {
		const dir = tempDir();
		const stateDir = path.join(dir, 'state');
		const config = writeConfig(dir, {fx: fixture('normal')}, {...fastHangar, lingerSeconds: 1});
		const report = path.join(dir, 'modules.jsonl');
		const env = {NODE_OPTIONS: `--import=${pathToFileURL(path.resolve('test/support/loaded-modules.mjs')).href}`, HANGAR_TEST_MODULES_REPORT: report};

		const first = await openHangar(config, {shared: true, env, args: ['--log-level', 'info']});
		const daemon = await owner(stateDir);
		expect(first.stderr()).toContain(`started one (pid ${daemon.pid}, mcp-hangar serve --linger, log ${path.join(stateDir, 'hangar.log')})`);
		expect(text(await first.client.callTool({name: 'fx__echo', arguments: {message: 'first'}}))).toBe('first');
		await first.close();
		// Every process of the test (the bridge, the daemon once it lingered out, the fixture) appends its modules at exit.
		await waitForExit(daemon.pid);

		const runs = fs.readFileSync(report, 'utf8').trim().split('\n').map(line => JSON.parse(line) as string[]);
		const hangarFiles = (modules: string[]) => modules.filter(url => url.startsWith('file:') && url.includes('/dist/') && !url.includes('/node_modules/')).map(url => url.slice(url.lastIndexOf('/dist/')));
		// The bridge is the run of dist/cli.js that is neither the daemon (quick-main) nor the fixture upstream (dist/demo).
		const bridges = runs.filter(modules => hangarFiles(modules).includes('/dist/cli.js') && !hangarFiles(modules).includes('/dist/bundle/quick-main.js'));
		expect(bridges, JSON.stringify(runs.map(hangarFiles))).toHaveLength(1);
		expect(hangarFiles(bridges[0]!)).toEqual(['/dist/cli.js']);
		expect(bridges[0]!.some(url => url.includes('/node_modules/zod/') || url.includes('/node_modules/meow/'))).toBe(false);
		// The daemon takes zod as one file, hangar's and the SDK's alike (cli/node-runtime.ts, skipUnusedModuleParts).
		const daemons = runs.filter(modules => hangarFiles(modules).includes('/dist/bundle/quick-main.js'));
		expect(daemons).toHaveLength(1);
		expect(hangarFiles(daemons[0]!)).toContain('/dist/bundle/zod.js');
		expect(daemons[0]!.filter(url => url.includes('/node_modules/zod/'))).toEqual([]);
		expect(daemons[0]!.some(url => url.includes('/node_modules/@modelcontextprotocol/client/'))).toBe(true);
	});

	it('starts one daemon that every client, the CLI and a quarantine share', async () => {
		const dir = tempDir();
		const stateDir = path.join(dir, 'state');
		const config = writeConfig(dir, {memory: memory(dir, {lazy: false})}, {...fastHangar, lingerSeconds: 1});

		const a = await openHangar(config, {shared: true, args: ['--log-level', 'info']});
		const daemon = await owner(stateDir);
		expect(daemon).toMatchObject({kind: 'serve', linger: true, config});
		expect(a.stderr()).toContain(`started one (pid ${daemon.pid}, mcp-hangar serve --linger, log ${path.join(stateDir, 'hangar.log')})`);
		// The daemon is not the client's process, and inherited its environment.
		expect(daemon.pid).not.toBe(a.pid);
		expect(processesWithTag(a.tag)).toContain(daemon.pid);

		const b = await openHangar(config, {shared: true, args: ['--log-level', 'info']});
		expect(b.stderr()).toContain(`attached to the supervisor at ${path.join(stateDir, 'hangar.sock')} (pid ${daemon.pid}, mcp-hangar serve)`);
		await waitFor(async () => (await statusOf(a.client, 'memory')).state === 'ready', 'memory to be ready');
		const upstream = (await statusOf(a.client, 'memory')).pid;
		expect(upstream).not.toBeNull();
		expect((await statusOf(b.client, 'memory')).pid).toBe(upstream);
		expect(text(await a.client.callTool({name: 'memory__read_graph', arguments: {}}))).toContain('entities');

		const status = await runCli(['status', '--json', '--config', config]);
		expect(status.code).toBe(0);
		const json = JSON.parse(status.stdout) as {live: boolean; note: string; drift: unknown; upstreams: Array<{name: string; pid: number}>};
		// Named as the TUI and shutdown name it: the daemon a client started, not a person's serve.
		expect(json).toMatchObject({live: true, note: `live state of hangar pid ${daemon.pid} (serve daemon started by a client)`, drift: null});
		expect(json.upstreams).toEqual([expect.objectContaining({name: 'memory', pid: upstream})]);

		// A person's quarantine from a shell reaches the clients' supervisor.
		const changes = listChanges(b);
		expect(await runCli(['quarantine', 'memory', '--config', config])).toMatchObject({code: 0, stdout: 'quarantined "memory": stopped, tools hidden, calls refused until a person approves it\n'});
		await waitFor(() => changes() >= 1, 'tools/list_changed after the quarantine');
		expect((await b.client.listTools()).tools.map(tool => tool.name)).not.toContain('memory__read_graph');
		const refused = await rpcError(b.client.callTool({name: 'memory__read_graph', arguments: {}}));
		expect(refused.code).toBe(ErrorCode.UpstreamUnavailable);
		expect(refused.message).toContain('quarantined by a person (mcp-hangar quarantine)');
		await waitForExit(upstream!);

		// Both clients gone: the daemon lingers, then exits, and nothing of it is left.
		await a.close();
		await b.close();
		await waitForExit(daemon.pid);
		expect(daemonLog(stateDir)).toContain('no client attached: exiting in 1 s unless one attaches (hangar.lingerSeconds)');
		await waitFor(() => processesWithTag(a.tag).length === 0 && processesWithTag(b.tag).length === 0, 'no process of the clients or the daemon left');
		expect(fs.existsSync(path.join(stateDir, 'endpoint.json'))).toBe(false);
	});

	it('ends with one daemon when two clients start at once', async () => {
		const dir = tempDir();
		const stateDir = path.join(dir, 'state');
		const config = writeConfig(dir, {fx: fixture('normal')}, {...fastHangar, lingerSeconds: 1});

		const [a, b] = await Promise.all([openHangar(config, {shared: true, args: ['--log-level', 'info']}), openHangar(config, {shared: true, args: ['--log-level', 'info']})]);
		const daemon = await owner(stateDir);
		const pidA = text(await a.client.callTool({name: 'fx__pid', arguments: {}}));
		const pidB = text(await b.client.callTool({name: 'fx__pid', arguments: {}}));
		expect(pidB).toBe(pidA);
		// Hangar's processes other than the two bridges (hangar sets its title to "mcp-hangar"), upstreams aside.
		const serving = (): number[] =>
			[...processesWithTag(a.tag), ...processesWithTag(b.tag)].filter(pid => {
				try {
					return pid !== a.pid && pid !== b.pid && fs.readFileSync(`/proc/${pid}/cmdline`, 'utf8').startsWith('mcp-hangar');
				} catch {
					return false;
				}
			});
		// A daemon that lost the race exits at once, before it touched the state dir.
		await waitFor(() => serving().length === 1, 'one daemon left');
		expect(serving()).toEqual([daemon.pid]);
		expect(daemonLog(stateDir)).not.toContain('holds the state lock');

		await a.close();
		await b.close();
		await waitFor(() => processesWithTag(a.tag).length === 0 && processesWithTag(b.tag).length === 0, 'no process left');
		// The loser was stopped by its own bridge, on purpose: nothing failed, so nothing says so.
		expect(daemonLog(stateDir)).not.toMatch(/could not serve|is gone/);
	});
});

describe('the daemon a client started', () => {
	it('outlives that client while another is attached, lingers once none is, then exits with its upstreams', async () => {
		const dir = tempDir();
		const stateDir = path.join(dir, 'state');
		const config = writeConfig(dir, {fx: fixture('normal', [], {lazy: false})}, {...fastHangar, lingerSeconds: 1});

		const first = await openHangar(config, {shared: true, args: ['--log-level', 'info']});
		const daemon = await owner(stateDir);
		const second = await openHangar(config, {shared: true, args: ['--log-level', 'info']});
		const upstream = Number(text(await first.client.callTool({name: 'fx__pid', arguments: {}})));

		await first.close();
		await waitForExit(first.pid);
		// Longer than lingerSeconds, through the remaining client: the daemon and its upstream stay.
		expect(text(await second.client.callTool({name: 'fx__sleep', arguments: {ms: 1500}}))).toContain('slept');
		expect(isAlive(daemon.pid)).toBe(true);
		expect(text(await second.client.callTool({name: 'fx__pid', arguments: {}}))).toBe(String(upstream));
		expect(daemonLog(stateDir)).not.toContain('no client attached');

		await second.close();
		await waitForExit(daemon.pid);
		await waitForExit(upstream);
		expect(daemonLog(stateDir)).toMatch(/shutting down: no client attached for 1 s \(hangar\.lingerSeconds\)/);
		await waitFor(() => processesWithTag(first.tag).length === 0 && processesWithTag(second.tag).length === 0, 'no process left');

		// The next client starts a new one.
		const next = await openHangar(config, {shared: true, args: ['--log-level', 'info']});
		expect(Number(text(await next.client.callTool({name: 'fx__pid', arguments: {}})))).not.toBe(upstream);
		const again = await owner(stateDir);
		expect(again.pid).not.toBe(daemon.pid);
		await next.close();
		await waitFor(() => processesWithTag(next.tag).length === 0, 'no process left');
	});
});

describe('stopping the daemon a client started', () => {
	it('mcp-hangar shutdown asks before leaving attached clients, stops it with --yes, and says there is nothing to stop after', async () => {
		const dir = tempDir();
		const stateDir = path.join(dir, 'state');
		const config = writeConfig(dir, {fx: fixture('normal', [], {lazy: false})}, {...fastHangar, lingerSeconds: 30});

		const client = await openHangar(config, {shared: true, args: ['--log-level', 'info']});
		const daemon = await owner(stateDir);
		const upstream = Number(text(await client.client.callTool({name: 'fx__pid', arguments: {}})));
		// status names it as the TUI and shutdown do: a daemon a client started, not a person's serve.
		const shown = await runCli(['status', '--config', config]);
		expect(shown.stderr).toContain(`Live state of hangar pid ${daemon.pid} (serve daemon started by a client).`);

		// No terminal to ask on: it refuses, naming the client and the flag.
		const refused = await runCli(['shutdown', '--config', config]);
		expect(refused.code).toBe(1);
		expect(refused.stderr).toContain(`not stopping hangar pid ${daemon.pid} (serve daemon started by a client): 1 MCP client is attached:`);
		// The command it names reaches this supervisor as written: its config, and the state dir the config leads to.
		expect(refused.stderr).toContain(`shutdown --yes --config ${config}\``);
		expect(isAlive(daemon.pid)).toBe(true);

		const stopped = await runCli(['shutdown', '--yes', '--config', config]);
		expect(stopped.code, stopped.stderr).toBe(0);
		expect(stopped.stdout).toContain(`Stopped hangar pid ${daemon.pid} (serve daemon started by a client) and its upstreams.`);
		// Its client's bridge starts the next one at once, and shutdown says so (unlike for a serve a person started).
		expect(stopped.stdout).toContain('Clients started with `mcp-hangar --stdio` start a new supervisor at once when theirs stops');
		expect(isAlive(daemon.pid)).toBe(false);
		await waitForExit(upstream);
		// The person's shutdown is in the audit trail, as their other actions are: who asked, and what it stopped.
		const audited = fs.readFileSync(path.join(stateDir, 'audit.jsonl'), 'utf8').trim().split('\n').map(line => JSON.parse(line) as Record<string, unknown>);
		expect(audited.filter(line => line['action'] === 'shutdown')).toEqual([
			{kind: 'action', time: expect.any(String), action: 'shutdown', upstream: null, via: 'asked by a person (mcp-hangar shutdown)', outcome: 'done', message: `stopped hangar (pid ${daemon.pid}) and its 1 upstream`},
		]);

		// The client's bridge started the next one; with the client gone, shutdown stops it without asking.
		const next = await owner(stateDir);
		expect(next.pid).not.toBe(daemon.pid);
		await client.close();
		await waitFor(async () => (await runCli(['status', '--json', '--config', config])).code === 0, 'status to answer');
		const alone = await runCli(['shutdown', '--config', config]);
		expect(alone.code, alone.stderr).toBe(0);
		expect(isAlive(next.pid)).toBe(false);
		expect(await runCli(['shutdown', '--config', config])).toMatchObject({code: 0, stdout: expect.stringContaining('nothing to stop')});
	});

	it('does not stay up longer because the CLI keeps asking it things: one-shot commands do not extend the linger', async () => {
		const dir = tempDir();
		const stateDir = path.join(dir, 'state');
		// Longer than a status takes on a busy machine, so the statuses below come well within it of each other.
		const config = writeConfig(dir, {fx: fixture('normal')}, {...fastHangar, lingerSeconds: 8});
		const client = await openHangar(config, {shared: true});
		const daemon = await owner(stateDir);
		await client.close();
		// Status after status, each well within lingerSeconds of the last: once counted as clients, they kept it up for good.
		const until = Date.now() + 45_000;
		let asked = 0;
		while (isAlive(daemon.pid) && Date.now() < until) {
			await runCli(['status', '--config', config]);
			asked += 1;
		}

		expect(isAlive(daemon.pid)).toBe(false);
		expect(asked).toBeGreaterThan(0);
		expect(daemonLog(stateDir)).toMatch(/shutting down: no client attached for 8 s \(hangar\.lingerSeconds\)/);
	});

	it('says whose environment an unset ${VAR} was looked up in: the daemon has its client\'s, and its upstreams do not see the marker', async () => {
		const dir = tempDir();
		const stateDir = path.join(dir, 'state');
		const config = writeConfig(dir, {tok: fixture('normal', [], {env: {TOKEN: '${HANGAR_TEST_NEVER_SET_TOKEN}'}}), everything: everything()}, {...fastHangar, lingerSeconds: 1});
		const client = await openHangar(config, {shared: true});
		const daemon = await owner(stateDir);
		const tok = await statusOf(client.client, 'tok');
		expect(tok.state).toBe('invalid');
		expect(JSON.stringify(tok)).toContain(`variable \${HANGAR_TEST_NEVER_SET_TOKEN} is not set (in the environment of hangar pid ${daemon.pid}, started by the mcp-hangar --stdio of `);
		expect(JSON.stringify(tok)).toContain('set it in this server\'s \\"env\\" or in its \\"envFile\\"');
		const env = text(await client.client.callTool({name: 'everything__get-env', arguments: {}}));
		expect(env).toContain('PATH');
		expect(env).not.toContain('MCP_HANGAR_STARTED_BY');
		await client.close();
		await waitForExit(daemon.pid);
	});
});
