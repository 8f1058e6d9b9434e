/**
 * The access token on every HTTP request to a remote upstream that signed
 * in with OAuth: a `fetch` wrapper given to its transport. Before each
 * request the token's expiry is compared with the wall clock (so a machine
 * that slept past it refreshes on its first request after waking), and a
 * token within a minute of expiring is refreshed first. A 401 gets one
 * refresh and one retry. When the server wants a scope the token lacks
 * (403 `insufficient_scope`), hangar steps up: it authorizes again with the
 * union of the scopes (by itself for a machine client; through a person's
 * next sign-in otherwise). When there is no sign-in, or the refresh is
 * refused, or a person must consent to more scope, the upstream needs a
 * person to sign in (`mcp-hangar auth NAME`): the request fails with
 * `SignInNeeded` and the engine is told (`onSignInNeeded`).
 *
 * The token is hangar's own, from its own sign-in: a client's token never
 * reaches an upstream (the spec forbids token passthrough), since the
 * transport's headers come only from the config and this wrapper.
 */
import {errorMessage} from '../base/errors.js';
import type {RemoteAuth, RemoteLaunch, StdioLaunch} from '../config/config-schema.js';
import {challengeOf, refresh, refusalText, type ClientCredentials} from './oauth-sdk.js';
import {TokenStore, scopeUnion, storedTokens, type StoredSignIn} from './oauth-store.js';
import {clientSecretOf, signInAsMachine} from './oauth-sign-in.js';
import type {LogBuffer} from './log-buffer.js';

/** How long before its expiry a token is refreshed: clocks differ, and a request takes time to arrive. */
export const refreshSkewMs = 60_000;

/** The request failed because the upstream needs a person to sign in; `reason` says why (never a token). */
export class SignInNeeded extends Error {
	constructor(
		readonly upstream: string,
		readonly reason: string,
	) {
		super(`upstream "${upstream}" needs sign-in: ${reason}`);
		this.name = 'SignInNeeded';
	}
}

/** The first SignInNeeded in an error's chain (the SDK's transports wrap what fetch threw). */
export function signInNeededIn(error: unknown): SignInNeeded | undefined {
	let current: unknown = error;
	for (let depth = 0; current !== undefined && current !== null && depth < 5; depth++) {
		if (current instanceof SignInNeeded) return current;
		current = (current as {cause?: unknown}).cause;
	}

	return undefined;
}

/** The credentials a token request of this sign-in authenticates with. */
export function credentialsOf(signIn: StoredSignIn, auth: RemoteAuth): ClientCredentials {
	const secret = signIn.client.kind === 'pre-registered' ? clientSecretOf(auth) : signIn.client.client_secret;
	return {
		client_id: signIn.client.client_id,
		...(secret === undefined ? {} : {client_secret: secret}),
		...(signIn.client.token_endpoint_auth_method === undefined ? {} : {token_endpoint_auth_method: signIn.client.token_endpoint_auth_method}),
	};
}

/** Whether a stored sign-in has tokens for this URL and has not been lost. */
export function usableSignIn(signIn: StoredSignIn | undefined, url: string): signIn is StoredSignIn & {tokens: NonNullable<StoredSignIn['tokens']>} {
	return signIn !== undefined && signIn.url === url && signIn.tokens !== undefined && signIn.lost === undefined;
}

/** Whether the token store holds a working sign-in for a remote upstream (one lost is marked so, its tokens dropped): what a call in needs-sign-in checks. */
export function hasWorkingSignIn(upstream: string, launch: StdioLaunch | RemoteLaunch): boolean {
	if (launch.kind !== 'remote' || launch.auth === undefined) return false;
	try {
		return usableSignIn(new TokenStore(launch.auth.store).get(upstream), launch.url);
	} catch {
		return false;
	}
}

/** The refreshes running in this process, by token store file and upstream (see `refreshNow`). */
const refreshesInFlight = new Map<string, Promise<string>>();

export class OAuthBearer {
	private readonly store: TokenStore;
	/** The last sign-in this wrapper found needed: what a failed connect was about, however the transport wrapped the error. */
	lastNeeded: SignInNeeded | undefined;

	constructor(
		private readonly upstream: string,
		private readonly url: string,
		private readonly auth: RemoteAuth,
		private readonly log: LogBuffer,
		private readonly onSignInNeeded: (reason: string) => void,
		private readonly launchHeaders: Record<string, string> = {},
		private readonly now: () => number = Date.now,
	) {
		this.store = new TokenStore(auth.store);
	}

