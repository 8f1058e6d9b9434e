/**
 * The project's conformance fixture (dist/demo/conformance-server.js), the
 * upstream hangar will front to run the official MCP conformance suite
 * through it, checked against that suite directly: every scenario of the
 * 2025-11-25 requirements, which include every active one, passes with no
 * expected failures (an empty baseline, under which the CLI also fails on
 * warnings).
 * Also: stdio mode speaks MCP and ends with stdin, and HTTP mode ends with its
 * parent's pipe, so the fixture never outlives what started it.
 */
import {spawn} from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import {afterEach, describe, expect, it} from 'vitest';
import {conformanceServerPath, referencePassesActive, requirementsRun, serveConformanceFixture, stopConformanceFixtures} from '../support/conformance.js';
import {tempDir} from '../support/hangar.js';

afterEach(async () => {
	await stopConformanceFixtures();
});

/** One JSON-RPC line per message, as the stdio transport frames them. */
const line = (message: unknown) => `${JSON.stringify(message)}\n`;

describe('the conformance fixture against the MCP conformance suite', () => {
	it('passes all 33 scenarios of the 2025-11-25 requirements directly, with no expected failures, among them every active one', {timeout: 300_000}, async () => {
		const fixture = await serveConformanceFixture();
		const dir = tempDir();
		const noFailures = path.join(dir, 'no-expected-failures.yml');
		fs.writeFileSync(noFailures, 'server: []\n');

		const run = await requirementsRun(fixture.url, noFailures, path.join(dir, 'results'));
		expect(run.code, run.output).toBe(0);
		expect(run.ran.length).toBe(Number(/Running requirements 2025-11-25 \((\d+) scenarios\)/.exec(run.output)?.[1]));
		expect(run.ran).toHaveLength(33);
		// server-sse-polling checks nothing against a server that does not close its streams early (it only warns).
		for (const scenario of run.ran) expect(run.output, scenario).toMatch(new RegExp(`^✓ ${scenario}: ${scenario === 'server-sse-polling' ? '\\d+' : '[1-9]\\d*'} passed, 0 failed$`, 'm'));
		for (const scenario of referencePassesActive) expect(run.ran, scenario).toContain(scenario);
		expect(run.output).toMatch(/^✓ json-schema-2020-12: [1-9]\d* passed, 0 failed$/m);
		expect(fixture.stderr()).not.toMatch(/failed/);
	});
});

describe('the conformance fixture as a process', () => {
	it('speaks MCP over stdio and exits with code 0 when stdin ends', async () => {
		const child = spawn(process.execPath, [conformanceServerPath], {stdio: ['pipe', 'pipe', 'pipe']});
		const exited = new Promise<number | null>(resolve => child.on('exit', resolve));
		const responses: Array<{id?: number; result?: {tools?: Array<{name: string}>; serverInfo?: {name: string}}}> = [];
		let buffered = '';
		const listed = new Promise<void>(resolve => {
			child.stdout.on('data', (chunk: Buffer) => {
				buffered += chunk.toString();
				const lines = buffered.split('\n');
				buffered = lines.pop()!;
				for (const text of lines) {
					responses.push(JSON.parse(text) as (typeof responses)[number]);
					if (responses.some(response => response.id === 2)) resolve();
				}
			});
		});

		child.stdin.write(line({jsonrpc: '2.0', id: 1, method: 'initialize', params: {protocolVersion: '2025-11-25', capabilities: {}, clientInfo: {name: 'fixture-test', version: '1.0.0'}}}));
		child.stdin.write(line({jsonrpc: '2.0', method: 'notifications/initialized'}));
		child.stdin.write(line({jsonrpc: '2.0', id: 2, method: 'tools/list'}));
		await listed;
		expect(responses.find(response => response.id === 1)?.result?.serverInfo?.name).toBe('hangar-conformance-fixture');
		expect(responses.find(response => response.id === 2)?.result?.tools?.map(tool => tool.name)).toContain('test_simple_text');

		child.stdin.end();
		expect(await exited).toBe(0);
	});

	it('over HTTP, exits with code 0 when the pipe from its parent closes', async () => {
		const fixture = await serveConformanceFixture();
		fixture.child.stdin!.end();
		expect(await fixture.exited).toBe(0);
	});

	it('over HTTP, refuses a request from an Origin that is not its loopback address', async () => {
		const fixture = await serveConformanceFixture();
		const port = new URL(fixture.url).port;
		const initialize = {jsonrpc: '2.0', id: 1, method: 'initialize', params: {protocolVersion: '2025-11-25', capabilities: {}, clientInfo: {name: 'fixture-test', version: '1.0.0'}}};
		const post = async (headers: Record<string, string>) =>
			fetch(fixture.url, {method: 'POST', headers: {'Content-Type': 'application/json', Accept: 'application/json, text/event-stream', ...headers}, body: JSON.stringify(initialize)});

		const rebound = await post({Origin: `http://evil.example.com:${port}`});
		expect(rebound.status).toBe(403);
		expect(await rebound.text()).toMatch(/Origin header .*evil\.example\.com.* DNS rebinding/);
		const local = await post({Origin: `http://localhost:${port}`});
		expect(local.status).toBe(200);
		await local.body?.cancel();
	});
});
