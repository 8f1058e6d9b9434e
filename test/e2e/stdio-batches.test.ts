/**
 * JSON-RPC batches on `--stdio` for sessions that negotiated 2025-03-26,
 * the one protocol version that has them: standalone, and through the
 * bridge to a running supervisor (which passes the batch line on intact).
 * Read raw, line by line: no SDK client sends batches.
 */
import {spawn, type ChildProcess} from 'node:child_process';
import readline from 'node:readline';
import {afterEach, describe, expect, it} from 'vitest';
import {cliPath, fastHangar, fixture, tempDir, waitFor, writeConfig} from '../support/hangar.js';
import {startDaemon, stopDaemons} from '../support/serve.js';

const children: ChildProcess[] = [];
afterEach(async () => {
	for (const child of children.splice(0)) child.kill();
	await stopDaemons();
});

/** `mcp-hangar --stdio` (with `args`), initialized at `version`: the lines it wrote, parsed, and a way to write one. */
async function stdioSession(config: string, version: string, args: string[] = []) {
	const child = spawn(process.execPath, [cliPath, '--stdio', '--config', config, ...args], {stdio: ['pipe', 'pipe', 'ignore']});
	children.push(child);
	const lines: unknown[] = [];
	readline.createInterface({input: child.stdout!}).on('line', line => lines.push(JSON.parse(line)));
	const write = (message: unknown) => child.stdin!.write(`${JSON.stringify(message)}\n`);
	write({jsonrpc: '2.0', id: 'init', method: 'initialize', params: {protocolVersion: version, capabilities: {}, clientInfo: {name: 'raw', version: '1'}}});
	await waitFor(() => lines.some(line => (line as {id?: unknown}).id === 'init'), 'the answer to initialize');
	write({jsonrpc: '2.0', method: 'notifications/initialized'});
	return {lines, write};
}

const batch = [
	{jsonrpc: '2.0', id: 'a', method: 'ping'},
	{jsonrpc: '2.0', method: 'notifications/roots/list_changed'},
	{jsonrpc: '2.0', id: 'b', method: 'tools/call', params: {name: 'fx__echo', arguments: {message: 'in a batch'}}},
	{jsonrpc: '2.0', id: 'c', method: 'initialize', params: {protocolVersion: '2025-03-26', capabilities: {}, clientInfo: {name: 'raw', version: '1'}}},
	{jsonrpc: '1.0', id: 'd', method: 'ping'},
];

/** Sends the batch and checks its one answer line: an array with one answer per request (errors for the bad ones), none for the notification. */
async function expectBatchAnswered(session: Awaited<ReturnType<typeof stdioSession>>): Promise<void> {
	session.write(batch);
	const answer = await waitFor(() => session.lines.find(line => Array.isArray(line)) as Array<{id: string; result?: unknown; error?: {message: string}}> | undefined, 'the batch\'s answer');
	expect(answer.map(member => member.id).sort()).toEqual(['a', 'b', 'c', 'd']);
	const byId = new Map(answer.map(member => [member.id, member]));
	expect(byId.get('a')?.result).toEqual({});
	expect(JSON.stringify(byId.get('b')?.result)).toContain('in a batch');
	expect(byId.get('c')?.error?.message).toContain('initialize must not be part of a JSON-RPC batch');
	expect(byId.get('d')?.error?.message).toContain('"jsonrpc" must be "2.0"');
	// Nothing of the batch was answered outside it.
	expect(session.lines.filter(line => ['a', 'b', 'c', 'd'].includes((line as {id?: string}).id!))).toEqual([]);
}

describe('JSON-RPC batches on --stdio', () => {
	it('answers a 2025-03-26 session\'s batch with one array line, standalone, and refuses batches from 2025-06-18 on', async () => {
		const config = writeConfig(tempDir(), {fx: fixture('normal', [], {lazy: false})}, fastHangar);
		await expectBatchAnswered(await stdioSession(config, '2025-03-26', ['--standalone']));

		const modern = await stdioSession(config, '2025-06-18', ['--standalone']);
		modern.write(batch);
		const refusal = await waitFor(() => modern.lines.find(line => (line as {error?: unknown}).error !== undefined) as {id: null; error: {code: number; message: string}} | undefined, 'the refusal');
		expect(refusal.id).toBeNull();
		expect(refusal.error.code).toBe(-32_600);
		expect(refusal.error.message).toContain('batches are not supported');
	});

	it('passes a 2025-03-26 session\'s batch through the bridge to a running supervisor intact, and its answer back', async () => {
		const config = writeConfig(tempDir(), {fx: fixture('normal', [], {lazy: false})}, fastHangar);
		await startDaemon(config);
		await expectBatchAnswered(await stdioSession(config, '2025-03-26'));
	});
});
