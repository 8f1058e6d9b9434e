/**
 * The token store: every upstream's OAuth sign-in (the authorization
 * server it was made with, the client hangar registered or was given, the
 * tokens) in one owner-only (0600) JSON file in the state dir,
 * `oauth-tokens.json`, written whole through a temporary file and a rename
 * so a reader never sees half of it.
 *
 * Why a file and not the OS keychain: hangar's daemon runs detached from
 * any desktop session (started by a client's `--stdio`, over ssh, in a
 * container), where a keychain is often locked or missing (no Secret
 * Service on a headless Linux, a locked login keychain on macOS after a
 * reboot) and would turn a refresh into a prompt nobody sees. A 0600 file
 * in the owner's state dir is what the state dir's other secrets (the
 * socket's token) already rely on. The OS keychain is an option
 * (`"hangar": {"tokenStore": "keychain"}`, link/oauth-keychain.ts): each
 * upstream's sign-in is then one keychain item, and the file is never
 * written; the lock file below stays in the state dir (it holds no secret)
 * and serves both.
 *
 * Sign-ins are kept per upstream and carry the issuer they were made with:
 * when an upstream's authorization server changes, its client and tokens
 * are dropped and it registers again (see oauth-sign-in.ts).
 *
 * The CLI's `auth` writes a sign-in, supervisors refresh it: each change
 * reads the file, changes it and renames the new one in while holding a
 * lock file beside it (`oauth-tokens.json.lock`, created exclusively), so
 * no writer writes back what another replaced meanwhile. A change takes
 * milliseconds: a lock older than `staleLockMs` was left by a writer that
 * died, and is taken over. Hand-written, not proper-lockfile: its
 * synchronous lock does not wait, and the store's changes are synchronous
 * (a refresh's write must not interleave with another's read).
 */
import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import type {TokenStoreLocation} from '../config/config-schema.js';
import {KeychainItem} from './oauth-keychain.js';
import type {AuthorizationServerMetadata} from './oauth-sdk.js';
import {makeDirectory} from '../base/make-directory.js';

/** How the client was obtained, in the spec's order of preference. */
export type ClientKind = 'pre-registered' | 'metadata-document' | 'dynamic';

export type StoredClient = {
	kind: ClientKind;
	client_id: string;
	/** A dynamically registered client's secret (a pre-registered one's is never stored: it stays in its variable). */
	client_secret?: string | undefined;
	token_endpoint_auth_method?: string | undefined;
	/** The redirect URI it was registered with (dynamic registration): a later sign-in listens on its port when it can. */
	redirect_uri?: string | undefined;
};

export type StoredTokens = {
	access_token: string;
	token_type: string;
	refresh_token?: string | undefined;
	scope?: string | undefined;
	/** Wall-clock ms when the access token expires, if the server said (expires_in): compared with the clock at each use, so a sleep counts. */
	expiresAt?: number | undefined;
	obtainedAt: number;
};

export type StoredSignIn = {
	/** The upstream URL the sign-in was made for: a config that points the upstream elsewhere needs a new one. */
	url: string;
	/** The RFC 8707 resource indicator the tokens were asked for. */
	resource: string;
	issuer: string;
	authorizationServerUrl: string;
	metadata: AuthorizationServerMetadata;
	client: StoredClient;
	tokens: StoredTokens | undefined;
	/** Why it stopped working (refresh refused, token rejected), when it has. */
	lost?: {at: number; reason: string} | undefined;
	/** The scope the sign-in asked for (the token response may not say what it granted). */
	requestedScope?: string | undefined;
	/**
	 * The scope the next sign-in asks for at least: what was asked before and
	 * what the upstream's 403 `insufficient_scope` challenged for (a step-up).
	 */
	stepUpScope?: string | undefined;
};

type StoreFile = {version: 1; upstreams: Record<string, StoredSignIn>};

function readFile(file: string): StoreFile {
	let text: string;
	try {
		text = fs.readFileSync(file, 'utf8');
	} catch (error) {
		if ((error as NodeJS.ErrnoException).code === 'ENOENT') return {version: 1, upstreams: {}};
		throw error;
	}

	let parsed: Partial<StoreFile>;
	try {
		parsed = JSON.parse(text) as Partial<StoreFile>;
	} catch (error) {
		throw new Error(`the token store ${file} is damaged (${(error as Error).message}): move it aside and sign in again (mcp-hangar auth NAME)`);
	}

	if (typeof parsed !== 'object' || parsed === null || parsed.version !== 1 || typeof parsed.upstreams !== 'object' || parsed.upstreams === null) {
		throw new Error(`the token store ${file} is not one hangar wrote (version 1 expected); move it aside and sign in again`);
	}

	return {version: 1, upstreams: parsed.upstreams};
}

