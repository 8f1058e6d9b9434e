/**
 * An upstream's output is kept in its own bounded log, and copied into
 * hangar's log only where that belongs. An upstream that writes to stderr,
 * and garbage to stdout, as fast as the pipes take it cannot sink hangar:
 * its memory stays under a fixed bound, even when nobody reads hangar's own
 * stderr, and calls keep being answered, the flooding upstream's own
 * included.
 */
import {spawn} from 'node:child_process';
import {randomUUID} from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import {Client} from '@modelcontextprotocol/sdk/client/index.js';
import {afterEach, describe, expect, it} from 'vitest';
import {LineTransport} from '../../source/core/wire/line-transport.js';
import type {UpstreamDetails} from '../../source/core/views/views.js';
import {cliPath, closeHangars, fastHangar, fixture, openHangar, processesWithTag, statusOf, tempDir, waitFor, writeConfig} from '../support/hangar.js';

/** Far above hangar's ~90 MiB at rest, far below what an unbounded queue reaches in seconds of flooding. */
const rssBoundMiB = 250;
const floodMs = 6000;

function rssMiB(pid: number): number {
	const match = /^VmRSS:\s+(\d+)\s+kB/m.exec(fs.readFileSync(`/proc/${pid}/status`, 'utf8'));
	return Number(match![1]) / 1024;
}

const cleanups: Array<() => Promise<void>> = [];
afterEach(async () => {
	await closeHangars();
	for (const cleanup of cleanups.splice(0)) await cleanup();
});

describe("where an upstream's output goes", () => {
	it("stays out of hangar's stderr at the default level, and is copied into a log file, or to stderr at debug level", async () => {
		const dir = tempDir();
		const config = writeConfig(dir, {fx: fixture('normal', [], {lazy: false})}, fastHangar);
		const logFile = path.join(dir, 'hangar.log');
		for (const [args, where] of [
			[[], 'nowhere but its log buffer'],
			[['--log-file', logFile], 'the log file'],
			[['--log-level', 'debug'], "hangar's stderr"],
		] as const) {
			fs.rmSync(logFile, {force: true});
			const hangar = await openHangar(config, {args: [...args]});
			await hangar.client.callTool({name: 'fx__stderr', arguments: {lines: 3}});
			await waitFor(async () => {
				const details = (await hangar.client.callTool({name: 'hangar_details', arguments: {server: 'fx'}})).structuredContent as UpstreamDetails;
				return details.stderr.some(line => line.text === 'stderr line 3');
			}, 'the lines in the upstream\'s log buffer');
			await hangar.close();
			const copied = /\[fx\] stderr: stderr line 3/;
			const log = fs.existsSync(logFile) ? fs.readFileSync(logFile, 'utf8') : '';
			expect(copied.test(hangar.stderr()), `${where}: hangar's stderr`).toBe(where === "hangar's stderr");
			expect(copied.test(log), `${where}: the log file`).toBe(where === 'the log file');
		}
	});
});

describe('an upstream flooding its output', () => {
	it('leaves hangar under a fixed memory bound with its stderr unread, and every call answered', async () => {
		const dir = tempDir();
		const config = writeConfig(
			dir,
			{
				flood: fixture('normal', ['--flood-stderr', '--flood-stdout'], {lazy: false}),
				calm: fixture('normal', [], {lazy: false}),
			},
			fastHangar,
		);
		const tag = randomUUID();
		// Hangar's stderr is a pipe nobody reads: the case that used to queue every copied line in memory.
		const child = spawn(process.execPath, [cliPath, '--stdio', '--standalone', '--config', config], {env: {...process.env, HANGAR_TEST_TAG: tag}, stdio: ['pipe', 'pipe', 'pipe']});
		child.stderr.pause();
		const exited = new Promise(resolve => child.on('exit', resolve));
		cleanups.push(async () => {
			child.stdin.end();
			await exited;
			await waitFor(() => processesWithTag(tag).length === 0, 'every process of this hangar to exit');
		});
		const client = new Client({name: 'flood-test', version: '1.0.0'});
		await client.connect(new LineTransport(child.stdout, child.stdin, 64 * 1024 * 1024));
		for (const name of ['flood', 'calm']) await waitFor(async () => (await statusOf(client, name)).state === 'ready', `${name} to be ready`);

		let peak = 0;
		const sampler = setInterval(() => {
			peak = Math.max(peak, rssMiB(child.pid!));
		}, 50);
		const answered = {calm: 0, flood: 0};
		const caller = async (server: 'calm' | 'flood', until: number) => {
			while (Date.now() < until) {
				const result = await client.callTool({name: `${server}__echo`, arguments: {message: `to ${server}`}});
				expect(result.content).toEqual([{type: 'text', text: `to ${server}`}]);
				answered[server] += 1;
			}
		};

		try {
			const until = Date.now() + floodMs;
			await Promise.all([caller('calm', until), caller('calm', until), caller('flood', until)]);
		} finally {
			clearInterval(sampler);
		}

		peak = Math.max(peak, rssMiB(child.pid!));
		expect(peak, `hangar's peak RSS over ${floodMs} ms of flooding`).toBeLessThan(rssBoundMiB);
		expect(answered.calm).toBeGreaterThan(0);
		expect(answered.flood).toBeGreaterThan(0);

		// What was dropped is counted, and the upstream's log says so.
		const details = (await client.callTool({name: 'hangar_details', arguments: {server: 'flood'}})).structuredContent as UpstreamDetails;
		expect(details.droppedOutput.stderr.lines).toBeGreaterThan(0);
		expect(details.droppedOutput.stdout.lines).toBeGreaterThan(0);
		expect(details.droppedOutput.stderr.bytes).toBeGreaterThan(details.droppedOutput.stderr.lines);
		console.log(`output flood: peak RSS ${peak.toFixed(1)} MiB; answered ${answered.calm} calm and ${answered.flood} flood calls; dropped ${JSON.stringify(details.droppedOutput)}`);
	}, 90_000);
});
