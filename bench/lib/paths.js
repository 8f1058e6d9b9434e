/**
 * The three paths a call can take, each an SDK `Client` over a
 * `StdioClientTransport`, and the hangar configs the scenarios write.
 *
 *   direct: client -> fixture server
 *   hop:    client -> bench/hop.js -> fixture server
 *   hangar: client -> mcp-hangar --stdio -> fixture server
 *
 * and, for scenario 7, the bridge path:
 *
 *   bridge: client -> mcp-hangar --stdio -> (Unix socket) mcp-hangar serve -> fixture server
 */
import {spawn} from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import {fileURLToPath} from 'node:url';
import {Client} from '@modelcontextprotocol/sdk/client/index.js';
import {StdioClientTransport} from '@modelcontextprotocol/sdk/client/stdio.js';
import {CallToolResultSchema} from '@modelcontextprotocol/sdk/types.js';
import {childrenOf, taggedEnv} from './processes.js';

export const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');
export const cliPath = path.join(root, 'dist', 'cli.js');
export const fixturePath = path.join(root, 'dist', 'demo', 'fixture-server.js');
export const hopPath = path.join(root, 'bench', 'hop.js');
export const spawnCounterPath = path.join(root, 'bench', 'spawn-counter.js');

/** Extra node flags for the hangar process (e.g. --cpu-prof), set once by run.js from --hangar-node-args. */
export const hangarNodeArgs = [];

/** The fixture's echo tool as hangar's config can predefine it, so lazy upstreams need no start to be listed. */
export const echoToolDefinition = {
	name: 'echo',
	description: 'Echo the given message back as text.',
	inputSchema: {
		type: 'object',
		properties: {message: {type: 'string', description: 'Text to echo back'}},
		required: ['message'],
	},
};

export function tempDir(prefix = 'hangar-bench-') {
	return fs.mkdtempSync(path.join(os.tmpdir(), prefix));
}

/** `node dist/demo/fixture-server.js --mode MODE ...` as [command, args]. */
export function fixtureCommand(mode = 'normal', extra = []) {
	return [process.execPath, [fixturePath, '--mode', mode, ...extra]];
}

/** Writes a hangar config with its state dir inside `dir`; returns the file. */
export function writeHangarConfig(dir, servers, hangar = {}) {
	const file = path.join(dir, 'mcp-hangar.json');
	const config = {hangar: {stateDir: path.join(dir, 'state'), ...hangar}, mcpServers: servers};
	fs.writeFileSync(file, JSON.stringify(config, null, 2));
	return file;
}

/** A config entry for an upstream started with `command args`. */
export function serverEntry([command, args], extra = {}) {
	return {command, args, ...extra};
}

/** Keeps the last `limit` characters of a stream (so a pipe never fills and errors can quote it). */
function tail(stream, limit = 16_384) {
	let text = '';
	stream?.on('data', chunk => {
		text += chunk.toString();
		if (text.length > limit * 2) text = text.slice(-limit);
	});
	return () => text.slice(-limit);
}

/**
 * Spawns `command args` with a StdioClientTransport and connects an SDK client
 * (spawn + initialize + initialized). Returns the client, the child's pid, its
 * stderr tail, and `lastArrival()`: when (process.hrtime.bigint()) the last
 * chunk of the child's stdout arrived, before the SDK parsed it, so a
 * scenario can tell the server's time from the client's.
 */
export async function connect(command, args, {name = 'hangar-bench', env = {}} = {}) {
	const transport = new StdioClientTransport({command, args, env: taggedEnv(env), stderr: 'pipe'});
	const stderr = tail(transport.stderr);
	const client = new Client({name, version: '1.0.0'});
	await client.connect(transport);
	// The SDK (1.x) keeps the child in a private field; without it there is no arrival time (undefined).
	let arrival;
	transport._process?.stdout?.prependListener('data', () => {
		arrival = process.hrtime.bigint();
	});
	return {
		client,
		pid: transport.pid,
		stderr,
		lastArrival: () => arrival,
		async close() {
			await client.close().catch(() => {});
		},
	};
}

export async function connectDirect(mode = 'normal', extra = []) {
	const [command, args] = fixtureCommand(mode, extra);
	const session = await connect(command, args);
	return {...session, tool: 'echo', upstreamPid: session.pid};
}

export async function connectHop(mode = 'normal', extra = []) {
	const [command, args] = fixtureCommand(mode, extra);
	const session = await connect(process.execPath, [hopPath, command, ...args]);
	return {...session, tool: 'echo', proxyPid: session.pid, upstreamPid: childrenOf(session.pid)[0]};
}

/**
 * Which hangar to run: the built dist/cli.js, or another build given with
 * --hangar-cli (to compare a candidate change against the same bench).
 */
export const hangarBuild = {cli: cliPath};

/**
 * Starts `mcp-hangar --stdio --config FILE` and connects to it: with
 * `--standalone` (the supervisor in the process measured) unless `shared`
 * (a bridge to the supervisor running the config).
 */
export async function connectHangar(configFile, {args = [], shared = false, env = {}} = {}) {
	return connect(process.execPath, [...hangarNodeArgs, hangarBuild.cli, '--stdio', ...(shared ? [] : ['--standalone']), '--config', configFile, ...args], {env});
}

/**
 * Opens one session per entry of `connectors` (name -> async () => session),
 * runs `work(sessions)` and closes them all, whatever happens.
 */
export async function withPaths(connectors, work) {
	const sessions = {};
	try {
		for (const [name, connectPath] of Object.entries(connectors)) sessions[name] = await connectPath();
		return await work(sessions);
	} finally {
		await Promise.all(Object.values(sessions).map(async session => session.close()));
	}
}

