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

/** Keys that make an object a server entry, in any client's dialect. */
const entryKeys = ['command', 'url', 'serverUrl', 'httpUrl'];

/** Whether `value` is a map of server entries with no wrapper (`{"filesystem": {"command": …}}`), as READMEs show one server. */
export function isBareServerMap(value: unknown): value is Record<string, unknown> {
	if (!isRecord(value)) return false;
	const entries = Object.values(value);
	return entries.length > 0 && entries.every(entry => isRecord(entry) && entryKeys.some(key => typeof entry[key] === 'string'));
}

/**
 * The servers of a file given by path that no client names (pasted from
 * docs or another client), read as `format` reads it, plus what else such a
 * file may hold: both `mcpServers` and VS Code's `servers`, or, with
 * neither, a bare map of entries.
 */
export function pastedGroups(format: Pick<ClientFormat, 'groups'>, root: unknown, location: ClientLocation): {groups: ServerGroup[]; notes: string[]} {
	const found = format.groups(root, location);
	const groups = [...found.groups];
	for (const key of ['mcpServers', 'servers']) {
		const servers = objectAt(root, [key]);
		if (servers !== undefined && !groups.some(group => group.path.length === 1 && group.path[0] === key)) groups.push({path: [key], projectDir: undefined, servers});
	}

	if (groups.length === 0 && isBareServerMap(root)) {
		return {groups: [{path: [], projectDir: undefined, servers: root}], notes: ['no "mcpServers" around the servers: read as a bare map of servers, as READMEs show them']};
	}

	return {groups, notes: groups.length === 0 && found.notes.length === 0 ? [shapeNote(root)] : found.notes};
}

/** What a file with no map of servers holds instead, in a few words. */
function shapeNote(root: unknown): string {
	if (root === undefined) return 'the file is empty';
	if (Array.isArray(root)) return 'it holds an array, not an object of servers';
	if (!isRecord(root)) return `it holds ${root === null ? 'null' : `a ${typeof root}`}, not an object of servers`;
	const keys = Object.keys(root);
	if (keys.length === 0) return 'it holds an empty object';
	const shown = keys.slice(0, 5).map(key => JSON.stringify(key)).join(', ');
	return `its keys (${shown}${keys.length > 5 ? ', …' : ''}) are neither "mcpServers" nor "servers", and their values are not server entries`;
}

/** A project file sits in the project (`.mcp.json`) or one directory below it (`.cursor/mcp.json`, `.vscode/mcp.json`). */
export function projectDirOf(location: ClientLocation): string {
	const dir = path.dirname(location.file);
	return path.basename(dir).startsWith('.') ? path.dirname(dir) : dir;
}

export const stdioEntry = (launch: HangarLaunch): Record<string, unknown> => ({command: launch.command, args: launch.args});