	wrap(inner: typeof fetch): typeof fetch {
		return async (input, init) => {
			let signIn = this.stored();
			if (!usableSignIn(signIn, this.url) && this.auth.grant === 'client_credentials') {
				signIn = await this.machineToken('it has no token yet');
			}

			if (!usableSignIn(signIn, this.url)) {
				const response = await inner(input, init);
				if (response.status === 401) {
					const why = signIn?.lost?.reason ?? (signIn === undefined || signIn.url === this.url ? 'it answered 401 and hangar has no sign-in for it' : 'its sign-in was made for another URL');
					throw this.needed(why, undefined);
				}

				return response;
			}

			let token = await this.fresh(signIn);
			let response = await inner(input, withBearer(init, token));
			if (response.status === 401) {
				const challenge = await challengeOf(response);
				this.log.push('hangar', `the upstream refused its access token (401${challenge.error === undefined ? '' : ` ${challenge.error}`}): refreshing it`);
				token = await this.refreshNow(token, 'the upstream refused its access token');
				response = await inner(input, withBearer(init, token));
				if (response.status === 401) throw this.needed('the upstream refused a freshly refreshed access token', {token});
			}

			if (response.status === 403) {
				const challenge = await challengeOf(response);
				if (challenge.error === 'insufficient_scope') return this.stepUp(challenge.scope, input, init, inner);
			}

			return response;
		};
	}

	/**
	 * A 403 `insufficient_scope`: authorize again with the union of the scope
	 * asked for before and the one challenged for. A machine client does so
	 * itself, once per request (a server that keeps refusing is not asked
	 * again and again); a person's consent is needed otherwise, so the
	 * upstream needs sign-in, the reason naming the scopes, and the next
	 * `mcp-hangar auth` asks for the union.
	 */
	private async stepUp(challenged: string | undefined, input: Parameters<typeof fetch>[0], init: RequestInit | undefined, inner: typeof fetch): Promise<Response> {
		const current = this.stored();
		const wanted = scopeUnion(current?.tokens?.scope ?? current?.requestedScope, challenged);
		const asked = `the upstream asks for scope "${challenged ?? '(not named)'}", which its token was not granted`;
		if (this.auth.grant === 'client_credentials') {
			this.log.push('hangar', `${asked}: asking for "${wanted ?? ''}" with the client-credentials grant`);
			const signIn = await this.machineToken(asked, wanted);
			const response = await inner(input, withBearer(init, signIn.tokens!.access_token));
			if (response.status !== 403) return response;
			const again = await challengeOf(response);
			if (again.error !== 'insufficient_scope') return response;
			throw this.needed(`${asked}, and a token for "${wanted ?? ''}" was refused too: check the client's scopes with its authorization server`, {token: signIn.tokens?.access_token});
		}

		this.change(stored => (stored === undefined ? undefined : {...stored, stepUpScope: wanted}));
		throw this.needed(`${asked}: sign in again to grant "${wanted ?? ''}"`, {token: current?.tokens?.access_token});
	}

	/** The access token, refreshed first when it is expired or about to be by the wall clock now. */
	private async fresh(signIn: StoredSignIn & {tokens: NonNullable<StoredSignIn['tokens']>}): Promise<string> {
		const {expiresAt} = signIn.tokens;
		if (!this.expiring(signIn.tokens)) return signIn.tokens.access_token;
		return this.refreshNow(signIn.tokens.access_token, expiresAt! <= this.now() ? 'its access token expired' : 'its access token expires within a minute');
	}

	/** Whether a token is expired or expires within `refreshSkewMs` by the wall clock now. */
	private expiring(tokens: NonNullable<StoredSignIn['tokens']>): boolean {
		return tokens.expiresAt !== undefined && tokens.expiresAt - this.now() <= refreshSkewMs;
	}

	/**
	 * A new access token for the one a request used (`used`): one refresh at a
	 * time per upstream in this process, whichever of its connections asks
	 * (a per-client server's instances, an era twin each have their own), the
	 * others waiting for it. A refresh token is often good once (rotation),
	 * so a second refresh with it would be refused and lose the sign-in.
	 */
	private async refreshNow(used: string, why: string): Promise<string> {
		const key = `${this.store.file}\n${this.upstream}`;
		let running = refreshesInFlight.get(key);
		const mine = running === undefined;
		if (running === undefined) {
			running = this.runRefresh(used, why).finally(() => refreshesInFlight.delete(key));
			refreshesInFlight.set(key, running);
		}

		try {
			return await running;
		} catch (error) {
			// The connection that ran the refresh told its engine; each one that waited for it tells its own.
			const needed = signInNeededIn(error);
			if (!mine && needed !== undefined) throw this.needed(needed.reason, undefined);
			throw error;
		}
	}

