/**
 * Nothing of one client reaches another through a shared instance, where
 * the upstream's transport ties nothing to a call (stdio): hangar places an
 * untied log message or request by what is in flight on the instance
 * (engine/clients/calls-in-flight.ts), and every request counts there, not
 * only tool calls: a client's resources/unsubscribe is that client's;
 * hangar's own unsubscribe for a client that left is no client's; a call
 * its client cancelled may still run at the upstream (cancellation is
 * advisory) until it answers or the call's deadline passes. Two attached
 * `--stdio` clients and the fixture server, which logs each subscription
 * request (naming its URI) before answering it, and whose `ask` can go on
 * after a cancel.
 */
import {Client} from '@modelcontextprotocol/sdk/client/index.js';
import {CreateMessageRequestSchema, LoggingMessageNotificationSchema, type CallToolResult} from '@modelcontextprotocol/sdk/types.js';
import {afterEach, describe, expect, it} from 'vitest';
import {closeHangars, fastHangar, fixture, openHangar, statusOf, tempDir, waitFor, writeConfig} from '../support/hangar.js';
import {startDaemon, stopDaemons} from '../support/serve.js';

afterEach(async () => {
	await closeHangars();
	await stopDaemons('SIGKILL');
});

/** A client at log level debug that answers sampling as `name`, recording the log messages and requests it got. */
async function attach(file: string, name: string) {
	const client = new Client({name, version: '1.0.0'}, {capabilities: {sampling: {}}});
	const logs: string[] = [];
	const asked: string[] = [];
	client.setNotificationHandler(LoggingMessageNotificationSchema, notification => {
		logs.push(String(notification.params.data));
	});
	client.setRequestHandler(CreateMessageRequestSchema, request => {
		const content = request.params.messages[0]?.content;
		asked.push(content !== undefined && !Array.isArray(content) && content.type === 'text' ? content.text : '?');
		return {role: 'assistant', content: {type: 'text', text: name}, model: name};
	});
	const handle = await openHangar(file, {client, shared: true});
	await client.setLoggingLevel('debug');
	return {name, client, logs, asked, close: handle.close};
}

function structured(result: unknown): Record<string, unknown> {
	return (result as CallToolResult).structuredContent!;
}

function sharedFixture(extra: Record<string, unknown> = {}) {
	return {fx: fixture('normal', ['--client-features', '--resources-count', '1'], {instances: 'shared', ...extra})};
}

async function inFlight(client: Client, count: number): Promise<void> {
	await waitFor(async () => (await statusOf(client, 'fx')).inFlight === count, `${count} call(s) in flight on fx`);
}

const uri = 'fixture://item/0';

describe('a shared instance\'s untied log messages', () => {
	it('never give one client the log of another\'s resources/unsubscribe, while its own call is in flight', async () => {
		const file = writeConfig(tempDir(), sharedFixture(), fastHangar);
		await startDaemon(file);
		const ada = await attach(file, 'ada');
		const bob = await attach(file, 'bob');
		// Alone in flight, ada gets what the upstream logs: the rule still places what it can.
		await ada.client.callTool({name: 'fx__log', arguments: {levels: ['info']}});
		expect(ada.logs).toContain('message at info');
		const held = ada.client.callTool({name: 'fx__ask', arguments: {kind: 'roots', gate: 'ada-held'}});
		held.catch(() => undefined); // Awaited below; a failed check before that closes the client under it.
		await inFlight(ada.client, 1);
		await bob.client.subscribeResource({uri});
		await bob.client.unsubscribeResource({uri});
		await bob.client.callTool({name: 'fx__open-gate', arguments: {gate: 'ada-held'}});
		await held;
		// A round trip on ada's connection: anything sent to it before is read by now.
		const seen = structured(await ada.client.callTool({name: 'fx__subscriptions-seen', arguments: {}}));
		expect(seen['requests']).toEqual([`resources/subscribe ${uri}`, `resources/unsubscribe ${uri}`]);
		expect(ada.logs.filter(line => line.includes(uri))).toEqual([]);
		expect(bob.logs.filter(line => line.includes(uri))).toEqual([]);
	});

	it('never give the one client left the log of hangar\'s unsubscribe for a client that closed', async () => {
		const file = writeConfig(tempDir(), sharedFixture(), fastHangar);
		await startDaemon(file);
		const ada = await attach(file, 'ada');
		const bob = await attach(file, 'bob');
		await ada.client.callTool({name: 'fx__echo', arguments: {message: 'start'}});
		await bob.client.subscribeResource({uri});
		await bob.close();
		await waitFor(async () => (structured(await ada.client.callTool({name: 'fx__subscriptions-seen', arguments: {}}))['requests'] as string[]).includes(`resources/unsubscribe ${uri}`), 'hangar to unsubscribe for bob');
		await ada.client.callTool({name: 'fx__log', arguments: {levels: ['info']}});
		expect(ada.logs.filter(line => line.includes(uri))).toEqual([]);
		// Alone now and nothing else in flight, ada gets what the upstream logs during its call.
		expect(ada.logs).toContain('message at info');
	});
});

