/**
 * A supervisor at its open-file limit keeps running: `serve` under
 * `ulimit -n 64`, with socket clients holding every descriptor it has left,
 * cannot respawn a crashed upstream (EMFILE). That upstream says why in its
 * status, every other client keeps being served, nothing prints a stack
 * trace, a person's CLI and a new --stdio client are told why they are
 * refused, and once the clients leave the upstream starts again, however
 * many spawns failed meanwhile. Real
 * processes: the built hangar, the fixture server, raw socket clients.
 */
import {spawn} from 'node:child_process';
import net from 'node:net';
import path from 'node:path';
import {Client} from '@modelcontextprotocol/sdk/client/index.js';
import {StdioClientTransport} from '@modelcontextprotocol/sdk/client/stdio.js';
import {afterEach, describe, expect, it} from 'vitest';
import {cliPath, fastHangar, fixture, runCli, spawnEnv, tempDir, waitFor, writeConfig} from '../support/hangar.js';

/** A line-speaking MCP client on the local socket. */
class RawClient {
	private buffer = '';
	private nextId = 1;
	private readonly waiting = new Map<number, (message: {result?: unknown; error?: {message: string}}) => void>();

	constructor(readonly socket: net.Socket) {
		socket.setEncoding('utf8');
		socket.on('data', (chunk: string) => {
			this.buffer += chunk;
			for (let newline = this.buffer.indexOf('\n'); newline !== -1; newline = this.buffer.indexOf('\n')) {
				const message = JSON.parse(this.buffer.slice(0, newline)) as {id?: number; result?: unknown; error?: {message: string}};
				this.buffer = this.buffer.slice(newline + 1);
				if (message.id !== undefined) this.waiting.get(message.id)?.(message);
			}
		});
	}

	static async connect(where: string): Promise<RawClient> {
		const socket = net.createConnection(where);
		await new Promise((resolve, reject) => socket.once('connect', resolve).once('error', reject));
		const client = new RawClient(socket);
		await client.request('initialize', {protocolVersion: '2025-06-18', capabilities: {}, clientInfo: {name: 'fd-test', version: '1'}});
		socket.write(`${JSON.stringify({jsonrpc: '2.0', method: 'notifications/initialized'})}\n`);
		return client;
	}

	async request(method: string, params: object): Promise<{result?: unknown; error?: {message: string}}> {
		const id = this.nextId++;
		return new Promise(resolve => {
			this.waiting.set(id, resolve);
			this.socket.write(`${JSON.stringify({jsonrpc: '2.0', id, method, params})}\n`);
		});
	}

	async status(name: string): Promise<{state: string; lastError: string | null; restarts: number}> {
		const answer = await this.request('tools/call', {name: 'hangar_list', arguments: {}});
		const {upstreams} = (answer.result as {structuredContent: {upstreams: Array<{name: string; state: string; lastError: string | null; restarts: number}>}}).structuredContent;
		return upstreams.find(upstream => upstream.name === name)!;
	}
}

const cleanups: Array<() => void> = [];
afterEach(() => {
	for (const cleanup of cleanups.splice(0)) cleanup();
});

