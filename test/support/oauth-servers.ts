/**
 * A real authorization server and a protected MCP server on loopback, for
 * the OAuth tests: oauth2-mock-server (RFC 8414/OIDC discovery, PKCE, JWT
 * access tokens, refresh) with a dynamic registration route added, and a
 * small SDK MCP server behind a bearer check that verifies each token's
 * signature against the authorization server's keys, its issuer and expiry.
 */
import crypto from 'node:crypto';
import fs from 'node:fs';
import http from 'node:http';
import type {AddressInfo} from 'node:net';
import path from 'node:path';
import process from 'node:process';
import {McpServer} from '@modelcontextprotocol/sdk/server/mcp.js';
import {StreamableHTTPServerTransport} from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import {OAuth2Server} from 'oauth2-mock-server';
import {z} from 'zod';

export type TokenGrant = {grant: string; body: Record<string, unknown>};

export type AuthServer = {
	server: OAuth2Server;
	issuer: string;
	/** Every token response it sent (to find tokens on surfaces). */
	grants: TokenGrant[];
	authorizeRequests: number;
	registrations: number;
	close: () => Promise<void>;
};

export async function startAuthServer(options: {registration?: boolean} = {}): Promise<AuthServer> {
	const server = new OAuth2Server();
	await server.issuer.keys.generate('RS256');
	await server.start(0, '127.0.0.1');
	const issuer = server.issuer.url!;
	const result: AuthServer = {server, issuer, grants: [], authorizeRequests: 0, registrations: 0, close: async () => server.stop()};
	// Each token unique, as a real server's (a jti): the mock signs the same claims to the same bytes, so a refresh within the
	// second of the sign-in gave back the very token the protected server had just been told to refuse.
	server.issuer.on('beforeSigning', (token: {payload: Record<string, unknown>}) => {
		token.payload['jti'] = crypto.randomUUID();
	});
	server.service.on('beforeResponse', (response: {body: Record<string, unknown>}, request: {body: Record<string, unknown>}) => {
		result.grants.push({grant: String(request.body['grant_type']), body: response.body});
	});
	server.service.on('beforeAuthorizeRedirect', () => {
		result.authorizeRequests += 1;
	});
	if (options.registration === true) {
		server.service.on('beforeWellKnownOpenIdConfiguration', (response: {body: Record<string, unknown>}) => {
			response.body['registration_endpoint'] = `${issuer}/register`;
		});
		const register = (request: http.IncomingMessage & {body: Record<string, unknown>}, response: http.ServerResponse) => {
			result.registrations += 1;
			response.writeHead(201, {'content-type': 'application/json'});
			response.end(JSON.stringify({...request.body, client_id: `registered-${result.registrations}`, client_id_issued_at: Math.floor(Date.now() / 1000)}));
		};
		server.service.addRoute('POST', '/register', register as never);
	}

	return result;
}

export type ProtectedServer = {
	url: string;
	/** Refuse every token from now on (a revocation at the resource). */
	revokeAll: () => void;
	/** Authorization headers it saw, for the no-passthrough check. */
	seenTokens: string[];
	close: () => Promise<void>;
};

function verifyJwt(token: string, keys: Array<Record<string, unknown>>, issuer: string): boolean {
	const [header, payload, signature] = token.split('.');
	if (header === undefined || payload === undefined || signature === undefined) return false;
	const {kid} = JSON.parse(Buffer.from(header, 'base64url').toString()) as {kid?: string};
	const jwk = keys.find(key => key['kid'] === kid);
	if (jwk === undefined) return false;
	const key = crypto.createPublicKey({key: jwk as crypto.JsonWebKey, format: 'jwk'});
	if (!crypto.verify('RSA-SHA256', Buffer.from(`${header}.${payload}`), key, Buffer.from(signature, 'base64url'))) return false;
	const claims = JSON.parse(Buffer.from(payload, 'base64url').toString()) as {iss?: string; exp?: number};
	return claims.iss === issuer && typeof claims.exp === 'number' && claims.exp * 1000 > Date.now();
}

