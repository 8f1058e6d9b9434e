/**
 * OAuth 2.1 to a remote upstream, end to end on loopback: a real
 * authorization server (oauth2-mock-server) and a protected MCP server
 * that checks each bearer token, the built hangar as a shared daemon with
 * two SDK clients, and `mcp-hangar auth` signing in through a scripted
 * browser ($BROWSER: a script that fetches the URL following redirects, as
 * a browser whose person clicks "allow" would). Build first (npm test does).
 */
import {execFile, spawn} from 'node:child_process';
import fs from 'node:fs';
import http from 'node:http';
import type {AddressInfo} from 'node:net';
import path from 'node:path';
import type {CallToolResult} from '@modelcontextprotocol/sdk/types.js';
import {afterEach, describe, expect, it} from 'vitest';
import {cliPath, closeHangars, openHangar, rpcError, spawnEnv, statusOf, tempDir, waitFor, writeConfig, type CliRun} from '../support/hangar.js';
import {revokeEverything, scriptedBrowser, startAuthServer, startProtectedServer, type AuthServer, type ProtectedServer} from '../support/oauth-servers.js';
import {SupervisorClient} from '../../source/core/endpoints/supervisor-client.js';

const cleanups: Array<() => Promise<void>> = [];
const daemons: number[] = [];

afterEach(async () => {
	await closeHangars();
	for (const pid of daemons.splice(0)) {
		try {
			process.kill(pid, 'SIGKILL');
		} catch {}
	}

	for (const cleanup of cleanups.splice(0)) await cleanup();
});

const secret = 'planted-client-secret-5b1e';

type Setup = {dir: string; config: string; stateDir: string; auth: AuthServer; resource: ProtectedServer; browserPage: string; env: Record<string, string>};

async function setup(options: {registration?: boolean; oauth?: Record<string, unknown>} = {}): Promise<Setup> {
	const auth = await startAuthServer({registration: options.registration});
	const resource = await startProtectedServer(auth);
	cleanups.push(async () => resource.close(), async () => auth.close());
	const dir = tempDir('hangar-oauth-');
	fs.writeFileSync(path.join(dir, 'remote.env'), `REMOTE_SECRET=${secret}\n`);
	const oauth = options.oauth ?? {clientId: 'hangar-test-client', clientSecretEnv: 'REMOTE_SECRET'};
	const config = writeConfig(dir, {remote: {url: resource.url, envFile: 'remote.env', oauth}}, {lingerSeconds: 2});
	const {browser, page: browserPage} = scriptedBrowser(dir);
	return {dir, config, stateDir: path.join(dir, 'state'), auth, resource, browserPage, env: {BROWSER: browser}};
}

async function cli(s: Setup, args: string[], env: Record<string, string> = {}): Promise<CliRun> {
	return new Promise(resolve => {
		execFile(process.execPath, [cliPath, ...args, '--config', s.config], {env: spawnEnv({...s.env, ...env}), timeout: 50_000}, (error, stdout, stderr) => {
			resolve({code: error === null ? 0 : typeof error.code === 'number' ? error.code : null, stdout, stderr, tag: ''});
		});
	});
}

function text(result: unknown): string {
	const content = (result as CallToolResult).content[0];
	return content?.type === 'text' ? content.text : '';
}

async function daemonPid(stateDir: string): Promise<number> {
	return waitFor(() => {
		try {
			return (JSON.parse(fs.readFileSync(path.join(stateDir, 'endpoint.json'), 'utf8')) as {pid: number}).pid;
		} catch {
			return undefined;
		}
	}, 'the daemon to own the state dir');
}

/** The person's actions in the audit trail of `stateDir`. */
function auditActions(stateDir: string): Array<Record<string, unknown>> {
	let text = '';
	try {
		text = fs.readFileSync(path.join(stateDir, 'audit.jsonl'), 'utf8');
	} catch {}

	return text
		.split('\n')
		.filter(line => line !== '')
		.map(line => JSON.parse(line) as Record<string, unknown>)
		.filter(line => line['kind'] === 'action');
}

