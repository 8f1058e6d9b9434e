/**
 * 2026-07-28 upstreams behind hangar (issue 31, item 2 and "legacy client,
 * modern upstream"): each upstream's era is probed once with
 * server/discover and saved in the state dir; a modern upstream is driven in
 * modern mode (no initialize, a `_meta` envelope per request); its
 * `input_required` answers become requests to the 2025 client that made the
 * call, under the client-faithful rules. Real subprocesses: the v2 server
 * SDK fixture (source/demo/modern-server.ts), hangar, and v1 SDK clients.
 */
import fs from 'node:fs';
import path from 'node:path';
import {afterEach, describe, expect, it} from 'vitest';
import {Client} from '@modelcontextprotocol/sdk/client/index.js';
import {ElicitRequestSchema} from '@modelcontextprotocol/sdk/types.js';
import {Client as ModernClient} from '@modelcontextprotocol/client';
import {StdioClientTransport as ModernStdio} from '@modelcontextprotocol/client/stdio';
import {cliPath, closeHangars, everything, fastHangar, fixture, openHangar, root, runCli, spawnEnv, statusOf, tempDir, writeConfig, type ServerEntry} from '../support/hangar.js';

const modernServerPath = path.join(root, 'dist', 'demo', 'modern-server.js');

function modernServer(args: string[], extra: ServerEntry = {}): ServerEntry {
	return {command: process.execPath, args: [modernServerPath, ...args], namespace: false, ...extra};
}

function starts(file: string): number {
	return fs.existsSync(file) ? fs.readFileSync(file, 'utf8').split('\n').filter(line => line !== '').length : 0;
}

function savedEra(dir: string, name: string): Record<string, unknown> | undefined {
	const state = JSON.parse(fs.readFileSync(path.join(dir, 'state', 'state.json'), 'utf8')) as {upstreams: Record<string, {era?: Record<string, unknown>}>};
	return state.upstreams[name]?.era;
}

afterEach(closeHangars);

describe('a 2026-07-28 upstream', () => {
	it('is probed once (server/discover, then initialize to tell it from a dual-era one), driven as 2026-07-28, and its verdict is saved for the next start', async () => {
		const dir = tempDir();
		const startsFile = path.join(dir, 'starts');
		const config = writeConfig(dir, {modern: modernServer(['--legacy', 'reject', '--starts-file', startsFile])}, fastHangar);
		const first = await openHangar(config);
		const era = await first.client.callTool({name: 'era', arguments: {}});
		expect(era.content).toEqual([{type: 'text', text: '2026-07-28'}]);
		const echoed = await first.client.callTool({name: 'echo', arguments: {message: 'hi'}});
		expect(echoed).toEqual({content: [{type: 'text', text: 'Echo: hi'}]});
		const entry = await statusOf(first.client, 'modern');
		expect(entry.era).toMatchObject({era: 'modern', protocolVersion: '2026-07-28'});
		await first.close();
		const saved = savedEra(dir, 'modern');
		expect(saved).toMatchObject({era: 'modern', protocolVersion: '2026-07-28', server: 'modern-fixture@1.0.0'});
		// The first start: the probe (server/discover answered), the 2025 initialize it refuses (is it dual-era?), then pinned to 2026-07-28.
		expect(starts(startsFile)).toBe(3);
		// status reads it from the saved state, with no hangar running.
		const json = JSON.parse((await runCli(['status', '--json', '--config', config])).stdout) as {upstreams: Array<{name: string; era: unknown}>};
		expect(json.upstreams.find(upstream => upstream.name === 'modern')?.era).toEqual({era: 'modern', protocolVersion: '2026-07-28', learnedAt: new Date(saved!['at'] as number).toISOString()});
		expect((await runCli(['status', '--config', config])).stdout).toMatch(/^modern\s.*\s2026-07-28\s+-$/m);

		const second = await openHangar(config);
		expect((await second.client.callTool({name: 'era', arguments: {}})).content).toEqual([{type: 'text', text: '2026-07-28'}]);
		await second.close();
		expect(savedEra(dir, 'modern')).toEqual(saved);
		expect(starts(startsFile)).toBe(4);
	});

	it('dual-era (a v2 server that serves both generations) is saved as dual and driven in its 2025 mode for 2025 clients, and the verdict spares the next start the probe', async () => {
		const dir = tempDir();
		const startsFile = path.join(dir, 'starts');
		const config = writeConfig(dir, {dual: modernServer(['--legacy', 'serve', '--starts-file', startsFile])}, fastHangar);
		const first = await openHangar(config);
		expect((await first.client.callTool({name: 'era', arguments: {}})).content).toEqual([{type: 'text', text: '2025'}]);
		await first.close();
		expect(savedEra(dir, 'dual')).toMatchObject({era: 'dual', protocolVersion: '2025-11-25'});
		// The probe's connection (server/discover answered), then the one initialize opened.
		expect(starts(startsFile)).toBe(2);
		const second = await openHangar(config);
		expect((await second.client.callTool({name: 'era', arguments: {}})).content).toEqual([{type: 'text', text: '2025'}]);
		await second.close();
		expect(starts(startsFile)).toBe(3);
	});

	it('a legacy upstream (server-everything answers the probe with an error) is saved as legacy, and forgotten when it reports another server version', async () => {
		const dir = tempDir();
		const config = writeConfig(dir, {every: everything({namespace: false})}, fastHangar);
		const first = await openHangar(config);
		await first.client.callTool({name: 'echo', arguments: {message: 'x'}});
		expect((await statusOf(first.client, 'every')).era).toMatchObject({era: 'legacy', protocolVersion: '2025-11-25'});
		await first.close();
		const saved = savedEra(dir, 'every')!;
		expect(saved).toMatchObject({era: 'legacy', server: expect.stringMatching(/^mcp-servers\/everything@/)});
		// The state as a start of another version of it left it: the saved verdict no longer holds.
		const file = path.join(dir, 'state', 'state.json');
		const state = JSON.parse(fs.readFileSync(file, 'utf8'));
		state.upstreams.every.era.server = 'mcp-servers/everything@0.0.1';
		state.upstreams.every.era.at = 1;
		fs.writeFileSync(file, JSON.stringify(state));
		const second = await openHangar(config);
		await statusOf(second.client, 'every');
		await second.client.callTool({name: 'echo', arguments: {message: 'x'}});
		await second.close();
		expect(savedEra(dir, 'every')).toBeUndefined();
	});
});

