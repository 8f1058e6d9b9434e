/**
 * An upstream that keeps running but can no longer be talked to (it closed
 * its stdout, closed its stdin, or was stopped with SIGSTOP) is ended and
 * restarted by the usual policy, with the reason in its last error until
 * then and in its details' recentErrors after; the process it was is gone. Real processes: the built hangar and
 * dist/demo/broken-pipe-server.js.
 */
import fs from 'node:fs';
import path from 'node:path';
import {afterEach, describe, expect, it} from 'vitest';
import {closeHangars, fastHangar, isAlive, openHangar, root, statusOf, tempDir, waitFor, waitForExit, writeConfig} from '../support/hangar.js';

const brokenPipeServer = path.join(root, 'dist', 'demo', 'broken-pipe-server.js');

afterEach(closeHangars);

function text(result: unknown): string {
	const content = (result as {content: Array<{type: string; text?: string}>}).content[0];
	return content?.text ?? '';
}

/** Calls `tool`, which breaks the link; `poke`: a second call, for a break that only shows when hangar next writes (a closed stdin). */
async function brokenLink(tool: string, reason: RegExp, poke = false): Promise<void> {
	const dir = tempDir();
	const config = writeConfig(dir, {wedge: {command: process.execPath, args: [brokenPipeServer]}}, {...fastHangar, callTimeoutSeconds: 60});
	const {client} = await openHangar(config);
	const first = Number(text(await client.callTool({name: 'wedge__pid', arguments: {}})));
	expect(isAlive(first)).toBe(true);

	// The call never gets its answer: it fails when hangar ends the process, long before its 60 s timeout.
	// Its failure is expected at once: with a poke it may fail before the poke's own answer comes back.
	const broken = expect(client.callTool({name: `wedge__${tool}`, arguments: {}})).rejects.toThrow(reason);
	if (poke) {
		await waitFor(() => !isAlive(first) || fsHasClosedStdin(first), 'the upstream to close its stdin');
		await expect(client.callTool({name: 'wedge__echo', arguments: {message: 'poke'}})).rejects.toThrow(reason);
	}

	await broken;
	await waitForExit(first);

	const after = await waitFor(async () => {
		const entry = await statusOf(client, 'wedge');
		return entry.state === 'ready' && entry.restarts >= 1 ? entry : undefined;
	}, 'wedge to be restarted');
	// Restarted, it has no current error; hangar_details keeps the break among its errors, with its time.
	expect(after.lastError).toBeNull();
	const details = (await client.callTool({name: 'hangar_details', arguments: {server: 'wedge'}})).structuredContent as {recentErrors: Array<{at: string; message: string}>};
	expect(details.recentErrors.some(entry => reason.test(entry.message))).toBe(true);
	expect(after.pid).not.toBe(first);
	expect(text(await client.callTool({name: 'wedge__echo', arguments: {message: 'back'}}))).toBe('back');
}

/** Whether `pid` has closed its fd 0. */
function fsHasClosedStdin(pid: number): boolean {
	return !fs.existsSync(`/proc/${pid}/fd/0`);
}

describe('an upstream whose pipes break while it runs', () => {
	it('is restarted when it closes its stdout', async () => {
		await brokenLink('close-stdout', /closed its stdout while still running/);
	});

	it('is restarted when it closes its stdin', async () => {
		await brokenLink('close-stdin', /stopped reading its stdin/, true);
	});

	it('is restarted when it is stopped with SIGSTOP', async () => {
		await brokenLink('stop', /is stopped \(SIGSTOP\)/);
	});
});