	/** A machine client's token (client-credentials grant), stored like a person's sign-in; a refusal needs a person to fix the client. */
	private async machineToken(why: string, stepUpScope?: string): Promise<StoredSignIn> {
		try {
			const signIn = await signInAsMachine(this.upstream, this.url, this.auth, this.launchHeaders, {stepUpScope});
			this.log.push('hangar', `${why}: got one with the client-credentials grant`);
			return signIn;
		} catch (error) {
			throw this.needed(`${why} and the client-credentials grant failed (${refusalText(error, [clientSecretOf(this.auth)])}); check "oauth": {"clientId", "clientSecretEnv"}`, undefined);
		}
	}

	private async runRefresh(used: string, why: string): Promise<string> {
		const signIn = this.stored();
		// Another connection or process refreshed since this request read its token (or a person signed in): that one is used.
		const newer = this.newerThan(signIn, used);
		if (newer !== undefined) return newer;
		if (this.auth.grant === 'client_credentials' && signIn?.tokens?.refresh_token === undefined) {
			const fresh = await this.machineToken(why);
			return fresh.tokens!.access_token;
		}

		const refreshToken = signIn?.tokens?.refresh_token;
		if (signIn === undefined || refreshToken === undefined) throw this.needed(`${why} and there is no refresh token`, {token: signIn?.tokens?.access_token});
		let response: Awaited<ReturnType<typeof refresh>>;
		const credentials = credentialsOf(signIn, this.auth);
		try {
			response = await refresh(signIn, credentials, {refreshToken, resource: signIn.resource});
		} catch (error) {
			// Another process (a second supervisor of this state dir) may have redeemed the same refresh token meanwhile: its tokens are good.
			const since = this.newerThan(this.stored(), used);
			if (since !== undefined) return since;
			throw this.needed(`${why} and the authorization server refused to refresh it (${refusalText(error, [refreshToken, signIn.tokens?.access_token, credentials.client_secret])})`, {token: signIn.tokens?.access_token});
		}

		const now = this.now();
		this.change(current => {
			if (current === undefined) return undefined;
			// A person signed in while this refresh ran: their sign-in stays.
			if (current.tokens !== undefined && current.tokens.refresh_token !== refreshToken) return current;
			return {...current, tokens: storedTokens(response, now, current.tokens), lost: undefined};
		});
		this.log.push('hangar', `${why}: refreshed it`);
		return response.access_token;
	}

	/** The stored access token when it is another than `used` and not about to expire (someone refreshed it since). */
	private newerThan(signIn: StoredSignIn | undefined, used: string): string | undefined {
		if (!usableSignIn(signIn, this.url) || signIn.tokens.access_token === used || this.expiring(signIn.tokens)) return undefined;
		return signIn.tokens.access_token;
	}

	/** The stored sign-in; a store that cannot be read (the OS keychain locked or absent) needs a person, the reason saying what to do. */
	private stored(): StoredSignIn | undefined {
		try {
			return this.store.get(this.upstream);
		} catch (error) {
			throw this.needed(`its sign-in cannot be read: ${errorMessage(error)}`, undefined);
		}
	}

	/** Changes the stored sign-in; a store that cannot be written needs a person, the reason saying what to do. */
	private change(change: (current: StoredSignIn | undefined) => StoredSignIn | undefined): void {
		try {
			this.store.update(this.upstream, change);
		} catch (error) {
			throw this.needed(`its sign-in cannot be stored: ${errorMessage(error)}`, undefined);
		}
	}

	/**
	 * Tells the engine the upstream needs a person to sign in, and returns the
	 * error to throw. With `lost`, the stored sign-in is marked lost (its
	 * tokens dropped, its client kept), but only while it still holds the
	 * access token that failed (`lost.token`): tokens a refresh elsewhere or a
	 * person's new sign-in stored meanwhile are kept.
	 */
	private needed(reason: string, lost: {token: string | undefined} | undefined): SignInNeeded {
		if (lost !== undefined) {
			const at = this.now();
			try {
				this.store.update(this.upstream, current => (current === undefined || current.tokens?.access_token !== lost.token ? current : {...current, tokens: undefined, lost: {at, reason}}));
			} catch (error) {
				// The store failing too (the keychain was locked since) is said, and the person's sign-in still needed.
				reason = `${reason}; marking it lost failed too: ${errorMessage(error)}`;
			}
		}

		this.log.push('hangar', `needs sign-in: ${reason}`);
		this.onSignInNeeded(reason);
		this.lastNeeded = new SignInNeeded(this.upstream, reason);
		return this.lastNeeded;
	}
}

function withBearer(init: RequestInit | undefined, token: string): RequestInit {
	const headers = new Headers(init?.headers);
	headers.set('Authorization', `Bearer ${token}`);
	return {...init, headers};
}
