import fs from 'node:fs';
import path from 'node:path';
import {describe, expect, it} from 'vitest';
import {everything, fastHangar, fixture, processesWithTag, root, spawnHangar, statusOf, tempDir, waitFor, writeConfig} from '../support/hangar.js';

/** Preloaded so SIGUSR2 raises an uncaught exception in hangar (the shipped code has no fault hook). */
const injectFault = path.join(root, 'test', 'support', 'inject-fault.mjs');

async function readyHangar() {
	const dir = tempDir();
	const config = writeConfig(
		dir,
		{
			everything: everything({lazy: false, instances: 'shared'}),
			fx: fixture('normal', [], {lazy: false}),
			stuck: fixture('hang', ['--ignore-sigterm'], {lazy: false}),
		},
		fastHangar,
	);
	const hangar = await spawnHangar(config, {NODE_OPTIONS: `--import=${injectFault}`});
	for (const name of ['everything', 'fx', 'stuck']) {
		await waitFor(async () => (await statusOf(hangar.client, name)).state === 'ready', `${name} to be ready`);
	}

	// A call in flight on the hung upstream while hangar goes down.
	void hangar.client.callTool({name: 'stuck__echo', arguments: {message: 'x'}}).catch(() => {});
	expect(processesWithTag(hangar.tag).length).toBeGreaterThanOrEqual(4);
	// Hangar's own log from info up: `--stdio` writes it to hangar.log in the state dir.
	return Object.assign(hangar, {log: () => fs.readFileSync(path.join(dir, 'state', 'hangar.log'), 'utf8')});
}

describe('no orphans, however hangar exits', () => {
	for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP'] as const) {
		it(`stops every upstream before exiting on ${signal}`, async () => {
			const hangar = await readyHangar();
			hangar.child.kill(signal);
			const exit = await hangar.exited;
			expect(exit.code).toBe(0);
			expect(processesWithTag(hangar.tag)).toEqual([]);
			expect(hangar.log()).toContain(`shutting down: received ${signal}`);
		});
	}

	it('stops every upstream before exiting when stdin closes', async () => {
		const hangar = await readyHangar();
		hangar.child.stdin!.end();
		const exit = await hangar.exited;
		expect(exit.code).toBe(0);
		expect(processesWithTag(hangar.tag)).toEqual([]);
	});

	it('stops every upstream and exits non-zero on an internal error', async () => {
		const hangar = await readyHangar();
		hangar.child.kill('SIGUSR2');
		const exit = await hangar.exited;
		expect(exit.code).toBe(1);
		expect(hangar.stderr()).toContain('internal error: Error: injected internal error');
		expect(processesWithTag(hangar.tag)).toEqual([]);
	});
});
