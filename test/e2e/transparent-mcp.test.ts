/**
 * Hangar in front of the real server-everything behaves, to an SDK client,
 * like server-everything itself: the same client talks to both, and the
 * answers for resources, templates, reads (a listed URI, a template URI and a
 * resource_link from a tool result), subscriptions, prompts and completions
 * are equal, except for the documented namespacing of prompt names. Also:
 * the capabilities a client is offered come from the upstreams, a cold
 * upstream's from the persisted cache.
 */
import {afterEach, describe, expect, it} from 'vitest';
import {Client} from '@modelcontextprotocol/sdk/client/index.js';
import {StdioClientTransport} from '@modelcontextprotocol/sdk/client/stdio.js';
import {ResourceUpdatedNotificationSchema} from '@modelcontextprotocol/sdk/types.js';
import {closeHangars, everything, everythingPath, fastHangar, fixture, openHangar, statusOf, tempDir, waitFor, writeConfig} from '../support/hangar.js';
import {connectHttp, serveHttp, stopHttpHangars, type HttpClient} from '../support/http-hangar.js';

const direct: Client[] = [];
const httpClients: HttpClient[] = [];

afterEach(async () => {
	await Promise.all([...direct.splice(0).map(async client => client.close()), ...httpClients.splice(0).map(async ({client}) => client.close())]);
	await closeHangars();
	await stopHttpHangars();
});

/** The same SDK client, talking to server-everything itself. */
async function everythingDirect(): Promise<Client> {
	const client = new Client({name: 'hangar-test', version: '1.0.0'});
	await client.connect(new StdioClientTransport({command: process.execPath, args: [everythingPath, 'stdio'], stderr: 'pipe'}));
	direct.push(client);
	return client;
}

/** server-everything's dynamic text resources say when they were made: the rest must be equal. */
// server-everything's dynamic resources say when they were made, in text and in base64 blobs: two reads a second apart differ there.
const withoutTime = (value: unknown) =>
	JSON.parse(JSON.stringify(value).replaceAll(/created at [^"]*?(?=")/g, 'created at T'), (key, member: unknown) =>
		key === 'blob' && typeof member === 'string' ? Buffer.from(member, 'base64').toString('utf8').replaceAll(/created at .*$/gm, 'created at T') : member,
	) as unknown;

