/**
 * What "instances": "auto" learned (an upstream asked a client for roots,
 * sampling or elicitation, so it runs per client) holds for the launch and
 * the server version it was learned of, and is learned again when either
 * changes. Real supervisors on one state dir, one after the other.
 */
import {afterEach, describe, expect, it} from 'vitest';
import {launchKey} from '../../source/core/engine/clients/instance-mode.js';
import {fixture, tempDir, type ServerEntry} from '../support/hangar.js';
import {closeAll, startSupervisor} from '../support/supervisor.js';

afterEach(closeAll);

/** Saves a verdict for "fx" as a supervisor of `entry` learned it, with the server's identity at its last start. */
async function learned(dir: string, entry: ServerEntry, verdict: {launch?: string; server?: string}, version = '1.0.0'): Promise<void> {
	const t = await startSupervisor({fx: entry}, {}, {dir, launch: false});
	t.supervisor.store.updateNow('fx', record => {
		record.identity = {serverInfo: {name: 'fixture', version}, instructions: null};
		record.clientScoped = {at: Date.parse('2026-11-01T10:00:00Z'), method: 'roots/list', ...verdict};
	});
	await t.close();
}

async function verdictAfterRestart(dir: string, entry: ServerEntry) {
	const t = await startSupervisor({fx: entry}, {}, {dir, launch: false});
	const verdict = t.supervisor.store.upstream('fx').clientScoped;
	await t.close();
	return verdict;
}

describe('the "auto" verdict', () => {
	const entry = fixture('normal', [], {tools: [{name: 'echo'}]});
	// As the config reader resolves it: the entry's command and arguments, run in the config file's directory.
	const key = (dir: string) => launchKey({kind: 'stdio', command: entry['command'] as string, args: entry['args'] as string[], env: {}, cwd: dir});

	it('is kept for the same launch and version, and one saved before launches were recorded adopts the current one', async () => {
		const dir = tempDir();
		await learned(dir, entry, {});
		const adopted = await verdictAfterRestart(dir, entry);
		expect(adopted).toMatchObject({method: 'roots/list', server: 'fixture@1.0.0'});
		expect(adopted?.launch).toBe(key(dir));
		expect(await verdictAfterRestart(dir, entry)).toEqual(adopted);
	});

	it('is forgotten when the config launches something else, not when only its environment changes', async () => {
		const dir = tempDir();
		await learned(dir, entry, {launch: key(dir), server: 'fixture@1.0.0'});
		expect(await verdictAfterRestart(dir, {...entry, env: {TOKEN: 'another'}})).toMatchObject({launch: key(dir)});
		expect(await verdictAfterRestart(dir, fixture('normal', ['--delay-ms', '1'], {tools: [{name: 'echo'}]}))).toBeUndefined();
	});

	it('is forgotten when the server said another version at its last start', async () => {
		const dir = tempDir();
		await learned(dir, entry, {server: 'fixture@0.9.0'}, '1.0.0');
		expect(await verdictAfterRestart(dir, entry)).toBeUndefined();
	});
});
