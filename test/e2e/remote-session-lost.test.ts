/**
 * A remote Streamable HTTP upstream that loses hangar's session (it
 * restarted, or expired the session) answers HTTP 404 to the session's
 * requests. The 2025-11-25 transport says the client must then start a new
 * session with `initialize`: hangar does, rather than failing every call to
 * that upstream until a person restarts it. Real processes: the built
 * hangar (`--stdio`) and the v1 SDK upstream of test/fixtures/matrix-upstream.mjs.
 */
import {spawn, type ChildProcess} from 'node:child_process';
import {afterEach, describe, expect, it} from 'vitest';
import {startMatrixUpstreamOverHttp} from '../support/compat-matrix.js';
import {closeHangars, everythingPath, fastHangar, freePort, openHangar, tempDir, waitFor, writeConfig} from '../support/hangar.js';

const children: ChildProcess[] = [];

afterEach(async () => {
	await closeHangars();
	for (const child of children.splice(0)) child.kill();
});

/** server-everything serving Streamable HTTP on `port`, once it listens. */
async function everythingOverHttp(port: number): Promise<ChildProcess> {
	const child = spawn(process.execPath, [everythingPath, 'streamableHttp'], {env: {...process.env, PORT: String(port)}, stdio: ['ignore', 'ignore', 'pipe']});
	children.push(child);
	let output = '';
	for await (const chunk of child.stderr!) {
		output += String(chunk);
		if (output.includes('listening on port')) return child;
	}

	throw new Error(`server-everything ended before it listened: ${output}`);
}

async function echoes(client: {callTool: (request: {name: string; arguments: Record<string, unknown>}) => Promise<unknown>}, message: string): Promise<string | undefined> {
	try {
		return textOf(await client.callTool({name: 'echo', arguments: {message}}));
	} catch {
		return undefined;
	}
}

function textOf(result: unknown): string {
	return (result as {content: Array<{text?: string}>}).content[0]?.text ?? '';
}

describe('a remote upstream whose server went away', () => {
	it('fails the call with what to check: its server at its origin (not a subprocess\'s stderr, and never the url\'s query)', async () => {
		const port = await freePort();
		const server = await everythingOverHttp(port);
		const dir = tempDir();
		const config = writeConfig(dir, {remote: {url: `http://127.0.0.1:${port}/mcp?key=sekret-in-query`, namespace: false, instances: 'shared'}}, fastHangar);
		const {client} = await openHangar(config);
		expect(await echoes(client, 'before')).toBe('Echo: before');

		server.kill();
		await new Promise(resolve => server.once('exit', resolve));
		const error = await client.callTool({name: 'echo', arguments: {message: 'after'}}).then(
			() => undefined,
			(caught: unknown) => caught as Error,
		);
		expect(error, 'the call to a server that is gone fails').toBeDefined();
		expect(error!.message).toContain('upstream "remote"');
		expect(error!.message).toContain(`its server at http://127.0.0.1:${port} is running and reachable`);
		expect(error!.message).not.toContain('stderr');
		expect(error!.message).not.toContain('sekret');
	});
});

describe('a remote upstream that lost hangar\'s session', () => {
	it('gets a new session: calls work again without a person restarting it', async () => {
		const url = await startMatrixUpstreamOverHttp('legacy', 'forgetful', children);
		const dir = tempDir();
		const config = writeConfig(dir, {remote: {url, namespace: false, instances: 'shared'}}, fastHangar);
		const {client} = await openHangar(config);
		expect(textOf(await client.callTool({name: 'echo', arguments: {message: 'before'}}))).toBe('Echo: before');

		// The upstream forgets every session, as a restart does: hangar's next request gets 404.
		const forgot = await fetch(new URL('/forget', url), {method: 'POST'});
		expect(forgot.status).toBe(204);
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

	it('gets a new session from a server that restarted and answers the old one 400 "No valid session ID" (server-everything, the SDK example\'s way)', async () => {
		const port = await freePort();
		const first = await everythingOverHttp(port);
		const dir = tempDir();
		const config = writeConfig(dir, {remote: {url: `http://127.0.0.1:${port}/mcp`, namespace: false, instances: 'shared'}}, fastHangar);
		const {client} = await openHangar(config);
		expect(await echoes(client, 'before')).toBe('Echo: before');

		first.kill();
		await new Promise(resolve => first.once('exit', resolve));
		await everythingOverHttp(port);
		expect(await waitFor(async () => echoes(client, 'after'), 'a call to succeed on a new session', 15_000)).toBe('Echo: after');
		expect(await echoes(client, 'again')).toBe('Echo: again');
	});
});
