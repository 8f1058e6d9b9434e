/**
 * The OS keychain as the token store's place for sign-ins
 * (`"hangar": {"tokenStore": "keychain"}`): one generic secret per upstream,
 * service `mcp-hangar`, account `<upstream> in <state dir>` (so two state
 * dirs never share a sign-in), holding that upstream's whole sign-in as
 * JSON (authorization server, client registration, tokens). On Linux that
 * is the Secret Service over the D-Bus session (gnome-keyring, KWallet,
 * KeePassXC), pinned to it so it never falls back to the kernel keyring;
 * on macOS the login keychain; on Windows the Credential Manager. Through
 * @napi-rs/keyring (keyring-rs), whose calls are synchronous like the
 * file store's, and which takes the secret as an argument of a library
 * call: it never goes on a command line.
 *
 * When the keychain cannot be used (no D-Bus session, no Secret Service,
 * a locked keyring, no binary for this platform), every use fails with a
 * `KeychainUnavailable` that says what to do: hangar never falls back to
 * the file on its own, since the person chose not to have tokens on disk.
 */
import {createRequire} from 'node:module';
import process from 'node:process';

/** The service name of every hangar item in the keychain. */
export const keychainService = 'mcp-hangar';

/** The keychain account of an upstream's sign-in: the state dir is part of it, so two hangars with their own state dirs keep their own. */
export function keychainAccount(upstream: string, stateDir: string): string {
	return `${upstream} in ${stateDir}`;
}

/** The keychain cannot be used; the message says why and what to do. */
export class KeychainUnavailable extends Error {
	constructor(detail: string, env: NodeJS.ProcessEnv = process.env, platform: NodeJS.Platform = process.platform) {
		super(`the OS keychain (hangar.tokenStore "keychain") cannot be used: ${detail}. ${keychainHint(env, platform)}`);
		this.name = 'KeychainUnavailable';
	}
}

/** What a person does about an unusable keychain on this platform. */
export function keychainHint(env: NodeJS.ProcessEnv, platform: NodeJS.Platform): string {
	const orFile = 'or set hangar.tokenStore to "file" in the config to keep the tokens in an owner-only file in the state dir';
	if (platform === 'darwin') return `Unlock the login keychain (security unlock-keychain), ${orFile}`;
	if (platform === 'win32') return `Check that the Windows Credential Manager is available to this user, ${orFile}`;
	const bus = env['DBUS_SESSION_BUS_ADDRESS'];
	if (bus === undefined || bus === '') {
		return `There is no D-Bus session (DBUS_SESSION_BUS_ADDRESS is not set, as over ssh or in a container): run hangar in a desktop session, or start one with dbus-run-session and an unlocked Secret Service (gnome-keyring-daemon --unlock), ${orFile}`;
	}

	return `A Secret Service must answer on the D-Bus session with an unlocked keyring: install and start one (apt-get install gnome-keyring libsecret-tools, or KeePassXC with its Secret Service on) and unlock it, ${orFile}`;
}

type Entry = {getPassword(): string | null; setPassword(password: string): void; deletePassword(): boolean};
type KeyringModule = {Entry: new (service: string, account: string, options?: {linux?: {store?: 'secret-service' | 'keyutils'}}) => Entry};

let loaded: KeyringModule | undefined;

/** The native binding, loaded on first use only (a file store never loads it). */
function keyring(): KeyringModule {
	if (loaded !== undefined) return loaded;
	try {
		loaded = createRequire(import.meta.url)('@napi-rs/keyring') as KeyringModule;
	} catch (error) {
		throw new KeychainUnavailable(`its binding for ${process.platform}-${process.arch} did not load (${(error as Error).message.split('\n')[0] ?? ''})`);
	}

	return loaded;
}

/** Why a keychain call failed, as a sentence (the binding's message names the D-Bus or Secret Service error). */
function failure(operation: string, error: unknown): KeychainUnavailable {
	const message = error instanceof Error ? error.message : String(error);
	const locked = /no result found|locked|prompt|dismissed/i.test(message) ? ' (a keyring that is locked, or that has no default collection, answers so)' : '';
	return new KeychainUnavailable(`${operation} failed: ${message}${locked}`);
}

/** One upstream's item in the keychain. */
export class KeychainItem {
	private readonly entry: Entry;

	constructor(
		readonly upstream: string,
		readonly stateDir: string,
	) {
		const {Entry} = keyring();
		try {
			this.entry = new Entry(keychainService, keychainAccount(upstream, stateDir), {linux: {store: 'secret-service'}});
		} catch (error) {
			throw failure('opening its item', error);
		}
	}

	read(): string | undefined {
		try {
			return this.entry.getPassword() ?? undefined;
		} catch (error) {
			throw failure('reading the sign-in', error);
		}
	}

	write(text: string): void {
		try {
			this.entry.setPassword(text);
		} catch (error) {
			throw failure('storing the sign-in', error);
		}
	}

	remove(): void {
		try {
			this.entry.deletePassword();
		} catch (error) {
			throw failure('removing the sign-in', error);
		}
	}
}
