/**
 * The MCP SDK's OAuth client pieces hangar uses, and the only module that
 * imports them: discovery (RFC 9728 protected resource metadata from the
 * `WWW-Authenticate` challenge or the `.well-known` fallback, then RFC 8414 /
 * OpenID Connect authorization server metadata with the issuer echo check),
 * dynamic client registration (RFC 7591), the PKCE S256 authorization URL,
 * the code exchange with the RFC 9207 `iss` check, and refresh.
 *
 * Everything else (which client to use, where tokens live, when to refresh,
 * the loopback redirect, what a person sees) is hangar's own: see
 * oauth-sign-in.ts, oauth-bearer.ts and oauth-store.ts. The SDK is loaded
 * only when an upstream asks for OAuth.
 */
import {errorMessage} from '../base/errors.js';
import {maskSecrets} from '../base/secret-mask.js';
import type {AuthorizationServerMetadata, OAuthClientInformationMixed, OAuthProtectedResourceMetadata, OAuthTokens} from '@modelcontextprotocol/client';

export type {AuthorizationServerMetadata, OAuthProtectedResourceMetadata, OAuthTokens};

/** The client a token request authenticates as: its id, and its secret when it has one (never shown anywhere). */
export type ClientCredentials = {client_id: string; client_secret?: string | undefined; token_endpoint_auth_method?: string | undefined};

const sdk = async () => import('@modelcontextprotocol/client');

/** The most of an authorization server's refusal a reason keeps: an error page can be long, and the reason is shown on a line. */
const refusalChars = 500;

/**
 * An authorization server's refusal (its `error_description`, or the raw
 * body the SDK quotes when the answer is not an OAuth error) as a reason a
 * person reads: every token, code, verifier or secret of the exchange it
 * echoed replaced by ***, cut to `refusalChars`. A server that names the
 * refresh token it refused must not put it on status, logs or errors.
 */
export function refusalText(error: unknown, exchanged: ReadonlyArray<string | undefined>): string {
	const text = maskSecrets(errorMessage(error), exchanged.filter((value): value is string => value !== undefined && value !== '')) as string;
	return text.length > refusalChars ? `${text.slice(0, refusalChars)}… (${text.length} characters)` : text;
}

/** The parameters of a 401's or 403's `WWW-Authenticate` challenge. */
export async function challengeOf(response: Response): Promise<{resourceMetadataUrl?: URL; scope?: string; error?: string; errorDescription?: string}> {
	return (await sdk()).extractWWWAuthenticateParams(response);
}

export type ServerInfo = {
	/** The authorization server's URL (from the protected resource metadata, or the MCP server's own origin). */
	authorizationServerUrl: string;
	metadata: AuthorizationServerMetadata;
	resourceMetadata: OAuthProtectedResourceMetadata | undefined;
};

/** Protected resource metadata, then the authorization server's metadata (its `issuer` checked against where it was found). */
export async function discover(serverUrl: string, resourceMetadataUrl: URL | undefined): Promise<ServerInfo> {
	const info = await (await sdk()).discoverOAuthServerInfo(serverUrl, resourceMetadataUrl === undefined ? {} : {resourceMetadataUrl});
	if (info.authorizationServerMetadata === undefined) {
		throw new Error(`the authorization server ${info.authorizationServerUrl} publishes no metadata (neither /.well-known/oauth-authorization-server nor /.well-known/openid-configuration)`);
	}

	return {authorizationServerUrl: String(info.authorizationServerUrl), metadata: info.authorizationServerMetadata, resourceMetadata: info.resourceMetadata};
}

/** Dynamic client registration (RFC 7591) of hangar as a public client with one loopback redirect URI. */
export async function register(info: ServerInfo, redirectUri: string, scope: string | undefined): Promise<ClientCredentials & Record<string, unknown>> {
	const registered = await (await sdk()).registerClient(info.authorizationServerUrl, {
		metadata: info.metadata,
		clientMetadata: {
			client_name: 'mcp-hangar',
			redirect_uris: [redirectUri],
			grant_types: ['authorization_code', 'refresh_token'],
			response_types: ['code'],
			token_endpoint_auth_method: 'none',
			...(scope === undefined ? {} : {scope}),
		},
		...(scope === undefined ? {} : {scope}),
	});
	return registered as ClientCredentials & Record<string, unknown>;
}

/** The authorization URL (PKCE S256, `state`, `resource`) and the code verifier to redeem its code with. */
export async function authorizationUrl(
	info: ServerInfo,
	client: ClientCredentials,
	options: {redirectUri: string; scope: string | undefined; state: string; resource: string},
): Promise<{url: URL; codeVerifier: string}> {
	const {authorizationUrl: url, codeVerifier} = await (await sdk()).startAuthorization(info.authorizationServerUrl, {
		metadata: info.metadata,
		clientInformation: client as OAuthClientInformationMixed,
		redirectUrl: options.redirectUri,
		state: options.state,
		resource: options.resource,
		...(options.scope === undefined ? {} : {scope: options.scope}),
	});
	return {url, codeVerifier};
}

/** Redeems an authorization code; the callback's `iss` is checked against the metadata's issuer first (RFC 9207). */
export async function exchange(
	info: {authorizationServerUrl: string; metadata: AuthorizationServerMetadata},
	client: ClientCredentials,
	options: {code: string; iss: string | undefined; codeVerifier: string; redirectUri: string; resource: string},
): Promise<OAuthTokens> {
	return (await sdk()).exchangeAuthorization(info.authorizationServerUrl, {
		metadata: info.metadata,
		clientInformation: client as OAuthClientInformationMixed,
		authorizationCode: options.code,
		iss: options.iss,
		codeVerifier: options.codeVerifier,
		redirectUri: options.redirectUri,
		resource: options.resource,
	});
}

/** A new access token for a refresh token. */
export async function refresh(
	info: {authorizationServerUrl: string; metadata: AuthorizationServerMetadata},
	client: ClientCredentials,
	options: {refreshToken: string; resource: string},
): Promise<OAuthTokens> {
	return (await sdk()).refreshAuthorization(info.authorizationServerUrl, {
		metadata: info.metadata,
		clientInformation: client as OAuthClientInformationMixed,
		refreshToken: options.refreshToken,
		resource: options.resource,
	});
}

/** Whether `resource` (from protected resource metadata) may stand for the MCP server at `serverUrl` (same origin, path a prefix). */
export async function resourceAllowed(serverUrl: string, resource: string): Promise<boolean> {
	return (await sdk()).checkResourceAllowed({requestedResource: serverUrl, configuredResource: resource});
}

/** A token for the client itself (the client-credentials grant): no person, no refresh token. */
export async function clientCredentials(
	info: {authorizationServerUrl: string; metadata: AuthorizationServerMetadata},
	client: ClientCredentials,
	options: {scope: string | undefined; resource: string},
): Promise<OAuthTokens> {
	// fetchToken asks a provider for the grant's parameters and the client: these are the only parts it reads for this grant.
	const provider = {
		clientMetadata: {redirect_uris: []},
		clientInformation: () => client,
		prepareTokenRequest: (scope?: string) => new URLSearchParams({grant_type: 'client_credentials', ...(scope === undefined ? {} : {scope})}),
	};
	return (await sdk()).fetchToken(provider as never, info.authorizationServerUrl, {metadata: info.metadata, resource: options.resource, ...(options.scope === undefined ? {} : {scope: options.scope})});
}
