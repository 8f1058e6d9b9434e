import {randomUUID} from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import {describe, expect, it} from 'vitest';
import {LogBuffer} from '../../source/core/link/log-buffer.js';
import {ChildProcessTransport} from '../../source/core/link/child-process-transport.js';
import type {StdioLaunch} from '../../source/core/config/read-config.js';
import {SpawnError} from '../../source/core/link/launch-problem.js';
import {dropEarly, spawnEarly} from '../../source/core/link/early-spawn.js';
import {psSnapshot, treeMembers} from '../../source/core/link/process-tree.js';
import {processesWithTag, waitFor} from '../support/hangar.js';

// A child that ignores stdin EOF and SIGTERM, and leaves a grandchild running.
const stubborn = `
const {spawn} = require('node:child_process');
spawn(process.execPath, ['-e', 'setInterval(() => {}, 1000)'], {stdio: 'ignore'});
process.on('SIGTERM', () => console.error('ignoring SIGTERM'));
process.stdin.resume();
process.stdin.on('end', () => console.error('ignoring stdin EOF'));
console.error('stubborn ready');
setInterval(() => {}, 1000);
`;

function launch(code: string, tag: string) {
	return {kind: 'stdio' as const, command: process.execPath, args: ['-e', code], env: {HANGAR_TEST_TAG: tag}, cwd: process.cwd()};
}

