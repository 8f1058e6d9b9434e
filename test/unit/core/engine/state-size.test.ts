/**
 * state.json stays writable whatever the upstreams list: each record is
 * written as a piece of its own (never one string longer than V8 allows),
 * an upstream whose record is past its bound has its caches left out (said
 * in status), and its quarantine and pins' hashes are still saved. A failed
 * write shows in `writeFailure` until one succeeds, and leaves no temp file.
 */
import fs from 'node:fs';
import path from 'node:path';
import {describe, expect, it} from 'vitest';
import {silentLogger} from '../../../../source/core/base/logger.js';
import {jsonChunks, writeNow} from '../../../../source/core/engine/state-files.js';
import {recordToWrite} from '../../../../source/core/engine/state-size.js';
import {StateStore} from '../../../../source/core/engine/state-store.js';
import {pinTools} from '../../../../source/core/engine/upstream/pins.js';
import {tempDir} from '../../../support/hangar.js';

const tools = (count: number, size: number) => Array.from({length: count}, (_, i) => ({name: `tool_${i}`, description: 'z'.repeat(size), inputSchema: {type: 'object' as const}}));

describe('jsonChunks', () => {
	it('writes what JSON.stringify(data, null, 2) writes, one piece per upstream', () => {
		for (const data of [{version: 1, upstreams: {}}, {version: 1, upstreams: {a: {counters: {starts: 1}}, 'b"c': {tools: [{name: 'x'}]}}}, {upstreams: {a: 1}}, [1, 2], null]) {
			expect([...jsonChunks(data)].join('')).toBe(JSON.stringify(data, null, 2));
		}
	});
});

describe('recordToWrite', () => {
	it('keeps a record within the bound whole', () => {
		const upstream = {counters: {starts: 0, crashes: 0, calls: 0, failures: 0}, tools: tools(3, 10)};
		expect(recordToWrite(upstream, 10_000)).toEqual({record: upstream});
	});

	it('leaves out the caches of a record past it, then the pins\' text, never the quarantine or the hashes', () => {
		const listed = tools(50, 1000);
		const pins = {by: 'first-use' as const, tools: pinTools(listed)};
		const upstream = {counters: {starts: 1, crashes: 0, calls: 0, failures: 0}, tools: listed, toolsVerifiedAt: 5, pins, admin: {state: 'quarantined' as const, at: 1, reason: 'r'}};
		const caches = recordToWrite(upstream, 60_000);
		expect(caches.record.tools).toBeUndefined();
		expect(caches.record.toolsVerifiedAt).toBeUndefined();
		expect(caches.record.pins).toBe(pins);
		expect(caches.leftOut).toMatch(/cached tool list and catalog .* are not saved/);
		const hashes = recordToWrite(upstream, 10_000);
		expect(hashes.record.pins?.tools?.['tool_0']).toEqual({hash: pins.tools['tool_0']!.hash, description: null, inputSchema: null});
		expect(hashes.record.admin).toEqual(upstream.admin);
		expect(hashes.leftOut).toMatch(/hashes only/);
		// The record in memory is untouched: this run keeps serving its list.
		expect(upstream.tools).toBe(listed);
	});
});

describe('StateStore with large records', () => {
	it('writes state.json and says what it left out, and every other upstream is saved', async () => {
		const dir = tempDir();
		const store = await StateStore.open(dir, silentLogger, 1);
		store.update('big', upstream => {
			upstream.tools = tools(3000, 2000);
		});
		store.update('small', upstream => {
			upstream.tools = tools(2, 10);
		});
		await store.flush();
		const saved = JSON.parse(fs.readFileSync(path.join(dir, 'state.json'), 'utf8'));
		expect(saved.upstreams.big.tools).toBeUndefined();
		expect(saved.upstreams.small.tools).toHaveLength(2);
		expect(store.notWritten).toEqual([expect.stringMatching(/^big: its cached tool list/)]);
		expect(store.writeFailure).toBeUndefined();
		await store.close();
	});

	it('shows a failed write until one succeeds, and leaves no temp file behind', async () => {
		const dir = tempDir();
		const store = await StateStore.open(dir, silentLogger, 1);
		fs.mkdirSync(path.join(dir, 'state.json', 'x'), {recursive: true});
		store.update('a', upstream => {
			upstream.firstSeenAt = 1;
		});
		await store.flush();
		expect(store.writeFailure).toMatchObject({file: path.join(dir, 'state.json'), code: 'EISDIR'});
		const since = store.writeFailure!.since;
		store.update('a', upstream => {
			upstream.firstSeenAt = 2;
		});
		await store.flush();
		expect(store.writeFailure?.since).toBe(since);
		expect(fs.readdirSync(dir).filter(name => name.endsWith('.tmp'))).toEqual([]);
		fs.rmSync(path.join(dir, 'state.json'), {recursive: true});
		store.update('a', upstream => {
			upstream.firstSeenAt = 3;
		});
		await store.flush();
		expect(store.writeFailure).toBeUndefined();
		await store.close();
	});

	it('writeNow removes its temp file when the write fails', () => {
		const dir = tempDir();
		fs.mkdirSync(path.join(dir, 'f.json'));
		expect(() => writeNow(path.join(dir, 'f.json'), {a: 1})).toThrow();
		expect(fs.readdirSync(dir)).toEqual(['f.json']);
	});
});
