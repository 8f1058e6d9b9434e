/**
 * The keychain token store when no keychain can be used: every read and
 * change fails with an error that says why and what to do, and nothing
 * falls back to a file in the state dir. The real binding, pointed at a
 * D-Bus session that does not exist.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import process from 'node:process';
import {afterEach, beforeEach, describe, expect, it} from 'vitest';
import {KeychainUnavailable, keychainHint} from '../../../../source/core/link/oauth-keychain.js';
import {TokenStore, type StoredSignIn} from '../../../../source/core/link/oauth-store.js';

const saved = {bus: process.env['DBUS_SESSION_BUS_ADDRESS']};
let stateDir: string;

beforeEach(() => {
	stateDir = fs.mkdtempSync(path.join(os.tmpdir(), 'hangar-keychain-unit-'));
	process.env['DBUS_SESSION_BUS_ADDRESS'] = `unix:path=${path.join(stateDir, 'no-bus-here')}`;
});

afterEach(() => {
	if (saved.bus === undefined) delete process.env['DBUS_SESSION_BUS_ADDRESS'];
	else process.env['DBUS_SESSION_BUS_ADDRESS'] = saved.bus;
	fs.rmSync(stateDir, {recursive: true, force: true});
});

const signIn: StoredSignIn = {
	url: 'http://127.0.0.1:1/mcp',
	resource: 'http://127.0.0.1:1/mcp',
	issuer: 'http://127.0.0.1:2',
	authorizationServerUrl: 'http://127.0.0.1:2',
	metadata: {issuer: 'http://127.0.0.1:2', authorization_endpoint: 'http://127.0.0.1:2/authorize', token_endpoint: 'http://127.0.0.1:2/token', response_types_supported: ['code']},
	client: {kind: 'dynamic', client_id: 'c'},
	tokens: {access_token: 'unit-planted-access-token', token_type: 'Bearer', obtainedAt: 0},
};

describe('the keychain token store without a keychain', () => {
	it('refuses to read or store a sign-in, saying the keychain cannot be used and what to do, and writes no file', () => {
		const store = new TokenStore({kind: 'keychain', file: path.join(stateDir, 'oauth-tokens.json')});
		expect(() => store.get('remote')).toThrow(KeychainUnavailable);
		let error: unknown;
		try {
			store.update('remote', () => signIn);
		} catch (caught) {
			error = caught;
		}

		expect(error).toBeInstanceOf(KeychainUnavailable);
		const message = (error as Error).message;
		expect(message).toContain('the OS keychain (hangar.tokenStore "keychain") cannot be used');
		expect(message).toContain('no-bus-here');
		expect(message).toContain('set hangar.tokenStore to "file"');
		expect(message).not.toContain('unit-planted-access-token');
		// No fallback: the state dir holds no token file, and the lock is gone.
		expect(fs.readdirSync(stateDir)).toEqual([]);
	});

	it('tells each platform what to do', () => {
		expect(keychainHint({}, 'linux')).toContain('no D-Bus session');
		expect(keychainHint({}, 'linux')).toContain('dbus-run-session');
		expect(keychainHint({DBUS_SESSION_BUS_ADDRESS: 'unix:path=/run/user/1000/bus'}, 'linux')).toContain('apt-get install gnome-keyring libsecret-tools');
		expect(keychainHint({}, 'darwin')).toContain('security unlock-keychain');
		for (const platform of ['linux', 'darwin', 'win32'] as const) expect(keychainHint({}, platform)).toContain('set hangar.tokenStore to "file"');
	});
});
