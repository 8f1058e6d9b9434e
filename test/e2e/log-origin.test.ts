/**
 * Nothing crosses clients, log messages included: a Streamable HTTP upstream
 * sends what it logs while handling a call on that call's own response
 * stream, so hangar knows whose it is (link/stream-origins.ts) and relays it
 * to that call's client only, at that client's level; never to another
 * client, even one with a call to the same upstream in flight at that
 * moment. Real subprocesses: the matrix fixture's upstreams as remote
 * Streamable HTTP servers (one instance shared by every client): the v1
 * SDK's with sessions, and the v2 SDK's 2026-07-28 one; hangar's
 * `serve --http` and `--stdio` endpoints, a v1 SDK client (a 2025 session,
 * `logging/setLevel` info) and a v2 SDK client pinned to 2026-07-28 (the
 * request's `_meta` level debug).
 */
import {randomUUID} from 'node:crypto';
import {once} from 'node:events';
import type {ChildProcess} from 'node:child_process';
import {Client} from '@modelcontextprotocol/sdk/client/index.js';
import {StdioClientTransport} from '@modelcontextprotocol/sdk/client/stdio.js';
import {StreamableHTTPClientTransport} from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import {LoggingMessageNotificationSchema} from '@modelcontextprotocol/sdk/types.js';
import {Client as ModernClient, StreamableHTTPClientTransport as ModernHttp} from '@modelcontextprotocol/client';
import {StdioClientTransport as ModernStdio} from '@modelcontextprotocol/client/stdio';
import {afterAll, beforeAll, describe, expect, it} from 'vitest';
import {cliPath, fastHangar, runCli, spawnEnv, tempDir, waitFor, writeConfig} from '../support/hangar.js';
import {serveHttp, stopHttpHangars} from '../support/http-hangar.js';
import {startMatrixUpstreamOverHttp} from '../support/compat-matrix.js';

const logTool = 'remote__log';
const eras = ['legacy', 'modern'] as const;
const upstreams: ChildProcess[] = [];
const upstreamUrls = new Map<string, string>();
const closers: Array<() => Promise<void>> = [];
const stdioConfigs: string[] = [];

/** A client through hangar: calls `log` (optionally held `until` another token has logged), and every log message it got. */
type Caller = {
	name: string;
	/** The `data` of every log message that reached it, in order. */
	received: string[];
	log(token: string, until?: string): Promise<unknown>;
};

/** A matrix upstream of `era` as a remote Streamable HTTP server on loopback; resolves with its URL. */
async function startUpstream(era: (typeof eras)[number]): Promise<string> {
	return startMatrixUpstreamOverHttp(era, 'remote', upstreams);
}

beforeAll(async () => {
	for (const era of eras) upstreamUrls.set(era, await startUpstream(era));
}, 30_000);

afterAll(async () => {
	await Promise.all(closers.splice(0).map(async close => close().catch(() => undefined)));
	await stopHttpHangars();
	for (const config of stdioConfigs) await runCli(['shutdown', '--config', config]);
	// Each ends when its stdin does.
	await Promise.all(
		upstreams.map(async child => {
			if (child.exitCode !== null || child.signalCode !== null) return;
			const exited = once(child, 'exit');
			child.stdin!.end();
			await exited;
		}),
	);
});

/** One instance of the remote upstream for every client of the hangar. */
const configFor = (era: string, hangar: Record<string, unknown> = {}) => writeConfig(tempDir(), {remote: {url: upstreamUrls.get(era)!, instances: 'shared'}}, {...fastHangar, ...hangar});

/** A v1 SDK client (a 2025-11-25 session) that asked for `info` and up. */
async function legacyCaller(endpoint: 'http' | 'stdio', target: string): Promise<Caller> {
	const received: string[] = [];
	const client = new Client({name: 'log-origin-v1', version: '1.0.0'});
	client.setNotificationHandler(LoggingMessageNotificationSchema, async notification => void received.push(String(notification.params.data)));
	const transport =
		endpoint === 'http'
			? new StreamableHTTPClientTransport(new URL(target))
			: new StdioClientTransport({command: process.execPath, args: [cliPath, '--stdio', '--config', target], env: spawnEnv({HANGAR_TEST_TAG: randomUUID()}), stderr: 'pipe'});
	await client.connect(transport);
	closers.push(async () => client.close());
	await client.setLoggingLevel('info');
	return {name: 'the 2025 client', received, log: async (token, until) => client.callTool({name: logTool, arguments: until === undefined ? {token} : {token, until}})};
}

