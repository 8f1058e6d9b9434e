/**
 * A person's sign-in to a remote upstream (`mcp-hangar auth NAME`), as the
 * MCP authorization spec orders it:
 *
 * 1. an unauthenticated request: a 401's `WWW-Authenticate` names the
 *    protected resource metadata (RFC 9728), else its `.well-known` URL;
 * 2. the authorization server's metadata (RFC 8414, or OpenID Connect
 *    discovery), its `issuer` checked against where it was found;
 * 3. the client, in the spec's order: pre-registered (`oauth.clientId`, its
 *    secret from a variable), a Client ID Metadata Document
 *    (`oauth.clientMetadataUrl`, where the server advertises support), the
 *    client registered before with this issuer, or dynamic registration
 *    (RFC 7591);
 * 4. the authorization request with PKCE S256, `state` and the `resource`
 *    indicator (RFC 8707), the redirect landing on a loopback listener on
 *    127.0.0.1 (oauth-loopback.ts);
 * 5. the code exchange, after the callback's `iss` is checked (RFC 9207);
 * 6. the tokens, with the issuer and client, into the token store.
 *
 * A sign-in made with another authorization server than the stored one
 * drops the stored client and registers again.
 */
import crypto from 'node:crypto';
import type {RemoteAuth, RemoteLaunch} from '../config/config-schema.js';
import fs from 'node:fs';
import {parseDotenv} from '../config/dotenv.js';
import type {Callback} from './oauth-loopback.js';
import {authorizationUrl, challengeOf, clientCredentials, discover, exchange, refusalText, register, resourceAllowed, type ServerInfo} from './oauth-sdk.js';
import {TokenStore, scopeUnion, storedTokens, type StoredClient, type StoredSignIn} from './oauth-store.js';

/** The pre-registered client's secret, read from its variable when a token request needs it: the environment, then the entry's envFile. */
export function clientSecretOf(auth: RemoteAuth): string | undefined {
	if (auth.clientSecret === undefined) return undefined;
	const {variable, envFile} = auth.clientSecret;
	if (envFile !== undefined) {
		try {
			const value = parseDotenv(fs.readFileSync(envFile, 'utf8'))[variable];
			if (value !== undefined) return value;
		} catch {
			// The config check already reported an unreadable envFile; the environment may still have it.
		}
	}

	return process.env[variable];
}

/** A remote launch with its OAuth settings (read-config always sets them for a usable entry). */
export type OAuthLaunch = RemoteLaunch & {auth: RemoteAuth};

export type SignInOptions = {
	upstream: string;
	launch: OAuthLaunch;
	/** Shows the authorization URL to the person: opens a browser, or prints it. */
	present: (url: URL) => Promise<void> | void;
	/** How long to wait for the browser's redirect. */
	timeoutMs: number;
	now?: () => number;
};

/** How long a person's sign-in waits for the browser to come back. */
export const personSignInTimeoutMs = 5 * 60_000;

export type SignInResult = {issuer: string; client: StoredClient['kind']; scope: string | undefined; expiresAt: number | undefined; registered: boolean};

/** A sign-in that failed, said for a person: what step failed and why (never a token, code or secret). */
export class SignInError extends Error {
	constructor(message: string) {
		super(message);
		this.name = 'SignInError';
	}
}

/**
 * The challenge of unauthenticated requests: where the resource metadata is,
 * what scope it wants; undefined when the server needs no sign-in. Some
 * servers let `initialize` through without a token and ask for one from the
 * next request on: then a `tools/list` in that session is asked too.
 */
async function probe(url: string, headers: Record<string, string>): Promise<{resourceMetadataUrl: URL | undefined; scope: string | undefined} | undefined> {
	const post = async (body: unknown, extra: Record<string, string> = {}) => {
		const response = await fetch(url, {
			method: 'POST',
			headers: {...headers, ...extra, 'content-type': 'application/json', accept: 'application/json, text/event-stream'},
			body: JSON.stringify(body),
		});
		await response.body?.cancel().catch(() => {});
		return response;
	};

	let response = await post({jsonrpc: '2.0', id: 1, method: 'initialize', params: {protocolVersion: '2025-11-25', capabilities: {}, clientInfo: {name: 'mcp-hangar', version: '0'}}});
	if (response.ok) {
		const session = response.headers.get('mcp-session-id');
		const sessionHeaders: Record<string, string> = {'mcp-protocol-version': '2025-11-25', ...(session === null ? {} : {'mcp-session-id': session})};
		response = await post({jsonrpc: '2.0', id: 2, method: 'tools/list', params: {}}, sessionHeaders);
		// The probe's session is not used again: ended, as a client that is done says (a server may not support it).
		if (session !== null) await fetch(url, {method: 'DELETE', headers: {...headers, ...sessionHeaders}}).then(async done => done.body?.cancel(), () => {});
	}

	if (response.status !== 401 && response.status !== 403) return undefined;
	const challenge = await challengeOf(response);
	return {resourceMetadataUrl: challenge.resourceMetadataUrl, scope: challenge.scope};
}

