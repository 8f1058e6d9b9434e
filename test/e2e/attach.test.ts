/**
 * One supervisor, many clients: `mcp-hangar serve` (a real daemon process)
 * with real `mcp-hangar --stdio` bridges driven by SDK clients. Calls from
 * several clients reach one upstream process; a client's session survives
 * the supervisor stopping and starting again (nothing lost, nothing answered
 * twice, the bridge never exits); the socket is owner-only; stale sockets
 * are replaced and live ones never; the CLI goes through the live
 * supervisor; bridges exit cleanly on stdin EOF. Build first (npm test does).
 */
import {spawn, spawnSync} from 'node:child_process';
import {randomUUID} from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import {pathToFileURL} from 'node:url';
import {PassThrough} from 'node:stream';
import {Client} from '@modelcontextprotocol/sdk/client/index.js';
import {ElicitRequestSchema, ToolListChangedNotificationSchema, type CallToolResult} from '@modelcontextprotocol/sdk/types.js';
import {afterEach, describe, expect, it} from 'vitest';
import {StdioBridge} from '../../source/core/endpoints/bridge.js';
import {ErrorCode} from '../../source/core/base/errors.js';
import {classifyConnectError} from '../../source/core/endpoints/socket-client.js';
import {Logger} from '../../source/core/base/logger.js';
import {
	cliPath,
	closeHangars,
	fastHangar,
	fixture,
	isAlive,
	openHangar,
	processesWithTag,
	rpcError,
	runCli,
	statusOf,
	tempDir,
	waitFor,
	waitForExit,
	writeConfig,
	type HangarHandle,
} from '../support/hangar.js';
import {startDaemon, stopDaemons, type Served} from '../support/serve.js';

afterEach(async () => {
	await closeHangars();
	await stopDaemons('SIGKILL');
});

/** A daemon serving one fixture upstream, fx, with fast timings (and `extra` in the config's hangar section). */
async function fxDaemon(extra: Record<string, unknown> = {}): Promise<{dir: string; config: string; daemon: Served}> {
	const dir = tempDir();
	const config = writeConfig(dir, {fx: fixture('normal')}, {...fastHangar, ...extra});
	return {dir, config, daemon: await startDaemon(config)};
}

/** A client attached to a daemon that served one call and then stopped; held requests wait `callTimeoutSeconds`. */
async function clientWhoseSupervisorStopped(callTimeoutSeconds: number): Promise<{dir: string; config: string; client: HangarHandle}> {
	const {dir, config, daemon} = await fxDaemon({callTimeoutSeconds});
	const client = await openHangar(config, {shared: true, args: ['--log-level', 'info']});
	await client.client.callTool({name: 'fx__echo', arguments: {message: 'up'}});
	await daemon.stop();
	return {dir, config, client};
}

function text(result: unknown): string {
	const content = (result as CallToolResult).content[0];
	return content?.type === 'text' ? content.text : '';
}

/** Counts every tools/list_changed a client receives, and the SDK's complaints (a response for an unknown id means one was answered twice). */
function watch(handle: HangarHandle): {listChanged: () => number; errors: string[]} {
	let listChanged = 0;
	const errors: string[] = [];
	handle.client.setNotificationHandler(ToolListChangedNotificationSchema, () => {
		listChanged += 1;
	});
	handle.client.onerror = error => errors.push(error.message);
	return {listChanged: () => listChanged, errors};
}

