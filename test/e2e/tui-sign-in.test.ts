/**
 * The TUI's sign-in key, end to end at 80x24 in tmux: a remote upstream
 * behind a real authorization server (oauth2-mock-server) and a protected
 * MCP server shows `needs-sign-in`; `a` makes the supervisor open its
 * loopback listener and answer the authorization URL, which the TUI shows
 * (no display here, so no browser is opened); a scripted browser (fetch
 * following redirects) completes it from the screen; the upstream becomes
 * ready; and when the authorization server refuses the code after the
 * browser came back, the failure and its reason replace the URL. Each with
 * the supervisor in the TUI's process and with the TUI attached to
 * `mcp-hangar serve` over the socket. Build first.
 */
import {randomUUID} from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import {afterEach, describe, expect, it} from 'vitest';
import {cliPath, closeHangars, tempDir, writeConfig} from '../support/hangar.js';
import {startAuthServer, startProtectedServer, type AuthServer} from '../support/oauth-servers.js';
import {tableCell} from '../support/screen-table.js';
import {startDaemon, stopDaemons} from '../support/serve.js';
import {TmuxSession} from '../support/tmux.js';

const sessions: TmuxSession[] = [];
const cleanups: Array<() => Promise<void>> = [];

afterEach(async () => {
	await closeHangars();
	for (const session of sessions.splice(0)) session.kill();
	await stopDaemons('SIGKILL');
	for (const cleanup of cleanups.splice(0)) await cleanup();
});

/** No browser can be opened where the supervisor runs: the URL is only shown. */
const headless = {BROWSER: '', DISPLAY: '', WAYLAND_DISPLAY: ''};

async function setup(): Promise<{config: string; stateDir: string; auth: AuthServer}> {
	const auth = await startAuthServer();
	const resource = await startProtectedServer(auth);
	cleanups.push(async () => resource.close(), async () => auth.close());
	const dir = tempDir('hangar-tui-sign-in-');
	fs.writeFileSync(path.join(dir, 'remote.env'), 'REMOTE_SECRET=tui-sign-in-secret\n');
	// Started at launch (lazy false), so it shows needs-sign-in without a call.
	const config = writeConfig(dir, {remote: {url: resource.url, envFile: 'remote.env', lazy: false, oauth: {clientId: 'hangar-test-client', clientSecretEnv: 'REMOTE_SECRET'}}}, {lingerSeconds: 2});
	return {config, stateDir: path.join(dir, 'state'), auth};
}

/** The authorization URL as the TUI shows it: from its first line to the first blank or non-URL character, across the wrapped lines. */
function urlOnScreen(screen: string): string | undefined {
	const lines = screen.split('\n');
	const first = lines.findIndex(line => line.startsWith('http://127.0.0.1:') || line.startsWith('http://localhost:'));
	if (first === -1) return undefined;
	let url = '';
	for (const line of lines.slice(first)) {
		const part = /^\S+/.exec(line)?.[0] ?? '';
		url += part;
		if (part.length < 80) break;
	}

	return url;
}

/** Presses a on the upstream that needs sign-in and reads the authorization URL the TUI shows. */
async function urlFromTheScreen(tui: TmuxSession): Promise<URL> {
	const before = await tui.waitForScreen(s => /1 upstream: +1 needs-sign-in/.test(s) && tableCell(s, 'remote', 'STATE')?.startsWith('needs-sign') === true && s.includes('a sign in'), 'needs-sign-in and the a hint at 80x24');
	for (const line of before.split('\n')) expect([...line].length).toBeLessThanOrEqual(80);
	tui.type('a');
	const shown = await tui.waitForScreen(s => s.includes('open this URL in a browser') && urlOnScreen(s)?.includes('code_challenge_method=S256') === true, 'the authorization URL on screen');
	const url = new URL(urlOnScreen(shown)!);
	expect(url.searchParams.get('state')).toBeTruthy();
	expect(new URL(url.searchParams.get('redirect_uri')!).hostname).toBe('127.0.0.1');
	return url;
}

async function signInFromTheScreen(tui: TmuxSession): Promise<{screen: string; page: string}> {
	const url = await urlFromTheScreen(tui);
	// The scripted browser: the person clicks "allow"; the redirect lands on the supervisor's loopback listener.
	const response = await fetch(url, {redirect: 'follow'});
	const page = await response.text();
	expect(response.status).toBe(200);
	const screen = await tui.waitForScreen(s => tableCell(s, 'remote', 'STATE') === 'ready', 'the upstream ready with the new tokens');
	return {screen, page};
}

