/**
 * The real `mcp-hangar tui` attached to a supervisor another process owns,
 * in a real pseudo-terminal (tmux): `mcp-hangar serve` runs, a real SDK
 * client is served through `mcp-hangar --stdio` (it bridges to serve), and
 * the TUI opened for the same config attaches instead of refusing. It shows
 * the client and its calls live, names the owner, quarantines through the
 * owner's supervisor (the client's next call is refused), survives the owner
 * going away and attaches to the next one, and q only detaches. Build first
 * (npm test does).
 */
import {randomUUID} from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import {type CallToolResult} from '@modelcontextprotocol/sdk/types.js';
import {afterEach, describe, expect, it} from 'vitest';
import {z} from 'zod';
import {cliPath, closeHangars, fastHangar, fixture, isAlive, openHangar, processesWithTag, tempDir, waitFor, writeConfig, type HangarHandle} from '../support/hangar.js';
import {startDaemon, stopDaemons, type Served} from '../support/serve.js';
import {tableCell, tableRow} from '../support/screen-table.js';
import {TmuxSession} from '../support/tmux.js';

const sessions: TmuxSession[] = [];
afterEach(async () => {
	await closeHangars();
	for (const session of sessions.splice(0)) session.kill();
	await stopDaemons('SIGKILL');
});

async function startServe(config: string): Promise<Served> {
	const served = await startDaemon(config);
	return served;
}

/** `mcp-hangar tui --config config` in a new terminal (default 140x30), tagged with a tag of its own. */
function launchTui(config: string, size: {columns: number; rows: number} = {columns: 140, rows: 30}): {tui: TmuxSession; tag: string} {
	const tui = new TmuxSession();
	sessions.push(tui);
	const tag = randomUUID();
	// CI set, as in the other TUI tests: hangar shields Ink from it.
	tui.start([process.execPath, cliPath, 'tui', '--config', config], {env: {HANGAR_TEST_TAG: tag, CI: 'true'}, ...size});
	return {tui, tag};
}

/** The cells of the table row for `name` (cells are separated by two or more spaces). */
const row = (screen: string, name: string): Record<string, string> | undefined => tableRow(screen, name);
const state = (screen: string, name: string): string | undefined => tableCell(screen, name, 'STATE');
const calls = (screen: string, name: string): string | undefined => tableCell(screen, name, 'CALLS');

async function echo(handle: HangarHandle, message: string): Promise<string> {
	const result = (await handle.client.callTool({name: 'fx__echo', arguments: {message}})) as CallToolResult;
	return result.content[0]?.type === 'text' ? result.content[0].text : '';
}

