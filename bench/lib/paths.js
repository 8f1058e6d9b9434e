/**
 * The three paths a call can take, each an SDK `Client` over a
 * `StdioClientTransport`, and the hangar configs the scenarios write.
 *
 *   direct: client -> fixture server
 *   hop:    client -> bench/hop.js -> fixture server
 *   hangar: client -> mcp-hangar --stdio -> fixture server
 */
import fs from 'node:fs';
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
 * (spawn + initialize + initialized). Returns the client, the child's pid and
 * its stderr tail.
 */
export async function connect(command, args, {name = 'hangar-bench', env = {}} = {}) {
	const transport = new StdioClientTransport({command, args, env: taggedEnv(env), stderr: 'pipe'});
	const stderr = tail(transport.stderr);
	const client = new Client({name, version: '1.0.0'});
	await client.connect(transport);
	return {
		client,
		pid: transport.pid,
		stderr,
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

/** Starts `mcp-hangar --stdio --config FILE` and connects to it. */
export async function connectHangar(configFile, {args = []} = {}) {
	return connect(process.execPath, [...hangarNodeArgs, hangarBuild.cli, '--stdio', '--config', configFile, ...args]);
}

/**
 * Opens the three paths every latency scenario compares (direct, the minimal
 * hop, a warm hangar), runs `work(sessions)` and closes them all, whatever
 * happens.
 */
export async function withThreePaths(work) {
	const sessions = {};
	try {
		sessions.direct = await connectDirect();
		sessions.hop = await connectHop();
		sessions.hangar = await connectHangarWarm();
		return await work(sessions);
	} finally {
		await Promise.all(Object.values(sessions).map(async session => session.close()));
	}
}

/** A warm hangar in front of one fixture server (lazy: false), ready to route `fx__echo`. */
export async function connectHangarWarm(mode = 'normal', extra = []) {
	const dir = tempDir();
	const file = writeHangarConfig(dir, {fx: serverEntry(fixtureCommand(mode, extra), {lazy: false})});
	const session = await connectHangar(file);
	let upstreamPid;
	try {
		upstreamPid = await waitFor(async () => {
			const entry = (await hangarList(session.client)).find(candidate => candidate.name === 'fx');
			return entry?.state === 'ready' && entry.pid;
		}, 'upstream fx to be ready', 30_000);
	} catch (error) {
		await session.close();
		throw new Error(`${error.message}; hangar stderr: ${session.stderr()}`);
	}

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

/** One tools/call as the hot loop does it: client.request with CallToolResultSchema (no output-schema re-check). */
export async function callTool(client, name, args, options) {
	return client.request({method: 'tools/call', params: {name, arguments: args}}, CallToolResultSchema, options);
}

export async function hangarList(client) {
	const result = await callTool(client, 'hangar_list', {});
	return result.structuredContent.providers;
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
