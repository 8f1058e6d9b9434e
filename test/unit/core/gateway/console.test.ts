/**
 * The console protocol's pieces, without a socket: what a `hangar/console`
 * read accepts and answers (the same snapshot the in-process TUI reads, log
 * lines sent only once), and the change notification's flow control (one
 * per read, at most ten a second). The supervisor is real but launches
 * nothing: its upstreams stay cold.
 */
import path from 'node:path';
import {afterEach, beforeEach, describe, expect, it, vi} from 'vitest';
import {JsonRpcCode, JsonRpcError} from '../../../../source/core/base/errors.js';
import {silentLogger} from '../../../../source/core/base/logger.js';
import {parseConfig} from '../../../../source/core/config/read-config.js';
import {consoleSnapshot} from '../../../../source/core/views/console-view.js';
import {StateStore} from '../../../../source/core/engine/state-store.js';
import {Supervisor} from '../../../../source/core/engine/supervisor.js';
import {ConsoleChannel, consoleAnswer, parseConsoleParams} from '../../../../source/core/gateway/console.js';
import {consoleMethod} from '../../../../source/core/wire/protocol.js';
import {fixture, tempDir} from '../../../support/hangar.js';

const supervisors: Supervisor[] = [];

async function coldSupervisor(): Promise<Supervisor> {
	const dir = tempDir();
	const config = parseConfig({hangar: {stateDir: path.join(dir, 'state')}, mcpServers: {fx: fixture('normal'), other: fixture('normal')}}, path.join(dir, 'mcp-hangar.json'));
	const supervisor = new Supervisor(config, await StateStore.open(config.hangar.stateDir, silentLogger, 10), silentLogger);
	supervisors.push(supervisor);
	return supervisor;
}

afterEach(async () => {
	vi.useRealTimers();
	await Promise.all(supervisors.splice(0).map(async supervisor => supervisor.shutdown('test finished')));
});

describe('hangar/console params', () => {
	it('takes no focus, an upstream\'s details or logs, or the clients, and a log position', () => {
		expect(parseConsoleParams(undefined)).toEqual({focus: undefined, logsAfter: undefined});
		expect(parseConsoleParams({})).toEqual({focus: undefined, logsAfter: undefined});
		expect(parseConsoleParams({focus: {name: 'fx', want: 'details'}})).toEqual({focus: {name: 'fx', want: 'details'}, logsAfter: undefined});
		expect(parseConsoleParams({focus: {name: 'fx', want: 'logs'}, logsAfter: 12})).toEqual({focus: {name: 'fx', want: 'logs'}, logsAfter: 12});
		expect(parseConsoleParams({focus: {want: 'clients'}})).toEqual({focus: {want: 'clients'}, logsAfter: undefined});
	});

	it('refuses anything else with InvalidParams, naming the method and what it expects', () => {
		for (const params of [[], 'fx', {focus: 'fx'}, {focus: {name: 'fx', want: 'tools'}}, {focus: {want: 'details'}}, {logsAfter: -1}, {logsAfter: 1.5}]) {
			let thrown: unknown;
			try {
				parseConsoleParams(params);
			} catch (error) {
				thrown = error;
			}

			expect(thrown, JSON.stringify(params)).toBeInstanceOf(JsonRpcError);
			expect((thrown as JsonRpcError).code).toBe(JsonRpcCode.InvalidParams);
			expect((thrown as JsonRpcError).message).toContain(`Invalid params for "${consoleMethod}"`);
			expect((thrown as JsonRpcError).message).toContain('expected {"focus"?:');
		}
	});
});

