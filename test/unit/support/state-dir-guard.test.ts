import {spawn} from 'node:child_process';
import {once} from 'node:events';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import {describe, expect, it} from 'vitest';
import {changes, guardedHomeVariable, removeTree, snapshot} from '../../support/state-dir-guard.js';

describe('the state dir guard', () => {
	it('runs every test with HOME and the XDG dirs in a temporary home and MCP_HANGAR_STATE_DIR unset', () => {
		const home = process.env[guardedHomeVariable];
		expect(home).toBeDefined();
		expect(process.env['HOME']).toBe(home);
		expect(os.homedir()).toBe(home);
		expect(process.env['XDG_STATE_HOME']).toBe(path.join(home!, '.local', 'state'));
		expect(process.env['XDG_CONFIG_HOME']).toBe(path.join(home!, '.config'));
		expect(process.env['MCP_HANGAR_STATE_DIR']).toBeUndefined();
	});

	it('sees a dir created, a file written or removed', () => {
		const root = fs.mkdtempSync(path.join(os.tmpdir(), 'hangar-guard-'));
		const dir = path.join(root, 'mcp-hangar');
		const absent = snapshot(dir);
		fs.mkdirSync(dir);
		fs.writeFileSync(path.join(dir, 'state.json'), '{}');
		const created = snapshot(dir);
		expect(changes(absent, created)).toEqual([`created: ${dir}`, `created: ${path.join(dir, 'state.json')}`]);
		expect(changes(created, snapshot(dir))).toEqual([]);
		fs.appendFileSync(path.join(dir, 'state.json'), ' ');
		expect(changes(created, snapshot(dir))).toEqual([`changed: ${path.join(dir, 'state.json')}`]);
		fs.rmSync(path.join(dir, 'state.json'));
		expect(changes(created, snapshot(dir))).toContain(`removed: ${path.join(dir, 'state.json')}`);
		fs.rmSync(root, {recursive: true});
	});

	it('removes a home while a process that is ending still writes its compile cache there (ENOTEMPTY), every time', async () => {
		// What a hangar does at exit, made hostile: new cache files, as fast as it can, for 300 ms.
		const writer = `const fs = require('node:fs'); const dir = process.argv[1]; const until = Date.now() + 300; let i = 0;
			fs.mkdirSync(dir, {recursive: true}); while (Date.now() < until) { try { fs.writeFileSync(dir + '/entry-' + i++, 'x'.repeat(100)); } catch {} }`;
		for (let round = 0; round < 6; round++) {
			const home = fs.mkdtempSync(path.join(os.tmpdir(), 'hangar-guard-home-'));
			const cache = path.join(home, '.cache', 'mcp-hangar', 'compile-cache', process.version);
			const child = spawn(process.execPath, ['-e', writer, cache], {stdio: 'ignore'});
			const exited = once(child, 'exit');
			while (!fs.existsSync(path.join(cache, 'entry-20'))) await new Promise(resolve => setImmediate(resolve));
			expect(() => removeTree(home)).not.toThrow();
			expect(fs.existsSync(home)).toBe(false);
			await exited;
			fs.rmSync(home, {recursive: true, force: true});
		}
	});
});
