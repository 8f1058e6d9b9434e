/**
 * The file token store when its file is damaged (cut short, edited by
 * hand): reading, signing in and signing out fail with an error that names
 * the file and what to do, not a bare JSON parser message.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import {afterEach, beforeEach, describe, expect, it} from 'vitest';
import {TokenStore} from '../../../../source/core/link/oauth-store.js';

let stateDir: string;

beforeEach(() => {
	stateDir = fs.mkdtempSync(path.join(os.tmpdir(), 'hangar-token-store-unit-'));
});

afterEach(() => {
	fs.rmSync(stateDir, {recursive: true, force: true});
});

describe('the file token store with a damaged file', () => {
	it('names the file and says to move it aside and sign in again, on a read, a sign-in and a sign-out', () => {
		const file = path.join(stateDir, 'oauth-tokens.json');
		fs.writeFileSync(file, '{"version": 1, "upstreams": {"remote": {"tokens": ', {mode: 0o600});
		const store = new TokenStore(file);
		for (const attempt of [() => store.get('remote'), () => store.update('remote', current => current), () => store.forget('remote')]) {
			expect(attempt).toThrow(`the token store ${file} is damaged`);
			expect(attempt).toThrow('move it aside and sign in again (mcp-hangar auth NAME)');
		}

		// Nothing was written over it: the person may still want to look at it.
		expect(fs.readFileSync(file, 'utf8')).toBe('{"version": 1, "upstreams": {"remote": {"tokens": ');
	});
});