/** The RFC 8707 resource indicator: the protected resource metadata's `resource` (when it may stand for this URL), else the URL itself. */
async function resourceOf(url: string, info: ServerInfo): Promise<string> {
	const resource = info.resourceMetadata?.resource;
	if (resource === undefined) return url;
	if (!(await resourceAllowed(url, resource))) throw new SignInError(`its protected resource metadata names the resource ${resource}, which is not ${url}: refused (a server may only ask for tokens for itself)`);
	return resource;
}

/**
 * PKCE S256 is how the code is protected, and the metadata is the only way
 * to know the server checks it: the MCP authorization spec has a client
 * refuse to go on when `code_challenge_methods_supported` is absent (for
 * RFC 8414 and OpenID Connect metadata alike) or lacks S256.
 */
function requirePkce(info: ServerInfo): void {
	const methods = info.metadata.code_challenge_methods_supported;
	if (methods?.includes('S256') === true) return;
	const said = methods === undefined ? 'does not list code_challenge_methods_supported' : `lists code_challenge_methods_supported ${JSON.stringify(methods)}, without S256`;
	throw new SignInError(`the metadata of its authorization server ${info.metadata.issuer} ${said}, so it may not check PKCE (S256), which protects the code on its way back: refused, as the MCP authorization spec asks. Ask its operator to support PKCE with S256`);
}

/** The client to sign in as, in the spec's order. */
async function clientFor(
	auth: RemoteAuth,
	info: ServerInfo,
	stored: StoredSignIn | undefined,
	redirectUri: string,
	scope: string | undefined,
): Promise<{client: StoredClient; registered: boolean}> {
	if (auth.clientId !== undefined) {
		if (auth.clientSecret !== undefined && clientSecretOf(auth) === undefined) {
			throw new SignInError(`its client secret variable ${auth.clientSecret.variable} is not set (in the environment or the entry's envFile)`);
		}

		return {client: {kind: 'pre-registered', client_id: auth.clientId}, registered: false};
	}

	const metadata = info.metadata as Record<string, unknown>;
	if (auth.clientMetadataUrl !== undefined && metadata['client_id_metadata_document_supported'] === true) {
		return {client: {kind: 'metadata-document', client_id: auth.clientMetadataUrl, token_endpoint_auth_method: 'none'}, registered: false};
	}

	if (stored !== undefined && stored.issuer === info.metadata.issuer && stored.client.kind === 'dynamic' && stored.client.redirect_uri === redirectUri) {
		return {client: stored.client, registered: false};
	}

	if (info.metadata.registration_endpoint === undefined) {
		const cimd = metadata['client_id_metadata_document_supported'] === true ? ' or "oauth": {"clientMetadataUrl": ...} (it accepts Client ID Metadata Documents)' : '';
		throw new SignInError(`its authorization server ${info.metadata.issuer} offers no dynamic client registration: register hangar with it and set "oauth": {"clientId": ...}${cimd} in the entry`);
	}

	const registered = await register(info, redirectUri, scope);
	return {
		client: {
			kind: 'dynamic',
			client_id: registered.client_id,
			client_secret: registered.client_secret,
			token_endpoint_auth_method: typeof registered['token_endpoint_auth_method'] === 'string' ? registered['token_endpoint_auth_method'] : undefined,
			redirect_uri: redirectUri,
		},
		registered: true,
	};
}

/** The port of a dynamically registered client's redirect URI, so its registration can be used again. */
function registeredPort(stored: StoredSignIn | undefined): number {
	const uri = stored?.client.kind === 'dynamic' ? stored.client.redirect_uri : undefined;
	if (uri === undefined) return 0;
	const port = Number(new URL(uri).port);
	return Number.isInteger(port) && port > 0 ? port : 0;
}

