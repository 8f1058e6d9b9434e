/**
 * A terminal UI attached over the local socket to a supervisor that another
 * process would own (here: this one, behind a real LocalEndpoint): the
 * remote source shows what the in-process source shows, live, sends a
 * person's commands through `hangar/command`, counts as a console rather
 * than an MCP client, says so when the owner stops, and attaches to the
 * next owner by itself.
 */
import {afterEach, describe, expect, it} from 'vitest';
import {mcpClientCount, supervisorSource, type Focus} from '../../source/tui/components/hangar-source.js';
import {remoteSource, type RemoteSource} from '../../source/tui/components/remote-source.js';
import {silentLogger} from '../../source/core/base/logger.js';
import {ConsoleClient} from '../../source/core/endpoints/console-client.js';
import {LocalEndpoint} from '../../source/core/endpoints/local-endpoint.js';
import type {Supervisor} from '../../source/core/engine/supervisor.js';
import {fixture, waitFor} from '../support/hangar.js';
import {closeAll, startSupervisor} from '../support/supervisor.js';

const via = 'a test console';
const endpoints: LocalEndpoint[] = [];
const sources: RemoteSource[] = [];

afterEach(async () => {
	await Promise.all(sources.splice(0).map(async source => source.close()));
	await Promise.all(endpoints.splice(0).map(async endpoint => endpoint.close()));
	await closeAll();
});

async function listen(supervisor: Supervisor): Promise<LocalEndpoint> {
	const endpoint = await LocalEndpoint.listen({supervisor, logger: silentLogger, kind: 'serve', drainMs: 2000});
	endpoints.push(endpoint);
	return endpoint;
}

/** A remote source attached to `supervisor`'s endpoint, looking for the next one every 100 ms when lost. */
async function attach(supervisor: Supervisor): Promise<RemoteSource> {
	const link = await ConsoleClient.connect(supervisor.config, via);
	if (typeof link === 'string') throw new Error(link);
	const source = remoteSource({link, first: await link.read({focus: undefined}), logFile: 'console.log', retryMs: 100, reconnect: async () => ConsoleClient.connect(supervisor.config, via)});
	sources.push(source);
	return source;
}

/** Keeps a subscription open on `focus` (as the screen does), so the source reads it. */
function watch(source: RemoteSource, focus: Focus): () => void {
	return source.subscribe(focus, () => {});
}

