/**
 * Where hangar looks for its config and keeps its state, following the XDG
 * base directory conventions on Linux, ~/Library on macOS and %APPDATA% on
 * Windows. `MCP_HANGAR_STATE_DIR` overrides the state dir.
 *
 * Free of the config schema (zod): the `--stdio` bridge finds its supervisor
 * with these alone (endpoints/stdio-bridge.ts).
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import {shellWord} from '../base/shell-words.js';

function home(): string {
	return os.homedir();
}

/** An XDG base dir from `name`, or `fallback`: the spec says to ignore one that is empty or relative (it would land in the current directory). */
function xdgDir(name: string, fallback: string): string {
	const value = process.env[name];
	return value !== undefined && path.isAbsolute(value) ? value : fallback;
}

export function userConfigDir(): string {
	if (process.platform === 'win32') return path.join(process.env['APPDATA'] ?? path.join(home(), 'AppData', 'Roaming'), 'mcp-hangar');
	if (process.platform === 'darwin') return path.join(home(), 'Library', 'Application Support', 'mcp-hangar');
	return path.join(xdgDir('XDG_CONFIG_HOME', path.join(home(), '.config')), 'mcp-hangar');
}

export function defaultStateDir(): string {
	const fromEnv = process.env['MCP_HANGAR_STATE_DIR'];
	if (fromEnv !== undefined && fromEnv !== '') return path.resolve(fromEnv);
	if (process.platform === 'win32') return path.join(process.env['LOCALAPPDATA'] ?? path.join(home(), 'AppData', 'Local'), 'mcp-hangar', 'state');
	if (process.platform === 'darwin') return path.join(home(), 'Library', 'Application Support', 'mcp-hangar', 'state');
	return path.join(xdgDir('XDG_STATE_HOME', path.join(home(), '.local', 'state')), 'mcp-hangar');
}

export function defaultConfigCandidates(): string[] {
	return [path.resolve('mcp-hangar.json'), path.join(userConfigDir(), 'config.json')];
}

/**
 * Where a config file's state dir is, read as leniently as possible: from
 * `--state-dir`, else the file's `hangar.stateDir` if the file is JSON at
 * all, else the default. For a file that does not validate, so the CLI can
 * still reach the supervisor that runs its previous version.
 */
export function stateDirOf(file: string, options: {stateDir?: string | undefined} = {}): string {
	if (options.stateDir !== undefined) return path.resolve(options.stateDir);
	const absolute = path.resolve(file);
	try {
		const raw = JSON.parse(fs.readFileSync(absolute, 'utf8').replace(/^\uFEFF/, '')) as {hangar?: {stateDir?: unknown}};
		if (typeof raw.hangar?.stateDir === 'string') return path.resolve(path.dirname(absolute), raw.hangar.stateDir);
	} catch {}

	return defaultStateDir();
}

/**
 * The flags a command needs to reach the supervisor of `configPath` on
 * `stateDir`, ready to copy into a message: `--config PATH`, and
 * `--state-dir DIR` when the config alone would lead to another state dir
 * (it was given on the command line), so the command named reaches this
 * supervisor, not the default one.
 */
export function supervisorFlags(configPath: string, stateDir: string): string {
	const flags = ['--config', path.resolve(configPath)];
	if (stateDirOf(configPath) !== path.resolve(stateDir)) flags.push('--state-dir', path.resolve(stateDir));
	return flags.map(word => shellWord(word)).join(' ');
}

/** The config file to use: the explicit one, else ./mcp-hangar.json, else the user config dir. */
export function resolveConfigPath(explicit: string | undefined): string {
	if (explicit !== undefined) return path.resolve(explicit);
	const candidates = defaultConfigCandidates();
	return candidates.find(candidate => fs.existsSync(candidate)) ?? candidates[0]!;
}
