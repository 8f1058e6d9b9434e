/**
 * One sign-in shared by every connection hangar holds to a remote upstream
 * that asks for OAuth, when it holds several: a per-client server's
 * instances (one per client session) each have their own connection. The
 * built hangar as a shared daemon, four SDK clients, the loopback
 * authorization server (oauth2-mock-server) with refresh tokens that are
 * good once, and `mcp-hangar auth` through a scripted browser. Build first.
 */
import {execFile} from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import type {CallToolResult} from '@modelcontextprotocol/sdk/types.js';
import {afterEach, describe, expect, it} from 'vitest';
import {cliPath, closeHangars, openHangar, rpcError, spawnEnv, statusOf, tempDir, writeConfig, type HangarHandle} from '../support/hangar.js';
import {revokeEverything, rotateRefreshTokens, scriptedBrowser, slowTokenEndpoint, startAuthServer, startProtectedServer, type AuthServer, type ProtectedServer} from '../support/oauth-servers.js';

const cleanups: Array<() => Promise<void>> = [];

afterEach(async () => {
	await closeHangars();
	for (const cleanup of cleanups.splice(0)) await cleanup();
});

type Setup = {config: string; stateDir: string; auth: AuthServer; resource: ProtectedServer; signIn: (...extra: string[]) => Promise<{code: number | null; out: string}>};

async function setup(instances: 'per-client' | 'shared' = 'per-client'): Promise<Setup> {
	const auth = await startAuthServer();
	const resource = await startProtectedServer(auth);
	cleanups.push(async () => resource.close(), async () => auth.close());
	const dir = tempDir('hangar-oauth-instances-');
	fs.writeFileSync(path.join(dir, 'remote.env'), 'REMOTE_SECRET=instances-secret\n');
	const config = writeConfig(dir, {remote: {url: resource.url, envFile: 'remote.env', instances, oauth: {clientId: 'hangar-test-client', clientSecretEnv: 'REMOTE_SECRET'}}}, {lingerSeconds: 2});
	const {browser} = scriptedBrowser(dir);
	const signIn = async (...extra: string[]) =>
		new Promise<{code: number | null; out: string}>(resolve => {
			execFile(process.execPath, [cliPath, 'auth', 'remote', ...extra, '--config', config], {env: spawnEnv({BROWSER: browser}), timeout: 50_000}, (error, stdout, stderr) => {
				resolve({code: error === null ? 0 : typeof error.code === 'number' ? error.code : null, out: stdout + stderr});
			});
		});
	return {config, stateDir: path.join(dir, 'state'), auth, resource, signIn};
}

function text(result: unknown): string {
	const content = (result as CallToolResult).content[0];
	return content?.type === 'text' ? content.text : '';
}

/** Each client calls echo at once, each through its own instance; what each got back. */
async function callAll(clients: HangarHandle[], tag: string): Promise<string[]> {
	return Promise.all(clients.map(async (hangar, index) => text(await hangar.client.callTool({name: 'remote__echo', arguments: {message: `${tag}${index}`}}))));
}

/** The states of a per-client server's instances, as status shows them. */
async function instanceStates(hangar: HangarHandle): Promise<string[]> {
	return ((await statusOf(hangar.client, 'remote')).instances ?? []).map(instance => instance.state);
}

/** The stored access token's expiry moved into the past, as a machine that slept past it finds it. */
function expireStoredToken(stateDir: string): void {
	const file = path.join(stateDir, 'oauth-tokens.json');
	const store = JSON.parse(fs.readFileSync(file, 'utf8')) as {upstreams: Record<string, {tokens: {expiresAt?: number}}>};
	store.upstreams['remote']!.tokens.expiresAt = Date.now() - 1000;
	fs.writeFileSync(file, JSON.stringify(store), {mode: 0o600});
}

