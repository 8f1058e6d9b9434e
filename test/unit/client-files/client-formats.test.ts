/**
 * Where each client keeps its servers, on each platform, and how a file given
 * by path is recognised.
 */
import {describe, expect, it} from 'vitest';
import {clientFormats, locationOfFile} from '../../../source/client-files/client-formats.js';
import type {ClientEnvironment} from '../../../source/client-files/client-model.js';

const userFiles = (environment: ClientEnvironment) =>
	Object.fromEntries(clientFormats.map(format => [format.id, format.locations(environment).filter(location => location.scope === 'user').map(location => location.file)]));

describe('where each client keeps its servers', () => {
	it('on macOS', () => {
		const files = userFiles({home: '/Users/ada', platform: 'darwin', env: {}, cwd: '/Users/ada/src/app'});
		expect(files['claude-desktop']).toEqual(['/Users/ada/Library/Application Support/Claude/claude_desktop_config.json']);
		expect(files['vscode']).toEqual(['/Users/ada/Library/Application Support/Code/User/mcp.json', '/Users/ada/Library/Application Support/Code/User/settings.json']);
		expect(files['cline']![0]).toBe('/Users/ada/Library/Application Support/Code/User/globalStorage/saoudrizwan.claude-dev/settings/cline_mcp_settings.json');
		expect(files['claude-code']).toEqual(['/Users/ada/.claude.json']);
		expect(files['codex']).toEqual(['/Users/ada/.codex/config.toml']);
	});

	it('on Windows', () => {
		const files = userFiles({home: 'C:\\Users\\ada', platform: 'win32', env: {APPDATA: 'C:\\Users\\ada\\AppData\\Roaming'}, cwd: 'C:\\src\\app'});
		expect(files['claude-desktop']).toEqual(['C:\\Users\\ada\\AppData\\Roaming\\Claude\\claude_desktop_config.json']);
		expect(files['cursor']).toEqual(['C:\\Users\\ada\\.cursor\\mcp.json']);
		expect(files['windsurf']).toEqual(['C:\\Users\\ada\\.codeium\\windsurf\\mcp_config.json']);
		expect(files['gemini']).toEqual(['C:\\Users\\ada\\.gemini\\settings.json']);
	});

	it('on Linux, following XDG_CONFIG_HOME and CODEX_HOME', () => {
		const plain = userFiles({home: '/home/ada', platform: 'linux', env: {}, cwd: '/'});
		expect(plain['claude-desktop']).toEqual(['/home/ada/.config/Claude/claude_desktop_config.json']);
		const moved = userFiles({home: '/home/ada', platform: 'linux', env: {XDG_CONFIG_HOME: '/xdg', CODEX_HOME: '/codex'}, cwd: '/'});
		expect(moved['claude-desktop']).toEqual(['/xdg/Claude/claude_desktop_config.json']);
		expect(moved['codex']).toEqual(['/codex/config.toml']);
	});

	it('and in a project: .mcp.json, .cursor/mcp.json, .vscode/mcp.json, .gemini/settings.json', () => {
		const environment: ClientEnvironment = {home: '/home/ada', platform: 'linux', env: {}, cwd: '/src/app'};
		const project = clientFormats.flatMap(format => format.locations(environment).filter(location => location.scope === 'project').map(location => `${location.client} ${location.file}`));
		expect(project).toEqual(['claude-code /src/app/.mcp.json', 'cursor /src/app/.cursor/mcp.json', 'vscode /src/app/.vscode/mcp.json', 'gemini /src/app/.gemini/settings.json']);
	});

	it('recognises a file given by path from its name', () => {
		const environment: ClientEnvironment = {home: '/home/ada', platform: 'linux', env: {}, cwd: '/src'};
		expect(locationOfFile('backup/claude_desktop_config.json', environment)).toEqual({client: 'claude-desktop', scope: 'user', file: '/src/backup/claude_desktop_config.json'});
		expect(locationOfFile('/elsewhere/.vscode/mcp.json', environment)?.client).toBe('vscode');
		expect(locationOfFile('/elsewhere/config.toml', environment)?.client).toBe('codex');
		expect(locationOfFile('/elsewhere/servers.json', environment)).toBeUndefined();
	});
});
