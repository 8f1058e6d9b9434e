/**
 * hangar.log is bounded: rotated past its size with a few files kept, another
 * writer's rotation followed, and a write that fails (a full disk) kept for
 * status and reported by a line once writes succeed again.
 */
import fs from 'node:fs';
import path from 'node:path';
import {describe, expect, it} from 'vitest';
import {fileSink, logFileFailures} from '../../../../source/core/base/logger.js';
import {tempDir} from '../../../support/hangar.js';

const line = (index: number) => `line ${index} ${'x'.repeat(90)}`;

describe('fileSink', () => {
	it('rotates past maxBytes, keeping `files` files of about that size', () => {
		const file = path.join(tempDir(), 'hangar.log');
		const sink = fileSink(file, {maxBytes: 4096, files: 3});
		for (let index = 0; index < 1000; index++) sink(line(index), 'info');
		expect(fs.readdirSync(path.dirname(file)).sort()).toEqual(['hangar.log', 'hangar.log.1', 'hangar.log.2']);
		for (const name of ['hangar.log', 'hangar.log.1', 'hangar.log.2']) expect(fs.statSync(path.join(path.dirname(file), name)).size).toBeLessThanOrEqual(4096 + 100);
		expect(fs.readFileSync(file, 'utf8').trimEnd().split('\n').at(-1)).toBe(line(999));
		expect(fs.statSync(file).mode & 0o777).toBe(0o600);
	});

	it('follows another writer\'s rotation instead of writing to the rotated file', () => {
		const file = path.join(tempDir(), 'hangar.log');
		const one = fileSink(file, {maxBytes: 4096, files: 2});
		const two = fileSink(file, {maxBytes: 4096, files: 2});
		for (let index = 0; index < 60; index++) one(line(index), 'info');
		// `one` rotated; `two` finds it at its next size check (past maxBytes on its own count, or a second later).
		for (let index = 0; index < 60; index++) two(line(index), 'info');
		expect(fs.readFileSync(file, 'utf8')).toContain(line(59));
		expect(fs.statSync(file).size).toBeLessThanOrEqual(4096 + 100);
	});

	it('keeps a failed write for status and says how many lines it lost once writes succeed', () => {
		const dir = tempDir();
		const file = path.join(dir, 'hangar.log');
		const sink = fileSink(file, {maxBytes: 1024 * 1024, files: 2});
		sink('before', 'info');
		// The file replaced by a directory and rotation forced: the reopen fails as a full disk's write would.
		fs.rmSync(file);
		fs.mkdirSync(file);
		const now = Date.now;
		Date.now = () => now() + 2000;
		try {
			sink('lost one', 'info');
			sink('lost two', 'info');
			expect(logFileFailures()).toEqual([expect.objectContaining({file, lostLines: 2, code: 'EISDIR'})]);
			fs.rmdirSync(file);
			Date.now = () => now() + 4000;
			sink('after', 'info');
		} finally {
			Date.now = now;
		}

		expect(logFileFailures()).toEqual([]);
		const text = fs.readFileSync(file, 'utf8');
		expect(text).toMatch(/lost 2 log lines since .*: writing .*hangar\.log failed/);
		expect(text).toContain('after');
	});
});
