/**
 * A remote Streamable HTTP upstream that loses hangar's session (it
 * restarted, or expired the session) answers HTTP 404 to the session's
 * requests. The 2025-11-25 transport says the client must then start a new
 * session with `initialize`: hangar does, rather than failing every call to
 * that upstream until a person restarts it. Real processes: the built
 * hangar (`--stdio`) and the v1 SDK upstream of test/fixtures/matrix-upstream.mjs.
 */
import type {ChildProcess} from 'node:child_process';
import {afterEach, describe, expect, it} from 'vitest';
import {startMatrixUpstreamOverHttp} from '../support/compat-matrix.js';
import {closeHangars, fastHangar, openHangar, tempDir, waitFor, writeConfig} from '../support/hangar.js';

const children: ChildProcess[] = [];

afterEach(async () => {
	await closeHangars();
	for (const child of children.splice(0)) child.kill();
});

function textOf(result: unknown): string {
	return (result as {content: Array<{text?: string}>}).content[0]?.text ?? '';
}

describe('a remote upstream that lost hangar\'s session', () => {
	it('gets a new session: calls work again without a person restarting it', async () => {
		const url = await startMatrixUpstreamOverHttp('legacy', 'forgetful', children);
		const dir = tempDir();
		const config = writeConfig(dir, {remote: {url, namespace: false, instances: 'shared'}}, fastHangar);
		const {client} = await openHangar(config);
		expect(textOf(await client.callTool({name: 'echo', arguments: {message: 'before'}}))).toBe('Echo: before');

		// The upstream forgets every session, as a restart does: hangar's next request gets 404.
		children[0]!.kill('SIGUSR2');
		const after = await waitFor(
			async () => {
				try {
					return textOf(await client.callTool({name: 'echo', arguments: {message: 'after'}}));
				} catch {
					return undefined;
				}
			},
			'a call to succeed on a new session',
			15_000,
		);
		expect(after).toBe('Echo: after');
		// And it stays usable: not a single lucky call.
		expect(textOf(await client.callTool({name: 'echo', arguments: {message: 'again'}}))).toBe('Echo: again');
	});
});
