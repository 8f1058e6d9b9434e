/**
 * The token store under writers in several processes at once (two
 * supervisors refreshing, `mcp-hangar auth` signing in): each change is a
 * read, a change and a rename, under the store's lock, so no writer's
 * change is lost to another's. Real processes, the built store (dist/).
 */
import {spawn} from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import {pathToFileURL} from 'node:url';
import {describe, expect, it} from 'vitest';
import {root, tempDir} from '../support/hangar.js';

const storeModule = pathToFileURL(path.join(root, 'dist', 'core', 'link', 'oauth-store.js')).href;

/** A process that writes `count` sign-ins named `${prefix}0`... one change at a time, as fast as it can; resolves with its exit code. */
async function writer(file: string, prefix: string, count: number): Promise<number | null> {
	const script = `
		const {TokenStore} = await import(${JSON.stringify(storeModule)});
		const store = new TokenStore(${JSON.stringify(file)});
		for (let i = 0; i < ${count}; i++) {
			store.update(${JSON.stringify(prefix)} + i, () => ({url: 'http://127.0.0.1/mcp', resource: 'r', issuer: 'i', authorizationServerUrl: 'a', metadata: {}, client: {kind: 'dynamic', client_id: 'c'}, tokens: {access_token: 't' + i, token_type: 'Bearer', obtainedAt: i}}));
		}
	`;
	const child = spawn(process.execPath, ['--input-type=module', '-e', script], {stdio: ['ignore', 'inherit', 'inherit']});
	return new Promise(resolve => child.on('exit', resolve));
}

describe('the token store with two writers at once', () => {
	it('keeps every change of both writers: none is lost to the other\'s rename', {timeout: 60_000}, async () => {
		const file = path.join(tempDir('hangar-token-lock-'), 'state', 'oauth-tokens.json');
		const count = 150;
		const codes = await Promise.all([writer(file, 'a', count), writer(file, 'b', count)]);
		expect(codes).toEqual([0, 0]);
		const {upstreams} = JSON.parse(fs.readFileSync(file, 'utf8')) as {upstreams: Record<string, unknown>};
		expect(Object.keys(upstreams).length).toBe(2 * count);
		expect(fs.statSync(file).mode & 0o777).toBe(0o600);
		// Nothing left behind: no lock, no temporary file.
		expect(fs.readdirSync(path.dirname(file))).toEqual(['oauth-tokens.json']);
	});
});