/** Every file under `dir` but the token store, as text. */
function stateFiles(dir: string): Array<{file: string; text: string}> {
	const found: Array<{file: string; text: string}> = [];
	for (const entry of fs.readdirSync(dir, {recursive: true, withFileTypes: true})) {
		if (!entry.isFile() || entry.name === 'oauth-tokens.json') continue;
		const file = path.join(entry.parentPath, entry.name);
		found.push({file, text: fs.readFileSync(file, 'latin1')});
	}

	return found;
}

describe('a remote upstream that asks for OAuth', () => {
	it('needs sign-in until a person signs in once; then every client calls it, the token refreshes before it expires, and a revoked sign-in needs sign-in again', async () => {
		const s = await setup();
		// The first token response says it expires in 1 s: the next use refreshes it before sending it (wall clock).
		s.auth.server.service.once('beforeResponse', (response: {body: Record<string, unknown>}) => {
			response.body['expires_in'] = 1;
		});
		const first = await openHangar(s.config, {shared: true});
		daemons.push(await daemonPid(s.stateDir));

		const refused = await rpcError(first.client.callTool({name: 'remote__echo', arguments: {message: 'hi'}}));
		expect(refused.message).toContain('needs sign-in');
		expect(refused.message).toContain('mcp-hangar auth remote');
		expect((await statusOf(first.client, 'remote')).state).toBe('needs-sign-in');
		const status = await cli(s, ['status']);
		expect(status.stdout).toContain('needs-sign-in');

		const signIn = await cli(s, ['auth', 'remote']);
		expect(signIn.stderr).toContain('Opening the browser');
		expect(signIn.code).toBe(0);
		expect(signIn.stdout).toContain('signed in to "remote"');
		expect(signIn.stdout).toContain('client: pre-registered');
		expect(fs.readFileSync(s.browserPage, 'utf8')).toMatch(/^200\n[\s\S]*Signed in to remote[\s\S]*close this window/);
		const store = path.join(s.stateDir, 'oauth-tokens.json');
		expect(fs.statSync(store).mode & 0o777).toBe(0o600);

		await waitFor(async () => (await statusOf(first.client, 'remote')).state === 'ready', 'the daemon to start it with the new tokens');
		// The person's sign-in is its own action in the audit trail (not the restart it triggers).
		const signedIn = await waitFor(() => auditActions(s.stateDir).find(line => line.action === 'sign-in' && line.outcome === 'done'), 'the sign-in in the audit trail');
		expect(signedIn).toMatchObject({upstream: 'remote', outcome: 'done', via: 'a person (mcp-hangar auth)'});
		// Each step of the flow before it, written by mcp-hangar auth itself.
		expect(auditActions(s.stateDir).filter(line => line.action === 'sign-in').map(line => line.outcome)).toEqual(['started', 'signed-in', 'done']);
		expect(auditActions(s.stateDir).map(line => line.action)).not.toContain('restart');
		const second = await openHangar(s.config, {shared: true});
		expect(text(await first.client.callTool({name: 'remote__echo', arguments: {message: 'one'}}))).toBe('echo: one');
		expect(text(await second.client.callTool({name: 'remote__echo', arguments: {message: 'two'}}))).toBe('echo: two');
		// One sign-in for both clients, and the 1 s token was refreshed rather than used past its expiry.
		expect(s.auth.authorizeRequests).toBe(1);
		expect(s.auth.grants.map(grant => grant.grant)).toContain('refresh_token');
		// Hangar's own tokens upstream, never a client's: every token the upstream saw came from the authorization server.
		const issued = new Set(s.auth.grants.map(grant => String(grant.body['access_token'])));
		expect(s.resource.seenTokens.every(token => issued.has(token))).toBe(true);

		// Revoked: the upstream refuses the token and the authorization server the refresh.
		revokeEverything(s.auth, s.resource);
		const lost = await rpcError(first.client.callTool({name: 'remote__echo', arguments: {message: 'three'}}));
		expect(lost.message).toContain('needs sign-in');
		await waitFor(async () => (await statusOf(first.client, 'remote')).state === 'needs-sign-in', 'needs-sign-in after the revocation');
		const again = await rpcError(second.client.callTool({name: 'remote__echo', arguments: {message: 'four'}}));
		expect(again.message).toContain('mcp-hangar auth remote');
		// Its tools stay listed from the cache.
		const tools = await second.client.listTools();
		expect(tools.tools.map(tool => tool.name)).toContain('remote__echo');

		// No token, code or secret on any surface: status, logs, hangar_details, errors, state files but the token store.
		const planted = [
			secret,
			...s.auth.grants.flatMap(grant => [grant.body['access_token'], grant.body['refresh_token'], grant.body['id_token']]).filter((value): value is string => typeof value === 'string'),
		];
		expect(planted.length).toBeGreaterThan(3);
		const surfaces: Array<[string, string]> = [
			['status', (await cli(s, ['status'])).stdout],
			['status --json', (await cli(s, ['status', '--json'])).stdout],
			['logs', (await cli(s, ['logs', 'remote'])).stdout],
			['hangar_details', JSON.stringify(await first.client.callTool({name: 'hangar_details', arguments: {server: 'remote'}}))],
			['hangar_list', JSON.stringify(await first.client.callTool({name: 'hangar_list', arguments: {}}))],
			['errors', [refused, lost, again].map(error => `${error.message} ${JSON.stringify(error.data)}`).join('\n')],
			['auth output', signIn.stdout + signIn.stderr],
			...stateFiles(s.stateDir).map(({file, text}): [string, string] => [file, text]),
		];
		for (const [surface, content] of surfaces) {
			for (const value of planted) expect(content.includes(value), `${surface} shows a token or secret`).toBe(false);
		}
	});

	it('registers itself dynamically when no client id is configured, prints the URL with --no-browser, and forgets the sign-in on --logout', async () => {
		const s = await setup({registration: true, oauth: {}});
		const child = spawn(process.execPath, [cliPath, 'auth', 'remote', '--no-browser', '--config', s.config], {env: spawnEnv(), stdio: ['ignore', 'pipe', 'pipe']});
		let stdout = '';
		let stderr = '';
		child.stdout.on('data', (chunk: Buffer) => {
			stdout += chunk.toString();
		});
		child.stderr.on('data', (chunk: Buffer) => {
			stderr += chunk.toString();
		});
		const exited = new Promise<number | null>(resolve => child.on('exit', code => resolve(code)));
		const url = await waitFor(() => /open this URL in a browser \(--no-browser\):\n {2}(\S+)/.exec(stderr)?.[1], 'the printed sign-in URL');
		const authorization = new URL(url);
		expect(authorization.searchParams.get('code_challenge_method')).toBe('S256');
		expect(authorization.searchParams.get('resource')).toBe(s.resource.url);
		expect(authorization.searchParams.get('client_id')).toBe('registered-1');
		const page = await fetch(url, {redirect: 'follow'});
		expect(await page.text()).toContain('close this window');
		expect(await exited).toBe(0);
		expect(stdout).toContain('client: dynamic, registered now');
		expect(s.auth.registrations).toBe(1);

		const daemon = await openHangar(s.config, {shared: true});
		daemons.push(await daemonPid(s.stateDir));
		expect(text(await daemon.client.callTool({name: 'remote__echo', arguments: {message: 'hi'}}))).toBe('echo: hi');

		const logout = await cli(s, ['auth', 'remote', '--logout']);
		expect(logout.code).toBe(0);
		expect(logout.stdout).toContain('forgot the tokens');
		await waitFor(async () => (await statusOf(daemon.client, 'remote')).state === 'needs-sign-in', 'needs-sign-in after the logout');
		const signedOut = await waitFor(() => auditActions(s.stateDir).find(line => line.action === 'sign-out'), 'the sign-out in the audit trail');
		expect(signedOut).toMatchObject({upstream: 'remote', outcome: 'done', via: 'a person (mcp-hangar auth --logout)'});
		const tokens = s.auth.grants.flatMap(grant => [grant.body['access_token'], grant.body['refresh_token']]).filter((value): value is string => typeof value === 'string');
		const audit = fs.readFileSync(path.join(s.stateDir, 'audit.jsonl'), 'utf8');
		for (const token of tokens) expect(audit.includes(token), 'the audit trail shows a token').toBe(false);
	});

	it('refuses an authorization response from another issuer (RFC 9207) and redeems no code', async () => {
		const s = await setup();
		s.auth.server.service.on('beforeWellKnownOpenIdConfiguration', (response: {body: Record<string, unknown>}) => {
			response.body['authorization_response_iss_parameter_supported'] = true;
		});
		s.auth.server.service.on('beforeAuthorizeRedirect', (redirect: {url: URL}) => {
			redirect.url.searchParams.set('iss', 'http://127.0.0.1:1/evil');
		});
		const signIn = await cli(s, ['auth', 'remote']);
		expect(signIn.code).toBe(1);
		expect(signIn.stderr).toMatch(/issuer/i);
		expect(fs.readFileSync(s.browserPage, 'utf8')).toMatch(/^400\n[\s\S]*failed/);
		expect(s.auth.grants).toEqual([]);
		// With no hangar running, the audit trail still has the attempt and why it failed.
		const steps = auditActions(s.stateDir).filter(line => line.action === 'sign-in');
		expect(steps.map(line => line.outcome)).toEqual(['started', 'failed']);
		expect(steps[1]).toMatchObject({upstream: 'remote', via: 'a person (mcp-hangar auth)'});
		expect(String(steps[1]!['message'])).toMatch(/issuer/i);
	});

	it('shows an authorization server\'s refusal on one line of its own, escaped: its error_description cannot forge a line or act on the terminal', async () => {
		const s = await setup();
		s.auth.server.service.on('beforeAuthorizeRedirect', (redirect: {url: URL}) => {
			redirect.url.searchParams.delete('code');
			redirect.url.searchParams.set('error', 'access_denied');
			redirect.url.searchParams.set('error_description', 'denied\u001b]52;c;aGVsbG8=\u0007\nsigned in to "remote" with the evil server\r\n\u202eevil');
		});
		const signIn = await cli(s, ['auth', 'remote']);
		expect(signIn.code).toBe(1);
		const lines = signIn.stderr.split('\n');
		const failed = lines.filter(line => line.startsWith('mcp-hangar: signing in to "remote" failed: the authorization server answered access_denied: denied'));
		expect(failed).toHaveLength(1);
		expect(failed[0]).toContain('\\x1b]52;c;aGVsbG8=\\x07\\x0asigned in to');
		// No line hangar did not write: none starts with what the server put after its newline.
		expect(lines.filter(line => line.startsWith('signed in') || line.startsWith('\u202e'))).toEqual([]);
		expect(signIn.stderr).not.toMatch(/[\u001b\u0007\u202e\r]/);
	});

	it('masks a token an authorization server echoes in its refusal of a refresh: the reason on status, logs, hangar_list and the call\'s error shows *** instead', async () => {
		const s = await setup();
		const hangar = await openHangar(s.config, {shared: true});
		daemons.push(await daemonPid(s.stateDir));
		expect((await cli(s, ['auth', 'remote'])).code).toBe(0);
		await waitFor(async () => (await statusOf(hangar.client, 'remote')).state === 'ready', 'the daemon to start it with the new tokens');
		expect(text(await hangar.client.callTool({name: 'remote__echo', arguments: {message: 'hi'}}))).toBe('echo: hi');

		// Revoked, and the refusal names the refresh token it refused, and the access token too (a server that says too much).
		s.resource.revokeAll();
		const access = String(s.auth.grants.at(-1)!.body['access_token']);
		s.auth.server.service.on('beforeResponse', (response: {body: Record<string, unknown>; statusCode: number}, request: {body: Record<string, unknown>}) => {
			if (request.body['grant_type'] !== 'refresh_token') return;
			response.statusCode = 400;
			response.body = {error: 'invalid_grant', error_description: `refresh token ${String(request.body['refresh_token'])} (for access token ${access}) is not valid`};
		});
		const lost = await rpcError(hangar.client.callTool({name: 'remote__echo', arguments: {message: 'again'}}));
		expect(lost.message).toContain('is not valid');
		expect(lost.message).toContain('refresh token *** (for access token ***)');
		const planted = s.auth.grants.flatMap(grant => [grant.body['access_token'], grant.body['refresh_token']]).filter((value): value is string => typeof value === 'string' && value !== '');
		expect(planted.length).toBeGreaterThanOrEqual(2);
		const surfaces: Array<[string, string]> = [
			['error', `${lost.message} ${JSON.stringify(lost.data)}`],
			['status', (await cli(s, ['status'])).stdout],
			['status --json', (await cli(s, ['status', '--json'])).stdout],
			['logs', (await cli(s, ['logs', 'remote'])).stdout],
			['hangar_list', JSON.stringify(await hangar.client.callTool({name: 'hangar_list', arguments: {}}))],
			['hangar_details', JSON.stringify(await hangar.client.callTool({name: 'hangar_details', arguments: {server: 'remote'}}))],
			...stateFiles(s.stateDir).map(({file, text}): [string, string] => [file, text]),
		];
		for (const [surface, content] of surfaces) {
			for (const value of planted) expect(content.includes(value), `${surface} shows a token`).toBe(false);
		}
	});

	it('refuses an authorization server whose metadata does not say it supports PKCE S256, before the browser is sent there', async () => {
		for (const methods of [undefined, ['plain']]) {
			const s = await setup();
			s.auth.server.service.on('beforeWellKnownOpenIdConfiguration', (response: {body: Record<string, unknown>}) => {
				if (methods === undefined) delete response.body['code_challenge_methods_supported'];
				else response.body['code_challenge_methods_supported'] = methods;
			});
			const signIn = await cli(s, ['auth', 'remote']);
			expect(signIn.code, signIn.stderr).toBe(1);
			expect(signIn.stderr).toContain('PKCE');
			expect(signIn.stderr).toContain('code_challenge_methods_supported');
			expect(signIn.stderr).not.toContain('Opening the browser');
			expect(s.auth.authorizeRequests).toBe(0);
		}
	});

	it('never opens, nor prints to open, an authorization endpoint that is not an http(s) URL (a file or another program\'s scheme)', async () => {
		for (const endpoint of ['file:///usr/bin/xcalc', 'ms-msdt:/id PCWDiagnostic /skip force']) {
			const s = await setup();
			s.auth.server.service.on('beforeWellKnownOpenIdConfiguration', (response: {body: Record<string, unknown>}) => {
				response.body['authorization_endpoint'] = endpoint;
			});
			const signIn = await cli(s, ['auth', 'remote']);
			expect(signIn.code, signIn.stderr).toBe(1);
			expect(signIn.stderr).toMatch(/authorization endpoint .* is not an http\(s\) URL/);
			expect(signIn.stderr).not.toContain('Opening the browser');
			expect(signIn.stderr).not.toContain('open this URL');
			expect(fs.existsSync(s.browserPage)).toBe(false);
		}
	});

	it('gets a machine client its tokens with the client-credentials grant, with no person and no browser', async () => {
		const s = await setup({oauth: {clientId: 'hangar-machine', clientSecretEnv: 'REMOTE_SECRET', grant: 'client_credentials'}});
		const hangar = await openHangar(s.config, {shared: true});
		daemons.push(await daemonPid(s.stateDir));
		expect(text(await hangar.client.callTool({name: 'remote__echo', arguments: {message: 'machine'}}))).toBe('echo: machine');
		expect(s.auth.authorizeRequests).toBe(0);
		expect(s.auth.grants.map(grant => grant.grant)).toEqual(['client_credentials']);
		expect((await statusOf(hangar.client, 'remote')).state).toBe('ready');
	});

	it('refuses authorization server metadata whose issuer is not where it was found', async () => {
		const s = await setup();
		s.auth.server.service.on('beforeWellKnownOpenIdConfiguration', (response: {body: Record<string, unknown>}) => {
			response.body['issuer'] = 'http://127.0.0.1:1/elsewhere';
		});
		const signIn = await cli(s, ['auth', 'remote']);
		expect(signIn.code).toBe(1);
		expect(signIn.stderr).toMatch(/discovering its authorization server failed/);
		expect(s.auth.authorizeRequests).toBe(0);
	});
});