describe('a shared instance\'s request during a call another client cancelled', () => {
	it('is refused, not sent to the client whose call is in flight, until the cancelled call\'s deadline passes', async () => {
		const file = writeConfig(tempDir(), sharedFixture({callTimeoutSeconds: 8}), fastHangar);
		await startDaemon(file);
		const ada = await attach(file, 'ada');
		const bob = await attach(file, 'bob');
		await ada.client.callTool({name: 'fx__echo', arguments: {message: 'start'}});
		const held = ada.client.callTool({name: 'fx__ask', arguments: {kind: 'roots', gate: 'ada-held'}});
		held.catch(() => undefined); // Awaited below; a failed check before that closes the client under it.
		await inFlight(ada.client, 1);
		const cancel = new AbortController();
		// The upstream goes on with bob's call after the cancel, as a server may: its request is bob's.
		const bobs = bob.client.callTool({name: 'fx__ask', arguments: {kind: 'sampling', gate: 'bob-gate', ignoreCancel: true, params: {messages: [{role: 'user', content: {type: 'text', text: 'bob-private'}}], maxTokens: 5}}}, undefined, {signal: cancel.signal});
		await inFlight(ada.client, 2);
		cancel.abort();
		await expect(bobs).rejects.toThrow();
		await inFlight(ada.client, 1);
		await ada.client.callTool({name: 'fx__open-gate', arguments: {gate: 'bob-gate'}});
		const answer = await waitFor(async () => {
			const {answers} = structured(await ada.client.callTool({name: 'fx__answers', arguments: {}})) as {answers: Array<{result?: unknown; error?: {message: string}}>};
			return answers.at(-1);
		}, 'bob\'s cancelled ask to be answered');
		expect(answer.result).toBeUndefined();
		expect(answer.error?.message).toMatch(/hangar cannot tell which client it belongs to: a call MCP client "bob" \(socket#\d+\) cancelled may still be running on it/);
		expect(ada.asked).toEqual([]);
		expect(bob.asked).toEqual([]);
		await ada.client.callTool({name: 'fx__open-gate', arguments: {gate: 'ada-held'}});
		await held;
		// Once the cancelled call's deadline has passed, ada's own request is hers again.
		await waitFor(async () => {
			const {result} = structured(await ada.client.callTool({name: 'fx__ask', arguments: {kind: 'sampling'}})) as {result?: {model?: string}};
			return result?.model === 'ada';
		}, 'ada\'s own sampling request to reach her after bob\'s cancelled call\'s deadline', 20_000);
		expect(ada.asked).toEqual(expect.arrayContaining(['Say hello to the fixture.']));
		expect(ada.asked).not.toContain('bob-private');
	});
});
