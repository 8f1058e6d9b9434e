import {spawn} from 'node:child_process';
import fs from 'node:fs';
import {afterEach, describe, expect, it} from 'vitest';
import {isAlive} from '../../../../source/core/base/process-alive.js';
import {waitFor} from '../../../support/hangar.js';

const parents: number[] = [];

afterEach(() => {
	for (const pid of parents.splice(0)) {
		try {
			process.kill(pid, 'SIGKILL');
		} catch {}
	}
});

const procState = (pid: number): string | undefined => {
	try {
		const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
		return stat.slice(stat.lastIndexOf(')') + 2).split(' ')[0];
	} catch {
		return undefined;
	}
};

describe('whether a process is alive', () => {
	it('says a process that exited and was never reaped (a zombie) is gone, and its parent that runs alive', async () => {
		// The shell's child exits; the shell becomes `sleep`, which never waits for it: a zombie, as under a
		// container's init that reaps nothing, with a supervisor that was killed.
		const parent = spawn('sh', ['-c', 'true & echo $!; exec sleep 30'], {stdio: ['ignore', 'pipe', 'ignore']});
		parents.push(parent.pid!);
		let output = '';
		parent.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
		await waitFor(() => /^\d+\n/.test(output), 'the child pid');
		const zombie = Number(output.trim());
		await waitFor(() => procState(zombie) === 'Z', 'the child to be a zombie');
		expect(isAlive(zombie)).toBe(false);
		expect(isAlive(parent.pid!)).toBe(true);
		expect(isAlive(process.pid)).toBe(true);
	});
});
