/**
 * The hooks that bound Ink's caches (source/tui/ink-patch/hooks.ts), in
 * processes of their own, since they must be registered before Ink loads:
 * every module they edit is edited, frames come out byte for byte as Ink's
 * own, and the heap no longer grows with every distinct string drawn.
 */
import path from 'node:path';
import {execa} from 'execa';
import {describe, expect, it} from 'vitest';
import {root} from '../support/hangar.js';

const probe = path.join(root, 'test', 'support', 'ink-patch-probe.mjs');

async function run(mode: 'patched' | 'plain', what: 'frames' | 'memory'): Promise<Record<string, unknown>> {
	const result = await execa(process.execPath, ['--expose-gc', probe, mode, what], {env: {NODE_ENV: 'production', FORCE_COLOR: '1'}, timeout: 60_000});
	return JSON.parse(result.stdout) as Record<string, unknown>;
}

describe('bounded Ink caches', () => {
	it('draw the same frames as Ink does unpatched', async () => {
		const [patched, plain] = await Promise.all([run('patched', 'frames'), run('plain', 'frames')]);
		expect((plain['frames'] as string[]).length).toBeGreaterThan(10);
		expect(patched['frames']).toEqual(plain['frames']);
	});

	it('keep the heap from growing with every distinct string Ink measures, wraps and draws', async () => {
		const patched = await run('patched', 'memory');
		const plain = await run('plain', 'memory');
		expect(patched['patched']).toBe(true);
		expect(plain['patched']).not.toBe(true);
		// Ink as it is keeps all 60,000 strings (tens of MiB); bounded, what is left is the bounds' worth.
		expect(plain['growthMiB']).toBeGreaterThan(20);
		expect(patched['growthMiB']).toBeLessThan(Number(plain['growthMiB']) / 3);
	});
});
