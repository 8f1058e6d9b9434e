/**
 * Resource subscriptions of an "instances": "auto" upstream that learns,
 * while clients watch its resources, that it runs one instance per client:
 * each client's subscription moves to its own instance, so it keeps hearing
 * about its resource, and hears only what its own instance says. Real SDK
 * clients on `--stdio` bridges attached to `mcp-hangar serve`; the fixture
 * answers a subscribe with one `notifications/resources/updated`, which is
 * how a test sees that an instance watches the resource.
 */
import {Client} from '@modelcontextprotocol/sdk/client/index.js';
import {CreateMessageRequestSchema, ResourceUpdatedNotificationSchema} from '@modelcontextprotocol/sdk/types.js';
import {afterEach, describe, expect, it} from 'vitest';
import {closeHangars, fastHangar, fixture, openHangar, statusOf, tempDir, waitFor, writeConfig} from '../support/hangar.js';
import {startDaemon, stopDaemons} from '../support/serve.js';

afterEach(async () => {
	await closeHangars();
	await stopDaemons('SIGKILL');
});

/** A client that answers sampling, and notes every resource update it hears. */
function watcher(name: string): {client: Client; updates: string[]} {
	const client = new Client({name, version: '1.0.0'}, {capabilities: {sampling: {}}});
	client.setRequestHandler(CreateMessageRequestSchema, () => ({role: 'assistant', content: {type: 'text', text: name}, model: name}));
	const updates: string[] = [];
	client.setNotificationHandler(ResourceUpdatedNotificationSchema, notification => {
		updates.push(notification.params.uri);
	});
	return {client, updates};
}

describe('an "auto" upstream that learns it runs per client while clients watch its resources', () => {
	it('moves each client\'s subscription to that client\'s own instance', async () => {
		const file = writeConfig(tempDir(), {fx: fixture('normal', ['--client-features', '--resources-count', '1'])}, fastHangar);
		await startDaemon(file);
		const ada = watcher('ada');
		const bob = watcher('bob');
		await openHangar(file, {client: ada.client, shared: true});
		await openHangar(file, {client: bob.client, shared: true});
		const uri = 'fixture://item/0';
		await ada.client.subscribeResource({uri});
		await waitFor(() => ada.updates.length === 1 || undefined, 'the shared instance to watch the resource');
		// The shared instance watches it once for both: bob's subscription asks nothing more of it.
		await bob.client.subscribeResource({uri});

		// Ada's call asks her for sampling: "auto" learns that the upstream runs one instance per client.
		await ada.client.callTool({name: 'fx__ask', arguments: {kind: 'sampling'}});
		await waitFor(async () => (await statusOf(ada.client, 'fx')).instanceMode?.runs === 'per-client' || undefined, 'the verdict');
		// Each subscription now lives on its client's own instance: each instance watches it (and says so, once, to its own client).
		await waitFor(() => (ada.updates.length === 2 && bob.updates.length === 1) || undefined, 'each client\'s own instance to watch its resource');
		const instances = await waitFor(async () => {
			const listed = (await statusOf(ada.client, 'fx')).instances ?? [];
			return listed.length === 2 ? listed : undefined;
		}, 'an instance per client');
		expect(instances.map(instance => instance.client).sort()).toEqual(['socket#1 ("ada")', 'socket#2 ("bob")']);
		expect(ada.updates).toEqual([uri, uri]);
		expect(bob.updates).toEqual([uri]);
	}, 60_000);
});
