/**
 * No upstream process outlives hangar, not even a grandchild that left the
 * upstream's process group and session (setsid) under an upstream that
 * ignores stdin EOF and SIGTERM: not after a stop, not after a quit, and not
 * after a SIGKILL of hangar itself (the watchdog's case).
 */
import fs from 'node:fs';
import {describe, expect, it} from 'vitest';
import type {UpstreamDetails} from '../../source/core/views/views.js';
import {fastHangar, fixture, isAlive, processesWithTag, spawnHangar, statusOf, tempDir, waitFor, writeConfig, type SpawnedHangar} from '../support/hangar.js';

/** Hangar with one upstream that survives stdin EOF and SIGTERM, and has a grandchild in its own session; resolves once both run. */
async function hangarWithDetachedGrandchild(): Promise<{hangar: SpawnedHangar; upstream: number; grandchild: number}> {
	const config = writeConfig(tempDir(), {tree: fixture('normal', ['--setsid-grandchild', '--ignore-sigterm', '--ignore-stdin-close'], {lazy: false})}, fastHangar);
	const hangar = await spawnHangar(config);
	const upstream = await waitFor(async () => {
		const entry = await statusOf(hangar.client, 'tree');
		return entry.state === 'ready' ? entry.pid! : undefined;
	}, 'the upstream to be ready');
	const grandchild = await waitFor(async () => {
		const details = (await hangar.client.callTool({name: 'hangar_details', arguments: {server: 'tree'}})).structuredContent as UpstreamDetails;
		const line = details.stderr.find(entry => entry.text.startsWith('started a grandchild in its own session'));
		return line === undefined ? undefined : Number(/pid (\d+)/.exec(line.text)![1]);
	}, 'the grandchild to start');
	// It really left the upstream's session and group: killing the group alone would miss it.
	const stat = fs.readFileSync(`/proc/${grandchild}/stat`, 'utf8');
	const [, , group, session] = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
	expect([Number(group), Number(session)]).toEqual([grandchild, grandchild]);
	expect(processesWithTag(hangar.tag).sort()).toEqual([hangar.child.pid!, upstream, grandchild].sort());
	return {hangar, upstream, grandchild};
}

/** The watchdog of the hangar with this pid (`node …/watchdog.js <pid>`), found by its command line. */
function watchdogOf(hangarPid: number): number | undefined {
	for (const entry of fs.readdirSync('/proc')) {
		if (!/^\d+$/.test(entry)) continue;
		try {
			const argv = fs.readFileSync(`/proc/${entry}/cmdline`, 'utf8').split('\0');
			if (argv.some(arg => arg.endsWith('watchdog.js')) && argv.includes(String(hangarPid)) && isAlive(Number(entry))) return Number(entry);
		} catch {}
	}

	return undefined;
}

describe('an upstream tree that left its process group', () => {
	it('is stopped whole by a stop', async () => {
		const {hangar, upstream, grandchild} = await hangarWithDetachedGrandchild();
		const result = await hangar.client.callTool({name: 'hangar_stop', arguments: {server: 'tree', waitSeconds: 30}});
		expect((result.structuredContent as {done: boolean}).done).toBe(true);
		await waitFor(() => !isAlive(upstream) && !isAlive(grandchild), 'the upstream and its grandchild to be gone');
		expect(processesWithTag(hangar.tag)).toEqual([hangar.child.pid]);
		hangar.child.stdin!.end();
		await hangar.exited;
	});

	it('is stopped whole when hangar quits', async () => {
		const {hangar} = await hangarWithDetachedGrandchild();
		hangar.child.stdin!.end();
		expect((await hangar.exited).code).toBe(0);
		expect(processesWithTag(hangar.tag)).toEqual([]);
	});

	it('is killed by the watchdog when hangar is SIGKILLed, and the watchdog exits', async () => {
		const {hangar, upstream, grandchild} = await hangarWithDetachedGrandchild();
		const watchdog = watchdogOf(hangar.child.pid!);
		expect(watchdog).toBeDefined();
		hangar.child.kill('SIGKILL');
		await hangar.exited;
		await waitFor(() => processesWithTag(hangar.tag).length === 0, `every process of the killed hangar to be gone (still: ${[upstream, grandchild].filter(isAlive).join(', ')})`, 15_000);
		await waitFor(() => !isAlive(watchdog!), 'the watchdog to exit');
	});
});
