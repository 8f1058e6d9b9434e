import {spawn} from 'node:child_process';
import {afterEach, describe, expect, it, vi} from 'vitest';
import {isAlive} from '../../source/core/base/process-alive.js';
import {waitFor} from '../support/hangar.js';
import {killAll, procState} from '../support/proc-state.js';

const parents: number[] = [];

afterEach(() => {
	killAll(parents);
});

describe('whether a process is alive', () => {
	it('says a process that exited and was never reaped (a zombie) is gone, and its parent that runs alive', async () => {
		// The shell becomes `sleep`, which never waits for its child: once that exits, it is a zombie, as under a
		// container's init that reaps nothing, with a supervisor that was killed.
		// Real timers whatever a file before this one in the worker left (a wait here must be able to time out).
		vi.useRealTimers();
		// The parent outlives the test by far (the test kills it): once it exits, init would reap the zombie.
		const parent = spawn('sh', ['-c', 'sleep 0.2 & echo $!; exec sleep 300'], {stdio: ['ignore', 'pipe', 'ignore']});
		parents.push(parent.pid!);
		let output = '';
		parent.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
		await waitFor(() => /^\d+\n/.test(output), 'the child pid', 20_000);
		const zombie = Number(output.trim());
		await waitFor(() => procState(zombie) === 'Z', `the child ${zombie} to be a zombie`, 20_000);
		expect(isAlive(zombie)).toBe(false);
		expect(isAlive(parent.pid!)).toBe(true);
		expect(isAlive(process.pid)).toBe(true);
	});
});
