/**
 * The output rule (core/base/terminal-text.ts) on every surface, against an
 * evil upstream (source/demo/evil-server.ts: tool names, descriptions,
 * stderr, errors and results carrying OSC 52, OSC 0, a screen clear, a
 * cursor-position request, an 8-bit CSI and bidi controls), an evil server
 * name in the config and an evil client name: `serve`'s stderr, `status`,
 * `status --json`, `logs SERVER`, `logs --calls` (and `--json`), `call`, CLI
 * errors, `--check-config`, and the TUI in a real tmux, whose pane title and
 * paste buffers must not change. What MCP clients receive is not a terminal:
 * it stays as the upstream sent it. Build first (npm test does).
 */
import {execFileSync} from 'node:child_process';
import {randomUUID} from 'node:crypto';
import path from 'node:path';
import {afterEach, describe, expect, it} from 'vitest';
import {evilPayload, evilToolName} from '../../source/demo/evil-server.js';
import {cliPath, closeHangars, fastHangar, openHangar, processesWithTag, root, runCli, tempDir, waitFor, writeConfig, type ServerEntry} from '../support/hangar.js';
import {spawnServe, type Served} from '../support/serve.js';
import {TmuxSession} from '../support/tmux.js';

const evilServer = path.join(root, 'dist', 'demo', 'evil-server.js');
const evilName = `bad${evilPayload}`;
const evilClient = {name: `client${evilPayload}`, version: '6.6.6'};
const servers = (): Record<string, ServerEntry> => ({mallory: {command: process.execPath, args: [evilServer], lazy: false}, [evilName]: {command: process.execPath, args: [evilServer]}});

/** Any character a terminal acts on, that reorders a line or that draws nothing, except the newline and tab of whole-line output. */
// eslint-disable-next-line no-control-regex
const raw = /[\u0000-\u0008\u000B-\u001F\u007F-\u009F\u2028\u2029\p{Cf}]/u;

/** What a person sees of the payload on a terminal surface: every part of it, escaped. */
const shownEscaped = ['\\x1b]52;c;ZXZpbC1jbGlwYm9hcmQ=\\x07', '\\x1b]0;evil-title\\x07', '\\x1b[2J', '\\x1b[6n', '\\u009b31m', '\\u202eevil\\u2066x\\u2069\\u202a', 'hid\\u200bden\\ufeff\\udb40\\udc41'];
/** The same in JSON: C0 as JSON escapes it, C1 and bidi the same way. */
const jsonEscaped = ['\\u001b]52;c;ZXZpbC1jbGlwYm9hcmQ=\\u0007', '\\u001b]0;evil-title\\u0007', '\\u001b[2J', '\\u001b[6n', '\\u009b31m', '\\u202eevil\\u2066x\\u2069\\u202a', 'hid\\u200bden\\ufeff\\udb40\\udc41'];

function expectSafe(what: string, text: string, escaped: readonly string[] = shownEscaped): void {
	const found = raw.exec(text);
	expect(found, `${what} holds a raw U+${found?.[0].codePointAt(0)?.toString(16).padStart(4, '0')} at ${found?.index}: ${JSON.stringify(text.slice(Math.max(0, (found?.index ?? 0) - 40), (found?.index ?? 0) + 40))}`).toBeNull();
	for (const form of escaped) expect(text, `${what} shows ${form}`).toContain(form);
}

const served: Served[] = [];
const sessions: TmuxSession[] = [];

afterEach(async () => {
	await closeHangars();
	for (const daemon of served.splice(0)) await daemon.stop();
	for (const session of sessions.splice(0)) session.kill();
});

