/**
 * Test support: temp configs, the built `mcp-hangar --stdio` driven by a real
 * SDK client, the process table, and waiting on conditions instead of sleeping.
 */
import {execFile} from 'node:child_process';
import {randomUUID} from 'node:crypto';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import {fileURLToPath, pathToFileURL} from 'node:url';
import {Client} from '@modelcontextprotocol/sdk/client/index.js';
import {StdioClientTransport} from '@modelcontextprotocol/sdk/client/stdio.js';
import {McpError} from '@modelcontextprotocol/sdk/types.js';
import type {StatusEntry} from '../../source/core/gateway/management-tools.js';
import {guardedHomeVariable} from './state-dir-guard.js';

export const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');
export const cliPath = path.join(root, 'dist', 'cli.js');
export const fixturePath = path.join(root, 'dist', 'demo', 'fixture-server.js');
export const everythingPath = path.join(root, 'node_modules', '@modelcontextprotocol', 'server-everything', 'dist', 'index.js');
export const memoryPath = path.join(root, 'node_modules', '@modelcontextprotocol', 'server-memory', 'dist', 'index.js');

export type ServerEntry = Record<string, unknown>;

/** A loopback port that was free a moment ago, for a server that must be told its port. */
export async function freePort(): Promise<number> {
	const server = net.createServer();
	await new Promise<void>(resolve => server.listen(0, '127.0.0.1', resolve));
	const {port} = server.address() as net.AddressInfo;
	await new Promise(resolve => server.close(resolve));
	return port;
}

export function tempDir(prefix = 'hangar-test-'): string {
	return fs.mkdtempSync(path.join(os.tmpdir(), prefix));
}

/** A fixture server entry: `node fixture-server.js --mode MODE ...args`. */
export function fixture(mode: string, args: string[] = [], extra: ServerEntry = {}): ServerEntry {
	return {command: process.execPath, args: [fixturePath, '--mode', mode, ...args], ...extra};
}

export function everything(extra: ServerEntry = {}): ServerEntry {
	return {command: process.execPath, args: [everythingPath, 'stdio'], ...extra};
}

export function memory(dir: string, extra: ServerEntry = {}): ServerEntry {
	return {command: process.execPath, args: [memoryPath], env: {MEMORY_FILE_PATH: path.join(dir, 'memory.jsonl')}, ...extra};
}

/**
 * An upstream that does not exit when its stdin closes and ignores SIGTERM:
 * stopping it takes two stop grace periods (then SIGKILL), so the `stopping`
 * state lasts long enough to be read.
 */
export function stubborn(extra: ServerEntry = {}): ServerEntry {
	const script = [
		`process.argv = [process.argv[0], ${JSON.stringify(fixturePath)}, '--mode', 'normal', '--ignore-sigterm'];`,
		'process.exit = () => {};',
		'setInterval(() => {}, 1 << 30);',
		`await import(${JSON.stringify(pathToFileURL(fixturePath).href)});`,
	].join('\n');
	return {command: process.execPath, args: ['--input-type=module', '-e', script], ...extra};
}

/** Fast timings so breaker, restart and idle behaviour show within seconds. */
export const fastHangar = {
	backoffMinSeconds: 0.3,
	backoffMaxSeconds: 2,
	stopGraceSeconds: 0.5,
	healthIntervalSeconds: 0,
	pingTimeoutSeconds: 2,
	// The first list waits for launch discovery longer than the 2 s default, so a loaded test machine still lists
	// every upstream's tools in a session's first tools/list (tests of the wait itself set their own).
	firstListWaitSeconds: 10,
};

export function writeConfig(dir: string, servers: Record<string, ServerEntry>, hangar: Record<string, unknown> = {}): string {
	const file = path.join(dir, 'mcp-hangar.json');
	fs.writeFileSync(file, JSON.stringify({hangar: {stateDir: path.join(dir, 'state'), ...hangar}, mcpServers: servers}, null, 2));
	return file;
}

export type HangarHandle = {
	client: Client;
	transport: StdioClientTransport;
	tag: string;
	pid: number;
	stderr: () => string;
	close: () => Promise<void>;
};

/**
 * The environment of a hangar a test spawns: this run's, whose HOME and XDG
 * dirs the state dir guard (test/support/state-dir-guard.ts) points at a
 * temporary home, so a config without a `stateDir` keeps its state there
 * and never in the person's own. Refuses to run without the guard.
 */
