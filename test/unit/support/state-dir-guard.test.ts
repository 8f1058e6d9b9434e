import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import {describe, expect, it} from 'vitest';
import {changes, guardedHomeVariable, snapshot} from '../../support/state-dir-guard.js';

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
});
