/**
 * The audit trail when the disk fills, end to end: the built `--stdio`
 * supervisor under a file-size limit (`ulimit -f`, which makes the kernel
 * write part of a batch of lines and then refuse, as a full disk does),
 * the limit lifted again (`prlimit`, as space is freed), and the file read
 * back: the calls made after it are whole records, the supervisor answered
 * throughout, and it said what it lost.
 */
import {execFileSync} from 'node:child_process';
import {randomUUID} from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import {Client} from '@modelcontextprotocol/sdk/client/index.js';
import {StdioClientTransport} from '@modelcontextprotocol/sdk/client/stdio.js';
import {afterEach, describe, expect, it} from 'vitest';
import {cliPath, fastHangar, fixture, spawnEnv, tempDir, waitFor, writeConfig} from '../support/hangar.js';

const clients: Client[] = [];

afterEach(async () => {
	await Promise.all(clients.splice(0).map(async client => client.close()));
});

/** Whether a line of the audit file is a record (an empty line is neither). */
function parses(line: string): boolean | undefined {
	if (line === '') return undefined;
	try {
		JSON.parse(line);
		return true;
	} catch {
		return false;
	}
}

/** The records of the audit file that parse. */
function auditRecords(file: string): Array<Record<string, unknown>> {
	return fs
		.readFileSync(file, 'utf8')
		.split('\n')
		.filter(line => parses(line) === true)
		.map(line => JSON.parse(line) as Record<string, unknown>);
}

describe('audit trail on a full disk', () => {
	it('goes on with whole lines once space is back: a write cut short by the disk never swallows the next record', async () => {
		const dir = tempDir();
		const config = writeConfig(dir, {fx: fixture('normal', [], {lazy: false})}, {...fastHangar, auditArguments: true});
		const auditFile = path.join(dir, 'state', 'audit.jsonl');
		// 16 KiB a file: the audit file reaches it after some tens of calls, the state and log files stay below.
		const transport = new StdioClientTransport({
			command: 'bash',
			args: ['-c', `ulimit -S -f 16; exec "${process.execPath}" "${cliPath}" --stdio --standalone --config "${config}"`],
			env: spawnEnv({HANGAR_TEST_TAG: randomUUID()}),
			stderr: 'pipe',
		});
		let stderr = '';
		transport.stderr?.on('data', (chunk: Buffer) => {
			stderr += chunk.toString();
		});
		const client = new Client({name: 'disk-full-test', version: '1.0.0'});
		await client.connect(transport);
		clients.push(client);
		await waitFor(async () => (await client.listTools()).tools.some(tool => tool.name === 'fx__echo'), 'fx to list its tools');

		// Calls in bursts, so that several lines go in one write and the one that crosses the limit is cut.
		for (let burst = 0; !stderr.includes('cannot write the audit file'); burst++) {
			expect(burst, 'the audit file to reach the file-size limit').toBeLessThan(100);
			await Promise.all([1, 2, 3, 4].map(async index => client.callTool({name: 'fx__echo', arguments: {message: `before ${burst}.${index}`}})));
		}

		expect(stderr).toMatch(/cannot write the audit file .*audit\.jsonl \(EFBIG.*\); records are lost until a write succeeds again/);
		execFileSync('prlimit', ['--pid', String(transport.pid), '--fsize=unlimited']);
		for (let index = 0; index < 3; index++) {
			const result = await client.callTool({name: 'fx__echo', arguments: {message: `after ${index}`}});
			expect(result.isError).toBeFalsy();
		}

		const after = await waitFor(() => {
			const calls = auditRecords(auditFile).filter(record => typeof record['args'] === 'string' && record['args'].includes('after'));
			return calls.length === 3 ? calls : undefined;
		}, 'the calls after the disk freed up in the audit file');
		expect(after.map(record => record['args'])).toEqual(['{"message":"after 0"}', '{"message":"after 1"}', '{"message":"after 2"}']);
		// The line the disk cut short stays alone on its line: no record written after it is glued to it.
		const cut = fs.readFileSync(auditFile, 'utf8').split('\n').filter(line => parses(line) === false);
		expect(cut.length).toBeLessThanOrEqual(1);
		for (const line of cut) expect(line.indexOf('{"kind":', 1), `a record glued to a cut line: ${line}`).toBe(-1);
	});
});
