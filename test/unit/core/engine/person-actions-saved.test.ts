/**
 * A person's quarantine or approval is saved or refused, never acknowledged
 * and then dropped: a supervisor whose state dir another live hangar writes
 * refuses them with the reason and what to do (every surface goes through
 * Supervisor.act), takes the dir over once that hangar is gone, and from
 * then on saves them. The supervisor is real but launches nothing; the
 * other hangar is a `sleep` whose identity the lock names.
 */
import {spawn, type ChildProcess} from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import {afterEach, describe, expect, it} from 'vitest';
import {HangarError} from '../../../../source/core/base/errors.js';
import {silentLogger} from '../../../../source/core/base/logger.js';
import {parseConfig} from '../../../../source/core/config/read-config.js';
import {processCmdline, selfHolder} from '../../../../source/core/engine/state-lock.js';
import {StateStore} from '../../../../source/core/engine/state-store.js';
import {Supervisor} from '../../../../source/core/engine/supervisor.js';
import {fixture, rejection, tempDir, waitFor} from '../../../support/hangar.js';

const supervisors: Supervisor[] = [];
const children: ChildProcess[] = [];

afterEach(async () => {
	for (const child of children.splice(0)) child.kill('SIGKILL');
	await Promise.all(supervisors.splice(0).map(async supervisor => supervisor.shutdown('test finished')));
});

/** A supervisor on a state dir whose lock names a live `sleep` as its writer. */
async function notWriter(): Promise<{supervisor: Supervisor; holder: ChildProcess; stateDir: string}> {
	const dir = tempDir();
	const stateDir = path.join(dir, 'state');
	fs.mkdirSync(stateDir);
	const holder = spawn('sleep', ['1000'], {stdio: 'ignore'});
	children.push(holder);
	await waitFor(() => processCmdline(holder.pid!) === 'sleep 1000', 'sleep to exec');
	// The lock's record as that process would write it: its own pid, start time and command line.
	const identity = selfHolder();
	fs.writeFileSync(path.join(stateDir, 'state.lock'), JSON.stringify({...identity, pid: holder.pid, startTime: fs.readFileSync(`/proc/${holder.pid}/stat`, 'utf8').split(') ')[1]!.split(' ')[19], cmdline: 'sleep 1000'}));
	const config = parseConfig({hangar: {stateDir}, mcpServers: {fx: fixture('normal'), other: fixture('normal')}}, path.join(dir, 'mcp-hangar.json'));
	const supervisor = new Supervisor(config, await StateStore.open(stateDir, silentLogger, 10, {takeoverPollMs: 50}), silentLogger);
	supervisors.push(supervisor);
	return {supervisor, holder, stateDir};
}

const savedQuarantines = (stateDir: string): string[] => Object.keys(JSON.parse(fs.readFileSync(path.join(stateDir, 'quarantine.json'), 'utf8')).upstreams as object);

