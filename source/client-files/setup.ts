/**
 * `setup`: a client's own servers replaced by one `hangar` entry, and back.
 * The plan is made first: which file, which servers go, which of them hangar
 * does not have yet (then nothing is written: import them first). A client
 * that runs the servers of several user files at once (VS Code: mcp.json and
 * settings.json) gets the entry in one and the others' servers removed.
 * Applying it writes a timestamped byte-for-byte backup beside each file it
 * changes, then the new files; undo puts the newest setup's backups back,
 * byte-identical, and removes them, so each undo steps back one setup.
 */
import fs from 'node:fs';
import path from 'node:path';
import {writeFileAtomic} from './atomic-write.js';
import type {ClientFormat, HangarLaunch} from './client-format.js';
import {launchesHangar, serverIdentity, type ClientEnvironment, type ClientLocation, type ForeignServer} from './client-model.js';
import {existingIdentity} from './import-plan.js';
import {setJsonValue} from './json-text.js';
import {clientFileFromText} from './read-client-file.js';
import {makeDirectory} from '../core/base/make-directory.js';

/** One file setup writes: its text now (undefined when it does not exist yet) and after. */
export type SetupFile = {location: ClientLocation; before: string | undefined; after: string};

export type SetupPlan = {
	format: ClientFormat;
	/** The file that gets the `hangar` entry. */
	location: ClientLocation;
	before: string | undefined;
	after: string;
	/** The client's other user files it runs servers from beside `location` (VS Code's settings.json), with their servers removed. */
	others: SetupFile[];
	/** The servers the new files no longer have (hangar's own entry excluded). */
	dropped: ForeignServer[];
	/** Dropped servers hangar's config does not have: setup refuses while there are any. */
	missing: ForeignServer[];
	/** The file already launches hangar this way and nothing else, and no other user file has servers. */
	alreadySetUp: boolean;
	/** Client files setup leaves alone (project files), that still have servers. */
	untouched: ClientLocation[];
};

const userLocations = (format: ClientFormat, environment: ClientEnvironment): ClientLocation[] => format.locations(environment).filter(location => location.scope === 'user');

/** The user file setup rewrites: the first that has servers, else the first that exists, else the first. */
export function setupLocation(format: ClientFormat, environment: ClientEnvironment): ClientLocation {
	const user = userLocations(format, environment);
	const existing = user.filter(location => fs.existsSync(location.file));
	const withServers = existing.find(location => {
		try {
			return clientFileFromText(location, fs.readFileSync(location.file, 'utf8'), environment).servers.length > 0;
		} catch {
			return false;
		}
	});
	return withServers ?? existing[0] ?? user[0]!;
}

/** The files `undoSetup` looks at: every user file of the client (the newest setup's backups say which it changed). */
export function setupFiles(format: ClientFormat, environment: ClientEnvironment): string[] {
	return userLocations(format, environment).map(location => location.file);
}

export function planSetup(format: ClientFormat, environment: ClientEnvironment, hangarServers: Record<string, unknown>, launch: HangarLaunch): SetupPlan {
	const location = setupLocation(format, environment);
	const before = fs.existsSync(location.file) ? fs.readFileSync(location.file, 'utf8') : undefined;
	const file = clientFileFromText(location, before ?? '', environment);
	// A client that runs the servers of all its user files: the others' servers go too, or they would keep running beside hangar.
	const others = (format.userFilesTogether === true ? userLocations(format, environment) : [])
		.filter(other => other.file !== location.file && fs.existsSync(other.file))
		.map(other => {
			const text = fs.readFileSync(other.file, 'utf8');
			return {location: other, before: text, servers: clientFileFromText(other, text, environment).servers};
		})
		.filter(other => other.servers.length > 0);
	const servers = [...file.servers, ...others.flatMap(other => other.servers)];
	const identities = new Set(Object.values(hangarServers).map(raw => existingIdentity(raw)));
	const isHangar = (server: ForeignServer) => server.entry !== undefined && launchesHangar(server.name, server.entry);
	const dropped = servers.filter(server => !isHangar(server));
	const missing = dropped.filter(server => server.entry === undefined || !identities.has(serverIdentity(server.entry)));
	const hangarEntries = file.servers.filter(server => isHangar(server));
	const alreadySetUp =
		dropped.length === 0 &&
		others.length === 0 &&
		hangarEntries.length === 1 &&
		hangarEntries[0]!.name === 'hangar' &&
		serverIdentity(hangarEntries[0]!.entry!) === serverIdentity(launch);

	const untouched = format
		.locations(environment)
		.filter(other => other.scope === 'project' && fs.existsSync(other.file))
		.filter(other => {
			try {
				return clientFileFromText(other, fs.readFileSync(other.file, 'utf8'), environment).servers.length > 0;
			} catch {
				return true;
			}
		});

	return {
		format,
		location,
		before,
		after: rewrite(format, location, before, file.servers, launch),
		others: others.map(other => ({location: other.location, before: other.before, after: withoutServers(format, other.before, other.servers)})),
		dropped,
		missing,
		alreadySetUp,
		untouched,
	};
}