/** Runs the whole sign-in; the tokens land in the token store. */
export async function signIn(options: SignInOptions): Promise<SignInResult> {
	const {upstream, launch} = options;
	const now = options.now ?? Date.now;
	const store = new TokenStore(launch.auth.store);
	const challenge = await probe(launch.url, launch.headers).catch((error: unknown) => {
		throw new SignInError(`cannot reach ${new URL(launch.url).origin} (${(error as Error).message})`);
	});
	if (challenge === undefined) throw new SignInError(`${new URL(launch.url).origin} answered without asking for sign-in: it needs none`);

	let info: ServerInfo;
	try {
		info = await discover(launch.url, challenge.resourceMetadataUrl);
	} catch (error) {
		throw new SignInError(`discovering its authorization server failed: ${(error as Error).message}`);
	}

	requirePkce(info);
	const resource = await resourceOf(launch.url, info);
	let stored = store.get(upstream);
	if (stored !== undefined && stored.issuer !== info.metadata.issuer) stored = undefined; // Another authorization server: nothing of the old one applies.
	// A step-up asks for what was asked before and what the upstream challenged for since.
	const scope = scopeUnion(launch.auth.scope ?? challenge.scope ?? info.resourceMetadata?.scopes_supported?.join(' '), stored?.stepUpScope);

	// Loaded for a person's sign-in only: node:http is about 8 MiB of RSS every supervisor would hold (oauth-bearer imports this module).
	const {LoopbackListener} = await import('./oauth-loopback.js');
	const listener = await LoopbackListener.open(registeredPort(stored));
	try {
		const {client, registered} = await clientFor(launch.auth, info, stored, listener.redirectUri, scope);
		const state = crypto.randomBytes(24).toString('base64url');
		const secret = client.kind === 'pre-registered' ? clientSecretOf(launch.auth) : client.client_secret;
		const credentials = {client_id: client.client_id, ...(secret === undefined ? {} : {client_secret: secret}), ...(client.token_endpoint_auth_method === undefined ? {} : {token_endpoint_auth_method: client.token_endpoint_auth_method})};
		const {url, codeVerifier} = await authorizationUrl(info, credentials, {redirectUri: listener.redirectUri, scope, state, resource});
		// A browser opener hands any other scheme to the program that claims it (a file: URL runs a program on some systems).
		if (url.protocol !== 'https:' && url.protocol !== 'http:') {
			throw new SignInError(`the authorization endpoint of ${info.metadata.issuer} (${JSON.stringify(info.metadata.authorization_endpoint)}) is not an http(s) URL: refused, and nothing was opened. Ask its operator to fix its metadata`);
		}

		// Registered before the browser is sent there: a failed sign-in later still keeps the registration for the next try.
		if (registered) {
			store.update(upstream, () => ({url: launch.url, resource, issuer: info.metadata.issuer, authorizationServerUrl: info.authorizationServerUrl, metadata: info.metadata, client, tokens: undefined, stepUpScope: stored?.stepUpScope}));
		}

		await options.present(url);
		const callback: Callback = await listener.wait(state, options.timeoutMs);
		try {
			const tokens = await exchange(info, credentials, {code: callback.code, iss: callback.iss, codeVerifier, redirectUri: listener.redirectUri, resource});
			const at = now();
			store.update(upstream, () => ({
				url: launch.url,
				resource,
				issuer: info.metadata.issuer,
				authorizationServerUrl: info.authorizationServerUrl,
				metadata: info.metadata,
				client,
				tokens: storedTokens(tokens, at),
				requestedScope: scope,
			}));
			const saved = storedTokens(tokens, at);
			listener.finish(true, `Signed in to ${upstream}. mcp-hangar has the tokens; you can close this window.`);
			return {issuer: info.metadata.issuer, client: client.kind, scope: saved.scope ?? scope, expiresAt: saved.expiresAt, registered};
		} catch (error) {
			// The code, its verifier and the secret stay out of it, should the server echo them.
			const message = refusalText(error, [callback.code, codeVerifier, secret]);
			listener.finish(false, `Signing in to ${upstream} failed: ${message}. You can close this window; see the terminal.`);
			throw new SignInError(`the authorization server's answer was refused: ${message}`);
		}
	} finally {
		await listener.close();
	}
}

/** Forgets an upstream's tokens and client registration; whether there were any. */
export function signOut(upstream: string, launch: OAuthLaunch): boolean {
	return new TokenStore(launch.auth.store).forget(upstream);
}

/**
 * The client-credentials grant of a machine client (`"grant":
 * "client_credentials"`): the same discovery, then a token for the client
 * itself, stored like a person's sign-in. Run by the supervisor when it has
 * no token or the token expired.
 */
export async function signInAsMachine(upstream: string, url: string, auth: RemoteAuth, headers: Record<string, string>, options: {stepUpScope?: string | undefined; now?: () => number} = {}): Promise<StoredSignIn> {
	const now = options.now ?? Date.now;
	const challenge = await probe(url, headers);
	const info = await discover(url, challenge?.resourceMetadataUrl);
	const resource = await resourceOf(url, info);
	const secret = clientSecretOf(auth);
	if (auth.clientId === undefined || secret === undefined) throw new SignInError(`its client secret variable ${auth.clientSecret?.variable ?? '(none)'} is not set`);
	const scope = scopeUnion(auth.scope ?? challenge?.scope ?? info.resourceMetadata?.scopes_supported?.join(' '), options.stepUpScope);
	const tokens = await clientCredentials(info, {client_id: auth.clientId, client_secret: secret}, {scope, resource}).catch((error: unknown) => {
		throw new SignInError(`the authorization server refused the client-credentials grant: ${refusalText(error, [secret])}`);
	});
	const signIn: StoredSignIn = {
		url,
		resource,
		issuer: info.metadata.issuer,
		authorizationServerUrl: info.authorizationServerUrl,
		metadata: info.metadata,
		client: {kind: 'pre-registered', client_id: auth.clientId},
		tokens: storedTokens(tokens, now()),
		requestedScope: scope,
	};
	new TokenStore(auth.store).update(upstream, () => signIn);
	return signIn;
}
