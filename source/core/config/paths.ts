/**
 * Where hangar looks for its config and keeps its state, following the XDG
 * base directory conventions on Linux, ~/Library on macOS and %APPDATA% on
 * Windows. `MCP_HANGAR_STATE_DIR` overrides the state dir.
 */
import os from 'node:os';
import path from 'node:path';

function home(): string {
	return os.homedir();
}

export function userConfigDir(): string {
	if (process.platform === 'win32') return path.join(process.env['APPDATA'] ?? path.join(home(), 'AppData', 'Roaming'), 'mcp-hangar');
	if (process.platform === 'darwin') return path.join(home(), 'Library', 'Application Support', 'mcp-hangar');
	return path.join(process.env['XDG_CONFIG_HOME'] ?? path.join(home(), '.config'), 'mcp-hangar');
}

export function defaultStateDir(): string {
	const fromEnv = process.env['MCP_HANGAR_STATE_DIR'];
	if (fromEnv !== undefined && fromEnv !== '') return path.resolve(fromEnv);
	if (process.platform === 'win32') return path.join(process.env['LOCALAPPDATA'] ?? path.join(home(), 'AppData', 'Local'), 'mcp-hangar', 'state');
	if (process.platform === 'darwin') return path.join(home(), 'Library', 'Application Support', 'mcp-hangar', 'state');
	return path.join(process.env['XDG_STATE_HOME'] ?? path.join(home(), '.local', 'state'), 'mcp-hangar');
}

export function defaultConfigCandidates(): string[] {
	return [path.resolve('mcp-hangar.json'), path.join(userConfigDir(), 'config.json')];
}