/** The three paths scenarios 1 and 2 compare: direct, the minimal hop, a warm hangar. */
export async function withThreePaths(work) {
	return withPaths({direct: connectDirect, hop: connectHop, hangar: connectHangarWarm}, work);
}

/** Waits until hangar (behind `session`) reports upstream `name` ready; returns its pid. */
async function readyUpstreamPid(session, name = 'fx') {
	try {
		return await waitFor(async () => {
			const entry = (await hangarList(session.client)).find(candidate => candidate.name === name);
			return entry?.state === 'ready' && entry.pid;
		}, `upstream ${name} to be ready`, 30_000);
	} catch (error) {
		await session.close();
		throw new Error(`${error.message}; hangar stderr: ${session.stderr()}`);
	}
}

/** A config in a new temp dir with one fixture server, fx, started at launch (lazy: false): the warm paths' upstream. */
function warmFxConfig() {
	const dir = tempDir();
	return {dir, file: writeHangarConfig(dir, {fx: serverEntry(fixtureCommand('normal'), {lazy: false})})};
}

/** A warm hangar in front of one fixture server (lazy: false), ready to route `fx__echo`; `env`: more environment for it. */
export async function connectHangarWarm({env = {}} = {}) {
	const {dir, file} = warmFxConfig();
	const session = await connectHangar(file, {env});
	const upstreamPid = await readyUpstreamPid(session);
	return {
		...session,
		tool: 'fx__echo',
		proxyPid: session.pid,
		upstreamPid,
		dir,
		async close() {
			await session.close();
			fs.rmSync(dir, {recursive: true, force: true});
		},
	};
}

/**
 * Starts `mcp-hangar serve --config FILE`, the supervisor `--stdio` clients
 * attach to, and waits until its socket (STATE_DIR/hangar.sock, the state dir
 * read from the config) accepts a connection. `stop()` sends SIGTERM and
 * waits for it to exit (SIGKILL after `graceMs`).
 */
export async function startServe(configFile) {
	const child = spawn(process.execPath, [...hangarNodeArgs, hangarBuild.cli, 'serve', '--config', configFile], {env: taggedEnv(), stdio: ['ignore', 'ignore', 'pipe']});
	const stderr = tail(child.stderr);
	const exited = new Promise(resolve => child.once('exit', (code, signal) => resolve({code, signal})));
	const socketPath = path.join(JSON.parse(fs.readFileSync(configFile, 'utf8')).hangar.stateDir, 'hangar.sock');
	const stop = async (graceMs = 10_000) => {
		if (child.exitCode !== null || child.signalCode !== null) return exited;
		child.kill('SIGTERM');
		const timer = setTimeout(() => child.kill('SIGKILL'), graceMs);
		const result = await exited;
		clearTimeout(timer);
		return result;
	};

	try {
		await waitFor(
			async () => {
				if (child.exitCode !== null) throw new Error(`mcp-hangar serve exited with ${child.exitCode}`);
				return new Promise(resolve => {
					const probe = net.createConnection(socketPath, () => {
						probe.destroy();
						resolve(true);
					});
					probe.on('error', () => resolve(false));
				});
			},
			`mcp-hangar serve to listen on ${socketPath}`,
			30_000,
		);
	} catch (error) {
		await stop(1000);
		throw new Error(`${error.message}; serve stderr: ${stderr()}`);
	}

	return {pid: child.pid, socketPath, stderr, stop};
}

/**
 * The bridge path: `mcp-hangar serve` in front of one fixture server
 * (lazy: false), and `mcp-hangar --stdio` with the same config, which finds
 * the daemon's socket and bridges to it. Ready to route `fx__echo`.
 */
export async function connectBridgeWarm() {
	const {dir, file} = warmFxConfig();
	const daemon = await startServe(file);
	let session;
	try {
		session = await connectHangar(file, {shared: true});
		const upstreamPid = await readyUpstreamPid(session);
		// The upstream must be the daemon's: a `--stdio` that did not attach would have spawned its own.
		if (!childrenOf(daemon.pid).includes(upstreamPid)) throw new Error(`mcp-hangar --stdio did not attach to the serve daemon (upstream ${upstreamPid} is not its child); stderr: ${session.stderr()}`);
		return {
			...session,
			tool: 'fx__echo',
			proxyPid: session.pid,
			daemonPid: daemon.pid,
			socketPath: daemon.socketPath,
			upstreamPid,
			dir,
			async close() {
				await session.close();
				await daemon.stop();
				fs.rmSync(dir, {recursive: true, force: true});
			},
		};
	} catch (error) {
		await session?.close();
		await daemon.stop(1000);
		fs.rmSync(dir, {recursive: true, force: true});
		throw error;
	}
}

/** One tools/call as the hot loop does it: client.request with CallToolResultSchema (no output-schema re-check). */
export async function callTool(client, name, args, options) {
	return client.request({method: 'tools/call', params: {name, arguments: args}}, CallToolResultSchema, options);
}

/** Every upstream's hangar_list entry (hangar_list pages by 50 unless asked for more). */
export async function hangarList(client) {
	const result = await callTool(client, 'hangar_list', {limit: 500});
	return result.structuredContent.upstreams;
}

export async function waitFor(check, what, timeoutMs = 30_000, intervalMs = 25) {
	const deadline = Date.now() + timeoutMs;
	let last;
	for (;;) {
		try {
			const value = await check();
			if (value !== undefined && value !== false) return value;
		} catch (error) {
			last = error;
		}

		if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}${last === undefined ? '' : ` (last error: ${last.message ?? String(last)})`}`);
		await new Promise(resolve => setTimeout(resolve, intervalMs));
	}
}
