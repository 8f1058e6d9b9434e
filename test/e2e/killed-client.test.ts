/**
 * A client killed in the middle of a call, on a `--stdio` bridge attached
 * to the daemon: its bridge dies with it, so no cancellation is ever sent,
 * and a call that reports no progress writes nothing that could find the
 * connection gone. The supervisor must notice at once anyway: the upstream
 * gets notifications/cancelled for exactly that call, a per-client instance
 * of that client stops, and the other client goes on.
 */
import {afterEach, describe, expect, it} from 'vitest';
import type {CallToolResult} from '@modelcontextprotocol/sdk/types.js';
import {closeHangars, fastHangar, fixture, openHangar, startHangar, statusOf, tempDir, waitFor, waitForExit, writeConfig} from '../support/hangar.js';
import {startDaemon, stopDaemons} from '../support/serve.js';

afterEach(async () => {
	await closeHangars();
	await stopDaemons('SIGKILL');
});

function text(result: unknown): string {
	const content = (result as CallToolResult).content[0];
	return content?.type === 'text' ? content.text : '';
}

/** The daemon, a client that stays, and one whose bridge is killed while its 60 s call (no progress) is in flight. */
async function killMidCall(instances: 'shared' | 'per-client') {
	const config = writeConfig(tempDir(), {fx: fixture('normal', [], {instances})}, {...fastHangar, callTimeoutSeconds: 120});
	const served = await startDaemon(config);
	const stays = await openHangar(config, {shared: true, clientInfo: {name: 'stays', version: '1'}});
	const killed = await startHangar(config, {shared: true, clientInfo: {name: 'killed', version: '1'}});
	const killedPid = Number(text(await killed.client.callTool({name: 'fx__pid', arguments: {}})));
	const call = killed.client.callTool({name: 'fx__sleep', arguments: {ms: 60_000}}, undefined, {timeout: 120_000}).catch(() => 'gone');
	await waitFor(async () => (await statusOf(stays.client, 'fx')).inFlight === 1, 'the call to be in flight');
	process.kill(killed.pid, 'SIGKILL');
	void call;
	return {stays, killedPid, served};
}

describe('a --stdio client killed while its call is in flight', () => {
	it('on a shared instance: the upstream is told that call is cancelled, at once, and the other client goes on', async () => {
		const {stays, served} = await killMidCall('shared');
		// Long before the call's own 60 s or its 120 s deadline.
		await waitFor(async () => (await statusOf(stays.client, 'fx')).inFlight === 0, 'the killed client\'s call to end');
		// The fixture's stderr: one request cancelled, the killed client's call (it names hangar's id of it). The fixture writes it
		// when the cancel reaches it, which on a loaded machine may be after hangar has ended the call: waited for, then counted.
		const details = await waitFor(async () => {
			const text = JSON.stringify((await stays.client.callTool({name: 'hangar_details', arguments: {server: 'fx'}})).structuredContent);
			return /cancelled h\d+/.test(text) ? text : undefined;
		}, 'the fixture to log the cancel');
		expect(details.match(/cancelled h\d+/g)).toHaveLength(1);
		// Told apart from a client that only stopped sending (whose calls are still answered): the log says it is gone.
		expect(served.stderr()).toMatch(/socket#\d+: the client is gone with 1 request in flight .*; cancelling it/);
		expect(text(await stays.client.callTool({name: 'fx__echo', arguments: {message: 'still here'}}))).toBe('still here');
	});

	it('on a per-client instance: its instance stops, and the other client\'s goes on', async () => {
		const {stays, killedPid, served} = await killMidCall('per-client');
		await waitForExit(killedPid);
		expect(served.stderr()).toMatch(/socket#\d+: the client is gone with 1 request in flight .*; cancelling it/);
		expect(text(await stays.client.callTool({name: 'fx__echo', arguments: {message: 'still here'}}))).toBe('still here');
		// Only the client that stays has an instance once the killed one's is let go.
		const clients = await waitFor(async () => {
			const instances = (await statusOf(stays.client, 'fx')).instances?.map(instance => instance.client) ?? [];
			return instances.length === 1 ? instances : undefined;
		}, 'the killed client\'s instance to be let go');
		expect(clients).toEqual([expect.stringContaining('"stays"')]);
	});
});