function auditOf(stateDir: string): string {
	const file = fs.readdirSync(stateDir).find(name => name.startsWith('audit'));
	return file === undefined ? '' : fs.readFileSync(path.join(stateDir, file), 'utf8');
}

describe('the TUI sign-in key', () => {
	it('at 80x24 shows needs-sign-in, starts the sign-in with a, shows the URL, and the upstream is ready once the browser comes back', async () => {
		const {config, stateDir} = await setup();
		const tui = new TmuxSession();
		sessions.push(tui);
		tui.start([process.execPath, cliPath, 'tui', '--config', config], {env: {...headless, HANGAR_TEST_TAG: randomUUID(), CI: 'true'}, columns: 80, rows: 24});
		const {page} = await signInFromTheScreen(tui);
		expect(page).toContain('Signed in to remote');
		tui.keys('q');
		expect(await tui.waitForExit()).toBe(0);
		const audit = auditOf(stateDir);
		expect(audit).toContain('"sign-in"');
		// The URL's state and the code reach neither the audit trail nor the log.
		expect(audit).not.toMatch(/state=|code=/);
		expect(fs.readFileSync(path.join(stateDir, 'hangar.log'), 'utf8')).not.toMatch(/state=|code=/);
	});

	it.each(['in process', 'attached to serve'])('%s, replaces the URL with the failure and its reason when the authorization server refuses the code after the browser came back', async where => {
		const {config, auth} = await setup();
		const daemon = where === 'attached to serve' ? await startDaemon(config, {env: headless}) : undefined;

		const tui = new TmuxSession();
		sessions.push(tui);
		tui.start([process.execPath, cliPath, 'tui', '--config', config], {env: {...headless, HANGAR_TEST_TAG: randomUUID(), CI: 'true'}, columns: 80, rows: 24});
		if (where === 'attached to serve') await tui.waitForScreen(`attached to pid ${daemon!.pid}`, 'the TUI attached to serve');
		const url = await urlFromTheScreen(tui);
		// The person clicks "allow", but the token endpoint refuses the code.
		auth.server.service.on('beforeResponse', (response: {body: Record<string, unknown>; statusCode: number}, request: {body: Record<string, unknown>}) => {
			if (request.body['grant_type'] !== 'authorization_code') return;
			response.statusCode = 400;
			response.body = {error: 'invalid_grant', error_description: 'the code was refused'};
		});
		const page = await (await fetch(url, {redirect: 'follow'})).text();
		expect(page).toContain('failed');
		const screen = await tui.waitForScreen(s => s.includes('Signing in to "remote" failed') && !s.includes('open this URL'), 'the failure in place of the URL');
		expect(screen).not.toContain('http://127.0.0.1:');
		expect(screen).toContain('Press a to start the sign-in again');
		// The row still needs sign-in, and its reason line says the sign-in failed.
		expect(tableCell(screen, 'remote', 'STATE')?.startsWith('needs-sign')).toBe(true);
		expect(screen).toContain('sign-in failed: the authorization server');
		for (const line of screen.split('\n')) expect([...line].length).toBeLessThanOrEqual(80);
	});

	it('attached to serve over the socket, does the same: the supervisor in serve runs the sign-in', async () => {
		const {config, stateDir} = await setup();
		const served = await startDaemon(config, {env: headless});
		const tui = new TmuxSession();
		sessions.push(tui);
		tui.start([process.execPath, cliPath, 'tui', '--config', config], {env: {...headless, HANGAR_TEST_TAG: randomUUID(), CI: 'true'}, columns: 80, rows: 24});
		await tui.waitForScreen(`attached to pid ${served.pid}`, 'the TUI attached to serve');
		const {page} = await signInFromTheScreen(tui);
		expect(page).toContain('Signed in to remote');
		const audit = auditOf(stateDir);
		expect(audit).toContain('"sign-in"');
		// The URL's state and the code reach neither the audit trail nor the log.
		expect(audit).not.toMatch(/state=|code=/);
		expect(fs.readFileSync(path.join(stateDir, 'hangar.log'), 'utf8')).not.toMatch(/state=|code=/);
	});
});