describe('mcp-hangar tui with a supervisor already running', () => {
	it('at 80x24, attached, keeps the config file name (cut from the left) and the client count on the first line', async () => {
		const dir = path.join(tempDir('hangar-attach-'), 'home', 'someone-with-a-long-name', 'projects', '.config', 'mcp-hangar');
		fs.mkdirSync(dir, {recursive: true});
		const config = writeConfig(dir, {fx: fixture('normal', [], {lazy: false})}, fastHangar);
		const serve = await startServe(config);
		const client = await openHangar(config, {shared: true});
		expect(await echo(client, 'one')).toBe('one');

		const {tui} = launchTui(config, {columns: 80, rows: 24});
		const screen = await tui.waitForScreen(s => state(s, 'fx') === 'ready' && s.includes('clients 1'), 'the attached TUI at 80 columns');
		const [first = '', second = ''] = screen.split('\n');
		expect(first).toMatch(/^mcp-hangar {2}…[^ ]*\/\.config\/mcp-hangar\/mcp-hangar\.json +clients 1 {2}up \S+$/);
		expect(second).toMatch(new RegExp(`^attached to pid ${serve.pid} {2}1 upstream:`));
		for (const line of screen.split('\n')) expect([...line].length).toBeLessThanOrEqual(80);
	});

	it('attaches to serve: shows the client and its calls live, quarantines through it, and q detaches leaving serve and its client running', async () => {
		const dir = tempDir('hangar-attach-');
		const config = writeConfig(dir, {fx: fixture('normal', [], {lazy: false}), other: fixture('normal')}, fastHangar);
		const serve = await startServe(config);
		const client = await openHangar(config, {shared: true, args: ['--log-level', 'info'], clientInfo: {name: 'e2e-client', version: '2.7.1'}});
		expect(client.stderr()).toContain(`(pid ${serve.pid}, mcp-hangar serve)`);
		expect(await echo(client, 'one')).toBe('one');
		expect(await echo(client, 'two')).toBe('two');

		const {tui, tag} = launchTui(config);
		let screen = await tui.waitForScreen(s => s.includes('clients 1') && calls(s, 'fx') === '2', 'the attached TUI with clients 1 and 2 calls on fx');
		expect(screen).toContain(`attached to hangar pid ${serve.pid} (mcp-hangar serve)`);
		expect(state(screen, 'fx')).toBe('ready');

		// The client's calls count up live on the attached screen.
		for (const message of ['three', 'four', 'five']) await echo(client, message);
		await tui.waitForScreen(s => calls(s, 'fx') === '5', '5 calls on fx');

		// c: the client, and the TUI itself as a console rather than an MCP client.
		tui.keys('c');
		screen = await tui.waitForScreen(/^ {2}e2e-client 2\.7\.1 /m, 'the client listed');
		expect(screen).toContain('CLIENTS  1 attached, 1 console, oldest first');
		const cells = (name: string) => screen.split('\n').find(line => line.startsWith(`  ${name} `))?.trim().split(/\s{2,}/);
		expect(cells('e2e-client')?.[1]).toBe('socket');
		expect(cells('e2e-client')?.[2]).toBe('2025-11-25');
		expect(cells('e2e-client')?.[5]).toBe('5');
		expect(cells('mcp-hangar-tui')?.[1]).toBe('console');
		tui.keys('Escape');
		// Waited for: an Esc and the next key in one read would be one Alt-key.
		await tui.waitForScreen(s => row(s, 'fx') !== undefined, 'the list again');

		// u on fx: the owner's supervisor quarantines it, and the client's next call is refused.
		tui.keys('/');
		await tui.waitForScreen('/ ▏');
		tui.type('fx');
		tui.keys('Enter');
		await tui.waitForScreen('› fx');
		tui.keys('u');
		await tui.waitForScreen(s => s.replace(/\s+/g, ' ').includes('Quarantine "fx"?'), 'the question before quarantining');
		tui.keys('y');
		await tui.waitForScreen(s => s.includes('✓ quarantined "fx"') && state(s, 'fx') === 'quarantined', 'fx quarantined');
		await expect(echo(client, 'refused')).rejects.toThrow(/quarantined by a person in the TUI \(pid \d+, attached\)/);
		expect((await client.client.listTools()).tools.map(tool => tool.name)).not.toContain('fx__echo');
		// An MCP client cannot read the console's snapshots: the bridge keeps hangar's private methods from it.
		await expect(client.client.request({method: 'hangar/console', params: {}}, z.object({}))).rejects.toThrow(/Method not found/);

		// u again asks what approving pins; y lifts it (lazy: false, so it runs again).
		tui.keys('u');
		await tui.waitForScreen(s => /Lift the quarantine of "fx" and pin its \d+ tools as last listed \(at \d\d:\d\d:\d\d\)\? \(y\/n\)/.test(s.replace(/\s+/g, ' ')), 'the question to lift');
		tui.keys('y');
		await tui.waitForScreen(s => s.includes('✓ approved "fx": quarantine lifted') && state(s, 'fx') === 'ready', 'the quarantine lifted');
		expect(await echo(client, 'back')).toBe('back');

		// q detaches at once (a client is attached, yet nothing is asked: nothing stops) and says what keeps running.
		tui.keys('q');
		expect(await tui.waitForExit()).toBe(0);
		expect(tui.screen({history: true}).replaceAll(/\s+/g, ' ')).toContain(`Detached from hangar pid ${serve.pid} (mcp-hangar serve): it keeps running, with its upstreams and 1 MCP client.`);
		await waitFor(() => processesWithTag(tag).length === 0, 'no process of the TUI left');
		expect(isAlive(serve.pid)).toBe(true);
		expect(await echo(client, 'still served')).toBe('still served');
	});

	it('says when the owner goes away, keeps its last screen with its age, and attaches to the next owner', async () => {
		const dir = tempDir('hangar-attach-');
		const config = writeConfig(dir, {fx: fixture('normal')}, fastHangar);
		const first = await startServe(config);
		const {tui} = launchTui(config);
		await tui.waitForScreen(`attached to hangar pid ${first.pid} (mcp-hangar serve)`);

		expect(await first.stop()).toEqual({code: 0, signal: null});
		let screen = await tui.waitForScreen(/⚠ \d+s old: hangar pid \d+ \(mcp-hangar serve\) stopped; reconnecting/, 'the owner gone');
		expect(row(screen, 'fx')).toBeDefined();
		// A command has nowhere to go, and says so.
		tui.keys('x');
		screen = await tui.waitForScreen('not attached to a supervisor', 'the refused stop');

		const next = await startServe(config);
		screen = await tui.waitForScreen(s => s.includes(`attached to hangar pid ${next.pid} (mcp-hangar serve)`) && !s.includes('⚠'), 'attached to the next owner');
		tui.keys('q');
		expect(await tui.waitForExit()).toBe(0);
		expect(isAlive(next.pid)).toBe(true);
	});

	it('with --demo-traffic, offers to take over from a client\'s daemon; yes stops it and the TUI runs the supervisor, no refuses saying how', async () => {
		const dir = tempDir('hangar-attach-');
		const config = writeConfig(dir, {fx: fixture('normal')}, fastHangar);
		const daemon = await startDaemon(config, {args: ['--linger']});
		const start = (): TmuxSession => {
			const tui = new TmuxSession();
			sessions.push(tui);
			tui.start([process.execPath, cliPath, 'tui', '--config', config, '--demo-traffic', 'fx/echo'], {env: {CI: 'true'}, columns: 100, rows: 24});
			return tui;
		};

		// No: nothing is stopped, and the refusal names the way out.
		const declined = start();
		// The question wraps at the terminal's width, inside a word too: read the screen as one line.
		const asked = (screen: string): boolean => /Take over from it\?.*\[y\/N\]/.test(screen.replaceAll('\n', ''));
		await declined.waitForScreen(asked, 'the takeover question');
		declined.type('n\r');
		await declined.waitForScreen('mcp-hangar shutdown --config', 'the refusal');
		expect(isAlive(daemon.pid)).toBe(true);

		// Yes: the daemon stops, and this TUI owns the supervisor, with the demo traffic.
		const taking = start();
		await taking.waitForScreen(asked, 'the takeover question');
		taking.type('y\r');
		await taking.waitForScreen(s => /demo traffic: fx\/echo/.test(s) && !s.includes('attached to'), 'the TUI running the supervisor');
		await waitFor(() => !isAlive(daemon.pid) || undefined, 'the daemon gone');
		taking.keys('q');
		expect(await taking.waitForExit()).toBe(0);
	});

	it('attaches a second TUI to the first, which owns the supervisor, lists it as a console, and keeps running when it detaches', async () => {
		const dir = tempDir('hangar-attach-');
		const config = writeConfig(dir, {fx: fixture('normal', [], {lazy: false})}, fastHangar);
		const {tui: owner, tag: ownerTag} = launchTui(config);
		await owner.waitForScreen(s => state(s, 'fx') === 'ready', 'the owner running fx');
		const ownerPid = (JSON.parse(fs.readFileSync(path.join(dir, 'state', 'endpoint.json'), 'utf8')) as {pid: number}).pid;
		expect(owner.screen()).not.toContain('attached to');

		const {tui: attached} = launchTui(config);
		await attached.waitForScreen(s => s.includes(`attached to hangar pid ${ownerPid} (mcp-hangar tui)`) && state(s, 'fx') === 'ready', 'the second TUI attached');
		owner.keys('c');
		await owner.waitForScreen('CLIENTS  none attached, 1 console');
		// The header counts MCP clients only.
		expect(owner.screen()).toContain('clients 0');

		attached.keys('q');
		expect(await attached.waitForExit()).toBe(0);
		await owner.waitForScreen('No MCP client is attached.');
		owner.keys('Escape');
		await owner.waitForScreen(s => row(s, 'fx') !== undefined, 'the list again');
		// The owner's q: no MCP client, so it stops everything at once, as always.
		owner.keys('q');
		expect(await owner.waitForExit()).toBe(0);
		await waitFor(() => processesWithTag(ownerTag).length === 0, 'no process of the owner left');
	});
});
