/**
 * The real `mcp-hangar tui` in a real pseudo-terminal (tmux): a real
 * upstream (server-everything) and one that crashes during initialize.
 * Watches the crash, the restarts and the open breaker appear, drives
 * s, x, u (with the y/n question), /, Enter and Esc, quits with q, and checks
 * that no process is left behind. A real `--stdio` client attaches to the
 * TUI's supervisor through the socket and shows in the header and under c.
 * Build first (npm test does).
 */
import {spawnSync} from 'node:child_process';
import {randomUUID} from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import {Client} from '@modelcontextprotocol/sdk/client/index.js';
import {StreamableHTTPClientTransport} from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import {afterEach, describe, expect, it} from 'vitest';
import {cliPath, closeHangars, everything, fastHangar, fixture, openHangar, processesWithTag, tempDir, waitFor, writeConfig, type ServerEntry} from '../support/hangar.js';
import {TmuxSession} from '../support/tmux.js';
import {tableCell, tableRow} from '../support/screen-table.js';

const sessions: TmuxSession[] = [];
const clients: Client[] = [];

/**
 * The TUI's environment: CI is set as CI jobs set it, wherever the tests run.
 * With CI set, Ink draws nothing until it exits unless hangar shields it, and
 * a person can open the TUI in a shell that has CI set.
 */
const tuiEnv = (tag: string): Record<string, string> => ({HANGAR_TEST_TAG: tag, CI: 'true'});

type TuiOptions = {
	/** The config's `hangar` section (default: fastHangar). */
	hangar?: Record<string, unknown>;
	/** Added after `tui --config FILE`. */
	args?: string[];
	/** The terminal's size (default 140x30). */
	columns?: number;
	rows?: number;
};

/** Runs `mcp-hangar tui --config config ...args` in a new terminal, tagged `tag`; killed after the test. */
function launchTui(config: string, tag: string, options: TuiOptions = {}): TmuxSession {
	const tui = new TmuxSession();
	sessions.push(tui);
	tui.start([process.execPath, cliPath, 'tui', '--config', config, ...(options.args ?? [])], {env: tuiEnv(tag), columns: options.columns ?? 140, rows: options.rows ?? 30});
	return tui;
}

/** Writes a config for `servers` in a new temp dir and launches the TUI on it with a new tag. */
function startTui(servers: Record<string, ServerEntry>, options: TuiOptions = {}): {tui: TmuxSession; tag: string; config: string; dir: string} {
	const dir = tempDir('hangar-tui-');
	const config = writeConfig(dir, servers, options.hangar ?? fastHangar);
	const tag = randomUUID();
	return {tui: launchTui(config, tag, options), tag, config, dir};
}

/** Waits until no process carries `tag` (the TUI, its upstreams, any bridge), naming those still alive on timeout. */
async function noProcessLeft(tag: string): Promise<void> {
	await waitFor(() => processesWithTag(tag).length === 0, 'no process left', 10_000).catch((error: unknown) => {
		throw new Error(`${(error as Error).message} (still: ${processesWithTag(tag).join(', ')})`);
	});
}

afterEach(async () => {
	await closeHangars();
	await Promise.all(clients.splice(0).map(async client => client.close()));
	for (const session of sessions.splice(0)) session.kill();
});

/** The table row for `name`, by column title; undefined when not on the screen. */
function row(screen: string, name: string): Record<string, string> | undefined {
	return tableRow(screen, name);
}

const titles = {name: 'NAME', state: 'STATE', breaker: 'BRK', pid: 'PID', up: 'UP/IDLE', tools: 'TOOLS', calls: 'CALLS', failures: 'FAILED', latency: 'P50/P95', restarts: 'RESTARTS', error: 'LAST ERROR'};

function cell(screen: string, name: string, column: keyof typeof titles): string | undefined {
	return tableCell(screen, name, titles[column]);
}

