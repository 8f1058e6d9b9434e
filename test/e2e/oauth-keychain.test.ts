/**
 * The OS keychain as the token store (`"hangar": {"tokenStore":
 * "keychain"}`), end to end on loopback: a private D-Bus session with an
 * unlocked gnome-keyring (test/support/keychain-session.ts), the real
 * authorization server and protected MCP server of oauth.test.ts, and
 * `mcp-hangar auth` signing in through a scripted browser. The sign-in
 * lands in the keychain (read back with secret-tool), no file in the state
 * dir holds a token, a shared daemon's clients call with it, refresh it
 * when it expires, and a revoked sign-in needs sign-in again. Without a
 * keychain, hangar says what to do and writes no file. Build first.
 */
import {execFile} from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import type {CallToolResult} from '@modelcontextprotocol/sdk/types.js';
import {afterEach, describe, expect, it} from 'vitest';
import {cliPath, closeHangars, openHangar, rpcError, spawnEnv, statusOf, tempDir, waitFor, writeConfig, type CliRun} from '../support/hangar.js';
import {startKeychainSession} from '../support/keychain-session.js';
import {revokeEverything, scriptedBrowser, startAuthServer, startProtectedServer, type AuthServer, type ProtectedServer} from '../support/oauth-servers.js';

const cleanups: Array<() => Promise<void>> = [];

afterEach(async () => {
	await closeHangars();
	for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

type Setup = {config: string; stateDir: string; auth: AuthServer; resource: ProtectedServer; env: Record<string, string>};

async function setup(env: Record<string, string>): Promise<Setup> {
	const auth = await startAuthServer();
	const resource = await startProtectedServer(auth);
	cleanups.push(async () => auth.close(), async () => resource.close());
	const dir = tempDir('hangar-oauth-keychain-');
	fs.writeFileSync(path.join(dir, 'remote.env'), 'REMOTE_SECRET=keychain-client-secret\n');
	const config = writeConfig(dir, {remote: {url: resource.url, envFile: 'remote.env', oauth: {clientId: 'hangar-test-client', clientSecretEnv: 'REMOTE_SECRET'}}}, {lingerSeconds: 2, tokenStore: 'keychain'});
	return {config, stateDir: path.join(dir, 'state'), auth, resource, env: {...env, BROWSER: scriptedBrowser(dir).browser}};
}

async function cli(s: Setup, args: string[], env: Record<string, string> = s.env): Promise<CliRun> {
	return new Promise(resolve => {
		execFile(process.execPath, [cliPath, ...args, '--config', s.config], {env: spawnEnv(env), timeout: 50_000}, (error, stdout, stderr) => {
			resolve({code: error === null ? 0 : typeof error.code === 'number' ? error.code : null, stdout, stderr, tag: ''});
		});
	});
}

/** Every file under the state dir, as text (none may hold a token). */
function stateFiles(dir: string): Array<{file: string; text: string}> {
	return fs
		.readdirSync(dir, {recursive: true, withFileTypes: true})
		.filter(entry => entry.isFile())
		.map(entry => ({file: path.join(entry.parentPath, entry.name), text: fs.readFileSync(path.join(entry.parentPath, entry.name), 'latin1')}));
}

function text(result: unknown): string {
	const content = (result as CallToolResult).content[0];
	return content?.type === 'text' ? content.text : '';
}

describe('the OS keychain as the token store', () => {
	it('keeps the sign-in in the keychain, not in the state dir; every client calls with it, it refreshes, and a revoked one needs sign-in again', async () => {
		const keychain = await startKeychainSession();
		cleanups.push(keychain.close);
		const s = await setup(keychain.env);
		const account = `remote in ${s.stateDir}`;
		// The first token expires in 1 s: the daemon's first use refreshes it and writes the new one back to the keychain.
		s.auth.server.service.once('beforeResponse', (response: {body: Record<string, unknown>}) => {
			response.body['expires_in'] = 1;
		});

		const signIn = await cli(s, ['auth', 'remote']);
		expect(signIn.stdout + signIn.stderr).toContain('signed in to "remote"');
		expect(signIn.code).toBe(0);
		const item = keychain.lookup(account);
		expect(item, 'the sign-in is in the keychain').toBeDefined();
		const firstToken = String(s.auth.grants[0]!.body['access_token']);
		expect(item).toContain(firstToken);
		expect(fs.existsSync(path.join(s.stateDir, 'oauth-tokens.json'))).toBe(false);

		const first = await openHangar(s.config, {shared: true, env: keychain.env});
		const second = await openHangar(s.config, {shared: true, env: keychain.env});
		expect(text(await first.client.callTool({name: 'remote__echo', arguments: {message: 'one'}}))).toBe('echo: one');
		expect(text(await second.client.callTool({name: 'remote__echo', arguments: {message: 'two'}}))).toBe('echo: two');
		expect(s.auth.authorizeRequests).toBe(1);
		const refreshed = s.auth.grants.find(grant => grant.grant === 'refresh_token');
		expect(refreshed, 'the expired token was refreshed').toBeDefined();
		expect(keychain.lookup(account)).toContain(String(refreshed!.body['access_token']));

		// Revoked: the upstream refuses the token, the authorization server the refresh.
		revokeEverything(s.auth, s.resource);
		const lost = await rpcError(first.client.callTool({name: 'remote__echo', arguments: {message: 'three'}}));
		expect(lost.message).toContain('needs sign-in');
		await waitFor(async () => (await statusOf(second.client, 'remote')).state === 'needs-sign-in', 'needs-sign-in after the revocation');
		// Marked lost in the keychain: its tokens dropped there.
		expect(keychain.lookup(account)).toContain('"lost"');
		expect(keychain.lookup(account)).not.toContain(firstToken);

		const tokens = s.auth.grants.flatMap(grant => [grant.body['access_token'], grant.body['refresh_token']]).filter((value): value is string => typeof value === 'string');
		expect(tokens.length).toBeGreaterThan(2);
		for (const {file, text: content} of stateFiles(s.stateDir)) {
			for (const token of tokens) expect(content.includes(token), `${file} holds a token`).toBe(false);
		}

		const logout = await cli(s, ['auth', 'remote', '--logout']);
		expect(logout.code).toBe(0);
		expect(keychain.lookup(account)).toBeUndefined();
	});

	it('without a D-Bus session, says the keychain cannot be used and what to do, and writes no token file', async () => {
		const s = await setup({DBUS_SESSION_BUS_ADDRESS: 'unix:path=/nonexistent/hangar-test-bus'});
		const signIn = await cli(s, ['auth', 'remote']);
		expect(signIn.code).not.toBe(0);
		expect(signIn.stderr).toContain('the OS keychain (hangar.tokenStore "keychain") cannot be used');
		expect(signIn.stderr).toContain('set hangar.tokenStore to "file"');
		expect(signIn.stderr).toContain('gnome-keyring');
		expect(fs.existsSync(path.join(s.stateDir, 'oauth-tokens.json'))).toBe(false);
	});
});