describe('a person\'s action while another hangar writes the state dir', () => {
	it('is refused with StateNotSaved, the writer\'s pid and what to do, and changes nothing', async () => {
		const {supervisor, holder} = await notWriter();
		expect(supervisor.store.isWriter).toBe(false);
		const error = await rejection(supervisor.act('fx', 'quarantine', 'a person in the TUI'), HangarError);
		expect(error.codeName).toBe('StateNotSaved');
		expect(error.message).toContain(`hangar process ${holder.pid} writes the state dir`);
		expect(error.message).toContain('did not quarantine it');
		expect(error.messageFor('mcp')).toContain('the hangar_quarantine tool');
		expect(supervisor.upstream('fx').state).toBe('cold');
		const approve = await rejection(supervisor.act('fx', 'approve', 'a person (mcp-hangar approve)'), HangarError);
		expect(approve.codeName).toBe('StateNotSaved');
	});

	it('leaves start, stop and restart alone: they are not saved anyway', async () => {
		const {supervisor} = await notWriter();
		expect(await supervisor.act('fx', 'stop', 'a person in the TUI')).toMatch(/stopped "fx"/);
	});

	it('is saved once the writer is gone: the dir is taken over and the quarantine reaches both files', async () => {
		const {supervisor, holder, stateDir} = await notWriter();
		holder.kill('SIGKILL');
		await waitFor(() => supervisor.store.isWriter, 'the takeover');
		expect(await supervisor.act('fx', 'quarantine', 'a person in the TUI')).toMatch(/quarantined "fx"/);
		expect(savedQuarantines(stateDir)).toEqual(['fx']);
		expect(JSON.parse(fs.readFileSync(path.join(stateDir, 'state.json'), 'utf8')).upstreams.fx.admin.reason).toBe('quarantined by a person in the TUI');
	});

	it('applies a quarantine the writer saved before it exited', async () => {
		const {supervisor, holder, stateDir} = await notWriter();
		fs.writeFileSync(
			path.join(stateDir, 'state.json'),
			JSON.stringify({version: 1, upstreams: {other: {counters: {starts: 0, crashes: 0, calls: 0, failures: 0}, admin: {state: 'quarantined', at: 1, reason: 'quarantined by a person elsewhere'}}}}),
		);
		holder.kill('SIGKILL');
		await waitFor(() => supervisor.upstream('other').state === 'quarantined', 'the saved quarantine to apply');
		expect(supervisor.upstream('other').quarantineInfo?.reason).toBe('quarantined by a person elsewhere');
	});

	it('is reported as not saved when the write fails, saying it holds only for this run, which file failed and what to do for that error', async () => {
		const dir = tempDir();
		const stateDir = path.join(dir, 'state');
		const config = parseConfig({hangar: {stateDir}, mcpServers: {fx: fixture('normal')}}, path.join(dir, 'mcp-hangar.json'));
		const supervisor = new Supervisor(config, await StateStore.open(stateDir, silentLogger, 10), silentLogger);
		supervisors.push(supervisor);
		// A directory where the file goes: the rename fails whoever runs the test (root included).
		fs.mkdirSync(path.join(stateDir, 'quarantine.json', 'x'), {recursive: true});
		const error = await rejection(supervisor.act('fx', 'quarantine', 'a person in the TUI'), HangarError);
		expect(error.codeName).toBe('StateNotSaved');
		expect(error.message).toMatch(/quarantine failed: not saved, it holds only until hangar exits: quarantined "fx": .*, but writing .*quarantine\.json failed \(.*\)/);
		expect(error.message).toContain('move it away');
		expect(error.message).not.toContain('Free space');
		expect(supervisor.store.writeFailure).toMatchObject({file: path.join(stateDir, 'quarantine.json'), code: 'EISDIR'});
		fs.rmSync(path.join(stateDir, 'quarantine.json'), {recursive: true});
		await supervisor.act('fx', 'approve', 'a person in the TUI');
		expect(supervisor.store.writeFailure).toBeUndefined();
	});

	it('is saved when quarantine.json is written though state.json is not, and says so', async () => {
		const dir = tempDir();
		const stateDir = path.join(dir, 'state');
		const config = parseConfig({hangar: {stateDir}, mcpServers: {fx: fixture('normal')}}, path.join(dir, 'mcp-hangar.json'));
		const supervisor = new Supervisor(config, await StateStore.open(stateDir, silentLogger, 10), silentLogger);
		supervisors.push(supervisor);
		fs.mkdirSync(path.join(stateDir, 'state.json', 'x'), {recursive: true});
		const said = await supervisor.act('fx', 'quarantine', 'a person in the TUI');
		expect(said).toMatch(/quarantined "fx".*saved in .*quarantine\.json; .*state\.json could not be written/);
		expect(savedQuarantines(stateDir)).toEqual(['fx']);
		expect(supervisor.store.writeFailure?.file).toBe(path.join(stateDir, 'state.json'));
		// An approval lives in state.json (the pins): not saved, with the advice for that error.
		const error = await rejection(supervisor.act('fx', 'approve', 'a person in the TUI'), HangarError);
		expect(error.message).toMatch(/writing .*state\.json failed/);
		expect(error.message).toContain('move it away');
	});
});

describe('a person\'s action saved while a debounced write is under way', () => {
	it('is on disk when acknowledged, and stays there after the older write lands', async () => {
		const dir = tempDir();
		const stateDir = path.join(dir, 'state');
		const config = parseConfig({hangar: {stateDir}, mcpServers: {fx: fixture('normal'), other: fixture('normal')}}, path.join(dir, 'mcp-hangar.json'));
		const store = await StateStore.open(stateDir, silentLogger, 1);
		const supervisor = new Supervisor(config, store, silentLogger);
		supervisors.push(supervisor);
		// An async write of the state before the quarantine, begun (its quarantine.json computed) when the person acts.
		store.updateNow('other', upstream => {
			upstream.toolsVerifiedAt = 1;
		});
		await new Promise(resolve => setImmediate(resolve));
		await supervisor.act('fx', 'quarantine', 'a person in the TUI');
		const onDisk = () => JSON.parse(fs.readFileSync(path.join(stateDir, 'state.json'), 'utf8')).upstreams.fx?.admin?.state as string | undefined;
		expect(savedQuarantines(stateDir)).toEqual(['fx']);
		expect(onDisk()).toBe('quarantined');
		await store.flush();
		expect(savedQuarantines(stateDir)).toEqual(['fx']);
		expect(onDisk()).toBe('quarantined');
	});
});
