/**
 * A client's session outlives its supervisor (docs/supervisor.md, "The
 * bridge outlives the supervisor": "the client never sees the restart").
 * What the session set up besides initialize must outlive it too: the log
 * level it asked for and the resources it subscribed to. A killed and
 * restarted daemon, real `--stdio` bridges driven by SDK clients.
 */
import {LoggingMessageNotificationSchema, ResourceUpdatedNotificationSchema} from '@modelcontextprotocol/sdk/types.js';
import {afterEach, describe, expect, it} from 'vitest';
import {closeHangars, fastHangar, fixture, openHangar, statusOf, tempDir, waitFor, writeConfig, type HangarHandle} from '../support/hangar.js';
import {startDaemon, stopDaemons} from '../support/serve.js';
import {ErrorCode} from '../../source/core/base/errors.js';

afterEach(async () => {
	await closeHangars();
	await stopDaemons('SIGKILL');
});

/** The log levels and resource updates a client receives. */
function watch(handle: HangarHandle): {levels: string[]; updates: string[]} {
	const seen = {levels: [] as string[], updates: [] as string[]};
	handle.client.setNotificationHandler(LoggingMessageNotificationSchema, notification => {
		seen.levels.push(notification.params.level);
	});
	handle.client.setNotificationHandler(ResourceUpdatedNotificationSchema, notification => {
		seen.updates.push(notification.params.uri);
	});
	return seen;
}

describe('a --stdio client whose supervisor is killed and started again', () => {
	it('keeps the log level it set and the resources it subscribed to; a client that set neither still gets neither', async () => {
		const config = writeConfig(tempDir(), {fx: fixture('normal', ['--client-features', '--resources-count', '2'])}, fastHangar);
		const daemon = await startDaemon(config);
		const a = await openHangar(config, {shared: true, clientInfo: {name: 'a', version: '1'}});
		const b = await openHangar(config, {shared: true, clientInfo: {name: 'b', version: '1'}});
		const seenA = watch(a);
		const seenB = watch(b);
		await a.client.setLoggingLevel('error');
		await a.client.subscribeResource({uri: 'fixture://item/0'});
		await a.client.subscribeResource({uri: 'fixture://item/1'});
		await waitFor(() => seenA.updates.length >= 2, 'the fixture\'s update after each subscribe');
		await a.client.unsubscribeResource({uri: 'fixture://item/1'});
		await a.client.callTool({name: 'fx__log', arguments: {}});
		await waitFor(() => seenA.levels.includes('emergency'), 'the log messages at a\'s level');

		daemon.child.kill('SIGKILL');
		await daemon.exited;
		seenA.levels.length = 0;
		seenA.updates.length = 0;
		// The bridge reconnects to the next supervisor on its own (it holds what comes meanwhile).
		await startDaemon(config);
		const ready = await waitFor(async () => {
			try {
				return (await statusOf(a.client, 'fx')).name;
			} catch (error) {
				if ((error as {code?: number}).code === ErrorCode.SupervisorUnavailable) return undefined;
				throw error;
			}
		}, 'the bridge to reach the new supervisor');
		expect(ready).toBe('fx');

		// Subscribed again on the new supervisor: the fixture's update after a subscribe reaches a (item/0 only).
		await waitFor(() => seenA.updates.length >= 1, 'a resources/updated on the new supervisor');
		expect(seenA.updates).toEqual(['fixture://item/0']);
		// Logging at the level a set before the restart, and at no other.
		await a.client.callTool({name: 'fx__log', arguments: {}});
		await waitFor(() => seenA.levels.includes('emergency'), 'log messages at a\'s level after the restart');
		expect(seenA.levels).toEqual(['error', 'critical', 'alert', 'emergency']);
		// b set no level and subscribed to nothing, before or after: it never got any of it.
		await b.client.callTool({name: 'fx__log', arguments: {}});
		expect((await b.client.callTool({name: 'fx__echo', arguments: {message: 'b'}})).content).toEqual([{type: 'text', text: 'b'}]);
		expect(seenB).toEqual({levels: [], updates: []});
		// The bridge's own requests are answered to it, never to its client.
		expect(a.stderr()).not.toMatch(/unknown message ID|Received a response for an unknown/);
	});
});