/** A v2 SDK client pinned to 2026-07-28, each request asking for `debug` and up. */
async function modernCaller(endpoint: 'http' | 'stdio', target: string): Promise<Caller> {
	const received: string[] = [];
	const client = new ModernClient({name: 'log-origin-v2', version: '1.0.0'}, {versionNegotiation: {mode: {pin: '2026-07-28'}}});
	client.setNotificationHandler('notifications/message', notification => void received.push(String(notification.params.data)));
	const transport =
		endpoint === 'http'
			? new ModernHttp(new URL(target))
			: new ModernStdio({command: process.execPath, args: [cliPath, '--stdio', '--config', target], env: spawnEnv({HANGAR_TEST_TAG: randomUUID()}), stderr: 'pipe'});
	await client.connect(transport);
	closers.push(async () => client.close());
	expect(client.getNegotiatedProtocolVersion()).toBe('2026-07-28');
	return {
		name: 'the 2026-07-28 client',
		received,
		log: async (token, until) => client.callTool({name: logTool, arguments: until === undefined ? {token} : {token, until}, _meta: {'io.modelcontextprotocol/logLevel': 'debug'}}),
	};
}

/**
 * `holder` calls `log` and stays in flight (the upstream answers it only once
 * a `release` token has logged); once its own message has reached it,
 * `other` calls `log` on the same shared upstream instance, then logs the
 * release token (so the holder's call is still in flight while hangar relays
 * both of `other`'s calls' messages). Each gets its own messages, at its own
 * level, and none of the other's.
 */
async function crossedCalls(holder: Caller, other: Caller, levels: Map<Caller, string[]>): Promise<void> {
	const token = (what: string) => `${what}-${randomUUID().slice(0, 8)}`;
	const [held, meanwhile, release] = [token('held'), token('meanwhile'), token('release')];
	const holding = holder.log(held, release);
	await waitFor(() => holder.received.includes(`info ${held}`) || undefined, `${holder.name}'s own log message while its call is in flight`);
	// Each call's answer follows its messages on its stream: once answered, whatever hangar relayed of them has arrived.
	await other.log(meanwhile);
	await other.log(release);
	await holding;
	const tokens = new Map<Caller, string[]>([
		[holder, [held]],
		[other, [meanwhile, release]],
	]);
	for (const [caller, own] of tokens) {
		const strangers = tokens.get(caller === holder ? other : holder)!;
		const ofToken = (list: string[]) => caller.received.filter(data => list.some(item => data.endsWith(` ${item}`)));
		expect.soft(ofToken(strangers), `what ${caller.name} got of the other client's calls`).toEqual([]);
		expect.soft(ofToken(own), `${caller.name}'s own calls' messages`).toEqual(own.flatMap(item => levels.get(caller)!.map(level => `${level} ${item}`)));
	}
}

describe('a log message an upstream sends on a call\'s own stream reaches only that call\'s client', () => {
	for (const [era, endpoint] of eras.flatMap(era => (['http', 'stdio'] as const).map(endpoint => [era, endpoint] as const))) {
		it(`from a ${era === 'legacy' ? '2025 (v1 SDK)' : '2026-07-28 (v2 SDK)'} upstream, through hangar's ${endpoint === 'http' ? 'serve --http' : '--stdio'} endpoint, with calls of a 2025 and a 2026-07-28 client in flight at once`, async () => {
			let target: string;
			if (endpoint === 'http') target = (await serveHttp(configFor(era))).url;
			else {
				// The shared supervisor both stdio clients attach to ends soon after the last one leaves.
				target = configFor(era, {lingerSeconds: 1});
				stdioConfigs.push(target);
			}

			// One after the other: the first stdio client starts the shared supervisor the second attaches to.
			const legacy = await legacyCaller(endpoint, target);
			const modern = await modernCaller(endpoint, target);
			// The 2025 client asked for info and up; the 2026-07-28 one's requests for debug and up (hangar asks the upstream for debug).
			const levels = new Map<Caller, string[]>([
				[legacy, ['info']],
				[modern, ['debug', 'info']],
			]);
			await crossedCalls(legacy, modern, levels);
			await crossedCalls(modern, legacy, levels);
		}, 60_000);
	}
});
