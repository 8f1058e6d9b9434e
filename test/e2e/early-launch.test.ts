/**
 * A supervisor's process (the daemon `--stdio` starts, `serve`, `--stdio
 * --standalone`) spawns the upstreams it starts at launch before it loads its
 * engine (early-launch.ts), so their boot overlaps its own. The supervisor
 * must then serve that very child: one start, not two. What the child writes
 * before the takeover is kept (test/integration/upstream-transport.test.ts);
 * which upstreams may be spawned early is tested in
 * test/unit/core/endpoints/early-launch.test.ts.
 */
import fs from 'node:fs';
import path from 'node:path';
import {afterEach, describe, expect, it} from 'vitest';
import {closeHangars, fixture, openHangar, root, statusOf, tempDir, waitFor, writeConfig} from '../support/hangar.js';

const spawnCounter = path.join(root, 'bench', 'spawn-counter.js');

/** A fixture upstream that appends its pid to `countFile` each time it starts. */
function counted(countFile: string, extra: Record<string, unknown> = {}) {
	const entry = fixture('normal', [], extra);
	return {...entry, args: [spawnCounter, countFile, ...(entry['args'] as string[]).slice(1)]};
}

const startsIn = (file: string): number[] => (fs.existsSync(file) ? fs.readFileSync(file, 'utf8').trim().split('\n').filter(Boolean).map(line => Number(line.split(' ')[0])) : []);

afterEach(closeHangars);

describe('--stdio spawns its launch upstreams early', () => {
	it('serves the child it spawned early: the upstream starts once and answers calls', async () => {
		const dir = tempDir();
		const countFile = path.join(dir, 'starts');
		const hangar = await openHangar(writeConfig(dir, {fx: counted(countFile, {lazy: false})}));
		const ready = await waitFor(async () => {
			const entry = await statusOf(hangar.client, 'fx');
			return entry.state === 'ready' && entry;
		}, 'fx to be ready');
		const result = await hangar.client.callTool({name: 'fx__echo', arguments: {message: 'early'}});
		expect(result.content).toEqual([{type: 'text', text: 'early'}]);
		expect(startsIn(countFile)).toEqual([ready.pid]);
	});
});

/** Launch upstreams the system cannot spawn: Node throws for each (a NUL byte, ENOTDIR, E2BIG) where hangar spawns them early. */
function unspawnable(dir: string) {
	const file = path.join(dir, 'a-file');
	fs.writeFileSync(file, '');
	return {
		nulenv: fixture('normal', [], {lazy: false, env: {A: 'x\u0000y'}}),
		nularg: {...fixture('normal', [], {lazy: false}), args: ['-e', 'x\u0000y']},
		cwdfile: fixture('normal', [], {lazy: false, cwd: file}),
		bigenv: fixture('normal', [], {lazy: false, env: {BIG: 'x'.repeat(200_000)}}),
	};
}

describe.each([
	['--stdio --standalone', false],
	['the daemon a --stdio bridge starts', true],
])('a launch upstream the system cannot spawn (%s)', (_how, shared) => {
	it('fails only that upstream, for good, with the reason; the others serve', async () => {
		const dir = tempDir();
		const hangar = await openHangar(writeConfig(dir, {good: fixture('normal', [], {lazy: false}), ...unspawnable(dir)}, {lingerSeconds: 1}), {shared});
		const result = await hangar.client.callTool({name: 'good__echo', arguments: {message: 'still here'}});
		expect(result.content).toEqual([{type: 'text', text: 'still here'}]);
		const reasons = {
			nulenv: 'its env value A holds a NUL byte, which no process environment can carry',
			nularg: 'its "args"[1] holds a NUL byte',
			cwdfile: 'is not a directory',
			bigenv: 'its env variable BIG is 200005 bytes, more than the 131072 the system allows one variable',
		};
		for (const [name, reason] of Object.entries(reasons)) {
			const entry = await waitFor(async () => {
				const found = await statusOf(hangar.client, name);
				return found.state === 'dead' && found;
			}, `${name} to be dead`);
			expect(entry.lastError).toContain(reason);
			expect(entry.restarts).toBe(0);
		}
	});
});