/** The text with each of its server maps emptied (JSON files only: the formats whose user files go together). */
function withoutServers(format: ClientFormat, text: string, servers: ForeignServer[]): string {
	let out = text;
	for (const group of new Set(servers.map(server => server.group))) out = setJsonValue(out, group.path, {}, {jsonc: format.syntax === 'jsonc'});
	return out;
}

function rewrite(format: ClientFormat, location: ClientLocation, before: string | undefined, servers: ForeignServer[], launch: HangarLaunch): string {
	if (format.rewrite !== undefined) return format.rewrite(before ?? '', launch);
	const jsonc = {jsonc: format.syntax === 'jsonc'};
	const serversPath = format.serversPath(location);
	let text = before === undefined || before.trim() === '' ? '{}\n' : before;
	const groups = [...new Set(servers.map(server => server.group))];
	for (const group of groups) {
		if (group.path.join('\0') !== serversPath.join('\0')) text = setJsonValue(text, group.path, {}, jsonc);
	}

	return setJsonValue(text, serversPath, {hangar: format.hangarEntry(launch)}, jsonc);
}

const backupMarker = '.hangar-backup-';
const absentSuffix = '.absent';

/** Backups of `file`, oldest first. */
export function backupsOf(file: string): string[] {
	const dir = path.dirname(file);
	const prefix = `${path.basename(file)}${backupMarker}`;
	let names: string[];
	try {
		names = fs.readdirSync(dir);
	} catch {
		return [];
	}

	return names
		.filter(name => name.startsWith(prefix))
		.sort()
		.map(name => path.join(dir, name));
}

/** The time part of a backup's name, which every file of one setup shares. */
const stampOf = (file: string, backup: string): string => path.basename(backup).slice(`${path.basename(file)}${backupMarker}`.length).replace(/\.absent$/, '');

export type Backup = {file: string; backup: string};

/** Writes a backup of every file the plan changes (one time stamp for all), then the new files. Returns the backups, the `hangar` entry's file first. */
export function applySetup(plan: SetupPlan, now = new Date()): Backup[] {
	const stamp = now.toISOString().replaceAll(':', '-');
	const files: SetupFile[] = [{location: plan.location, before: plan.before, after: plan.after}, ...plan.others];
	const backups = files.map(({location, before}) => {
		const file = location.file;
		let backup = `${file}${backupMarker}${stamp}`;
		if (before === undefined) {
			backup += absentSuffix;
			makeDirectory(path.dirname(file));
			fs.writeFileSync(backup, '', {mode: 0o600, flag: 'wx'});
		} else {
			fs.copyFileSync(file, backup, fs.constants.COPYFILE_EXCL);
		}

		return {file, backup};
	});
	for (const {location, after} of files) writeFileAtomic(location.file, after);
	return backups;
}

export type UndoResult = {file: string; backup: string; removedFile: boolean};

/**
 * Restores the files of the newest setup among `files` from their backups
 * (removing a file that setup created) and deletes those backups. Empty when
 * there is none.
 */
export function undoSetup(files: readonly string[]): UndoResult[] {
	const backups = files.flatMap(file => backupsOf(file).map(backup => ({file, backup, stamp: stampOf(file, backup)})));
	const newest = backups.map(entry => entry.stamp).sort().at(-1);
	return backups
		.filter(entry => entry.stamp === newest)
		.map(({file, backup}) => {
			if (backup.endsWith(absentSuffix)) {
				fs.rmSync(file, {force: true});
				fs.rmSync(backup);
				return {file, backup, removedFile: true};
			}

			writeFileAtomic(file, fs.readFileSync(backup));
			fs.chmodSync(fs.realpathSync(file), fs.statSync(backup).mode & 0o7777);
			fs.rmSync(backup);
			return {file, backup, removedFile: false};
		});
}