describe('mcp-hangar serve with --stdio clients attached', () => {
	it('serves two clients from one supervisor: one upstream process, calls from both, the same live state', async () => {
		const {dir, config, daemon} = await fxDaemon();
		const a = await openHangar(config, {shared: true, args: ['--log-level', 'info']});
		const b = await openHangar(config, {shared: true, args: ['--log-level', 'info']});
		expect(a.stderr()).toContain(`attached to the supervisor at ${path.join(dir, 'state', 'hangar.sock')} (pid ${daemon.pid}, mcp-hangar serve)`);

		const pidA = text(await a.client.callTool({name: 'fx__pid', arguments: {}}));
		const pidB = text(await b.client.callTool({name: 'fx__pid', arguments: {}}));
		expect(pidA).toMatch(/^\d+$/);
		expect(pidB).toBe(pidA);
		// The upstream is the daemon's child, not a bridge's.
		expect(processesWithTag(daemon.tag).map(String)).toContain(pidA);
		expect(processesWithTag(a.tag)).toEqual([a.pid]);

		const seenByB = await statusOf(b.client, 'fx');
		expect(seenByB).toMatchObject({state: 'ready', pid: Number(pidA), calls: 2});

		await a.close();
		await b.close();
		await waitForExit(a.pid);
		await waitForExit(b.pid);
		// The supervisor and its upstream outlive their clients.
		expect(isAlive(daemon.pid)).toBe(true);
		expect(isAlive(Number(pidA))).toBe(true);

		expect(await daemon.stop()).toEqual({code: 0, signal: null});
		await waitFor(() => processesWithTag(daemon.tag).length === 0, 'no process of the daemon left');
	});

	it('keeps a client\'s session through a supervisor restart: nothing lost, nothing answered twice, the bridge never exits', async () => {
		const {config, daemon: started} = await fxDaemon();
		let daemon = started;
		const client = await openHangar(config, {shared: true, args: ['--log-level', 'info']});
		const seen = watch(client);
		const first = text(await client.client.callTool({name: 'fx__pid', arguments: {}}));

		// Four callers, each sending a numbered message and checking it comes back as its own answer.
		let running = true;
		let sent = 0;
		const answers: string[] = [];
		const callers = Array.from({length: 4}, async (_, caller) => {
			while (running) {
				const message = `c${caller}-${sent++}`;
				const result = await client.client.callTool({name: 'fx__echo', arguments: {message}});
				answers.push(text(result));
				expect(text(result)).toBe(message);
			}
		});

		await waitFor(() => answers.length >= 50, 'calls to flow before the restart');
		expect(await daemon.stop()).toEqual({code: 0, signal: null});
		const duringOutage = answers.length;
		daemon = await startDaemon(config);
		await waitFor(() => answers.length >= duringOutage + 50, 'calls to flow after the restart');
		running = false;
		await Promise.all(callers);

		// Every call sent was answered once, with its own answer.
		expect(answers.length).toBe(sent);
		expect(new Set(answers).size).toBe(sent);
		expect(seen.errors).toEqual([]);
		// The client's session went on: same bridge process, told the tools may have changed, served by a new upstream.
		expect(isAlive(client.pid)).toBe(true);
		expect(client.stderr()).toContain('bridge: the supervisor stopped; reconnecting');
		expect(client.stderr()).toContain('bridge: connected to the supervisor again');
		await waitFor(() => seen.listChanged() >= 1, 'tools/list_changed after the reconnect');
		const second = text(await client.client.callTool({name: 'fx__pid', arguments: {}}));
		expect(second).not.toBe(first);
		expect((await client.client.listTools()).tools.map(tool => tool.name)).toContain('fx__echo');

		// Changes of the new supervisor's tool set reach the client too.
		const before = seen.listChanged();
		expect((await runCli(['quarantine', 'fx', '--config', config])).code).toBe(0);
		await waitFor(() => seen.listChanged() > before, 'tools/list_changed from the new supervisor');
		expect((await client.client.listTools()).tools.map(tool => tool.name)).not.toContain('fx__echo');

		await client.close();
		await waitForExit(client.pid);
		await daemon.stop();
	});

	it('answers a call in flight when the supervisor is killed exactly once, with SupervisorUnavailable, and goes on after it is back', async () => {
		const {config, daemon} = await fxDaemon();
		const client = await openHangar(config, {shared: true, args: ['--log-level', 'info']});
		const seen = watch(client);
		await client.client.callTool({name: 'fx__echo', arguments: {message: 'warm'}});

		const slow = client.client.callTool({name: 'fx__sleep', arguments: {ms: 20_000}});
		await waitFor(async () => (await statusOf(client.client, 'fx')).inFlight === 1, 'the slow call to be in flight');
		daemon.child.kill('SIGKILL');
		const error = await rpcError(slow);
		expect(error.code).toBe(ErrorCode.SupervisorUnavailable);
		expect(error.message).toContain('the supervisor went away while "tools/call" was in flight, so it may or may not have run; nothing was retried');
		// The killed daemon's upstream sees its stdin close and exits: nothing is left.
		await waitFor(() => processesWithTag(daemon.tag).length === 0, 'the killed daemon\'s upstream to exit');

		const next = await startDaemon(config);
		expect(text(await client.client.callTool({name: 'fx__echo', arguments: {message: 'again'}}))).toBe('again');
		expect(isAlive(client.pid)).toBe(true);
		expect(seen.errors).toEqual([]);
		await client.close();
		await next.stop();
	});

	it('cancels at the client an elicitation the killed supervisor was waiting on, and goes on with the next one', async () => {
		const dir = tempDir();
		const config = writeConfig(dir, {fx: fixture('normal', ['--client-features'])}, fastHangar);
		const daemon = await startDaemon(config);
		const client = new Client({name: 'asked', version: '1'}, {capabilities: {elicitation: {}}});
		let asked: (id: string | number) => void = () => {};
		const sawRequest = new Promise<string | number>(resolve => {
			asked = resolve;
		});
		const cancelled: string[] = [];
		// Its person never answers: only a cancellation ends the question.
		client.setRequestHandler(ElicitRequestSchema, async (_request, extra) => {
			asked(extra.requestId);
			return new Promise(resolve => {
				extra.signal.addEventListener('abort', () => {
					cancelled.push(String(extra.signal.reason));
					resolve({action: 'cancel'});
				});
			});
		});
		const handle = await openHangar(config, {client, shared: true, args: ['--log-level', 'info']});
		const seen = watch(handle);
		const call = rpcError(client.callTool({name: 'fx__ask', arguments: {kind: 'elicitation'}}));
		const requestId = await sawRequest;
		daemon.child.kill('SIGKILL');

		expect((await call).code).toBe(ErrorCode.SupervisorUnavailable);
		await waitFor(() => cancelled.length === 1, 'the pending elicitation to be cancelled at the client');
		expect(cancelled[0]).toContain('the supervisor went away');
		expect(String(requestId)).toMatch(/^hangar-/);

		const next = await startDaemon(config);
		expect(text(await client.callTool({name: 'fx__echo', arguments: {message: 'back'}}))).toBe('back');
		expect(cancelled).toHaveLength(1);
		expect(seen.errors).toEqual([]);
		await handle.close();
		await next.stop();
	});

	it('answers a request that no supervisor came back for in time with what to run', async () => {
		const {dir, client} = await clientWhoseSupervisorStopped(1.5);

		const error = await rpcError(client.client.callTool({name: 'fx__echo', arguments: {message: 'nobody'}}));
		expect(error.code).toBe(ErrorCode.SupervisorUnavailable);
		expect(error.message).toContain(`"tools/call" failed: the supervisor for ${path.join(dir, 'state')} is unavailable`);
		expect(error.message).toContain('Start it with `mcp-hangar tui` or `mcp-hangar serve`');
		expect(error.message).toContain('mcp-hangar --stdio --standalone');

		expect(isAlive(client.pid)).toBe(true);
		await client.close();
	});

	it('holds a request sent while no supervisor is up and sends it once one is back', async () => {
		// A deadline long enough for a daemon to start on a busy machine.
		const {config, client} = await clientWhoseSupervisorStopped(60);

		const pending = client.client.callTool({name: 'fx__echo', arguments: {message: 'held'}});
		const next = await startDaemon(config);
		expect(text(await pending)).toBe('held');
		expect(isAlive(client.pid)).toBe(true);
		await client.close();
		await next.stop();
	});

	it('refuses to replace a live supervisor, replaces a dead one\'s socket, and lets only its own user connect', async () => {
		const {dir, config, daemon: first} = await fxDaemon();
		const stateDir = path.join(dir, 'state');
		const socket = path.join(stateDir, 'hangar.sock');

		// Owner-only: the state dir 0700, the socket 0600.
		expect(fs.statSync(stateDir).mode & 0o777).toBe(0o700);
		expect(fs.statSync(socket).mode & 0o777).toBe(0o600);
		expect(fs.statSync(socket).isSocket()).toBe(true);
		if (process.getuid?.() === 0) {
			// Another user (nobody) cannot connect.
			const probe = spawnSync(
				'setpriv',
				['--reuid=65534', '--regid=65534', '--clear-groups', process.execPath, '-e', `require('net').connect(${JSON.stringify(socket)}).on('connect', () => { console.log('connected'); process.exit(0); }).on('error', e => { console.log(e.code); process.exit(1); })`],
				{encoding: 'utf8'},
			);
			expect(probe.stdout.trim()).toBe('EACCES');
		} else {
			// Not root: this test cannot become another user; the modes above are what refuses them.
			expect(fs.statSync(stateDir).uid).toBe(process.getuid?.());
		}

		// A second supervisor for the same state dir is refused; the first keeps serving.
		const second = await runCli(['serve', '--config', config]);
		expect(second.code).toBe(1);
		expect(second.stderr).toContain(`the state dir ${stateDir} is already served by hangar pid ${first.pid} (mcp-hangar serve`);
		const client = await openHangar(config, {shared: true, args: ['--log-level', 'info']});
		expect(text(await client.client.callTool({name: 'fx__echo', arguments: {message: 'still'}}))).toBe('still');
		await client.close();

		// Killed outright, it leaves its socket and endpoint.json; the next supervisor replaces them.
		await first.stop('SIGKILL');
		expect(fs.existsSync(socket)).toBe(true);
		expect(fs.existsSync(path.join(stateDir, 'endpoint.json'))).toBe(true);
		const third = await startDaemon(config);
		expect(third.stderr()).toContain(`replacing a stale endpoint in ${stateDir} (pid ${first.pid} is gone)`);
		const after = await openHangar(config, {shared: true, args: ['--log-level', 'info']});
		expect(text(await after.client.callTool({name: 'fx__echo', arguments: {message: 'new'}}))).toBe('new');
		await after.close();
		await third.stop();
		// An orderly stop removes both.
		expect(fs.existsSync(socket)).toBe(false);
		expect(fs.existsSync(path.join(stateDir, 'endpoint.json'))).toBe(false);
	});

	it('runs the CLI through the live supervisor: status, call, quarantine and approve, seen by every client', async () => {
		const {config, daemon} = await fxDaemon();
		const a = await openHangar(config, {shared: true, args: ['--log-level', 'info']});
		const b = await openHangar(config, {shared: true, args: ['--log-level', 'info']});
		const seenA = watch(a);
		const seenB = watch(b);
		const upstream = text(await a.client.callTool({name: 'fx__pid', arguments: {}}));

		const status = await runCli(['status', '--json', '--config', config]);
		expect(status.code).toBe(0);
		const json = JSON.parse(status.stdout) as {live: boolean; upstreams: Array<{name: string; state: string; pid: number}>};
		expect(json.live).toBe(true);
		expect(json.upstreams).toEqual([expect.objectContaining({name: 'fx', state: 'ready', pid: Number(upstream)})]);
		const table = await runCli(['status', '--config', config]);
		expect(table.stdout).toMatch(/\nfx\s+ready\s+enabled\s+yes\s/);
		expect(table.stderr).toContain(`Live state of hangar pid ${daemon.pid} (mcp-hangar serve).`);

		// A call runs on the supervisor's upstream, not a new one.
		expect(await runCli(['call', 'fx', 'pid', '--config', config])).toMatchObject({code: 0, stdout: `${upstream}\n`});
		const failing = await runCli(['call', 'fx', 'nope', '--config', config]);
		expect(failing.code).toBe(1);
		// Worded as the CLI words it on its own, not as the supervisor tells MCP clients.
		expect(failing.stderr).toBe(
			`mcp-hangar: upstream "fx": unknown tool "nope". Its 6 tools: echo, add, sleep, fail, stderr, pid.\n  Run mcp-hangar status --config ${config} to see the upstreams; tool names here are the upstream's own, without "fx__".\n`,
		);
		const noServer = await runCli(['call', 'nosuch', 'echo', '--config', config]);
		expect(noServer).toMatchObject({code: 1, stderr: 'mcp-hangar: upstream "nosuch": lookup failed: no upstream of that name is configured. Configured upstreams: fx.\n'});

		// A person's quarantine: every client is told its tools changed, and they are gone.
		expect(await runCli(['quarantine', 'fx', '--config', config])).toMatchObject({code: 0, stdout: 'quarantined "fx": stopped, tools hidden, calls refused until a person approves it\n'});
		await waitFor(() => seenA.listChanged() >= 1 && seenB.listChanged() >= 1, 'both clients to get tools/list_changed');
		expect((await b.client.listTools()).tools.map(tool => tool.name)).not.toContain('fx__echo');
		expect(await statusOf(a.client, 'fx')).toMatchObject({state: 'quarantined', admin: 'quarantined'});
		await waitForExit(Number(upstream));

		expect((await runCli(['approve', 'fx', '--config', config])).code).toBe(0);
		expect((await statusOf(b.client, 'fx')).admin).toBe('enabled');
		expect(text(await b.client.callTool({name: 'fx__echo', arguments: {message: 'approved'}}))).toBe('approved');
		await a.close();
		await b.close();
		await daemon.stop();
	});

	it('never lets an MCP client send a person\'s command, and exits on stdin EOF after answering, leaving no process', async () => {
		const {config, daemon} = await fxDaemon();
		const tag = randomUUID();
		const bridge = spawn(process.execPath, [cliPath, '--stdio', '--config', config], {env: {...process.env, HANGAR_TEST_TAG: tag}, stdio: ['pipe', 'pipe', 'pipe']});
		let stdout = '';
		bridge.stdout.on('data', (chunk: Buffer) => {
			stdout += chunk.toString();
		});
		const exited = new Promise<number | null>(resolve => {
			bridge.on('exit', code => resolve(code));
		});
		const lines = [
			{jsonrpc: '2.0', id: 1, method: 'initialize', params: {protocolVersion: '2025-06-18', capabilities: {}, clientInfo: {name: 'raw', version: '1'}}},
			{jsonrpc: '2.0', method: 'notifications/initialized'},
			{jsonrpc: '2.0', id: 2, method: 'hangar/command', params: {server: 'fx', action: 'approve'}},
			{jsonrpc: '2.0', id: 3, method: 'tools/call', params: {name: 'fx__echo', arguments: {message: 'last'}}},
			// Nor can it pass for a person, whom hangar.managementTools does not narrow.
			{jsonrpc: '2.0', id: 4, method: 'hangar/person'},
		];
		bridge.stdin.end(`${lines.map(line => JSON.stringify(line)).join('\n')}\n`);
		expect(await exited).toBe(0);

		const messages = stdout.trim().split('\n').map(line => JSON.parse(line) as {id?: number; method?: string; result?: unknown; error?: {code: number; message: string}});
		// Besides the answers, only notifications (a tools/list_changed once fx has listed its tools, say).
		const answers = messages.filter(message => message.id !== undefined);
		expect(messages.filter(message => message.id === undefined).every(message => message.method?.startsWith('notifications/'))).toBe(true);
		expect(answers.map(answer => answer.id).sort()).toEqual([1, 2, 3, 4]);
		expect(answers.find(answer => answer.id === 2)?.error).toMatchObject({code: -32_601, message: expect.stringContaining('"hangar/command" is not available to MCP clients')});
		expect(answers.find(answer => answer.id === 4)?.error).toMatchObject({code: -32_601, message: expect.stringContaining('"hangar/person" is not available to MCP clients')});
		expect(answers.find(answer => answer.id === 3)?.result).toMatchObject({content: [{type: 'text', text: 'last'}]});
		expect(processesWithTag(tag)).toEqual([]);
		await daemon.stop();
	});

	it('attaches a plain --stdio client to the running supervisor before the CLI loads, and leaves a config edited since then to the CLI', async () => {
		const {dir, config} = await fxDaemon();
		const report = path.join(dir, 'modules.jsonl');
		const env = {NODE_OPTIONS: `--import=${pathToFileURL(path.resolve('test/support/loaded-modules.mjs')).href}`, HANGAR_TEST_MODULES_REPORT: report};
		const runs = (): string[][] => (fs.existsSync(report) ? fs.readFileSync(report, 'utf8').trim().split('\n').map(line => JSON.parse(line) as string[]) : []);

		const quick = await openHangar(config, {shared: true, env});
		expect(text(await quick.client.callTool({name: 'fx__echo', arguments: {message: 'quick'}}))).toBe('quick');
		await quick.close();
		await waitFor(() => runs().length === 1, 'the first bridge to exit');

		// Edited after the supervisor started: it may not validate, so the CLI loads the config and decides.
		const later = new Date(Date.now() + 60_000);
		fs.utimesSync(config, later, later);
		const full = await openHangar(config, {shared: true, env});
		expect(text(await full.client.callTool({name: 'fx__echo', arguments: {message: 'full'}}))).toBe('full');
		await full.close();
		await waitFor(() => runs().length === 2, 'the second bridge to exit');

		const [first, second] = runs() as [string[], string[]];
		const cli = (modules: string[]) => modules.some(url => url.endsWith('/dist/cli/main.js'));
		const schema = (modules: string[]) => modules.some(url => url.includes('/node_modules/zod/') || url.endsWith('/dist/bundle/zod.js') || url.includes('/node_modules/meow/'));
		expect(cli(first) || schema(first), first.join('\n')).toBe(false);
		// The quick attach is bundled into dist/cli.js (scripts/bundle.js): one file of hangar's, no package's.
		expect(first.filter(url => url.startsWith('file:')).map(url => url.slice(url.lastIndexOf('/dist/')))).toEqual(['/dist/cli.js']);
		expect(cli(second) && schema(second)).toBe(true);
	});

	it('runs its own supervisor with --standalone, or when the one listening runs another config', async () => {
		const dir = tempDir();
		const config = writeConfig(dir, {fx: fixture('normal')}, fastHangar);
		const alone = await openHangar(config, {args: ['--log-level', 'info']});
		expect(alone.stderr()).not.toContain('attached to the supervisor');
		const ownPid = text(await alone.client.callTool({name: 'fx__pid', arguments: {}}));
		expect(processesWithTag(alone.tag).map(String)).toContain(ownPid);
		await alone.close();
		await waitFor(() => processesWithTag(alone.tag).length === 0, 'the embedded hangar and its upstream to exit');

		const daemon = await startDaemon(config);
		const standalone = await openHangar(config);
		const attached = await openHangar(config, {shared: true, args: ['--log-level', 'info']});
		const standalonePid = text(await standalone.client.callTool({name: 'fx__pid', arguments: {}}));
		const attachedPid = text(await attached.client.callTool({name: 'fx__pid', arguments: {}}));
		expect(standalonePid).not.toBe(attachedPid);
		expect(processesWithTag(standalone.tag).map(String)).toContain(standalonePid);
		expect(processesWithTag(daemon.tag).map(String)).toContain(attachedPid);
		await standalone.close();
		await attached.close();

		// Another config that shares the state dir is not served by this supervisor: its clients and the CLI run on their own, and say why.
		const other = path.join(dir, 'other.json');
		fs.writeFileSync(other, JSON.stringify({hangar: {...fastHangar, stateDir: path.join(dir, 'state')}, mcpServers: {gx: fixture('normal')}}));
		const elsewhere = await openHangar(other, {shared: true});
		expect(elsewhere.stderr()).toContain(`not attaching to a supervisor: the supervisor on ${path.join(dir, 'state', 'hangar.sock')} (hangar pid ${daemon.pid}, mcp-hangar serve) runs ${config}, not ${other}`);
		const gx = text(await elsewhere.client.callTool({name: 'gx__pid', arguments: {}}));
		expect(processesWithTag(elsewhere.tag).map(String)).toContain(gx);
		await elsewhere.close();
		const status = await runCli(['status', '--config', other]);
		expect(status.code).toBe(0);
		expect(status.stdout).toMatch(/\ngx\s/);
		expect(status.stderr).toContain('mcp-hangar: not using the running supervisor: the supervisor on');
		await daemon.stop();
	});
});

