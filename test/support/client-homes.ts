/**
 * A home directory and a project directory laid out as each client leaves
 * them, from the sample files in test/fixtures/client-configs, so import
 * and setup can run against "this machine" with HOME pointed at a temp dir.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import {fileURLToPath} from 'node:url';
import type {ClientEnvironment, ClientId} from '../../source/client-files/client-model.js';

export const clientFixtures = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', 'fixtures', 'client-configs');

/** Each sample file, where it goes (relative to home `~` or the project `.`), and which client it belongs to. */
export const clientFiles: Array<{fixture: string; at: string; client: ClientId}> = [
	{fixture: 'claude_desktop_config.json', at: '~/.config/Claude/claude_desktop_config.json', client: 'claude-desktop'},
	{fixture: 'claude.json', at: '~/.claude.json', client: 'claude-code'},
	{fixture: 'claude-code.mcp.json', at: './.mcp.json', client: 'claude-code'},
	{fixture: 'cursor-user.json', at: '~/.cursor/mcp.json', client: 'cursor'},
	{fixture: 'cursor-project.json', at: './.cursor/mcp.json', client: 'cursor'},
	{fixture: 'cursor-project.env', at: './.env', client: 'cursor'},
	{fixture: 'vscode-settings.json', at: '~/.config/Code/User/settings.json', client: 'vscode'},
	{fixture: 'vscode-mcp.json', at: './.vscode/mcp.json', client: 'vscode'},
	{fixture: 'windsurf_mcp_config.json', at: '~/.codeium/windsurf/mcp_config.json', client: 'windsurf'},
	{fixture: 'cline_mcp_settings.json', at: '~/.config/Code/User/globalStorage/saoudrizwan.claude-dev/settings/cline_mcp_settings.json', client: 'cline'},
	{fixture: 'gemini-settings.json', at: '~/.gemini/settings.json', client: 'gemini'},
	{fixture: 'codex-config.toml', at: '~/.codex/config.toml', client: 'codex'},
];

export type ClientHome = {
	root: string;
	home: string;
	project: string;
	/** The absolute path of a `~/…` or `./…` location. */
	file: (at: string) => string;
	environment: ClientEnvironment;
	/** The environment a CLI run needs to see this home (and only it) as the user's. */
	env: Record<string, string>;
};

/** A fresh temp home and project with the given sample files (default: all of them) in place. */
export function clientHome(only: (entry: (typeof clientFiles)[number]) => boolean = () => true): ClientHome {
	const root = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'hangar-clients-')));
	const home = path.join(root, 'home');
	const project = path.join(root, 'project');
	fs.mkdirSync(home);
	fs.mkdirSync(project);
	const file = (at: string) => (at.startsWith('~/') ? path.join(home, at.slice(2)) : path.join(project, at.slice(2)));
	for (const entry of clientFiles.filter(only)) {
		fs.mkdirSync(path.dirname(file(entry.at)), {recursive: true});
		fs.copyFileSync(path.join(clientFixtures, entry.fixture), file(entry.at));
	}

	const env: Record<string, string> = {HOME: home, XDG_CONFIG_HOME: path.join(home, '.config'), MCP_HANGAR_STATE_DIR: path.join(root, 'state')};
	return {root, home, project, file, env, environment: {home, platform: 'linux', env, cwd: project}};
}