/** Writes the whole file: a 0600 temporary file beside it, then a rename (atomic on one file system). */
function writeFile(file: string, content: StoreFile): void {
	makeDirectory(path.dirname(file), 0o700);
	const temporary = `${file}.${process.pid}.${crypto.randomBytes(4).toString('hex')}.tmp`;
	const handle = fs.openSync(temporary, 'wx', 0o600);
	try {
		fs.writeSync(handle, `${JSON.stringify(content, null, '\t')}\n`);
		fs.fsyncSync(handle);
	} finally {
		fs.closeSync(handle);
	}

	try {
		fs.renameSync(temporary, file);
	} catch (error) {
		fs.rmSync(temporary, {force: true});
		throw error;
	}

	// A file that existed with wider permissions (copied in by hand) is narrowed too: the rename kept the new file's 0600.
}

/** A lock held longer than this was left by a writer that died (a change takes milliseconds). */
export const staleLockMs = 10_000;
/** How long a writer waits for the lock before it gives up with an error. */
const lockWaitMs = 15_000;
const sleeper = new Int32Array(new SharedArrayBuffer(4));

/** Runs `body` holding the store's lock: an exclusively created file beside it, removed after. */
function withLock<T>(file: string, body: () => T): T {
	const lock = `${file}.lock`;
	makeDirectory(path.dirname(file), 0o700);
	const deadline = Date.now() + lockWaitMs;
	for (let wait = 1; ; wait = Math.min(wait * 2, 50)) {
		try {
			fs.closeSync(fs.openSync(lock, 'wx', 0o600));
			break;
		} catch (error) {
			if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
		}

		try {
			if (Date.now() - fs.statSync(lock).mtimeMs > staleLockMs) fs.rmSync(lock, {force: true});
		} catch {
			// Gone between the two calls: the next try takes it.
		}

		if (Date.now() > deadline) throw new Error(`the token store ${file} stayed locked by another hangar for ${lockWaitMs / 1000} s (${lock}); try again`);
		Atomics.wait(sleeper, 0, 0, wait);
	}

	try {
		return body();
	} finally {
		fs.rmSync(lock, {force: true});
	}
}

/** A keychain item's sign-in, checked to be one hangar wrote. */
function parseItem(text: string | undefined, item: KeychainItem): StoredSignIn | undefined {
	if (text === undefined) return undefined;
	let parsed: unknown;
	try {
		parsed = JSON.parse(text);
	} catch {
		parsed = undefined;
	}

	if (typeof parsed !== 'object' || parsed === null || typeof (parsed as StoredSignIn).issuer !== 'string') {
		throw new Error(`the keychain item of "${item.upstream}" (service mcp-hangar) is not one hangar wrote; remove it with mcp-hangar auth ${item.upstream} --logout and sign in again`);
	}

	return parsed as StoredSignIn;
}

export class TokenStore {
	readonly location: TokenStoreLocation;

	/** A location, or the path of a file store. */
	constructor(location: TokenStoreLocation | string) {
		this.location = typeof location === 'string' ? {kind: 'file', file: location} : location;
	}

	get file(): string {
		return this.location.file;
	}

	get(upstream: string): StoredSignIn | undefined {
		if (this.location.kind === 'file') return readFile(this.file).upstreams[upstream];
		const item = this.item(upstream);
		return parseItem(item.read(), item);
	}

	/** Changes one upstream's sign-in on a fresh read of the store; `change` returns undefined to forget it. */
	update(upstream: string, change: (current: StoredSignIn | undefined) => StoredSignIn | undefined): StoredSignIn | undefined {
		return withLock(this.file, () => {
			if (this.location.kind === 'keychain') {
				const item = this.item(upstream);
				const next = change(parseItem(item.read(), item));
				if (next === undefined) item.remove();
				else item.write(JSON.stringify(next));
				return next;
			}

			const content = readFile(this.file);
			const next = change(content.upstreams[upstream]);
			if (next === undefined) delete content.upstreams[upstream];
			else content.upstreams[upstream] = next;
			writeFile(this.file, content);
			return next;
		});
	}

	/** Forgets an upstream's sign-in; whether there was one. */
	forget(upstream: string): boolean {
		let had = false;
		this.update(upstream, current => {
			had = current !== undefined;
			return undefined;
		});
		return had;
	}

	/** The keychain item of an upstream: keyed by the state dir the store's file would be in. */
	private item(upstream: string): KeychainItem {
		return new KeychainItem(upstream, path.dirname(this.file));
	}
}

/** The union of space-separated scope lists, in first-seen order; undefined when all are empty. */
export function scopeUnion(...scopes: Array<string | undefined>): string | undefined {
	const union = [...new Set(scopes.flatMap(scope => (scope ?? '').split(' ')).filter(scope => scope !== ''))];
	return union.length === 0 ? undefined : union.join(' ');
}

/** Tokens as stored, from a token response (`expires_in` made a wall-clock time); a refresh that returns no refresh token keeps the old one. */
export function storedTokens(
	response: {access_token: string; token_type: string; refresh_token?: string | undefined; scope?: string | undefined; expires_in?: number | undefined},
	now: number,
	previous?: StoredTokens,
): StoredTokens {
	return {
		access_token: response.access_token,
		token_type: response.token_type,
		refresh_token: response.refresh_token ?? previous?.refresh_token,
		scope: response.scope ?? previous?.scope,
		expiresAt: typeof response.expires_in === 'number' ? now + response.expires_in * 1000 : undefined,
		obtainedAt: now,
	};
}
