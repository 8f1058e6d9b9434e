import {spawn, type ChildProcess} from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import {afterEach, describe, expect, it} from 'vitest';
import {silentLogger} from '../../../../source/core/base/logger.js';
import {mergeState} from '../../../../source/core/engine/state-merge.js';
import {StateStore, type PersistedState} from '../../../../source/core/engine/state-store.js';
import {processCmdline, processStartTime} from '../../../../source/core/engine/state-lock.js';
import {tempDir, waitFor} from '../../../support/hangar.js';

const children: ChildProcess[] = [];

afterEach(() => {
	for (const child of children.splice(0)) child.kill('SIGKILL');
});

/** A live process that is not hangar: a `sleep` of this test's own. */
async function sleeper(): Promise<ChildProcess> {
	const child = spawn('sleep', ['1000'], {stdio: 'ignore'});
	children.push(child);
	await waitFor(() => processCmdline(child.pid!) === 'sleep 1000', 'sleep to exec');
	return child;
}

/** The lock a hangar with that process's identity would write. */
function lockOf(pid: number, startTime = processStartTime(pid)): string {
	return JSON.stringify({pid, startTime, cmdline: processCmdline(pid), bootId: fs.readFileSync('/proc/sys/kernel/random/boot_id', 'utf8').trim()});
}

const quarantined = (reason: string) => ({state: 'quarantined' as const, at: 1, reason});

function writeState(dir: string, state: unknown): void {
	fs.writeFileSync(path.join(dir, 'state.json'), typeof state === 'string' ? state : JSON.stringify(state, null, 2));
}

