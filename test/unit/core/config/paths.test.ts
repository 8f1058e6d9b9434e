import os from 'node:os';
import path from 'node:path';
import {afterEach, describe, expect, it} from 'vitest';
import {defaultStateDir, userConfigDir} from '../../../../source/core/config/paths.js';

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
