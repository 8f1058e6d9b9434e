import fs from 'node:fs';
import path from 'node:path';
import {describe, expect, it} from 'vitest';
import {silentLogger} from '../../../../source/core/base/logger.js';
import {StateStore} from '../../../../source/core/engine/state-store.js';
import {tempDir} from '../../../support/hangar.js';

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
			upstream.toolsVerifiedAt = 1;
		});
		await store.flush();
		expect(fs.statSync(path.join(dir, 'state.json')).mode & 0o777).toBe(0o600);
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

	it('moves a corrupt file aside, reports it, and starts empty', async () => {
		const dir = tempDir();
		fs.writeFileSync(path.join(dir, 'state.json'), '{not json');
		const store = await StateStore.open(dir, silentLogger);
		expect(store.problems[0]).toMatch(/state file .*state\.json is unreadable .*; moved it to .*state\.json\.corrupt-\d+ and started with empty state/);
		expect(fs.readdirSync(dir).some(file => file.startsWith('state.json.corrupt-'))).toBe(true);
		expect(store.data.upstreams).toEqual({});
		await store.close();
	});

	it('lets only one process write: a second store on the same dir keeps changes in memory', async () => {
		const dir = tempDir();
		fs.writeFileSync(path.join(dir, 'state.lock'), String(process.ppid));
		const store = await StateStore.open(dir, silentLogger, 1);
		expect(store.isWriter).toBe(false);
		store.update('fx', upstream => {
			upstream.toolsVerifiedAt = 1;
		});
		await store.close();
		expect(fs.existsSync(path.join(dir, 'state.json'))).toBe(false);
	});

	it('replaces a stale lock left by a dead process', async () => {
		const dir = tempDir();
		fs.writeFileSync(path.join(dir, 'state.lock'), '999999999');
		const store = await StateStore.open(dir, silentLogger, 1);
		expect(store.isWriter).toBe(true);
		await store.close();
	});
});