describe('state store', () => {
	it('persists to disk through a real file (not memory), debounced', async () => {
		const dir = tempDir();
		const store = await StateStore.open(dir, silentLogger, 10);
		store.update('fx', upstream => {
			upstream.toolsVerifiedAt = 123;
		});
		await store.close();
		const saved = JSON.parse(fs.readFileSync(path.join(dir, 'state.json'), 'utf8'));
		expect(saved.upstreams.fx.toolsVerifiedAt).toBe(123);
		const again = await StateStore.open(dir, silentLogger);
		expect(again.upstream('fx').toolsVerifiedAt).toBe(123);
		await again.close();
	});

	it('creates its files owner-only (600), and makes a state file an older hangar left 644 owner-only', async () => {
		const dir = tempDir();
		fs.writeFileSync(path.join(dir, 'state.json'), JSON.stringify({version: 1, upstreams: {}}), {mode: 0o644});
		fs.chmodSync(path.join(dir, 'state.json'), 0o644);
		const store = await StateStore.open(dir, silentLogger, 1);
		expect(fs.statSync(path.join(dir, 'state.json')).mode & 0o777).toBe(0o600);
		expect(fs.statSync(path.join(dir, 'state.lock')).mode & 0o777).toBe(0o600);
		fs.rmSync(path.join(dir, 'state.json'));
		store.update('fx', upstream => {
			upstream.admin = quarantined('by a person');
		});
		await store.flush();
		expect(fs.statSync(path.join(dir, 'state.json')).mode & 0o777).toBe(0o600);
		expect(fs.statSync(path.join(dir, 'quarantine.json')).mode & 0o777).toBe(0o600);
		await store.close();
	});

	it('reads without taking the writer lock when opened read-only (mcp-hangar status), so a hangar starting meanwhile still writes', async () => {
		const dir = tempDir();
		const reader = await StateStore.open(dir, silentLogger, 1, {readOnly: true});
		expect(reader.isWriter).toBe(false);
		expect(fs.existsSync(path.join(dir, 'state.lock'))).toBe(false);
		const writer = await StateStore.open(dir, silentLogger, 1);
		expect(writer.isWriter).toBe(true);
		reader.update('fx', upstream => {
			upstream.counters.calls = 99;
		});
		await reader.close();
		await writer.close();
		expect(fs.existsSync(path.join(dir, 'state.json'))).toBe(false);
	});

	it('keeps lazy updates (call counters) in memory until the next write or close', async () => {
		const dir = tempDir();
		const store = await StateStore.open(dir, silentLogger, 1);
		store.update('fx', upstream => {
			upstream.counters.calls += 1;
		}, true);
		await new Promise(resolve => setTimeout(resolve, 50));
		expect(fs.existsSync(path.join(dir, 'state.json'))).toBe(false);
		await store.close();
		const saved = JSON.parse(fs.readFileSync(path.join(dir, 'state.json'), 'utf8'));
		expect(saved.upstreams.fx.counters.calls).toBe(1);
	});

	it('moves a file that is not JSON aside, reports it, and starts empty', async () => {
		const dir = tempDir();
		writeState(dir, '{not json');
		const store = await StateStore.open(dir, silentLogger);
		expect(store.problems[0]).toMatch(/state file .*state\.json is not valid JSON/);
		expect(store.problems.at(-1)).toMatch(/moved the original to .*state\.json\.corrupt-\d+/);
		expect(fs.readdirSync(dir).some(file => file.startsWith('state.json.corrupt-'))).toBe(true);
		expect(store.data.upstreams).toEqual({});
		await store.close();
	});

	it('keeps the quarantines and pins of a cut-off state file, and learns its tool lists again', async () => {
		const dir = tempDir();
		const text = JSON.stringify({
			version: 1,
			upstreams: {
				a: {counters: {starts: 1, crashes: 0, calls: 2, failures: 0}, admin: quarantined('rug pull seen by a person'), pins: {by: 'first-use', pinnedAt: 5, tools: {t: {hash: 'h', description: null, inputSchema: null}}}},
				b: {counters: {starts: 1, crashes: 0, calls: 0, failures: 0}, tools: [{name: 'one'}, {name: 'two'}, {name: 'three'}], toolsVerifiedAt: 9},
			},
		});
		writeState(dir, text.slice(0, text.indexOf('"two"') + 3));
		const store = await StateStore.open(dir, silentLogger);
		expect(store.upstream('a').admin).toEqual(quarantined('rug pull seen by a person'));
		expect(store.upstream('a').pins?.tools?.['t']?.hash).toBe('h');
		expect(store.upstream('b').tools).toBeUndefined();
		expect(store.problems.join('\n')).toMatch(/not valid JSON .*kept its quarantines and pinned tools/);
		await store.close();
		expect(JSON.parse(fs.readFileSync(path.join(dir, 'state.json'), 'utf8')).upstreams.a.admin.reason).toBe('rug pull seen by a person');
	});

	it('keeps a quarantine in quarantine.json that outlives a state file destroyed beyond repair', async () => {
		const dir = tempDir();
		const store = await StateStore.open(dir, silentLogger, 1);
		store.update('a', upstream => {
			upstream.admin = quarantined('by a person');
		});
		await store.close();
		writeState(dir, '\u0000\u0001garbage');
		const again = await StateStore.open(dir, silentLogger, 1);
		expect(again.upstream('a').admin?.state).toBe('quarantined');
		await again.close();
		fs.rmSync(path.join(dir, 'state.json'));
		const third = await StateStore.open(dir, silentLogger, 1);
		expect(third.upstream('a').admin?.reason).toBe('by a person');
		await third.close();
	});

	it('lifts a quarantine only when both files say so: an approval removes it from each', async () => {
		const dir = tempDir();
		const store = await StateStore.open(dir, silentLogger, 1);
		store.update('a', upstream => {
			upstream.admin = quarantined('by a person');
		});
		store.saveNow();
		store.update('a', upstream => {
			upstream.admin = undefined;
		});
		await store.close();
		expect(JSON.parse(fs.readFileSync(path.join(dir, 'quarantine.json'), 'utf8')).upstreams).toEqual({});
		const again = await StateStore.open(dir, silentLogger, 1);
		expect(again.upstream('a').admin).toBeUndefined();
		await again.close();
	});

	it.each([
		['a tool that is null', {a: {tools: [null]}}, /upstreams\["a"\]\.tools\.0: .*dropped tools/],
		['a catalog that is a number', {a: {catalog: 5}}, /upstreams\["a"\]\.catalog: .*dropped catalog/],
		['counters that are null', {a: {counters: null}}, /upstreams\["a"\]\.counters is null, not an object: reset to 0/],
		['a counter that is a string', {a: {counters: {starts: 'x', crashes: 0, calls: 1, failures: 0}}}, /counters\.starts is "x", not a count: reset to 0/],
		['a record that is a string', {a: 'x'}, /upstreams\["a"\] is "x", not an object: dropped/],
	])('drops %s with a reason and starts', async (_, upstreams, reason) => {
		const dir = tempDir();
		writeState(dir, {version: 1, upstreams});
		const store = await StateStore.open(dir, silentLogger, 1);
		expect(store.problems.join('\n')).toMatch(reason);
		expect(store.upstream('a').counters).toEqual(expect.objectContaining({crashes: 0, failures: 0}));
		expect(store.problems.at(-1)).toMatch(/moved the original to .*state\.json\.corrupt-\d+/);
		await store.close();
	});

	it('keeps a damaged quarantine a quarantine, so a person looks before the upstream serves again', async () => {
		const dir = tempDir();
		writeState(dir, {version: 1, upstreams: {a: {counters: {starts: 0, crashes: 0, calls: 0, failures: 0}, admin: {state: 'quarantined', at: 'yesterday', reason: 'by a person'}}}});
		const store = await StateStore.open(dir, silentLogger, 1);
		expect(store.upstream('a').admin?.state).toBe('quarantined');
		expect(store.upstream('a').admin?.reason).toMatch(/^by a person \(its saved record was damaged: .*approve it again once you trust it\)$/);
		expect(store.problems.join('\n')).toMatch(/upstreams\["a"\]\.admin\.at: .*kept it quarantined/);
		await store.close();
	});

	it('does not write while another live hangar holds the lock, and refuses to promise a save', async () => {
		const dir = tempDir();
		const holder = await sleeper();
		fs.writeFileSync(path.join(dir, 'state.lock'), lockOf(holder.pid!));
		const store = await StateStore.open(dir, silentLogger, 1, {takeoverPollMs: 60_000});
		expect(store.isWriter).toBe(false);
		expect(store.writerPid).toBe(holder.pid);
		expect(store.whyNotSaved()).toEqual({holder: expect.objectContaining({pid: holder.pid})});
		store.update('fx', upstream => {
			upstream.toolsVerifiedAt = 1;
		});
		await store.close();
		expect(fs.existsSync(path.join(dir, 'state.json'))).toBe(false);
	});

	it('takes over when the holder exits, merging what the holder saved with what it changed meanwhile', async () => {
		const dir = tempDir();
		const holder = await sleeper();
		writeState(dir, {version: 1, upstreams: {a: {counters: {starts: 1, crashes: 0, calls: 10, failures: 0}}}});
		fs.writeFileSync(path.join(dir, 'state.lock'), lockOf(holder.pid!));
		const store = await StateStore.open(dir, silentLogger, 1, {takeoverPollMs: 20});
		const takeover = new Promise<string[]>(resolve => {
			store.onTakeover(resolve);
		});
		// Made here while the holder writes: a hangar-set quarantine, and calls.
		store.update('b', upstream => {
			upstream.admin = quarantined('a pinned tool changed');
		});
		store.update('a', upstream => {
			upstream.counters.calls += 2;
		}, true);
		// The holder's last write before it exits: a person's quarantine, and its own calls.
		writeState(dir, {version: 1, upstreams: {a: {counters: {starts: 1, crashes: 0, calls: 15, failures: 0}}, c: {counters: {starts: 0, crashes: 0, calls: 0, failures: 0}, admin: quarantined('by a person')}}});
		holder.kill('SIGKILL');
		expect((await takeover).sort()).toEqual(['c']);
		expect(store.isWriter).toBe(true);
		await store.close();
		const saved = JSON.parse(fs.readFileSync(path.join(dir, 'state.json'), 'utf8')) as PersistedState;
		expect(saved.upstreams['a']!.counters.calls).toBe(17);
		expect(saved.upstreams['b']!.admin?.reason).toBe('a pinned tool changed');
		expect(saved.upstreams['c']!.admin?.reason).toBe('by a person');
		expect(Object.keys(JSON.parse(fs.readFileSync(path.join(dir, 'quarantine.json'), 'utf8')).upstreams).sort()).toEqual(['b', 'c']);
	});

	it('takes a lock whose pid now belongs to another process (a reused pid: same pid, other start time)', async () => {
		const dir = tempDir();
		const other = await sleeper();
		fs.writeFileSync(path.join(dir, 'state.lock'), lockOf(other.pid!, '1'));
		const store = await StateStore.open(dir, silentLogger, 1);
		expect(store.isWriter).toBe(true);
		expect(JSON.parse(fs.readFileSync(path.join(dir, 'state.lock'), 'utf8')).pid).toBe(process.pid);
		await store.close();
		expect(fs.existsSync(path.join(dir, 'state.lock'))).toBe(false);
	});

	it('takes a lock whose pid runs another command line', async () => {
		const dir = tempDir();
		const other = await sleeper();
		fs.writeFileSync(path.join(dir, 'state.lock'), JSON.stringify({...JSON.parse(lockOf(other.pid!)), cmdline: 'node /usr/lib/mcp-hangar/dist/cli.js serve'}));
		const store = await StateStore.open(dir, silentLogger, 1);
		expect(store.isWriter).toBe(true);
		await store.close();
	});

	it('replaces a stale lock left by a dead process, also in the bare-pid form of an older hangar', async () => {
		const dir = tempDir();
		fs.writeFileSync(path.join(dir, 'state.lock'), '999999999');
		const store = await StateStore.open(dir, silentLogger, 1);
		expect(store.isWriter).toBe(true);
		await store.close();
	});
});