describe('a TUI attached over the socket', () => {
	it('shows the same list as the owner\'s own TUI, live, and counts itself as a console, not a client', async () => {
		const {supervisor, waitForState} = await startSupervisor({fx: fixture('normal'), other: fixture('normal', [], {lazy: true})});
		await waitForState('fx', 'ready');
		await listen(supervisor);
		const source = await attach(supervisor);
		const local = supervisorSource(supervisor, {logFile: 'console.log'});
		watch(source, undefined);

		for (const message of ['one', 'two', 'three']) await supervisor.callByName('fx', 'echo', {message});
		await waitFor(() => source.read(undefined).entries.find(entry => entry.name === 'fx')?.calls === 3, 'the three calls on the attached TUI');

		// `other` may still be starting to learn its tools: the attached screen follows it to the same state.
		const shown = (entries: ReturnType<typeof local.read>['entries']) =>
			JSON.stringify(entries.map(({name, state, pid, tools, calls, failures, breaker}) => ({name, state, pid, tools, calls, failures, breaker})));
		await waitFor(() => shown(source.read(undefined).entries) === shown(local.read(undefined).entries), 'the same list on both');
		const remote = source.read(undefined);
		expect(remote.owner).toBe(`hangar pid ${process.pid} (mcp-hangar serve)`);
		expect(remote.stale).toBeUndefined();

		// A client of the supervisor (so a daemon waiting for its last client stays), listed as a console.
		expect(supervisor.clients.size).toBe(1);
		expect(supervisor.clients.mcpSize).toBe(0);
		expect(remote.clients).toEqual([expect.objectContaining({name: 'mcp-hangar-tui', transport: 'socket', console: true})]);
		expect(mcpClientCount(remote)).toBe(0);
		expect(local.attachedClients()).toBe(0);
	});

	it('reads the details and the log of the upstream it focuses on, the log line by line as it grows', async () => {
		const {supervisor, waitForState} = await startSupervisor({fx: fixture('normal')});
		await waitForState('fx', 'ready');
		await listen(supervisor);
		const source = await attach(supervisor);
		const details: Focus = {name: 'fx', want: 'details'};
		const stop = watch(source, details);
		await waitFor(() => source.read(details).details?.server.name === 'fx', 'the details of fx');
		expect(source.read(details).details?.tools.map(tool => tool.name)).toEqual(supervisor.upstream('fx').tools.map(tool => tool.name));
		// Another focus is not shown the details of the last one.
		expect(source.read({name: 'fx', want: 'logs'}).details).toBeUndefined();
		stop();

		const logs: Focus = {name: 'fx', want: 'logs'};
		watch(source, logs);
		const texts = (): string[] => source.read(logs).logs?.lines.map(line => line.text) ?? [];
		const owners = (): string => JSON.stringify(supervisor.upstream('fx').log.tail(10_000).map(line => line.text));
		await waitFor(() => texts().length > 0 && JSON.stringify(texts()) === owners(), 'the log of fx as the owner holds it');
		supervisor.upstream('fx').log.push('stderr', 'a new line');
		await waitFor(() => texts().at(-1) === 'a new line', 'the new line');
		// Appended to what it held, not read whole again: the same lines as the owner's, once each.
		expect(JSON.stringify(texts())).toBe(owners());
	});

	it('sends a person\'s commands to the owner\'s supervisor and asks before lifting with what it would pin', async () => {
		const {supervisor, waitForState, transitions} = await startSupervisor({fx: fixture('normal')});
		await waitForState('fx', 'ready');
		await listen(supervisor);
		const source = await attach(supervisor);
		watch(source, undefined);

		expect(await source.act('fx', 'quarantine')).toContain('quarantined "fx"');
		expect(supervisor.upstream('fx').state).toBe('quarantined');
		expect(transitions.at(-1)?.reason).toContain(via);
		await waitFor(() => source.read(undefined).entries[0]?.state === 'quarantined', 'the quarantine on the attached TUI');
		expect(source.approvalPins('fx')).toBe(supervisorSource(supervisor, {logFile: 'x'}).approvalPins('fx'));
		expect(source.approvalPins('fx')).toMatch(/^its \d+ tools as last listed \(at \d\d:\d\d:\d\d\)$/);

		await expect(source.act('nope', 'start')).rejects.toThrow(/unknown upstream|no upstream/i);
	});

	it('says when the owner stops, keeps the last snapshot with its age, and attaches to the next owner by itself', async () => {
		const first = await startSupervisor({fx: fixture('normal')});
		await first.waitForState('fx', 'ready');
		const endpoint = await listen(first.supervisor);
		const source = await attach(first.supervisor);
		watch(source, undefined);

		await endpoint.close();
		await waitFor(() => source.lost() !== undefined, 'the attached TUI to see its owner go');
		expect(source.lost()).toBe(`hangar pid ${process.pid} (mcp-hangar serve) stopped`);
		const stale = source.read(undefined);
		expect(stale.stale?.why).toContain('stopped; reconnecting');
		expect(stale.entries.map(entry => entry.name)).toEqual(['fx']);
		await expect(source.act('fx', 'stop')).rejects.toThrow('not attached to a supervisor');

		await first.close();
		const next = await startSupervisor({fx: fixture('normal')}, {}, {dir: first.dir});
		await listen(next.supervisor);
		await waitFor(() => source.lost() === undefined && source.read(undefined).stale === undefined, 'the attached TUI on the next owner');
		// The session counts as a console once its first console request is served, which may come a moment after it connected.
		await waitFor(() => next.supervisor.clients.list().some(client => client.console === true), 'the next owner to count the TUI as a console');
		expect(next.supervisor.clients.list()).toEqual([expect.objectContaining({console: true})]);
		expect(await source.act('fx', 'stop')).toContain('"fx"');
		expect(next.supervisor.upstream('fx').state).toBe('stopped');
	});
});