describe('ChildProcessTransport', () => {
	it('stops in order: stdin close, then SIGTERM, then SIGKILL to the whole process group', async () => {
		const tag = randomUUID();
		const log = new LogBuffer(100);
		const transport = new ChildProcessTransport(launch(stubborn, tag), log);
		await transport.start();
		await waitFor(() => log.tail(10).some(line => line.text === 'stubborn ready'), 'the child to start');
		await waitFor(() => processesWithTag(tag).length === 2, 'child and grandchild');

		const exit = await transport.stop(300);
		expect(exit.stoppedBy).toBe('SIGKILL');
		expect(exit.signal).toBe('SIGKILL');
		const lines = log.tail(10, 'stderr').map(line => line.text);
		expect(lines).toContain('ignoring stdin EOF');
		expect(lines).toContain('ignoring SIGTERM');
		await waitFor(() => processesWithTag(tag).length === 0, 'the grandchild to be killed with its group');
	});

	it('finds the same tree through ps (the macOS way: parent links and the group, no environment)', async () => {
		const tag = randomUUID();
		const log = new LogBuffer(100);
		const transport = new ChildProcessTransport(launch(stubborn, tag), log);
		await transport.start();
		await waitFor(() => processesWithTag(tag).length === 2, 'child and grandchild');
		const members = treeMembers(psSnapshot(), [{pid: transport.pid!, startTime: undefined}], () => false);
		expect(members.map(info => info.pid).sort()).toEqual(processesWithTag(tag).sort());
		await transport.stop(100);
	});

	it('stops reading a child that floods requests and never reads the answers, past its backlog', async () => {
		// Never reads its stdin; writes pings as fast as its stdout takes them.
		const flood = `
let id = 0;
const next = () => JSON.stringify({jsonrpc: '2.0', id: ++id, method: 'ping'}) + '\\n';
const write = () => { while (process.stdout.write(next())) {} process.stdout.once('drain', write); };
write();
setInterval(() => {}, 1000);
`;
		const tag = randomUUID();
		const transport = new ChildProcessTransport(launch(flood, tag), new LogBuffer(10), undefined, 2000, 256 * 1024);
		let received = 0;
		transport.onmessage = message => {
			received += 1;
			void transport.send({jsonrpc: '2.0', id: (message as {id: number}).id, result: {pad: 'x'.repeat(1024)}}).catch(() => {});
		};
		await transport.start();
		await waitFor(() => transport.backlogged, 'its stdout to be paused');
		const atPause = received;
		// About 256 KiB of 1 KiB answers, plus what its stdin pipe holds: a bound, not every ping it can write.
		expect(atPause).toBeLessThan(2000);
		// An absence can only be waited out: no more of its pings are read while it does not read.
		await new Promise(resolve => setTimeout(resolve, 300));
		expect(received).toBe(atPause);
		await transport.stop(100);
	});

	it('stops a well-behaved child by closing stdin alone', async () => {
		const tag = randomUUID();
		const transport = new ChildProcessTransport(launch('process.stdin.resume(); process.stdin.on("end", () => process.exit(0));', tag), new LogBuffer(10));
		await transport.start();
		const exit = await transport.stop(5000);
		expect(exit).toMatchObject({code: 0, signal: null, stoppedBy: 'stdin-close'});
		expect(processesWithTag(tag)).toEqual([]);
	});

	it('keeps non-JSON-RPC stdout lines in the log instead of failing the connection', async () => {
		const tag = randomUUID();
		const log = new LogBuffer(10);
		const transport = new ChildProcessTransport(
			launch('console.log("hello world"); console.log(JSON.stringify({jsonrpc: "2.0", method: "x"})); process.stdin.resume(); process.stdin.on("end", () => process.exit(0));', tag),
			log,
		);
		const messages: unknown[] = [];
		transport.onmessage = message => messages.push(message);
		await transport.start();
		await waitFor(() => messages.length === 1, 'the JSON-RPC line');
		expect(log.tail(10, 'stdout').map(line => line.text)).toEqual(['not JSON-RPC (ignored): hello world']);
		await transport.stop(5000);
	});

	it('rejects start with the command and the system error when the command does not exist', async () => {
		const transport = new ChildProcessTransport(
			{kind: 'stdio', command: 'definitely-not-a-command-hangar', args: [], env: {}, cwd: process.cwd()},
			new LogBuffer(10),
		);
		await expect(transport.start()).rejects.toThrow('cannot spawn "definitely-not-a-command-hangar": ENOENT');
	});

	it('rejects start with a SpawnError saying why, never throws Node\'s own, when the system cannot spawn the launch at all', async () => {
		const file = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'hangar-spawn-')), 'a-file');
		fs.writeFileSync(file, '');
		const cases: Array<[Partial<StdioLaunch>, string, string]> = [
			// Node throws ENOTDIR at once: a working directory that is a file.
			[{cwd: file}, 'ENOTDIR', 'cannot spawn "node": ENOTDIR: a part of the path of its "command" or of its "cwd" is a file, not a directory'],
			// Refused before the spawn: Node would throw ERR_INVALID_ARG_VALUE.
			[{env: {A: 'x\u0000y'}}, 'ERR_INVALID_ARG_VALUE', 'its env value A holds a NUL byte'],
			[{args: ['-e', 'x\u0000']}, 'ERR_INVALID_ARG_VALUE', 'its "args"[1] holds a NUL byte'],
		];
		if (process.platform === 'linux') cases.push([{env: {BIG: 'x'.repeat(200_000)}}, 'E2BIG', 'its env variable BIG is 200005 bytes']);
		for (const [extra, code, words] of cases) {
			const transport = new ChildProcessTransport({...launch('', randomUUID()), command: 'node', ...extra}, new LogBuffer(10));
			const error = (await transport.start().catch((error: unknown) => error)) as SpawnError;
			expect(error).toBeInstanceOf(SpawnError);
			expect(error.code).toBe(code);
			expect(error.message).toContain(words);
		}
	});

	it('takes over a child spawned early, with what it wrote before, and answers through it', async () => {
		const tag = randomUUID();
		const written = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'hangar-early-')), 'written');
		// Writes a line on stderr, then says so through a file: the test takes it over only after that.
		const code = `console.error('written before the takeover'); require('node:fs').writeFileSync(${JSON.stringify(written)}, ''); process.stdin.on('data', chunk => process.stdout.write(chunk)); process.stdin.on('end', () => process.exit(0));`;
		spawnEarly(launch(code, tag));
		await waitFor(() => fs.existsSync(written), 'the early child to have written its line');
		const log = new LogBuffer(100);
		const transport = new ChildProcessTransport(launch(code, tag), log);
		const messages: unknown[] = [];
		transport.onmessage = message => messages.push(message);
		await transport.start();
		expect(processesWithTag(tag)).toEqual([transport.pid]);
		await waitFor(() => log.tail(10, 'stderr').some(line => line.text === 'written before the takeover'), 'the line written before the takeover');
		await transport.send({jsonrpc: '2.0', method: 'notifications/echo'});
		await waitFor(() => messages.length === 1, 'the echoed message');
		expect((await transport.stop(2000)).stoppedBy).toBe('stdin-close');
		dropEarly();
	});
});