export function spawnEnv(extra: Record<string, string> = {}): Record<string, string> {
	if (process.env[guardedHomeVariable] === undefined) throw new Error('the state dir guard is off: run the tests through vitest with vitest.config.ts');
	return {...(process.env as Record<string, string>), ...extra};
}

export type CliRun = {code: number | null; stdout: string; stderr: string; tag: string};

/** Runs the built CLI with `args`, tagged with a new HANGAR_TEST_TAG, and resolves with its exit code and output once it exits. */
export async function runCli(args: string[]): Promise<CliRun> {
	const tag = randomUUID();
	return new Promise(resolve => {
		execFile(process.execPath, [cliPath, ...args], {env: spawnEnv({HANGAR_TEST_TAG: tag}), timeout: 50_000}, (error, stdout, stderr) => {
			resolve({code: error === null ? 0 : typeof error.code === 'number' ? error.code : null, stdout, stderr, tag});
		});
	});
}

export type HangarOptions = {
	/** Added after `--stdio --config FILE`. */
	args?: string[];
	/**
	 * Through the shared supervisor, as `--stdio` runs by default: attach to
	 * the one running the config, or start one. Otherwise (the default here)
	 * `--standalone`: a supervisor for this client alone, in its own process,
	 * which is what most tests look at.
	 */
	shared?: boolean;
	/** Its HANGAR_TEST_TAG (default: a new one), e.g. a TUI's, to count it among that TUI's processes. */
	tag?: string;
	/** What the client calls itself in initialize (default: hangar-test 1.0.0). */
	clientInfo?: {name: string; version: string};
	/** The SDK client to connect (default: a new one without capabilities), e.g. one that answers sampling. */
	client?: Client;
	/** Added to its environment, e.g. a sample home's HOME and MCP_HANGAR_STATE_DIR. */
	env?: Record<string, string>;
};

/** Spawns the built `mcp-hangar --stdio` and connects a real SDK client to it (unless `connect` is false). */
export async function startHangar(configFile: string, options: HangarOptions & {connect?: boolean} = {}): Promise<HangarHandle> {
	const tag = options.tag ?? randomUUID();
	const transport = new StdioClientTransport({
		command: process.execPath,
		args: [cliPath, '--stdio', '--config', configFile, ...(options.shared === true ? [] : ['--standalone']), ...(options.args ?? [])],
		env: spawnEnv({...options.env, HANGAR_TEST_TAG: tag}),
		stderr: 'pipe',
	});
	let stderr = '';
	transport.stderr?.on('data', (chunk: Buffer) => {
		stderr += chunk.toString();
	});
	const client = options.client ?? new Client(options.clientInfo ?? {name: 'hangar-test', version: '1.0.0'});
	if (options.connect !== false) await client.connect(transport);
	return {
		client,
		transport,
		tag,
		pid: transport.pid!,
		stderr: () => stderr,
		close: async () => {
			await client.close();
		},
	};
}

const opened: HangarHandle[] = [];

/** startHangar, remembered so that closeHangars (an afterEach hook) closes it. */
export async function openHangar(configFile: string, options: HangarOptions = {}): Promise<HangarHandle> {
	const handle = await startHangar(configFile, options);
	opened.push(handle);
	return handle;
}

/** Closes every hangar openHangar started (closing twice is harmless). */
export async function closeHangars(): Promise<void> {
	await Promise.all(opened.splice(0).map(async handle => handle.close()));
}

/** Pids of live processes whose environment carries HANGAR_TEST_TAG=tag (hangar and everything it spawned). */
export function processesWithTag(tag: string): number[] {
	const needle = `HANGAR_TEST_TAG=${tag}`;
	const found: number[] = [];
	for (const entry of fs.readdirSync('/proc')) {
		if (!/^\d+$/.test(entry)) continue;
		try {
			const environ = fs.readFileSync(`/proc/${entry}/environ`, 'utf8');
			if (!environ.split('\0').includes(needle)) continue;
			const stat = fs.readFileSync(`/proc/${entry}/stat`, 'utf8');
			// A zombie is already dead; it only waits for its parent to reap it.
			if (/\) Z /.test(stat)) continue;
			found.push(Number(entry));
		} catch {}
	}

	return found;
}

/**
 * Checks `check` until it gives a value (not undefined or false), or fails
 * naming `what` after `timeoutMs`. It checks again after `intervalMs`, then
 * less often the longer it waits, up to every 100 ms: a check is often a
 * call to a supervisor or a read of the whole process table, and a long wait
 * at the first pace spent the CPU the suite's other workers need.
 */