describe('a console read', () => {
	it('answers the snapshot the in-process TUI reads for the same focus', async () => {
		const supervisor = await coldSupervisor();
		// One clock for both reads: on a loaded machine they could fall on either side of a sparkline bucket's end.
		vi.useFakeTimers({toFake: ['Date'], now: Date.now()});
		try {
			for (const focus of [undefined, {name: 'fx', want: 'details' as const}, {want: 'clients' as const}]) {
				const {snapshot} = consoleAnswer(supervisor, {focus});
				expect({...snapshot, now: 0}).toEqual({...consoleSnapshot(supervisor, focus), now: 0});
			}
		} finally {
			vi.useRealTimers();
		}

		const {snapshot} = consoleAnswer(supervisor, {focus: {name: 'fx', want: 'details'}});
		expect(snapshot.details?.server.name).toBe('fx');
		expect(snapshot.entries.map(entry => entry.name)).toEqual(['fx', 'other']);
		expect(snapshot.toolNames).toEqual({fx: [], other: []});
	});

	it('sends only the log lines the console does not hold, and says where the held ones begin', async () => {
		const supervisor = await coldSupervisor();
		const log = supervisor.upstream('fx').log;
		for (let n = 0; n < 5; n++) log.push('stderr', `line ${n}`);
		const focus = {name: 'fx', want: 'logs' as const};

		const whole = consoleAnswer(supervisor, {focus});
		expect(whole.snapshot.logs?.lines.map(line => line.text)).toEqual(['line 0', 'line 1', 'line 2', 'line 3', 'line 4']);
		expect(whole.snapshot.logs?.first).toBe(0);
		expect(whole.logsHeldFrom).toBeUndefined();

		log.push('stderr', 'line 5');
		const next = consoleAnswer(supervisor, {focus, logsAfter: 5});
		expect(next.snapshot.logs).toMatchObject({first: 5, lines: [{text: 'line 5', source: 'stderr'}]});
		expect(next.logsHeldFrom).toBe(0);

		// Numbering the buffer never reached (a supervisor that started again): the whole buffer.
		const unknown = consoleAnswer(supervisor, {focus, logsAfter: 50});
		expect(unknown.snapshot.logs?.lines).toHaveLength(6);
		expect(unknown.logsHeldFrom).toBeUndefined();
	});

	it('carries what approving each quarantined upstream would pin, and nothing for the others', async () => {
		const supervisor = await coldSupervisor();
		expect(consoleAnswer(supervisor, {focus: undefined}).approvals).toEqual({});
		await supervisor.act('fx', 'quarantine', 'a test');
		expect(consoleAnswer(supervisor, {focus: undefined}).approvals).toEqual({fx: supervisor.upstream('fx').approvalPlan});
	});
});

describe('the changed notification', () => {
	beforeEach(() => {
		vi.useFakeTimers();
	});

	it('is sent once after a read for any burst of changes, and not again until the console reads', async () => {
		const supervisor = await coldSupervisor();
		let sent = 0;
		const channel = new ConsoleChannel(supervisor, () => sent++);
		// Changes before the first read: the console has nothing to refresh yet.
		supervisor.emit('activity', 'fx');
		await vi.advanceTimersByTimeAsync(500);
		expect(sent).toBe(0);

		channel.read({focus: undefined});
		for (let n = 0; n < 1000; n++) supervisor.emit('activity', 'fx');
		await vi.advanceTimersByTimeAsync(0);
		expect(sent).toBe(1);

		supervisor.clients.changed();
		await vi.advanceTimersByTimeAsync(1000);
		expect(sent).toBe(1);
		channel.close();
	});

	it('is sent at most ten times a second however fast the console reads', async () => {
		const supervisor = await coldSupervisor();
		const at: number[] = [];
		let channel: ConsoleChannel;
		// A console that reads the moment it is told.
		channel = new ConsoleChannel(supervisor, () => {
			at.push(Date.now());
			channel.read({focus: undefined});
		});
		channel.read({focus: undefined});
		const start = Date.now();
		for (let ms = 0; ms < 1000; ms += 5) {
			supervisor.emit('activity', 'fx');
			await vi.advanceTimersByTimeAsync(5);
		}

		expect(at.length).toBeGreaterThanOrEqual(9);
		expect(at.length).toBeLessThanOrEqual(11);
		for (let n = 1; n < at.length; n++) expect(at[n]! - at[n - 1]!).toBeGreaterThanOrEqual(100);
		expect(at[0]! - start).toBeLessThan(100);
		channel.close();
	});

	it('follows the focused upstream\'s log lines, and stops with close', async () => {
		const supervisor = await coldSupervisor();
		let sent = 0;
		const channel = new ConsoleChannel(supervisor, () => sent++);
		channel.read({focus: undefined});
		supervisor.upstream('fx').log.push('stderr', 'not watched: the list shows no log');
		await vi.advanceTimersByTimeAsync(200);
		expect(sent).toBe(0);

		channel.read({focus: {name: 'fx', want: 'logs'}});
		supervisor.upstream('fx').log.push('stderr', 'watched');
		await vi.advanceTimersByTimeAsync(200);
		expect(sent).toBe(1);

		channel.read({focus: {name: 'fx', want: 'logs'}});
		channel.close();
		supervisor.upstream('fx').log.push('stderr', 'closed');
		supervisor.emit('activity', 'fx');
		await vi.advanceTimersByTimeAsync(200);
		expect(sent).toBe(1);
	});
});