describe('merging at a takeover', () => {
	const record = (calls: number, extra: Record<string, unknown> = {}) => ({counters: {starts: 0, crashes: 0, calls, failures: 0}, ...extra});

	it('keeps a field this process changed, takes the holder\'s for the others, and adds the counters', () => {
		const base: PersistedState = {version: 1, upstreams: {a: record(1, {toolsVerifiedAt: 1, firstSeenAt: 1})}};
		const ours: PersistedState = {version: 1, upstreams: {a: record(4, {toolsVerifiedAt: 2, firstSeenAt: 1})}};
		const theirs: PersistedState = {version: 1, upstreams: {a: record(6, {toolsVerifiedAt: 3, firstSeenAt: 1, admin: quarantined('by a person')})}};
		expect(mergeState(base, ours, theirs)).toEqual(['a']);
		expect(ours.upstreams['a']).toEqual(record(9, {toolsVerifiedAt: 2, firstSeenAt: 1, admin: quarantined('by a person')}));
	});

	it('takes the holder\'s record of an upstream this process thought new (its approval stands)', () => {
		const base: PersistedState = {version: 1, upstreams: {}};
		const ours: PersistedState = {version: 1, upstreams: {a: record(1, {admin: quarantined('new upstream'), firstSeenAt: 5})}};
		const theirs: PersistedState = {version: 1, upstreams: {a: record(3, {firstSeenAt: 2})}};
		expect(mergeState(base, ours, theirs)).toEqual(['a']);
		expect(ours.upstreams['a']).toEqual(record(4, {firstSeenAt: 2}));
	});
});