export async function startProtectedServer(auth: AuthServer): Promise<ProtectedServer> {
	let revokedBefore = 0;
	const seenTokens: string[] = [];
	const accepted = new Map<string, number>();
	const server = http.createServer(async (request, response) => {
		const {port} = server.address() as AddressInfo;
		const base = `http://127.0.0.1:${port}`;
		if (request.url === '/.well-known/oauth-protected-resource/mcp') {
			response.writeHead(200, {'content-type': 'application/json'});
			response.end(JSON.stringify({resource: `${base}/mcp`, authorization_servers: [auth.issuer], scopes_supported: ['mcp']}));
			return;
		}

		const authorization = request.headers.authorization ?? '';
		const token = authorization.startsWith('Bearer ') ? authorization.slice(7) : '';
		if (token !== '') seenTokens.push(token);
		const keys = (auth.server.issuer.keys.toJSON() as Array<Record<string, unknown>>);
		const firstSeen = accepted.get(token) ?? Date.now();
		if (token === '' || !verifyJwt(token, keys, auth.issuer) || firstSeen < revokedBefore) {
			response.writeHead(401, {'www-authenticate': `Bearer error="invalid_token", resource_metadata="${base}/.well-known/oauth-protected-resource/mcp", scope="mcp"`});
			response.end();
			return;
		}

		accepted.set(token, firstSeen);
		const mcp = new McpServer({name: 'protected', version: '1.0.0'});
		mcp.registerTool('echo', {description: 'Echoes its message', inputSchema: {message: z.string()}}, async ({message}) => ({content: [{type: 'text', text: `echo: ${message}`}]}));
		const transport = new StreamableHTTPServerTransport({sessionIdGenerator: undefined, enableJsonResponse: true});
		await mcp.connect(transport);
		response.on('close', () => {
			void transport.close();
			void mcp.close();
		});
		await transport.handleRequest(request, response);
	});
	await new Promise<void>(resolve => server.listen(0, '127.0.0.1', resolve));
	const {port} = server.address() as AddressInfo;
	return {
		url: `http://127.0.0.1:${port}/mcp`,
		revokeAll: () => {
			revokedBefore = Date.now() + 1;
		},
		seenTokens,
		close: async () =>
			new Promise<void>(resolve => {
				server.close(() => resolve());
				server.closeAllConnections();
			}),
	};
}

/** A revocation: the protected server refuses every token it has seen, and the authorization server every refresh. */
export function revokeEverything(auth: AuthServer, resource: ProtectedServer): void {
	resource.revokeAll();
	auth.server.service.on('beforeResponse', (response: {body: Record<string, unknown>; statusCode: number}, request: {body: Record<string, unknown>}) => {
		if (request.body['grant_type'] !== 'refresh_token') return;
		response.statusCode = 400;
		response.body = {error: 'invalid_grant', error_description: 'the refresh token was revoked'};
	});
}

/**
 * A scripted browser for $BROWSER: fetches the URL it is given following
 * the redirects (the authorization server's, then hangar's loopback
 * listener), as a browser whose person clicks "allow" would, and keeps the
 * status and the page it ends on in `page`.
 */
export function scriptedBrowser(dir: string): {browser: string; page: string} {
	const page = path.join(dir, 'browser-page.html');
	const browser = path.join(dir, 'browser.mjs');
	fs.writeFileSync(
		browser,
		`#!${process.execPath}\nimport fs from 'node:fs';\nconst response = await fetch(process.argv[2], {redirect: 'follow'});\nconst page = await response.text();\nfs.writeFileSync(${JSON.stringify(page)}, response.status + '\\n' + page);\n`,
	);
	fs.chmodSync(browser, 0o755);
	return {browser, page};
}

/**
 * Refresh tokens that are good once (rotation, as OAuth 2.1 asks of public
 * clients): a refresh with one already redeemed is refused `invalid_grant`.
 * Returns the refresh tokens redeemed, in order (refused ones included).
 */
export function rotateRefreshTokens(auth: AuthServer): string[] {
	const redeemed: string[] = [];
	auth.server.service.on('beforeResponse', (response: {body: Record<string, unknown>; statusCode: number}, request: {body: Record<string, unknown>}) => {
		if (request.body['grant_type'] !== 'refresh_token') return;
		const token = String(request.body['refresh_token']);
		const used = redeemed.includes(token);
		redeemed.push(token);
		if (!used) return;
		response.statusCode = 400;
		response.body = {error: 'invalid_grant', error_description: 'the refresh token was already used'};
	});
	return redeemed;
}

/**
 * A token endpoint that answers after `delayMs`, as a distant authorization
 * server does: its metadata names a loopback proxy that waits, then forwards
 * to the real one. Install before the sign-in (the metadata is stored with it).
 */
export async function slowTokenEndpoint(auth: AuthServer, delayMs: number): Promise<() => Promise<void>> {
	const proxy = http.createServer((request, response) => {
		const chunks: Buffer[] = [];
		request.on('data', (chunk: Buffer) => chunks.push(chunk));
		request.on('end', () => {
			setTimeout(() => {
				void (async () => {
					const forwarded = await fetch(`${auth.issuer}/token`, {method: 'POST', headers: {'content-type': request.headers['content-type'] ?? 'application/x-www-form-urlencoded', ...(request.headers.authorization === undefined ? {} : {authorization: request.headers.authorization})}, body: Buffer.concat(chunks)});
					response.writeHead(forwarded.status, {'content-type': forwarded.headers.get('content-type') ?? 'application/json'});
					response.end(await forwarded.text());
				})();
			}, delayMs);
		});
	});
	await new Promise<void>(resolve => proxy.listen(0, '127.0.0.1', resolve));
	const endpoint = `http://127.0.0.1:${(proxy.address() as AddressInfo).port}/token`;
	auth.server.service.on('beforeWellKnownOpenIdConfiguration', (response: {body: Record<string, unknown>}) => {
		response.body['token_endpoint'] = endpoint;
	});
	return async () =>
		new Promise<void>(resolve => {
			proxy.close(() => resolve());
			proxy.closeAllConnections();
		});
}
