/**
 * The TUI's responsive layout, history and calls view in a real terminal
 * (tmux), with real upstreams and a real SDK client: a broken upstream with a
 * 19-character name says why at 80 columns; the calls a client makes are
 * listed in the calls view and printed by `mcp-hangar logs --calls`; the
 * sparklines move under load; the terminal is given back as it was (the
 * alternate screen) when the TUI quits.
 */
import {randomUUID} from 'node:crypto';
import {execFileSync} from 'node:child_process';
import {afterEach, describe, expect, it} from 'vitest';
import {cliPath, closeHangars, fastHangar, fixture, openHangar, processesWithTag, tempDir, waitFor, writeConfig, type ServerEntry} from '../support/hangar.js';
import {tableCell} from '../support/screen-table.js';
import {TmuxSession} from '../support/tmux.js';

const sessions: TmuxSession[] = [];

afterEach(async () => {
	await closeHangars();
	for (const session of sessions.splice(0)) session.kill();
});

function startTui(servers: Record<string, ServerEntry>, size: {columns: number; rows: number}): {tui: TmuxSession; tag: string; config: string} {
	const dir = tempDir('hangar-tui-history-');
	const config = writeConfig(dir, servers, fastHangar);
	const tag = randomUUID();
	const tui = new TmuxSession();
	sessions.push(tui);
	tui.start([process.execPath, cliPath, 'tui', '--config', config], {env: {HANGAR_TEST_TAG: tag, CI: 'true'}, columns: size.columns, rows: size.rows});
	return {tui, tag, config};
}

async function quit(tui: TmuxSession, tag: string): Promise<void> {
	tui.keys('q');
	expect(await tui.waitForExit()).toBe(0);
	await waitFor(() => processesWithTag(tag).length === 0, 'no process left', 10_000);
}

describe('the TUI over time', () => {
	it('shows why a broken upstream with a 19-character name is broken at 80 columns, and gives the terminal back on quit', async () => {
		const {tui, tag} = startTui({'sequential-thinking': fixture('crash-during-init', [], {lazy: false}), memory: fixture('normal', [], {lazy: false})}, {columns: 80, rows: 24});
		const screen = await tui.waitForScreen(
			s => tableCell(s, 'sequential-thinking', 'STATE') === 'dead' && /⚠ sequential-thinking is dead \(\d+ failures? in a row\): start failed: the process exited with code 4 during initialization/.test(s.replaceAll(/\s+/g, ' ')),
			'the reason on screen at 80 columns',
		);
		// The name is whole, the error has its column, and no line is wider than the terminal.
		expect(tableCell(screen, 'sequential-thinking', 'LAST ERROR')).toMatch(/^start failed: the process/);
		for (const line of screen.split('\n')) expect([...line].length).toBeLessThanOrEqual(80);
		await quit(tui, tag);
		// The alternate screen: nothing of the UI is left in the terminal or its scrollback.
		await waitFor(() => !tui.screen({history: true}).includes('mcp-hangar'), 'the shell\'s screen back, without the UI').catch((error: unknown) => {
			throw new Error(`${(error as Error).message}; the terminal shows:\n${tui.screen({history: true})}`);
		});
		expect(tui.screen({history: true})).not.toContain('stopping');
	});

	it('lists the calls a real SDK client makes in the calls view (t), shows one with Enter, and logs --calls prints them', async () => {
		const {tui, tag, config} = startTui({fx: fixture('normal')}, {columns: 140, rows: 30});
		await tui.waitForScreen(s => tableCell(s, 'fx', 'STATE') === 'cold', 'the TUI up');
		const {client} = await openHangar(config, {tag, shared: true, clientInfo: {name: 'calls-client', version: '1.0.0'}});
		await client.callTool({name: 'fx__echo', arguments: {message: 'first', token: 'abc-secret-123'}});
		await client.callTool({name: 'fx__fail', arguments: {message: 'it broke'}});
		tui.keys('t');
		let screen = await tui.waitForScreen(s => s.includes('live, newest first') && /calls-client\s+fx\s+echo\s+\S+\s+ok/.test(s), 'the calls listed');
		expect(screen).toMatch(/› \d\d:\d\d:\d\d\s+calls-client\s+fx\s+fail\s+\S+\s+tool error/);
		// Enter on the older call: its arguments (the secret masked) and result.
		tui.keys('j');
		await tui.waitForScreen('paused: 1 newer call above');
		tui.keys('Enter');
		screen = await tui.waitForScreen(/CALL #\d+/, 'the call');
		expect(screen).toContain('{"message":"first","token":"***"}');
		expect(screen).toContain('"text":"first"');
		expect(screen).not.toContain('abc-secret-123');
		tui.keys('Escape');
		await tui.waitForScreen('paused: 1 newer call above');

		// The same calls as text, from the running supervisor.
		const text = execFileSync(process.execPath, [cliPath, 'logs', '--calls', '--config', config], {encoding: 'utf8', env: {...process.env, HANGAR_TEST_TAG: tag}});
		const lines = text.trim().split('\n');
		expect(lines).toHaveLength(2);
		expect(lines[0]).toMatch(/^\d{4}-\d\d-\d\dT\S+Z {2}calls-client {2}fx\/echo {2}\S+ms {2}ok$/);
		expect(lines[1]).toMatch(/calls-client {2}fx\/fail {2}\S+ {2}tool error$/);
		await client.close();
		tui.keys('Escape');
		await tui.waitForScreen('NAME');
		await quit(tui, tag);
	});

	it('draws the sparklines of calls in the table when wide, and they move under load', async () => {
		const {tui, tag, config} = startTui({fx: fixture('normal', [], {lazy: false}), idle: fixture('normal', [], {lazy: false})}, {columns: 200, rows: 30});
		await tui.waitForScreen(s => tableCell(s, 'fx', 'STATE') === 'ready' && tableCell(s, 'idle', 'STATE') === 'ready', 'both ready');
		const {client} = await openHangar(config, {tag, shared: true});
		const burst = async (n: number): Promise<void> => {
			await Promise.all(Array.from({length: n}, async (_, index) => client.callTool({name: 'fx__echo', arguments: {message: `m${index}`}})));
		};

		await burst(5);
		const first = await tui.waitForScreen(s => /[▁-█]/.test(tableCell(s, 'fx', 'CALLS 5m') ?? ''), 'a sparkline of fx\'s calls');
		const before = tableCell(first, 'fx', 'CALLS 5m');
		// An upstream nobody called has no line to draw.
		expect(tableCell(first, 'idle', 'CALLS 5m')).toBe('');
		expect(tableCell(first, 'fx', 'P95 5m')).toMatch(/[▁-█]/);
		// Keep the load on: once it spills into the next 30-second character (or outgrows the first bar), the line changes.
		let moved: string | undefined;
		const deadline = Date.now() + 60_000;
		while (moved === undefined && Date.now() < deadline) {
			await burst(50);
			const now = tableCell(tui.screen(), 'fx', 'CALLS 5m');
			if (now !== undefined && now !== before && /[▁-█]/.test(now)) moved = now;
		}

		expect(moved, `the sparkline moved under load (it was ${before})`).toBeDefined();
		await client.close();
		await quit(tui, tag);
	});
});