/** A bridge in this process on a pair of in-memory streams, for the states a real socket cannot easily produce. */
function bridgeOn(stateDir: string, options: {maxHeld?: number; drainMs?: number} = {}): {bridge: StdioBridge; input: PassThrough; written: () => string} {
	const input = new PassThrough();
	const output = new PassThrough();
	let written = '';
	output.on('data', (chunk: Buffer) => {
		written += chunk.toString();
	});
	const bridge = new StdioBridge({
		socketPath: path.join(stateDir, 'hangar.sock'),
		stateDir,
		input,
		output,
		logger: new Logger(() => {}, 'silent'),
		maxMessageBytes: 1024 * 1024,
		requestTimeoutMs: 60_000,
		...options,
	});
	bridge.start();
	return {bridge, input, written: () => written};
}

describe('the --stdio bridge on a socket that can never work', () => {
	it('tells permanent failures from temporary ones, and answers every request with the reason instead of retrying', async () => {
		expect(classifyConnectError(Object.assign(new Error('connect ENOENT'), {code: 'ENOENT'}), '/s').kind).toBe('temporary');
		expect(classifyConnectError(Object.assign(new Error('connect ECONNREFUSED'), {code: 'ECONNREFUSED'}), '/s').kind).toBe('temporary');
		const denied = classifyConnectError(Object.assign(new Error('connect EACCES'), {code: 'EACCES'}), '/run/x/hangar.sock');
		expect(denied).toMatchObject({kind: 'permanent', message: 'permission denied on /run/x/hangar.sock: it belongs to another user (only the user who runs the supervisor may connect)'});

		// A state dir so deep that its socket path cannot exist: permanent, so no retry loop.
		const deep = path.join(tempDir(), 'x'.repeat(120));
		const {bridge, input, written} = bridgeOn(deep);
		await waitFor(() => bridge.state === 'unusable', 'the bridge to give up on the socket');
		input.write(`${JSON.stringify({jsonrpc: '2.0', id: 7, method: 'tools/list'})}\n`);
		await waitFor(() => written().includes('"id":7'), 'the answer');
		const answer = JSON.parse(written().trim()) as {id: number; error: {code: number; message: string; data: {permanent: boolean}}};
		expect(answer.error.code).toBe(ErrorCode.SupervisorUnavailable);
		expect(answer.error.message).toContain('longer than a Unix socket allows');
		expect(answer.error.message).toContain('This cannot work until that is fixed');
		expect(answer.error.data.permanent).toBe(true);
		expect(bridge.machine.transitions().map(record => record.event)).toEqual(['refused']);

		input.end();
		expect(await bridge.exited).toBe(0);
		expect(bridge.state).toBe('closed');
	});
});

describe('the --stdio bridge while no supervisor is up', () => {
	it('holds a bounded number of messages, answers a request past the bound at once, and answers every held request when stdin closes', async () => {
		const {bridge, input, written} = bridgeOn(tempDir(), {maxHeld: 2, drainMs: 100});
		await waitFor(() => bridge.state === 'backoff', 'the bridge to wait for a supervisor');
		for (const id of [1, 2, 3]) input.write(`${JSON.stringify({jsonrpc: '2.0', id, method: 'tools/list'})}\n`);
		await waitFor(() => written().includes('"id":3'), 'the answer past the bound');
		expect(written()).not.toContain('"id":1');
		expect(JSON.parse(written().trim())).toMatchObject({id: 3, error: {code: ErrorCode.SupervisorUnavailable, message: expect.stringContaining('(2 messages are already waiting)')}});

		input.end();
		expect(await bridge.exited).toBe(0);
		const answers = written().trim().split('\n').map(line => JSON.parse(line) as {id: number; error: {code: number}});
		expect(answers.map(answer => answer.id).sort()).toEqual([1, 2, 3]);
		expect(answers.every(answer => answer.error.code === ErrorCode.SupervisorUnavailable)).toBe(true);
	});
});