describe('a supervisor at its open-file limit', () => {
	it('stays up, says why the upstream it cannot spawn is down, and recovers when descriptors free up', async () => {
		const dir = tempDir();
		const config = writeConfig(dir, {crash: fixture('crash-on-call'), steady: fixture('normal')}, fastHangar);
		const where = path.join(dir, 'state', 'hangar.sock');
		const hangar = spawn('bash', ['-c', `ulimit -n 64; exec "${process.execPath}" "${cliPath}" serve --config "${config}"`], {stdio: ['ignore', 'pipe', 'pipe']});
		cleanups.push(() => hangar.kill('SIGKILL'));
		let stderr = '';
		hangar.stderr.on('data', (chunk: Buffer) => {
			stderr += chunk.toString();
		});
		const exited = new Promise<number | null>(resolve => hangar.on('exit', code => resolve(code)));
		await waitFor(() => stderr.includes('listening for MCP clients'), 'serve to listen');
		await waitFor(() => /steady.*-> ready/.test(stderr) && /crash.*-> ready/.test(stderr), 'both upstreams to start');
		expect(stderr).toMatch(/hangar may open at most 64 files \(ulimit -n/);

		const client = await RawClient.connect(where);
		// Holds every descriptor hangar has left, and takes back each one it frees (a refused connection is closed at once).
		const flood = new Set<net.Socket>();
		let flooding = true;
		let refusedByHangar = 0;
		const fill = (): void => {
			while (flooding && flood.size < 80) {
				const socket = net.createConnection(where);
				flood.add(socket);
				socket.on('error', () => {});
				socket.on('close', () => {
					if (flooding) refusedByHangar += 1;
					flood.delete(socket);
					setTimeout(fill, 20);
				});
			}
		};

		fill();
		cleanups.push(() => {
			flooding = false;
			for (const socket of flood) socket.destroy();
		});
		await waitFor(() => refusedByHangar > 0, 'hangar to refuse a connection');

		// Once hangar refuses connections (it closes those it has no descriptor for), a person's CLI is refused too: it
		// says so in a sentence that names the supervisor, never a stack trace, nor "no hangar is running"; and its
		// quarantine is refused, not acknowledged and lost.
		const [status, quarantine] = await Promise.all([runCli(['status', '--config', config]), runCli(['quarantine', 'steady', '--config', config])]);
		for (const [what, run] of [['status', status], ['quarantine', quarantine]] as const) {
			expect(run.code, `${what}: ${run.stdout}${run.stderr}`).toBe(1);
			expect(run.stderr, what).not.toMatch(/^\s+at /m);
			expect(run.stderr, what).toMatch(new RegExp(`hangar pid ${hangar.pid} .*(closed the connection|did not answer)`));
			expect(run.stderr, what).toMatch(/open-file limit/);
			expect(run.stdout + run.stderr, what).not.toMatch(/no hangar (process )?is running/i);
		}

		// An MCP client's --stdio bridge is told why within seconds, not left to its own 60 s timeout.
		const transport = new StdioClientTransport({command: process.execPath, args: [cliPath, '--stdio', '--config', config], env: spawnEnv(), stderr: 'pipe'});
		const mcp = new Client({name: 'fd-test-stdio', version: '1'});
		const refused = await mcp.connect(transport, {timeout: 20_000}).then(() => undefined, (error: unknown) => error as {code?: number; message: string});
		await mcp.close().catch(() => {});
		expect(refused?.code).toBe(-32_012);
		expect(refused?.message).toMatch(/closed the connection before answering.*open-file limit/);

		const crashed = await client.request('tools/call', {name: 'crash__echo', arguments: {message: 'x'}});
		expect(crashed.error?.message).toMatch(/exited with code 3/);
		const down = await waitFor(async () => {
			const entry = await client.status('crash');
			return /EMFILE/.test(entry.lastError ?? '') ? entry : undefined;
		}, 'the crashed upstream to report EMFILE');
		expect(down.lastError).toMatch(/cannot spawn .*EMFILE: hangar has as many files open as its limit allows \(ulimit -n 64\)/);

		// The rest is served meanwhile.
		const echoed = await client.request('tools/call', {name: 'steady__echo', arguments: {message: 'still here'}});
		expect(JSON.stringify(echoed.result)).toContain('still here');

		// Hangar's shortage, not the upstream's fault: it does not spend the restart budget (5 restarts in 60 s), so
		// the upstream is still retried after more failed spawns than that, however long the shortage lasts.
		await waitFor(async () => (await client.status('crash')).restarts >= 6, 'more restarts than the restart budget allows', 30_000);
		flooding = false;
		for (const socket of flood) socket.destroy();
		await waitFor(async () => (await client.status('crash')).state === 'ready', 'the upstream to start again', 30_000);

		client.socket.destroy();
		hangar.kill('SIGTERM');
		expect(await exited).toBe(0);
		expect(stderr).not.toMatch(/internal error/);
		expect(stderr).not.toMatch(/^\s+at /m);
		// The quarantine the CLI could not deliver was not applied behind its back.
		expect(stderr).not.toMatch(/quarantined by a person/);
	}, 120_000);
});
