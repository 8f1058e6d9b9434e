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
