/**
 * The calls history across a restart, end to end: calls through a real
 * `mcp-hangar --stdio` (its own supervisor), the process gone, then
 * `mcp-hangar logs --calls` reading them from the audit file, and a new
 * supervisor showing them in its calls log. A planted secret in the
 * arguments appears nowhere.
 */
import fs from 'node:fs';
import path from 'node:path';
import {afterEach, describe, expect, it} from 'vitest';
import {closeHangars, fastHangar, fixture, openHangar, runCli, tempDir, waitFor, waitForExit, writeConfig} from '../support/hangar.js';

const planted = 'sk-planted-e2e-0123456789SECRET';

afterEach(async () => {
	await closeHangars();
});

describe('calls history', () => {
	it('survives a restart: logs --calls prints an earlier run\'s calls from the audit file, and the next supervisor lists them too', async () => {
		const dir = tempDir();
		const config = writeConfig(dir, {fx: fixture('normal', [], {lazy: false})}, fastHangar);
		const first = await openHangar(config, {clientInfo: {name: 'first-run', version: '1.0.0'}});
		await waitFor(async () => (await first.client.listTools()).tools.some(tool => tool.name === 'fx__echo'), 'fx to list its tools');
		await first.client.callTool({name: 'fx__echo', arguments: {message: `key ${planted}`}});
		await first.client.callTool({name: 'fx__fail', arguments: {}});
		await first.close();
		await waitForExit(first.pid);

		const offline = await runCli(['logs', '--calls', '--config', config]);
		expect(offline.code).toBe(0);
		const lines = offline.stdout.trim().split('\n');
		expect(lines).toHaveLength(2);
		expect(lines[0]).toMatch(/first-run {2}fx\/echo {2}\S+ {2}ok$/);
		expect(lines[1]).toMatch(/first-run {2}fx\/fail {2}\S+ {2}tool error$/);
		expect(offline.stderr).toContain('audit file');

		const second = await openHangar(config, {clientInfo: {name: 'second-run', version: '1.0.0'}});
		await waitFor(async () => (await second.client.listTools()).tools.some(tool => tool.name === 'fx__echo'), 'fx to list its tools');
		await second.client.callTool({name: 'fx__echo', arguments: {message: 'again'}});
		await second.close();
		await waitForExit(second.pid);
		const json = await runCli(['logs', '--calls', '--json', '--config', config]);
		const calls = json.stdout.trim().split('\n').map(line => JSON.parse(line) as {client: string; tool: string; args: string});
		expect(calls.map(call => `${call.client} ${call.tool}`)).toEqual(['first-run echo', 'first-run fail', 'second-run echo']);

		const audit = fs.readFileSync(path.join(dir, 'state', 'audit.jsonl'), 'utf8');
		const records = audit.trim().split('\n').map(line => JSON.parse(line) as {kind: string; action?: string; via?: string});
		expect(records.filter(record => record.kind === 'call')).toHaveLength(3);
		// Each run's end is audited too: its client closed stdin.
		expect(records.filter(record => record.kind === 'action').map(record => `${record.action} ${record.via}`)).toEqual(['shutdown stdin closed', 'shutdown stdin closed']);
		expect(audit + json.stdout + offline.stdout).not.toContain(planted);
	});
});
