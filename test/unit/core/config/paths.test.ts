import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import {afterEach, describe, expect, it} from 'vitest';
import {defaultStateDir, supervisorFlags, userConfigDir} from '../../../../source/core/config/paths.js';

const saved = {...process.env};
afterEach(() => {
	for (const key of ['XDG_CONFIG_HOME', 'XDG_STATE_HOME', 'MCP_HANGAR_STATE_DIR']) {
		if (saved[key] === undefined) delete process.env[key];
		else process.env[key] = saved[key];
	}
});

describe.runIf(process.platform === 'linux')('the XDG dirs', () => {
	it('use $XDG_CONFIG_HOME and $XDG_STATE_HOME when they are absolute paths', () => {
		process.env['XDG_CONFIG_HOME'] = '/x/config';
		process.env['XDG_STATE_HOME'] = '/x/state';
		delete process.env['MCP_HANGAR_STATE_DIR'];
		expect(userConfigDir()).toBe('/x/config/mcp-hangar');
		expect(defaultStateDir()).toBe('/x/state/mcp-hangar');
	});

	it('ignore an empty or relative $XDG_CONFIG_HOME and $XDG_STATE_HOME (the XDG spec), instead of writing into the current directory', () => {
		delete process.env['MCP_HANGAR_STATE_DIR'];
		for (const value of ['', 'relative/dir']) {
			process.env['XDG_CONFIG_HOME'] = value;
			process.env['XDG_STATE_HOME'] = value;
			expect(userConfigDir()).toBe(path.join(os.homedir(), '.config', 'mcp-hangar'));
			expect(defaultStateDir()).toBe(path.join(os.homedir(), '.local', 'state', 'mcp-hangar'));
		}
	});
});

describe('the flags a message names to reach a supervisor', () => {
	it('are --config alone when the config leads to that state dir, and add --state-dir when it was given on the command line', () => {
		const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'hangar-paths-'));
		const config = path.join(dir, 'my config.json');
		fs.writeFileSync(config, JSON.stringify({hangar: {stateDir: 'state'}, mcpServers: {}}));
		expect(supervisorFlags(config, path.join(dir, 'state'))).toBe(`--config '${config}'`);
		expect(supervisorFlags(config, path.join(dir, 'elsewhere'))).toBe(`--config '${config}' --state-dir ${path.join(dir, 'elsewhere')}`);
		const plain = path.join(dir, 'plain.json');
		fs.writeFileSync(plain, JSON.stringify({mcpServers: {}}));
		expect(supervisorFlags(plain, defaultStateDir())).toBe(`--config ${plain}`);
		fs.rmSync(dir, {recursive: true});
	});
});