describe('text an upstream, a client or a config sends never drives the terminal', () => {
	it("every CLI surface and serve's stderr show it escaped; --json escapes C1 and bidi as JSON does C0; MCP clients get it unchanged", async () => {
		const dir = tempDir('hangar-evil-');
		const config = writeConfig(dir, servers(), fastHangar);
		const {served: daemon} = await spawnServe(['serve', '--config', config, '--log-level', 'debug'], {listening: log => /serving 2 upstreams/.test(log) || undefined});
		served.push(daemon);

		// A client with an evil name, through the daemon: what it receives over MCP is the upstream's text, as sent.
		const {client, stderr: bridgeStderr} = await openHangar(config, {shared: true, clientInfo: evilClient});
		const {tools} = await client.listTools();
		// (The exposed name is made valid for clients; the description is the upstream's.)
		const evilTool = tools.find(tool => tool.name.startsWith('mallory__evil'));
		expect(evilTool?.description).toBe(`Fails, saying ${evilPayload}`);
		expect(tools.find(tool => tool.name === 'mallory__say')?.description).toBe(`Says ${evilPayload}`);
		const said = await client.callTool({name: 'mallory__say', arguments: {}});
		expect(said.content).toEqual([{type: 'text', text: `said ${evilPayload}`}]);
		await expect(client.callTool({name: evilTool!.name, arguments: {}})).rejects.toThrow(`it broke ${evilPayload}`);

		// The commands only read, or call mallory again: one run at a time would take long on a loaded machine.
		const cli = async (...args: string[]) => runCli([...args, '--config', config]);
		const [status, statusJson, logs, calls, callsJson, call, callJson, failed, check] = await Promise.all([
			cli('status'),
			cli('status', '--json'),
			cli('logs', 'mallory'),
			cli('logs', '--calls'),
			cli('logs', '--calls', '--json'),
			cli('call', 'mallory', 'say'),
			cli('call', 'mallory', 'say', '--json'),
			cli('call', 'mallory', evilToolName),
			cli('--check-config'),
		]);
		expect(status.code).toBe(0);
		expectSafe('status', status.stdout);
		expect(status.stdout).toMatch(/^mallory .*tools\/call "evil\\x1b\]52;/m);

		expectSafe('status --json', statusJson.stdout.replaceAll('\n', ''), jsonEscaped);
		const parsed = JSON.parse(statusJson.stdout) as {upstreams: Array<{name: string; lastError: string | null}>};
		// Escaped for the terminal, the same values for a program.
		expect(parsed.upstreams.map(entry => entry.name)).toContain(evilName);
		expect(parsed.upstreams.find(entry => entry.name === 'mallory')?.lastError).toContain(evilToolName);

		expect(logs.code).toBe(0);
		expectSafe('logs mallory', logs.stdout);
		expect(logs.stdout).toMatch(/stderr +evil-server got tools\/call \\x1b\]52;/);

		expect(calls.code).toBe(0);
		expectSafe('logs --calls', calls.stdout);
		expect(calls.stdout).toContain('client\\x1b]52;');

		expectSafe('logs --calls --json', callsJson.stdout.replaceAll('\n', ''), jsonEscaped);
		const clientNames = callsJson.stdout.trim().split('\n').map(line => (JSON.parse(line) as {client: string}).client);
		expect(clientNames.some(name => name.includes(evilClient.name))).toBe(true);

		expect(call.code).toBe(0);
		expectSafe('call (its output)', call.stdout);

		expectSafe('call --json', callJson.stdout.replaceAll('\n', ''), jsonEscaped);
		expect(JSON.parse(callJson.stdout)).toMatchObject({content: [{type: 'text', text: `said ${evilPayload}`}]});

		expect(failed.code).toBe(1);
		expectSafe('a CLI error', failed.stderr);
		expect(failed.stderr).toContain('it broke \\x1b]52;');

		expect(check.code).toBe(1);
		expectSafe('--check-config', check.stderr);

		expectSafe("serve's stderr", daemon.stderr());
		expect(daemon.stderr()).toContain('bad server name "bad\\x1b]52;');
		expect(raw.exec(bridgeStderr()), "the --stdio bridge's stderr").toBeNull();
		// A daemon, a bridge and nine CLI runs: on a loaded 2-core machine that takes longer than the default.
	}, 120_000);

	it("the TUI shows it escaped everywhere, and the tmux pane's title and paste buffers stay as they were", async () => {
		const dir = tempDir('hangar-evil-tui-');
		const config = writeConfig(dir, servers(), fastHangar);
		const tag = randomUUID();
		const tui = new TmuxSession();
		sessions.push(tui);
		const tmux = (...args: string[]) => execFileSync('tmux', ['-L', tui.socket, ...args], {encoding: 'utf8'});
		// A canary pane first: it shows that this tmux obeys what a pane prints (a paste buffer, a title),
		// so the checks below can fail. set-clipboard on: applications may create buffers, as with many users' configs.
		tmux('-f', '/dev/null', 'new-session', '-d', '-s', 'canary', 'read line; printf \'\\033]52;c;Y2FuYXJ5\\007\\033]2;canary-title\\007\'; exec cat');
		tmux('set-option', '-g', 'set-clipboard', 'on');
		tmux('send-keys', '-t', 'canary', 'Enter');
		await waitFor(() => tmux('display-message', '-p', '-t', 'canary', '#{pane_title}').trim() === 'canary-title' && tmux('list-buffers').trim().split('\n').length === 1, 'the canary to set its title and a buffer', 10_000);
		const buffersBefore = tmux('list-buffers');

		tui.start([process.execPath, cliPath, 'tui', '--config', config], {env: {HANGAR_TEST_TAG: tag, CI: 'true'}, columns: 200, rows: 40});
		const titleBefore = tmux('display-message', '-p', '-t', 'tui', '#{pane_title}').trim();
		let screen = await tui.waitForScreen(/mallory\s+ready/, 'mallory ready');
		const {client} = await openHangar(config, {tag, shared: true, clientInfo: evilClient});
		await client.callTool({name: 'mallory__say', arguments: {}});
		const {tools} = await client.listTools();
		await expect(client.callTool({name: tools.find(tool => tool.name.startsWith('mallory__evil'))!.name, arguments: {}})).rejects.toThrow('it broke');

		const checkScreen = (what: string, text: string, forms: readonly string[]) => {
			expectSafe(what, text, forms);
			expect(tmux('display-message', '-p', '-t', 'tui', '#{pane_title}').trim(), `the pane title after ${what}`).toBe(titleBefore);
			expect(tmux('list-buffers'), `the paste buffers after ${what}`).toBe(buffersBefore);
		};

		// The main list: the invalid config name, and mallory's last error with its tool's name.
		screen = await tui.waitForScreen(s => /mallory .*tools\/call "evil\\x1b\]/.test(s), "mallory's last error");
		checkScreen('the main list', screen, ['bad\\x1b]52;c;']);

		// The details: tool names and descriptions, the recent calls, the upstream's stderr.
		tui.keys('/');
		await tui.waitForScreen('/ ▏');
		tui.type('mallory');
		await tui.waitForScreen('1 of 2 match');
		tui.keys('Enter');
		await tui.waitForScreen('› mallory');
		tui.keys('Enter');
		screen = await tui.waitForScreen(s => s.includes('RECENT CALLS') && s.includes('evil-server got'), 'the details');
		checkScreen('the details', screen, ['evil\\x1b]52;c;', 'Says \\x1b]52;c;', 'evil-server got']);

		// The log: stderr lines as the upstream wrote them, escaped.
		tui.keys('l');
		screen = await tui.waitForScreen(s => s.includes('evil-server starting'), 'the log');
		checkScreen('the log', screen, ['evil-server starting \\x1b]52;c;ZXZpbC1jbGlwYm9hcmQ=\\x07\\x1b]0;evil-title\\x07']);
		tui.keys('Escape');
		tui.keys('Escape');

		// The calls: the client's name, the tool's and the error.
		tui.keys('t');
		screen = await tui.waitForScreen(s => s.includes('client\\x1b]52;'), 'the calls');
		checkScreen('the calls', screen, ['client\\x1b]52;c;', 'evil\\x1b]52;']);
		tui.keys('Escape');

		// The clients: its name.
		tui.keys('c');
		screen = await tui.waitForScreen(s => s.includes('client\\x1b]52;'), 'the clients');
		checkScreen('the clients', screen, ['client\\x1b]52;c;']);

		await client.close();
		tui.keys('q');
		await tui.waitForExit();
		await waitFor(() => processesWithTag(tag).length === 0, 'no process left', 10_000);
		// Nothing of the payload reached the screen's history either.
		expect(raw.test(tui.screen({history: true}))).toBe(false);
	});
});
