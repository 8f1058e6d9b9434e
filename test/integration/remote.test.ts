import {spawn, type ChildProcess} from 'node:child_process';
import http from 'node:http';
import net from 'node:net';
import {afterEach, describe, expect, it} from 'vitest';
import {HangarError} from '../../source/core/base/errors.js';
import {everythingPath, rejection, waitFor} from '../support/hangar.js';
import {closeAll, startSupervisor} from '../support/supervisor.js';

const servers: ChildProcess[] = [];
afterEach(async () => {
	await closeAll();
	for (const server of servers.splice(0)) server.kill('SIGKILL');
});

async function freePort(): Promise<number> {
	return new Promise((resolve, reject) => {
		const server = net.createServer();
		server.once('error', reject);
		server.listen(0, '127.0.0.1', () => {
			const {port} = server.address() as net.AddressInfo;
			server.close(() => resolve(port));
		});
	});
}

/** Runs the real server-everything over HTTP on a free loopback port. */
async function everythingOverHttp(mode: 'streamableHttp' | 'sse'): Promise<number> {
	const port = await freePort();
	const child = spawn(process.execPath, [everythingPath, mode], {env: {...process.env, PORT: String(port)}, stdio: ['ignore', 'ignore', 'pipe']});
	servers.push(child);
	let stderr = '';
	child.stderr!.on('data', (chunk: Buffer) => {
		stderr += chunk.toString();
	});
	await waitFor(() => /listening on port/i.test(stderr) || /running on/i.test(stderr), `server-everything ${mode} to listen (stderr: ${stderr})`);
	return port;
}

describe('remote upstreams over HTTP', () => {
	it('connects to a Streamable HTTP server on start and routes calls to it', async () => {
		const port = await everythingOverHttp('streamableHttp');
		const t = await startSupervisor({remote: {url: `http://127.0.0.1:${port}/mcp`, lazy: false, instances: 'shared'}});
		await t.waitForState('remote', 'ready');
		expect(t.supervisor.tools().map(tool => tool.name)).toContain('remote__echo');
		const result = await t.supervisor.callByName('remote', 'echo', {message: 'over http'});
		expect(result.content).toEqual([{type: 'text', text: 'Echo: over http'}]);
		expect(t.supervisor.upstream('remote').snapshot()).toMatchObject({transport: 'remote', pid: undefined});
		await t.supervisor.upstream('remote').stop('cold', 'test');
		expect(t.supervisor.upstream('remote').state).toBe('cold');
	});

	it('falls back to SSE when Streamable HTTP is not served', async () => {
		const port = await everythingOverHttp('sse');
		const t = await startSupervisor({remote: {url: `http://127.0.0.1:${port}/sse`, lazy: false}});
		await t.waitForState('remote', 'ready');
		const result = await t.supervisor.callByName('remote', 'echo', {message: 'over sse'});
		expect(result.content).toEqual([{type: 'text', text: 'Echo: over sse'}]);
		expect(t.supervisor.upstream('remote').log.tail(20).map(line => line.text).join('\n')).toContain('over sse');
	});

	it('sends the credentials of a URL as HTTP Basic auth, and never shows them', async () => {
		const seen: Array<{authorization: string | undefined; url: string | undefined}> = [];
		const server = http.createServer((req, res) => {
			seen.push({authorization: req.headers.authorization, url: req.url});
			res.writeHead(401).end();
		});
		await new Promise<void>(resolve => server.listen(0, '127.0.0.1', resolve));
		const {port} = server.address() as net.AddressInfo;
		try {
			const t = await startSupervisor({remote: {url: `http://me:p%40ss-word@127.0.0.1:${port}/mcp?x=1`, tools: [{name: 'echo'}]}});
			const error = await rejection(t.supervisor.callByName('remote', 'echo', {message: 'x'}), HangarError);
			expect(seen.length).toBeGreaterThan(0);
			expect(seen[0]).toEqual({authorization: `Basic ${Buffer.from('me:p@ss-word').toString('base64')}`, url: '/mcp?x=1'});
			expect(error.message).toContain(`no MCP session could be opened at http://***@127.0.0.1:${port}/mcp?x=1`);
			expect(error.message).toContain('the server answered POST with HTTP 401 Unauthorized with an empty body');
			expect(error.message).not.toContain('ss-word');
		} finally {
			server.close();
		}
	});

	it('says what a server that answered did: its HTTP error status and the first line of its body (escaped), or a redirect loop', async () => {
		const server = http.createServer((req, res) => {
			if (req.url === '/loop') res.writeHead(307, {location: '/loop'}).end();
			else if (req.method === 'GET') res.writeHead(405).end();
			else res.writeHead(500, {'content-type': 'text/html'}).end('\n<html>\u001b[2J boom</html>\nsecond line');
		});
		await new Promise<void>(resolve => server.listen(0, '127.0.0.1', resolve));
		const {port} = server.address() as net.AddressInfo;
		try {
			const t = await startSupervisor({failing: {url: `http://127.0.0.1:${port}/mcp`, tools: [{name: 'echo'}]}, loop: {url: `http://127.0.0.1:${port}/loop`, tools: [{name: 'echo'}]}});
			const failing = await rejection(t.supervisor.callByName('failing', 'echo', {}), HangarError);
			expect(failing.message).toContain(`no MCP session could be opened at http://127.0.0.1:${port}/mcp (streamable-http: the server answered POST with HTTP 500 Internal Server Error: "<html>\\x1b[2J boom</html>" (the server failed: see its own logs)`);
			expect(failing.message).not.toMatch(/ERA_NEGOTIATION|second line/);
			const loop = await rejection(t.supervisor.callByName('loop', 'echo', {}), HangarError);
			expect(loop.message).toContain('the server answered POST with a redirect to the same url (HTTP 307 Temporary Redirect), a redirect loop');
			expect(loop.message).not.toContain('CLIENT_HTTP_NOT_IMPLEMENTED');
		} finally {
			server.close();
		}
	});

	it('reports a refused connection as a failed start that names the upstream', async () => {
		const port = await freePort();
		const t = await startSupervisor({remote: {url: `http://127.0.0.1:${port}/mcp`, tools: [{name: 'echo'}]}});
		const error = await t.supervisor.callByName('remote', 'echo', {message: 'x'}).catch((error_: unknown) => error_ as HangarError);
		expect(error).toBeInstanceOf(HangarError);
		expect((error as HangarError).codeName).toBe('StartFailed');
		expect((error as HangarError).message).toMatch(/^upstream "remote": start failed: /);
		expect((error as HangarError).message).toContain(`cannot connect to http://127.0.0.1:${port}/mcp (streamable-http and sse: nothing accepts connections on 127.0.0.1 port ${port} (ECONNREFUSED): start the server, or fix the url)`);
		expect(t.supervisor.upstream('remote').state).toBe('dead');
	});
});
