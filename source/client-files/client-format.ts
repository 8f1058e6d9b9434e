/**
 * What hangar needs to know about one client's config format: where its
 * files are, how a file is parsed, where the server maps sit in it, how its
 * entries map to hangar's (its dialect), and where `setup` puts the one
 * `hangar` entry. One module per client in ./clients implements it.
 */
import path from 'node:path';
import {closestMatch} from '../core/base/closest-match.js';
import type {ClientEnvironment, ClientId, ClientLocation, ServerGroup} from './client-model.js';
import type {Dialect} from './server-entry.js';

/** The command line that launches hangar's stdio endpoint, as setup writes it. */
export type HangarLaunch = {command: string; args: string[]};

export type ClientFormat = {
	id: ClientId;
	label: string;
	syntax: 'json' | 'jsonc' | 'toml';
	/** Files to look in, user-scope ones first. */
	locations(environment: ClientEnvironment): ClientLocation[];
	/** The server maps in a parsed file, plus notes about the file as a whole. */
	groups(root: unknown, location: ClientLocation): {groups: ServerGroup[]; notes: string[]};
	dialect: Dialect;
	/**
	 * The client runs the servers of all its user files at once (VS Code: the
	 * profile's mcp.json and settings.json's `mcp`): setup puts the `hangar`
	 * entry in one and removes the others' servers. Otherwise each user file
	 * is another install's (Cline in each editor) and setup rewrites one.
	 */
	userFilesTogether?: boolean;
	/** Where setup writes the `hangar` entry in this file. */
	serversPath(location: ClientLocation): string[];
	/** The `hangar` entry in this client's own shape. */
	hangarEntry(launch: HangarLaunch): Record<string, unknown>;
	/** For files that are not JSON: the text with every server replaced by the `hangar` entry. */
	rewrite?(text: string, launch: HangarLaunch): string;
};

const isRecord = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value);

/** The path module of the platform whose paths are being built (tests build macOS and Windows paths on Linux). */
export function pathsOf(environment: ClientEnvironment): path.PlatformPath {
	return environment.platform === 'win32' ? path.win32 : path.posix;
}

/** Where desktop apps keep their settings: %APPDATA%, ~/Library/Application Support, or $XDG_CONFIG_HOME (~/.config). */
export function appConfigRoot(environment: ClientEnvironment): string {
	const paths = pathsOf(environment);
	const {env, home} = environment;
	if (environment.platform === 'win32') return env['APPDATA'] || paths.join(home, 'AppData', 'Roaming');
	if (environment.platform === 'darwin') return paths.join(home, 'Library', 'Application Support');
	return env['XDG_CONFIG_HOME'] || paths.join(home, '.config');
}

/** The object at `path` in `root`, when it is one. */
export function objectAt(root: unknown, path: readonly string[]): Record<string, unknown> | undefined {
	let node: unknown = root;
	for (const key of path) {
		if (!isRecord(node)) return undefined;
		node = node[key];
	}

	return isRecord(node) ? node : undefined;
}

/**
 * When the map of servers is missing but a key next to where it should be
 * is a near miss (`mcpServer`, `mcp_servers`), a note saying so: otherwise
 * a typo in the one key that matters reads as "0 servers", with no reason.
 */
export function nearMissNotes(root: unknown, serversPath: readonly string[]): string[] {
	const parent = objectAt(root, serversPath.slice(0, -1));
	const wanted = serversPath.at(-1)!;
	if (parent === undefined || wanted in parent) return [];
	const near = Object.keys(parent).find(key => closestMatch(key.replaceAll(/[-_\s]/g, ''), [wanted]) !== undefined);
	return near === undefined ? [] : [`"${near}" is not "${wanted}", so none of its servers are read: rename the key to "${wanted}" in the file`];
}

/** The servers of files that keep them in one map at `path` (`mcpServers` for most clients). */
export function singleGroup(root: unknown, location: ClientLocation, serversPath: string[]): {groups: ServerGroup[]; notes: string[]} {
	const servers = objectAt(root, serversPath);
	if (servers === undefined) return {groups: [], notes: nearMissNotes(root, serversPath)};
	const projectDir = location.scope === 'project' ? projectDirOf(location) : undefined;
	return {groups: [{path: serversPath, projectDir, servers}], notes: []};
}

/** A project file sits in the project (`.mcp.json`) or one directory below it (`.cursor/mcp.json`, `.vscode/mcp.json`). */
export function projectDirOf(location: ClientLocation): string {
	const dir = path.dirname(location.file);
	return path.basename(dir).startsWith('.') ? path.dirname(dir) : dir;
}

export const stdioEntry = (launch: HangarLaunch): Record<string, unknown> => ({command: launch.command, args: launch.args});