describe('mcp-hangar tui in a terminal', () => {
	it('shows crashes, restarts and the breaker, obeys s, x, u, /, Enter and Esc, and quits leaving no process', async () => {
		// Tall enough for the state history beside the stderr tail, where server-everything logs a failed
		// roots/list at each start (a shared instance is answered no roots; under the default "auto" it would run per client).
		const rows = 46;
		const {tui, tag, config} = startTui(
			{everything: everything({lazy: false, instances: 'shared'}), crasher: fixture('crash-during-init', [], {lazy: false})},
			// Wide enough for every column, PID included (at 140 it gives way to the error, by priority).
			{hangar: {...fastHangar, restartBudget: {maxRestarts: 2, windowSeconds: 60}}, rows, columns: 170},
		);

		// The crasher fails three starts (the first and two automatic restarts), opens its breaker and stays dead.
		let screen = await tui.waitForScreen(
			s => cell(s, 'everything', 'state') === 'ready' && cell(s, 'crasher', 'state') === 'dead' && cell(s, 'crasher', 'restarts') === '2' && cell(s, 'crasher', 'breaker') === '○',
			'everything ready, crasher dead after 2 restarts with its breaker open',
		);
		expect(screen).toContain(config);
		expect(screen).toMatch(/2 upstreams:\s+1 dead\s+1 ready/);
		// FAILED counts failed calls only; the failures in a row count failed starts (they open the breaker), on the reason line.
		expect(cell(screen, 'crasher', 'failures')).toBe('0');
		expect(screen).toMatch(/crasher is dead \(3 failures in a row\): /);
		expect(cell(screen, 'crasher', 'error')).toContain('start failed');
		expect(screen.split('\n').length).toBeLessThan(rows);

		// `/` filters; Enter keeps the filter.
		tui.keys('/');
		await tui.waitForScreen('/ ▏');
		tui.type('crash');
		await tui.waitForScreen('1 of 2 match');
		// Five Backspaces in one send arrive in one read: each erases a letter, none is stored as text.
		tui.keys('BSpace', 'BSpace', 'BSpace', 'BSpace', 'BSpace');
		await tui.waitForScreen(/\/ ▏ {2}2 of 2 match/, 'the filter emptied');
		tui.type('crash');
		await tui.waitForScreen('1 of 2 match');
		tui.keys('Enter');
		screen = await tui.waitForScreen('(Esc clears it)');
		expect(row(screen, 'everything')).toBeUndefined();
		expect(screen).toContain('› crasher');

		// s on the dead crasher: a person's start, which fails again; the error shows in the message line.
		tui.keys('s');
		screen = await tui.waitForScreen(/✗ upstream "crasher": start failed/, 'the failed start');

		// Esc clears the filter; select everything with the filter again.
		tui.keys('Escape');
		await tui.waitForScreen(s => !s.includes('match') && row(s, 'everything') !== undefined, 'the filter cleared');
		tui.keys('/');
		await tui.waitForScreen('/ ▏');
		tui.type('every');
		await tui.waitForScreen('1 of 2 match');
		tui.keys('Enter');
		await tui.waitForScreen('› everything');

		// x stops it, s starts it again.
		tui.keys('x');
		screen = await tui.waitForScreen(s => s.includes('✓ stopped "everything"') && cell(s, 'everything', 'state') === 'stopped', 'everything stopped');
		expect(cell(screen, 'everything', 'pid')).toBe('-');
		tui.keys('s');
		screen = await tui.waitForScreen(s => s.includes('✓ started "everything"') && cell(s, 'everything', 'state') === 'ready', 'everything started');
		expect(cell(screen, 'everything', 'pid')).toMatch(/^\d+$/);

		// u asks before quarantining (it persists and hides the upstream); y quarantines; u again asks before lifting; y lifts it.
		tui.keys('u');
		await tui.waitForScreen(s => s.replace(/\s+/g, ' ').includes('Quarantine "everything"? It is stopped, its tools are hidden'), 'the question before quarantining');
		tui.keys('y');
		await tui.waitForScreen(s => s.includes('✓ quarantined "everything"') && cell(s, 'everything', 'state') === 'quarantined', 'everything quarantined');
		tui.keys('u');
		// It says what approving pins: the tools it listed before the quarantine.
		await tui.waitForScreen(
			s => /Lift the quarantine of "everything" and pin its 1\d tools as last listed \(at \d\d:\d\d:\d\d\)\? \(y\/n\)/.test(s.replace(/\s+/g, ' ')),
			'the question to lift the quarantine',
		);
		tui.keys('y');
		// lazy is false: once approved it runs again, as after a launch.
		screen = await tui.waitForScreen(s => s.includes('✓ approved "everything": quarantine lifted') && cell(s, 'everything', 'state') === 'ready', 'the quarantine lifted');

		// Enter opens the details, with the history of what was just done; Esc comes back.
		tui.keys('Enter');
		screen = await tui.waitForScreen('STATE HISTORY');
		expect(screen).toMatch(/TOOLS \(1\d, most called first\)/);
		expect(screen).toContain('echo');
		// Tab twice focuses the state history, Enter expands it to the whole screen.
		tui.keys('Tab');
		await tui.waitForScreen('▸ TOOLS');
		tui.keys('Tab');
		await tui.waitForScreen('▸ STATE HISTORY');
		tui.keys('Enter');
		screen = await tui.waitForScreen(s => /ready → stopping\s+stop\s+stopped by .*TUI/.test(s) && !s.includes('RECENT CALLS'), 'the state history expanded');
		expect(screen).toMatch(/quarantined → cold\s+release\s+approved by .*TUI/);
		tui.keys('Escape');
		await tui.waitForScreen('NAME');

		// Under 60 columns the layout turns compact.
		tui.resize(50, 20);
		screen = await tui.waitForScreen(/NAME\s+STATE\s+FAILED\s+RST/, 'the compact table');
		for (const line of screen.split('\n')) expect([...line].length).toBeLessThanOrEqual(50);
		tui.resize(140, 40);
		await tui.waitForScreen('LAST ERROR');

		// q: no client is attached, so it quits at once, stopping every upstream.
		tui.keys('s');
		await tui.waitForScreen(s => cell(s, 'everything', 'state') === 'ready', 'everything running again');
		expect(processesWithTag(tag).length).toBeGreaterThan(1);
		tui.keys('Escape');
		// The selection made through the filter stays once the filter is cleared.
		screen = await tui.waitForScreen(s => !s.includes('match'), 'the filter cleared');
		expect(screen).toContain('› everything');
		// `k k` in one send: two keys, up twice (to the first row).
		tui.keys('k', 'k');
		await tui.waitForScreen('› crasher');
		tui.keys('q');
		expect(await tui.waitForExit()).toBe(0);
		// The UI ran on the alternate screen: no stale "stopping 1 upstream…" frame is left behind.
		await waitFor(() => !tui.screen({history: true}).includes('mcp-hangar'), 'the shell\'s screen back, without the UI');
		expect(tui.screen({history: true})).not.toContain('stopping');
		await noProcessLeft(tag);
	});

	it('with --demo-traffic, sends calls through the normal call path and shows them live', async () => {
		const {tui, tag} = startTui({fx: fixture('normal'), other: fixture('normal')}, {args: ['--demo-traffic', 'fx/echo']});
		const screen = await tui.waitForScreen(s => Number(cell(s, 'fx', 'calls') ?? 0) >= 3 && cell(s, 'fx', 'state') === 'ready', 'demo calls counted on fx');
		expect(screen).toContain('demo traffic: fx/echo at 2/s');
		expect(cell(screen, 'other', 'calls')).toBe('0');
		expect(cell(screen, 'fx', 'latency')).toMatch(/ms/);
		tui.keys('q');
		expect(await tui.waitForExit()).toBe(0);
		await noProcessLeft(tag);
	});

	it('counts a --stdio client attached through the socket, lists it under c with its calls, and forgets it when it leaves', async () => {
		const {tui, tag, config} = startTui({fx: fixture('normal')});
		// The socket is open before the first frame.
		await tui.waitForScreen(s => cell(s, 'fx', 'state') === 'cold' && s.includes('clients 0'), 'the TUI up, fx cold, no client');

		// What an MCP client launches: with the TUI running, it attaches to the TUI's supervisor.
		const {client} = await openHangar(config, {tag, shared: true, clientInfo: {name: 'e2e-client', version: '3.1.4'}});
		for (const message of ['one', 'two']) {
			expect(await client.callTool({name: 'fx__echo', arguments: {message}})).toMatchObject({content: [{type: 'text', text: message}]});
		}

		// The calls went to the TUI's own fx, and the header counts the client.
		let screen = await tui.waitForScreen(s => s.includes('clients 1') && cell(s, 'fx', 'calls') === '2', 'clients 1 and 2 calls on fx');
		expect(cell(screen, 'fx', 'state')).toBe('ready');

		tui.keys('c');
		screen = await tui.waitForScreen(/^ {2}e2e-client 3\.1\.4 /m, 'the client listed');
		expect(screen).toContain('CLIENTS  1 attached');
		const cells = screen
			.split('\n')
			.find(line => line.startsWith('  e2e-client '))
			?.trim()
			.split(/\s{2,}/);
		expect(cells?.[1]).toBe('socket');
		expect(cells?.[2]).toBe('2025-11-25');
		expect(cells?.[3]).toMatch(/^socket#\d+$/);
		expect(cells?.[5]).toBe('2');
		expect(cells?.slice(6).join('  ')).toMatch(/^\d+s ago {2}fx__echo$/);

		// It leaves: gone from the list and from the header's count.
		await client.close();
		screen = await tui.waitForScreen('No MCP client is attached.');
		expect(screen).toContain('clients 0');
		expect(screen.replaceAll(/\n\s*/g, ' ')).toContain(`${process.execPath} ${cliPath} --stdio --config ${config}`);
		tui.keys('Escape');
		await tui.waitForScreen(s => row(s, 'fx') !== undefined, 'the list again');

		// No client: q quits at once, and nothing is left, the bridge included.
		tui.keys('q');
		expect(await tui.waitForExit()).toBe(0);
		await noProcessLeft(tag);
	});

	it('serves MCP over HTTP alongside (tui --http): an HTTP client is a client like any other, and q asks before leaving it', async () => {
		const {tui, tag} = startTui({fx: fixture('normal')}, {args: ['--http', '--port', '0']});
		const url = /MCP over HTTP: (http:\/\/127\.0\.0\.1:\d+\/mcp)/.exec(await tui.waitForScreen(/MCP over HTTP: http:\/\/127\.0\.0\.1:\d+\/mcp/, 'the HTTP endpoint in the header'))![1]!;

		const client = new Client({name: 'web-agent', version: '2.0.0'});
		clients.push(client);
		await client.connect(new StreamableHTTPClientTransport(new URL(url)));
		expect(await client.callTool({name: 'fx__echo', arguments: {message: 'over http'}})).toMatchObject({content: [{type: 'text', text: 'over http'}]});
		await tui.waitForScreen(s => s.includes('clients 1') && cell(s, 'fx', 'calls') === '1', 'the HTTP client counted and its call on fx');
		tui.keys('c');
		const screen = await tui.waitForScreen(/^ {2}web-agent 2\.0\.0 /m, 'the HTTP client listed');
		expect(screen.split('\n').find(line => line.startsWith('  web-agent '))?.trim().split(/\s{2,}/)[1]).toBe('http');

		// A client is attached: q asks first; y stops everything.
		tui.keys('q');
		await tui.waitForScreen('1 client is attached. Quit and stop every upstream anyway? (y/n)');
		tui.keys('y');
		expect(await tui.waitForExit()).toBe(0);
		await noProcessLeft(tag);
	});

	it('refuses a --demo-traffic target that is not in the config, before starting anything', () => {
		const dir = tempDir('hangar-tui-');
		const config = writeConfig(dir, {fx: fixture('normal')});
		const result = spawnSync(process.execPath, [cliPath, 'tui', '--config', config, '--demo-traffic', 'nope/echo'], {encoding: 'utf8', timeout: 30_000});
		// Without a terminal the TUI refuses first; the target is checked right after that, so check it through `script`.
		expect(result.status).toBe(2);
		const script = spawnSync('script', ['-qec', `${process.execPath} ${cliPath} tui --config ${config} --demo-traffic nope/echo`, '/dev/null'], {encoding: 'utf8', timeout: 30_000});
		expect(script.stdout).toContain('--demo-traffic: no upstream "nope" in the config (configured: fx)');
		expect(script.status).toBe(2);
	});

	it('refuses to start without a terminal, pointing to --stdio and status', () => {
		const dir = tempDir('hangar-tui-');
		const config = writeConfig(dir, {crasher: fixture('crash-during-init')});
		const result = spawnSync(process.execPath, [cliPath, 'tui', '--config', config], {encoding: 'utf8', stdio: ['pipe', 'pipe', 'pipe'], timeout: 30_000});
		expect(result.status).toBe(2);
		expect(result.stderr).toContain('needs an interactive terminal');
		// With the config it was given, ready to copy.
		// mcp-hangar is not on this PATH: the commands name node and this installation's cli.js, so they run as written.
		expect(result.stderr).toContain(`node ${cliPath} --stdio --config ${config}\n`);
		expect(result.stderr).toContain(`node ${cliPath} status --config ${config}\n`);
		expect(result.stderr).not.toContain('FILE');
		expect(result.stdout).toBe('');
		// And with the --state-dir it was given: without it, the commands would use another state dir.
		const stateDir = path.join(dir, 'elsewhere');
		const given = spawnSync(process.execPath, [cliPath, 'tui', '--config', config, '--state-dir', stateDir], {encoding: 'utf8', stdio: ['pipe', 'pipe', 'pipe'], timeout: 30_000});
		expect(given.stderr).toContain(`node ${cliPath} --stdio --config ${config} --state-dir ${stateDir}\n`);
		expect(given.stderr).toContain(`node ${cliPath} status --config ${config} --state-dir ${stateDir}\n`);
	});

	it('refuses to start a second supervisor for a state dir a running one serves with another config, naming it', async () => {
		const {tui: first, tag, dir} = startTui({fx: fixture('normal')}, {columns: 120, rows: 20});
		await first.waitForScreen(/1 upstream:\s+1 ready/, 'the first TUI to run fx');
		const pid = (JSON.parse(fs.readFileSync(path.join(dir, 'state', 'endpoint.json'), 'utf8')) as {pid: number}).pid;

		// The same config would attach (tui-attach.test.ts); another config sharing the state dir cannot.
		const other = path.join(dir, 'other.json');
		fs.writeFileSync(other, JSON.stringify({hangar: {...fastHangar, stateDir: path.join(dir, 'state')}, mcpServers: {fx: fixture('normal')}}));
		const second = launchTui(other, tag, {columns: 120, rows: 20});
		expect(await second.waitForExit()).toBe(1);
		// Wrapped at the pane's width: compare without the spaces.
		const squeeze = (text: string): string => text.replaceAll(/\s+/g, '');
		expect(squeeze(second.screen({history: true}))).toContain(squeeze(`is already served by hangar pid ${pid} (mcp-hangar tui`));
		// The first goes on, untouched.
		expect(first.screen()).toMatch(/1 upstream:\s+1 ready/);
		first.keys('q');
		expect(await first.waitForExit()).toBe(0);
		await noProcessLeft(tag);
	});
});