describe('a 2025 upstream that exits on the server/discover probe', () => {
	it('is spawned again with initialize at its first start only: the saved verdict spares the next start the probe', async () => {
		const dir = tempDir();
		const startsFile = path.join(dir, 'starts');
		const config = writeConfig(dir, {strict: fixture('strict-init', ['--starts-file', startsFile], {namespace: false})}, fastHangar);
		const first = await openHangar(config);
		expect((await first.client.callTool({name: 'echo', arguments: {message: 'a'}})).content).toEqual([{type: 'text', text: 'a'}]);
		expect((await statusOf(first.client, 'strict')).era).toMatchObject({era: 'legacy'});
		await first.close();
		expect(starts(startsFile)).toBe(2);
		expect(savedEra(dir, 'strict')).toMatchObject({era: 'legacy'});

		const second = await openHangar(config);
		expect((await second.client.callTool({name: 'echo', arguments: {message: 'b'}})).content).toEqual([{type: 'text', text: 'b'}]);
		await second.close();
		expect(starts(startsFile)).toBe(3);
	});
});

describe('a 2025 upstream of a protocol version hangar does not speak', () => {
	it('fails to start with an error that names the version it answered and the ones hangar speaks', async () => {
		const dir = tempDir();
		const config = writeConfig(dir, {odd: fixture('normal', ['--protocol-version', '2023-01-01'], {namespace: false})}, fastHangar);
		const run = await runCli(['call', 'odd', 'echo', '--args', '{"message": "a"}', '--config', config]);
		expect(run.code).toBe(1);
		expect(run.stderr).toContain('upstream "odd"');
		expect(run.stderr).toContain('2023-01-01');
		for (const version of ['2026-07-28', '2025-11-25', '2024-11-05']) expect(run.stderr).toContain(version);
		// Not the advice for a command that cannot run: the server runs, and speaks another revision.
		expect(run.stderr).not.toContain('check its command, args and env');
	});

	it('an older revision hangar speaks (2024-11-05) is driven, and status shows it as its era', async () => {
		const dir = tempDir();
		const config = writeConfig(dir, {old: fixture('normal', ['--protocol-version', '2024-11-05'], {namespace: false})}, fastHangar);
		const hangar = await openHangar(config);
		expect((await hangar.client.callTool({name: 'echo', arguments: {message: 'old'}})).content).toEqual([{type: 'text', text: 'old'}]);
		expect((await statusOf(hangar.client, 'old')).era).toMatchObject({era: 'legacy', protocolVersion: '2024-11-05'});
	});
});