export async function waitFor<T>(
	check: () => T | undefined | false | Promise<T | undefined | false>,
	what: string,
	timeoutMs = 30_000,
	intervalMs = 25,
): Promise<T> {
	const deadline = Date.now() + timeoutMs;
	const slowest = Math.max(intervalMs, 100);
	let pause = intervalMs;
	let last: unknown;
	for (;;) {
		try {
			const value = await check();
			if (value !== undefined && value !== false) return value;
		} catch (error) {
			last = error;
		}

		if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}${last === undefined ? '' : ` (last error: ${String(last)})`}`);
		await new Promise(resolve => setTimeout(resolve, pause));
		pause = Math.min(slowest, Math.ceil(pause * 1.5));
	}
}

/** What hangar_list returns per upstream: the engine's own type, so tests and status cannot drift apart. */
export type {StatusEntry};

export async function status(client: Client): Promise<StatusEntry[]> {
	const result = await client.callTool({name: 'hangar_list', arguments: {}});
	return (result.structuredContent as {upstreams: StatusEntry[]}).upstreams;
}

export async function statusOf(client: Client, name: string): Promise<StatusEntry> {
	const entry = (await status(client)).find(upstream => upstream.name === name);
	if (entry === undefined) throw new Error(`no upstream ${name} in hangar_list`);
	return entry;
}

/** Whether the process with `pid` runs (a zombie has exited: it only waits for its parent to reap it). */
export function isAlive(pid: number): boolean {
	try {
		process.kill(pid, 0);
		return !/\) Z /.test(fs.readFileSync(`/proc/${pid}/stat`, 'utf8'));
	} catch {
		return false;
	}
}

/** Waits until the process with `pid` is gone. */
export async function waitForExit(pid: number, timeoutMs = 20_000): Promise<void> {
	await waitFor(() => !isAlive(pid), `process ${pid} to exit`, timeoutMs);
}

export type SpawnedHangar = {
	child: import('node:child_process').ChildProcess;
	client: Client;
	tag: string;
	exited: Promise<{code: number | null; signal: NodeJS.Signals | null}>;
	stderr: () => string;
};

/**
 * Spawns `mcp-hangar --stdio --standalone` with node's child_process (so a
 * test can signal it and read its exit code) and connects an SDK client over
 * its pipes.
 */
export async function spawnHangar(configFile: string, env: Record<string, string> = {}): Promise<SpawnedHangar> {
	const {spawn} = await import('node:child_process');
	const {LineTransport} = await import('../../source/core/wire/line-transport.js');
	const tag = randomUUID();
	const child = spawn(process.execPath, [cliPath, '--stdio', '--standalone', '--config', configFile], {
		env: spawnEnv({...env, HANGAR_TEST_TAG: tag}),
		stdio: ['pipe', 'pipe', 'pipe'],
	});
	let stderr = '';
	child.stderr!.on('data', (chunk: Buffer) => {
		stderr += chunk.toString();
	});
	const exited = new Promise<{code: number | null; signal: NodeJS.Signals | null}>(resolve => {
		child.on('exit', (code, signal) => resolve({code, signal}));
	});
	const client = new Client({name: 'hangar-test', version: '1.0.0'});
	await client.connect(new LineTransport(child.stdout!, child.stdin!, 64 * 1024 * 1024));
	return {child, client, tag, exited, stderr: () => stderr};
}

/** The error `promise` rejects with, checked to be a `type`; fails if it resolves or rejects with anything else. */
export async function rejection<E extends Error>(promise: Promise<unknown>, type: abstract new (...args: never[]) => E): Promise<E> {
	try {
		await promise;
	} catch (error) {
		if (error instanceof type) return error;
		throw error;
	}

	throw new Error(`expected a ${type.name}, but the promise resolved`);
}

/** The JSON-RPC error a client call rejects with (fails if it resolves or rejects otherwise). */
export async function rpcError(promise: Promise<unknown>): Promise<McpError> {
	return rejection(promise, McpError);
}

/** The text of a tool execution error (a result with `isError: true`, one text item); fails on any other answer. */
export async function toolErrorText(promise: Promise<Record<string, unknown>>): Promise<string> {
	const result = await promise;
	const content = result.content as Array<{type?: unknown; text?: unknown}> | undefined;
	const only = content?.length === 1 ? content[0] : undefined;
	if (result.isError !== true || only?.type !== 'text' || typeof only.text !== 'string') throw new Error(`expected a tool execution error with one text item, got ${JSON.stringify(result)}`);
	return only.text;
}
