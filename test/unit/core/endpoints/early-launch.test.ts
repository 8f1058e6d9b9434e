/**
 * Which upstreams `--stdio` spawns before its engine has loaded: only those
 * the supervisor is sure to start at launch, never one that must not start.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import {describe, expect, it} from 'vitest';
import {parseConfig} from '../../../../source/core/config/read-config.js';
import {earlyLaunches} from '../../../../source/core/endpoints/early-launch.js';

function setup(servers: Record<string, Record<string, unknown>>, hangar: Record<string, unknown> = {}) {
	const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'hangar-early-'));
	const stateDir = path.join(dir, 'state');
	fs.mkdirSync(stateDir);
	const config = parseConfig({hangar: {stateDir, ...hangar}, mcpServers: servers}, path.join(dir, 'mcp-hangar.json'));
	return {config, stateDir};
}

const eager = (extra: Record<string, unknown> = {}) => ({command: process.execPath, args: ['server.js'], lazy: false, ...extra});
const names = (config: ReturnType<typeof setup>['config'], standalone = false) => earlyLaunches(config, {standalone}).map(server => server.name);

describe('earlyLaunches', () => {
	it('takes stdio upstreams with lazy: false, in config order, as many as the launch starts at once', () => {
		const {config} = setup({a: eager(), lazy: eager({lazy: true}), b: eager(), c: eager(), d: eager(), e: eager()});
		expect(names(config)).toEqual(['a', 'b', 'c', 'd']);
	});

	it('leaves out remote, disabled and config-quarantined upstreams', () => {
		const {config} = setup({remote: {url: 'http://127.0.0.1:1/mcp', lazy: false}, off: eager({disabled: true}), held: eager({quarantined: true}), ok: eager()});
		expect(names(config)).toEqual(['ok']);
	});

	it('leaves out an upstream the state file holds quarantined', () => {
		const {config, stateDir} = setup({held: eager(), ok: eager()});
		const held = {counters: {starts: 0, crashes: 0, calls: 0, failures: 0}, admin: {state: 'quarantined', at: 1, reason: 'a person held it'}};
		fs.writeFileSync(path.join(stateDir, 'state.json'), JSON.stringify({version: 1, upstreams: {held}}));
		expect(names(config)).toEqual(['ok']);
	});

	it('spawns nothing when the state file cannot be read as one', () => {
		const {config, stateDir} = setup({ok: eager()});
		fs.writeFileSync(path.join(stateDir, 'state.json'), '{not json');
		expect(names(config)).toEqual([]);
	});

	it('spawns nothing with quarantineNew on: any upstream may be new and held', () => {
		const {config} = setup({ok: eager()}, {quarantineNew: true});
		expect(names(config)).toEqual([]);
	});

	it('spawns nothing when a supervisor socket is in the state dir (the --stdio may bridge), unless standalone', () => {
		const {config, stateDir} = setup({ok: eager()});
		fs.writeFileSync(path.join(stateDir, 'hangar.sock'), '');
		expect(names(config)).toEqual([]);
		expect(names(config, true)).toEqual(['ok']);
	});
});