describe('input requests of a 2026-07-28 upstream, for a 2025 client', () => {
	function elicitingClient(answers: unknown[]): Client {
		const client = new Client({name: 'legacy-with-elicitation', version: '1.0.0'}, {capabilities: {elicitation: {}}});
		client.setRequestHandler(ElicitRequestSchema, async request => {
			answers.push(request.params);
			return {action: 'accept', content: {ok: true}};
		});
		return client;
	}

	it('become an elicitation/create to the client that made the call, and its answer goes back with the same requestState', async () => {
		const dir = tempDir();
		const asked: unknown[] = [];
		const hangar = await openHangar(writeConfig(dir, {modern: modernServer(['--legacy', 'reject'])}, fastHangar), {client: elicitingClient(asked)});
		const result = await hangar.client.callTool({name: 'confirm', arguments: {action: 'deploy'}});
		expect(result).toEqual({content: [{type: 'text', text: 'confirmed deploy: true'}]});
		expect(asked).toEqual([expect.objectContaining({message: 'Do deploy?', requestedSchema: expect.objectContaining({type: 'object'})})]);
	});

	it('reach a v2 SDK client in 2025 mode the same way', async () => {
		const dir = tempDir();
		const client = new ModernClient({name: 'v2-legacy-mode', version: '1.0.0'}, {capabilities: {elicitation: {}}, versionNegotiation: {mode: 'legacy'}});
		client.setRequestHandler('elicitation/create', async () => ({action: 'accept', content: {ok: false}}));
		const transport = new ModernStdio({command: process.execPath, args: [cliPath, '--stdio', '--config', writeConfig(dir, {modern: modernServer(['--legacy', 'reject'])}, fastHangar), '--standalone'], env: spawnEnv(), stderr: 'pipe'});
		await client.connect(transport);
		try {
			const result = await client.callTool({name: 'confirm', arguments: {action: 'release'}});
			expect(result.content).toEqual([{type: 'text', text: 'confirmed release: false'}]);
		} finally {
			await client.close();
		}
	});

	it('reach a client pinned to 2026-07-28 as hangar\'s own input_required, both legs modern, and its answer goes back to the upstream', async () => {
		const dir = tempDir();
		const client = new ModernClient({name: 'v2-modern', version: '1.0.0'}, {capabilities: {elicitation: {}}, versionNegotiation: {mode: {pin: '2026-07-28'}}});
		const asked: string[] = [];
		client.setRequestHandler('elicitation/create', async request => {
			asked.push(request.params.message);
			return {action: 'accept', content: {ok: true}};
		});
		const transport = new ModernStdio({command: process.execPath, args: [cliPath, '--stdio', '--config', writeConfig(dir, {modern: modernServer(['--legacy', 'reject'])}, fastHangar), '--standalone'], env: spawnEnv(), stderr: 'pipe'});
		await client.connect(transport);
		try {
			expect((await client.callTool({name: 'era', arguments: {}})).content).toEqual([{type: 'text', text: '2026-07-28'}]);
			const result = await client.callTool({name: 'confirm', arguments: {action: 'ship'}});
			expect(result.content).toEqual([{type: 'text', text: 'confirmed ship: true'}]);
			expect(asked).toEqual(['Do ship?']);
		} finally {
			await client.close();
		}
	});

	it('are refused for a client that did not declare elicitation: the call fails with the reason, and nothing is answered in its name', async () => {
		const dir = tempDir();
		const hangar = await openHangar(writeConfig(dir, {modern: modernServer(['--legacy', 'reject'])}, fastHangar));
		const failure = await hangar.client.callTool({name: 'confirm', arguments: {action: 'deploy'}}).then(
			() => undefined,
			(error: unknown) => error as {code: number; message: string},
		);
		expect(failure?.code).toBe(-32_013);
		expect(failure?.message).toMatch(/elicitation\/create.*did not declare the "elicitation" capability/);
	});
});
