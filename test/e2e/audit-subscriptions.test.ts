/**
 * Audit of resource subscriptions through hangar, against the fixture
 * (which answers each `resources/subscribe` with one
 * `notifications/resources/updated`, so the updates count the subscribes it
 * got): a client's subscribe reaches the upstream once, as it would directly.
 */
import {afterEach, describe, expect, it, vi} from 'vitest';
import {cliPath, fastHangar, fixture, tempDir, writeConfig} from '../support/hangar.js';
import {rawSession, stopRawSessions} from '../support/raw-session.js';

afterEach(() => {
	stopRawSessions();
});

describe('resources/subscribe through hangar', () => {
	it('a subscribe that starts its upstream reaches it once, not again when the start completes', async () => {
		const dir = tempDir();
		// The upstream takes a while to initialize, so the subscribe comes while it starts.
		const config = writeConfig(dir, {fx: fixture('slow-start', ['--delay-ms', '1500', '--resources-count', '2'])}, {...fastHangar, firstListWaitSeconds: 0.1});
		const {request, received} = await rawSession([cliPath, '--stdio', '--config', config, '--standalone']);
		const updates = (uri: string) => received.filter(message => message.method === 'notifications/resources/updated' && message.params?.['uri'] === uri);
		expect((await request(2, 'resources/subscribe', {uri: 'fixture://item/0'})).error).toBeUndefined();
		await vi.waitFor(() => expect(updates('fixture://item/0').length).toBeGreaterThan(0), {timeout: 10_000});
		// A second subscribe, to a running upstream: its update comes after every update of the first's.
		expect((await request(3, 'resources/subscribe', {uri: 'fixture://item/1'})).error).toBeUndefined();
		await vi.waitFor(() => expect(updates('fixture://item/1')).toHaveLength(1), {timeout: 10_000});
		expect(updates('fixture://item/0')).toHaveLength(1);
	});
});