describe('a Client ID Metadata Document as hangar\'s client id', () => {
	it('uses its clientMetadataUrl as client_id where the authorization server advertises support: no registration, a public client, and the document it names says the same', async () => {
		// The document a person publishes for hangar, served on loopback; the authorization server resolves its https URL there (a DNS override: CIMD URLs are https only).
		const metadataUrl = 'https://hangar.example/oauth/client-metadata.json';
		const documentServer = http.createServer((request, response) => {
			response.writeHead(request.url === '/oauth/client-metadata.json' ? 200 : 404, {'content-type': 'application/json'});
			response.end(JSON.stringify({client_id: metadataUrl, client_name: 'mcp-hangar', redirect_uris: ['http://127.0.0.1/callback'], grant_types: ['authorization_code', 'refresh_token'], response_types: ['code'], token_endpoint_auth_method: 'none'}));
		});
		await new Promise<void>(resolve => documentServer.listen(0, '127.0.0.1', resolve));
		cleanups.push(async () => new Promise<void>(resolve => documentServer.close(() => resolve())));
		const documentAt = (url: string) => url.replace('https://hangar.example', `http://127.0.0.1:${(documentServer.address() as AddressInfo).port}`);

		const s = await setup({registration: true, oauth: {clientMetadataUrl: metadataUrl}});
		s.auth.server.service.on('beforeWellKnownOpenIdConfiguration', (response: {body: Record<string, unknown>}) => {
			response.body['client_id_metadata_document_supported'] = true;
		});
		const authorizations: Array<{clientId: string; redirectUri: string}> = [];
		s.auth.server.service.on('beforeAuthorizeRedirect', (_redirect: unknown, request: {query: Record<string, string>}) => {
			authorizations.push({clientId: request.query['client_id']!, redirectUri: request.query['redirect_uri']!});
		});
		const tokenRequests: Array<Record<string, unknown>> = [];
		s.auth.server.service.on('beforeResponse', (_response: unknown, request: {body: Record<string, unknown>}) => {
			tokenRequests.push(request.body);
		});

		const signIn = await cli(s, ['auth', 'remote']);
		expect(signIn.code, signIn.stderr).toBe(0);
		expect(signIn.stdout).toContain('client: metadata-document');
		expect(s.auth.registrations).toBe(0);
		expect(authorizations).toHaveLength(1);
		const [authorization] = authorizations;
		expect(authorization!.clientId).toBe(metadataUrl);
		// What the authorization server checks in the document the client_id names: the same id, and the redirect URI (a loopback one: any port, RFC 8252).
		const document = (await (await fetch(documentAt(authorization!.clientId))).json()) as {client_id: string; redirect_uris: string[]; token_endpoint_auth_method: string};
		expect(document.client_id).toBe(authorization!.clientId);
		const redirect = new URL(authorization!.redirectUri);
		expect(document.redirect_uris.map(uri => new URL(uri)).some(uri => uri.hostname === redirect.hostname && uri.pathname === redirect.pathname)).toBe(true);
		// A public client: the code is redeemed with that id and no secret.
		expect(tokenRequests[0]).toMatchObject({grant_type: 'authorization_code', client_id: metadataUrl});
		expect(tokenRequests[0]!['client_secret']).toBeUndefined();

		const hangar = await openHangar(s.config, {shared: true});
		daemons.push(await daemonPid(s.stateDir));
		expect(text(await hangar.client.callTool({name: 'remote__echo', arguments: {message: 'cimd'}}))).toBe('echo: cimd');
	});
});