describe('a per-client remote server that asks for OAuth', () => {
	it('refreshes an expired token once for all its instances, so a refresh token good once keeps the sign-in and every client\'s call goes through', async () => {
		const s = await setup();
		const redeemed = rotateRefreshTokens(s.auth);
		// A distant authorization server: the instances' calls all find the token expired before the first refresh is back.
		cleanups.push(await slowTokenEndpoint(s.auth, 500));
		expect((await s.signIn()).code).toBe(0);
		const clients = await Promise.all([1, 2, 3, 4].map(async () => openHangar(s.config, {shared: true})));
		expect(await callAll(clients, 'warm')).toEqual(['echo: warm0', 'echo: warm1', 'echo: warm2', 'echo: warm3']);
		expect(redeemed).toEqual([]);

		expireStoredToken(s.stateDir);
		expect(await callAll(clients, 'after')).toEqual(['echo: after0', 'echo: after1', 'echo: after2', 'echo: after3']);
		expect(redeemed).toHaveLength(1);
		// The sign-in is kept: later calls need no person.
		expect(await callAll(clients, 'later')).toEqual(['echo: later0', 'echo: later1', 'echo: later2', 'echo: later3']);
		expect(s.auth.authorizeRequests).toBe(1);
	});

	it('names the server to sign in to when its instances lose the sign-in; the person\'s one sign-in, and a sign-out, reach every instance at once', async () => {
		const s = await setup();
		expect((await s.signIn()).code).toBe(0);
		const clients = await Promise.all([1, 2, 3].map(async () => openHangar(s.config, {shared: true})));
		expect(await callAll(clients, 'warm')).toEqual(['echo: warm0', 'echo: warm1', 'echo: warm2']);

		revokeEverything(s.auth, s.resource);
		const refused = await Promise.all(clients.map(async hangar => rpcError(hangar.client.callTool({name: 'remote__echo', arguments: {message: 'revoked'}}))));
		for (const error of refused) {
			expect(error.message).toContain('needs sign-in');
			const {hint} = error.data as {hint: string};
			// The command a person can run: the server's name, not an instance's (remote#2 is no server of the config).
			expect(hint).toContain('mcp-hangar auth remote ');
			expect(hint).not.toMatch(/auth remote#/);
		}

		// The authorization server takes refreshes again; the person signs in once.
		s.auth.server.service.removeAllListeners('beforeResponse');
		const again = await s.signIn();
		expect(again.code, again.out).toBe(0);
		// The instances start with the new sign-in at once, so the status tells the truth before any call.
		expect(again.out).toMatch(/the running hangar: "remote" is signed in: 3 instances restarted with the new tokens \(remote#\d: ready; remote#\d: ready; remote#\d: ready\)/);
		expect(await instanceStates(clients[0]!)).toEqual(['ready', 'ready', 'ready']);
		expect(await callAll(clients, 'back')).toEqual(['echo: back0', 'echo: back1', 'echo: back2']);
		expect(s.auth.authorizeRequests).toBe(2);

		// Signed out: every instance needs sign-in at once, not only after its next call fails.
		const out = await s.signIn('--logout');
		expect(out.code, out.out).toBe(0);
		expect(await instanceStates(clients[0]!)).toEqual(['needs-sign-in', 'needs-sign-in', 'needs-sign-in']);
		expect((await rpcError(clients[1]!.client.callTool({name: 'remote__echo', arguments: {message: 'gone'}}))).message).toContain('needs sign-in');
	});
});

describe('a shared remote server that asks for OAuth', () => {
	it('refreshes once when the upstream stops taking a token that has not expired, whatever the number of calls it refused', async () => {
		const s = await setup('shared');
		const redeemed = rotateRefreshTokens(s.auth);
		expect((await s.signIn()).code).toBe(0);
		const clients = await Promise.all([1, 2, 3, 4, 5].map(async () => openHangar(s.config, {shared: true})));
		expect(await callAll(clients, 'warm')).toEqual(['echo: warm0', 'echo: warm1', 'echo: warm2', 'echo: warm3', 'echo: warm4']);
		// The upstream refuses the token it took so far (its keys rotated, say): every call in flight gets a 401 for it.
		s.resource.revokeAll();
		expect(await callAll(clients, 'after')).toEqual(['echo: after0', 'echo: after1', 'echo: after2', 'echo: after3', 'echo: after4']);
		expect(redeemed).toHaveLength(1);
		expect(await callAll(clients, 'later')).toEqual(['echo: later0', 'echo: later1', 'echo: later2', 'echo: later3', 'echo: later4']);
	});
});
