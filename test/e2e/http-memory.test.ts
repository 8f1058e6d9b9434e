/**
 * Memory returns after HTTP sessions are reaped: `serve --http` with a 1 s
 * session idle limit takes bursts of 600 abandoned sessions (initialize,
 * tools/list, a call, then silence). Once hangar has warmed up (two bursts:
 * V8's young generation grows to its maximum, the JIT compiles, the call
 * log's ring fills), another burst leaves its RSS and heap, after a forced
 * full GC, within 5% of where they were. Real processes: the built hangar
 * (with a test-only GC hook preloaded, test/support/gc-on-signal.mjs) and
 * the fixture server.
 */
import {spawn} from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import {afterEach, describe, expect, it} from 'vitest';
import {cliPath, fixture, root, tempDir, waitFor, writeConfig} from '../support/hangar.js';

const stops: Array<() => void> = [];
afterEach(() => {
	for (const stop of stops.splice(0)) stop();
});

type Reading = {rss: number; heapUsed: number};

describe('HTTP sessions that are reaped', () => {
	it('leave RSS and heap within 5% of their level before 600 more sessions, after a forced GC', async () => {
		const dir = tempDir();
		const report = path.join(dir, 'gc.jsonl');
		const config = writeConfig(dir, {fx: fixture('normal')}, {httpSessionIdleSeconds: 1});
		const hook = path.join(root, 'test', 'support', 'gc-on-signal.mjs');
		const hangar = spawn(process.execPath, ['--expose-gc', '--import', hook, cliPath, 'serve', '--http', '--port', '0', '--config', config], {
			env: {...process.env, MCP_HANGAR_TOKEN: '', HANGAR_TEST_GC_REPORT: report},
			stdio: ['ignore', 'ignore', 'pipe'],
		});
		stops.push(() => hangar.kill('SIGKILL'));
		let log = '';
		hangar.stderr.on('data', (chunk: Buffer) => {
			log += chunk.toString();
		});
		const url = await waitFor(() => /serving MCP over HTTP at (http:\/\/\S+)/.exec(log)?.[1], 'serve --http to listen');
		const headers = {'content-type': 'application/json', accept: 'application/json, text/event-stream'};
		const post = async (body: object, session?: string): Promise<Response> =>
			fetch(url, {method: 'POST', headers: session === undefined ? headers : {...headers, 'mcp-session-id': session, 'mcp-protocol-version': '2025-06-18'}, body: JSON.stringify({jsonrpc: '2.0', ...body})});
		const abandonedSession = async (n: number): Promise<void> => {
			const opened = await post({id: 1, method: 'initialize', params: {protocolVersion: '2025-06-18', capabilities: {}, clientInfo: {name: `c${n}`, version: '1'}}});
			const session = opened.headers.get('mcp-session-id')!;
			await opened.text();
			await (await post({method: 'notifications/initialized'}, session)).text();
			await (await post({id: 2, method: 'tools/list'}, session)).text();
			await (await post({id: 3, method: 'tools/call', params: {name: 'fx__echo', arguments: {message: 'x'}}}, session)).text();
		};

		const closedSessions = (): number => log.split('session closed').length - 1;
		let opened = 0;
		const burst = async (): Promise<void> => {
			for (let batch = 0; batch < 600; batch += 20) await Promise.all(Array.from({length: 20}, async () => abandonedSession(opened++)));
			await waitFor(() => closedSessions() >= opened, 'every session to be reaped', 60_000, 100);
		};

		const readings = (): Reading[] => (fs.existsSync(report) ? fs.readFileSync(report, 'utf8').trim().split('\n').map(line => JSON.parse(line) as Reading) : []);
		const measure = async (): Promise<Reading> => {
			const before = readings().length;
			hangar.kill('SIGUSR2');
			return waitFor(() => readings()[before], 'a reading after a forced GC');
		};

		await burst();
		await burst();
		const before = await measure();
		await burst();
		const after = await measure();
		const mib = (bytes: number): string => `${(bytes / 1048576).toFixed(1)} MiB`;
		const what = `RSS ${mib(before.rss)} -> ${mib(after.rss)}, heap ${mib(before.heapUsed)} -> ${mib(after.heapUsed)}`;
		expect(after.rss / before.rss, what).toBeLessThan(1.05);
		expect(after.heapUsed / before.heapUsed, what).toBeLessThan(1.05);
	}, 240_000);
});