// Every hangar here runs server-everything as one shared instance ("instances": "shared"), as the direct server it is compared with is one:
// under the default "auto" it would run per client session, since it asks for roots at start-up.
describe('hangar fronting server-everything, compared with server-everything itself', () => {
	it('serves the same resources, templates, reads, prompts and completions, prompt names namespaced', async () => {
		const dir = tempDir();
		const hangar = await openHangar(writeConfig(dir, {everything: everything({lazy: false, instances: 'shared'})}, fastHangar));
		const own = await everythingDirect();
		await waitFor(async () => (await statusOf(hangar.client, 'everything')).state === 'ready', 'everything to be ready');
		const via = hangar.client;

		// Lists: hangar's are read at start and refreshed on list_changed, so wait until they settle.
		const resources = (await own.listResources()).resources;
		expect(resources.length).toBeGreaterThan(0);
		await waitFor(async () => JSON.stringify((await via.listResources()).resources) === JSON.stringify(resources), 'the same resources through hangar');
		const templates = (await own.listResourceTemplates()).resourceTemplates;
		expect(templates.length).toBeGreaterThan(0);
		expect((await via.listResourceTemplates()).resourceTemplates).toEqual(templates);

		// One upstream: URIs pass unchanged, for a listed resource and one built from a template.
		for (const resource of resources.slice(0, 3)) {
			expect(withoutTime(await via.readResource({uri: resource.uri}))).toEqual(withoutTime(await own.readResource({uri: resource.uri})));
		}

		const fromTemplate = templates[0]!.uriTemplate.replace(/\{[^}]+\}/, '3');
		const read = await via.readResource({uri: fromTemplate});
		expect(read.contents[0]!.uri).toBe(fromTemplate);
		expect(withoutTime(read)).toEqual(withoutTime(await own.readResource({uri: fromTemplate})));

		// A resource_link in a tool result reads through hangar like the original.
		const linked = await via.callTool({name: 'everything__get-resource-links', arguments: {count: 2}});
		const ownLinked = await own.callTool({name: 'get-resource-links', arguments: {count: 2}});
		expect(linked.content).toEqual(ownLinked.content);
		const links = (linked.content as Array<{type: string; uri?: string}>).filter(item => item.type === 'resource_link');
		expect(links.length).toBe(2);
		for (const link of links) expect(withoutTime(await via.readResource({uri: link.uri!}))).toEqual(withoutTime(await own.readResource({uri: link.uri!})));

		// Prompts: the same, named "<server>__<prompt>".
		const prompts = (await own.listPrompts()).prompts;
		expect(prompts.length).toBeGreaterThan(0);
		const viaPrompts = (await via.listPrompts()).prompts;
		expect(viaPrompts).toEqual(prompts.map(prompt => ({...prompt, name: `everything__${prompt.name}`})));
		const args = {city: 'Oslo', state: 'Oslo'};
		expect(await via.getPrompt({name: 'everything__args-prompt', arguments: args})).toEqual(await own.getPrompt({name: 'args-prompt', arguments: args}));
		const ownResourcePrompt = await own.getPrompt({name: 'resource-prompt', arguments: {resourceType: 'Text', resourceId: '2'}});
		expect(withoutTime(await via.getPrompt({name: 'everything__resource-prompt', arguments: {resourceType: 'Text', resourceId: '2'}}))).toEqual(withoutTime(ownResourcePrompt));

		// Completions: a prompt by its exposed name, a template by its URI.
		const argument = {name: 'department', value: 'E'};
		const ownCompletion = await own.complete({ref: {type: 'ref/prompt', name: 'completable-prompt'}, argument});
		expect(ownCompletion.completion.values.length).toBeGreaterThan(0);
		expect(await via.complete({ref: {type: 'ref/prompt', name: 'everything__completable-prompt'}, argument})).toEqual(ownCompletion);
		const templateRef = {type: 'ref/resource' as const, uri: templates[0]!.uriTemplate};
		const templateArgument = {name: 'resourceId', value: '1'};
		expect(await via.complete({ref: templateRef, argument: templateArgument})).toEqual(await own.complete({ref: templateRef, argument: templateArgument}));

		// A prompt hangar does not know is refused by name, like an unknown tool.
		await expect(via.getPrompt({name: 'everything__no-such-prompt'})).rejects.toMatchObject({code: -32_602});
	});

	it('relays resources/updated only to the sessions that subscribed, and stops after unsubscribe', async () => {
		const dir = tempDir();
		const hangar = await serveHttp(writeConfig(dir, {everything: everything({lazy: false, instances: 'shared'})}, fastHangar));
		const probe = await connectHttp(hangar.url);
		httpClients.push(probe);
		await waitFor(async () => (await statusOf(probe.client, 'everything')).state === 'ready', 'everything to be ready');
		// Sessions that start once it is ready are offered its subscribe capability (a first run cannot know it before).
		const a = await connectHttp(hangar.url);
		const b = await connectHttp(hangar.url);
		httpClients.push(a, b);
		expect(a.client.getServerCapabilities()?.resources).toEqual({subscribe: true, listChanged: true});
		const [x, y] = (await a.client.listResources()).resources.map(resource => resource.uri);
		const heard = {a: [] as string[], b: [] as string[]};
		a.client.setNotificationHandler(ResourceUpdatedNotificationSchema, notification => {
			heard.a.push(notification.params.uri);
		});
		b.client.setNotificationHandler(ResourceUpdatedNotificationSchema, notification => {
			heard.b.push(notification.params.uri);
		});
		expect(await a.client.subscribeResource({uri: x!})).toEqual({});
		expect(await b.client.subscribeResource({uri: y!})).toEqual({});

		// server-everything sends an update for every URI its (one) client watches, now and every 5 s.
		await a.client.callTool({name: 'everything__toggle-subscriber-updates', arguments: {}});
		await waitFor(() => heard.a.length > 0 && heard.b.length > 0, 'both sessions to hear about their resource');
		expect(new Set(heard.a)).toEqual(new Set([x]));
		expect(new Set(heard.b)).toEqual(new Set([y]));

		expect(await a.client.unsubscribeResource({uri: x!})).toEqual({});
		const heardByA = heard.a.length;
		const heardByB = heard.b.length;
		await waitFor(() => heard.b.length > heardByB, 'the next round of updates', 20_000);
		expect(heard.a.length).toBe(heardByA);
		await a.client.callTool({name: 'everything__toggle-subscriber-updates', arguments: {}});
	});
});

describe('capabilities offered to a client', () => {
	it('come from a cold upstream\'s cached capabilities without starting it', async () => {
		const dir = tempDir();
		const first = await openHangar(writeConfig(dir, {everything: everything({lazy: false, instances: 'shared'})}, fastHangar));
		await waitFor(async () => (await statusOf(first.client, 'everything')).state === 'ready', 'everything to be ready');
		const resources = (await first.client.listResources()).resources;
		await first.close();

		// Lazy now, with its catalog cached: it stays cold, and its capabilities and lists come from the cache.
		const second = await openHangar(writeConfig(dir, {everything: everything({lazy: true, instances: 'shared'})}, fastHangar));
		expect(second.client.getServerCapabilities()).toMatchObject({
			tools: {listChanged: true},
			resources: {subscribe: true, listChanged: true},
			prompts: {listChanged: true},
			completions: {},
		});
		expect((await second.client.listResources()).resources).toEqual(resources);
		expect((await second.client.listPrompts()).prompts.map(prompt => prompt.name)).toContain('everything__args-prompt');
		expect((await statusOf(second.client, 'everything')).state).toBe('cold');

		// A read starts it on demand, like a call.
		const read = await second.client.readResource({uri: resources[0]!.uri});
		expect(read.contents[0]!.uri).toBe(resources[0]!.uri);
		expect((await statusOf(second.client, 'everything')).state).toBe('ready');
	});

	it('leave out resources, prompts and completions when no upstream serves them', async () => {
		const dir = tempDir();
		const first = await openHangar(writeConfig(dir, {fx: fixture('normal', [], {lazy: false})}, fastHangar));
		await waitFor(async () => (await statusOf(first.client, 'fx')).state === 'ready', 'fx to be ready');
		await first.close();

		const second = await openHangar(writeConfig(dir, {fx: fixture('normal')}, fastHangar));
		expect(second.client.getServerCapabilities()).toEqual({tools: {listChanged: true}, logging: {}});
		await expect(second.client.listResources()).rejects.toMatchObject({code: -32_601});
		await expect(second.client.listPrompts()).rejects.toMatchObject({code: -32_601});
	});
});