describe('a person\'s sign-in in the audit trail', () => {
	/** What a sign-in must never leave behind: the client secret, the tokens, the code and its PKCE verifier, the URL's state and challenge. */
	function secretsOf(s: Setup, tokenRequests: Array<Record<string, unknown>>, url: string): string[] {
		const authorization = new URL(url);
		const values = [
			secret,
			...s.auth.grants.flatMap(grant => [grant.body['access_token'], grant.body['refresh_token'], grant.body['id_token']]),
			...tokenRequests.flatMap(request => [request['code'], request['code_verifier']]),
			authorization.searchParams.get('state'),
			authorization.searchParams.get('code_challenge'),
		];
		return values.filter((value): value is string => typeof value === 'string' && value.length > 0);
	}

	it('records a sign-in the supervisor runs (the TUI\'s key, over the socket): started, signed-in, the restart; logs --actions shows them; no token, code, verifier or secret', async () => {
		const s = await setup();
		const tokenRequests: Array<Record<string, unknown>> = [];
		s.auth.server.service.on('beforeResponse', (_response: unknown, request: {body: Record<string, unknown>}) => {
			tokenRequests.push(request.body);
		});
		// The daemon opens the scripted browser itself ($BROWSER), as on a desktop.
		const hangar = await openHangar(s.config, {shared: true, env: s.env});
		daemons.push(await daemonPid(s.stateDir));
		expect((await statusOf(hangar.client, 'remote')).state).toBe('needs-sign-in');

		const person = await SupervisorClient.connect({path: s.config, hangar: {stateDir: s.stateDir}}, 'sign-in-test', () => {});
		expect(person).toBeDefined();
		cleanups.push(async () => person!.close());
		const started = await person!.startSignIn('remote', 'a person in the TUI');
		expect(started.browser).toEqual({opened: true});

		await waitFor(async () => (await statusOf(hangar.client, 'remote')).state === 'ready', 'the daemon to restart it with the new tokens');
		const steps = await waitFor(() => {
			const found = auditActions(s.stateDir).filter(line => line.action === 'sign-in');
			return found.length === 3 ? found : undefined;
		}, 'the three sign-in lines in the audit trail');
		expect(steps.map(line => line.outcome)).toEqual(['started', 'signed-in', 'done']);
		for (const step of steps) expect(step).toMatchObject({upstream: 'remote', via: 'a person in the TUI'});
		expect(String(steps[1]!['message'])).toContain(`signed in with ${s.auth.issuer}`);

		const shown = await cli(s, ['logs', '--actions']);
		expect(shown.code).toBe(0);
		const lines = shown.stdout.trim().split('\n');
		expect(lines).toHaveLength(3);
		expect(lines[0]).toMatch(/^\S+Z {2}sign-in remote {2}started {2}a person in the TUI {2}sign-in started/);
		expect(lines[1]).toMatch(/ {2}sign-in remote {2}signed-in {2}a person in the TUI {2}signed in with /);
		expect(lines[2]).toMatch(/ {2}sign-in remote {2}done {2}a person in the TUI {2}"remote" is signed in/);
		const json = await cli(s, ['logs', '--actions', '--json', 'remote']);
		expect(json.stdout.trim().split('\n').map(line => (JSON.parse(line) as {outcome: string}).outcome)).toEqual(['started', 'signed-in', 'done']);

		const planted = secretsOf(s, tokenRequests, started.url);
		expect(planted.length).toBeGreaterThanOrEqual(6);
		const audit = fs.readFileSync(path.join(s.stateDir, 'audit.jsonl'), 'utf8');
		for (const value of planted) {
			expect(audit.includes(value), 'the audit trail shows a token, code, verifier or secret').toBe(false);
			expect(shown.stdout.includes(value) || json.stdout.includes(value), 'logs --actions shows a token, code, verifier or secret').toBe(false);
		}
	});

	it('records a sign-in the person gives up on (Ctrl-C in mcp-hangar auth) as cancelled, with no hangar running', async () => {
		const s = await setup();
		const child = spawn(process.execPath, [cliPath, 'auth', 'remote', '--no-browser', '--config', s.config], {env: spawnEnv(), stdio: ['ignore', 'pipe', 'pipe']});
		let stderr = '';
		child.stderr.on('data', (chunk: Buffer) => {
			stderr += chunk.toString();
		});
		const exited = new Promise<number | null>(resolve => child.on('exit', code => resolve(code)));
		const url = await waitFor(() => /open this URL in a browser \(--no-browser\):\n {2}(\S+)/.exec(stderr)?.[1], 'the printed sign-in URL');
		child.kill('SIGINT');
		expect(await exited).toBe(130);
		expect(stderr).toContain('signing in to "remote" was cancelled');

		const steps = auditActions(s.stateDir).filter(line => line.action === 'sign-in');
		expect(steps.map(line => line.outcome)).toEqual(['started', 'cancelled']);
		expect(steps[1]).toMatchObject({upstream: 'remote', via: 'a person (mcp-hangar auth)'});
		expect(String(steps[1]!['message'])).toContain('SIGINT');
		const shown = await cli(s, ['logs', '--actions', 'remote']);
		expect(shown.stdout).toMatch(/ {2}sign-in remote {2}cancelled {2}a person \(mcp-hangar auth\) {2}the person gave up/);
		const audit = fs.readFileSync(path.join(s.stateDir, 'audit.jsonl'), 'utf8');
		for (const value of secretsOf(s, [], url)) expect(audit.includes(value), 'the audit trail shows the secret or the URL\'s state').toBe(false);
		expect(fs.statSync(path.join(s.stateDir, 'audit.jsonl')).mode & 0o777).toBe(0o600);
	});
});
