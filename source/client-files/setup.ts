/**
 * `setup`: a client's own servers replaced by one `hangar` entry, and back.
 * The plan is made first: which file, which servers go, which of them hangar
 * does not have yet (then nothing is written: import them first). Applying
 * it writes a timestamped byte-for-byte backup beside the file, then the new
 * file; undo puts the newest backup back, byte-identical, and removes it, so
 * each undo steps back one setup.
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

export type SetupPlan = {
	format: ClientFormat;
	location: ClientLocation;
	/** The file's text now; undefined when it does not exist yet. */
	before: string | undefined;
	after: string;
	/** The servers the new file no longer has (hangar's own entry excluded). */
	dropped: ForeignServer[];
	/** Dropped servers hangar's config does not have: setup refuses while there are any. */
	missing: ForeignServer[];
	/** The file already launches hangar this way and nothing else. */
	alreadySetUp: boolean;
	/** Client files setup leaves alone (project files), that still have servers. */
	untouched: ClientLocation[];
};

/** The user file setup rewrites: the first that has servers, else the first that exists, else the first. */
export function setupLocation(format: ClientFormat, environment: ClientEnvironment): ClientLocation {
	const user = format.locations(environment).filter(location => location.scope === 'user');
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

export function planSetup(format: ClientFormat, environment: ClientEnvironment, hangarServers: Record<string, unknown>, launch: HangarLaunch): SetupPlan {
	const location = setupLocation(format, environment);
	const before = fs.existsSync(location.file) ? fs.readFileSync(location.file, 'utf8') : undefined;
	const file = clientFileFromText(location, before ?? '', environment);
	const identities = new Set(Object.values(hangarServers).map(raw => existingIdentity(raw)));
	const dropped = file.servers.filter(server => server.entry === undefined || !launchesHangar(server.name, server.entry));
	const missing = dropped.filter(server => server.entry === undefined || !identities.has(serverIdentity(server.entry)));
	const hangarEntries = file.servers.filter(server => server.entry !== undefined && launchesHangar(server.name, server.entry));
	const alreadySetUp =
		dropped.length === 0 &&
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

	return {format, location, before, after: rewrite(format, location, before, file.servers, launch), dropped, missing, alreadySetUp, untouched};
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

/** Writes the backup, then the new file. Returns the backup's path. */
export function applySetup(plan: SetupPlan, now = new Date()): string {
	const stamp = now.toISOString().replaceAll(':', '-');
	const file = plan.location.file;
	let backup = `${file}${backupMarker}${stamp}`;
	if (plan.before === undefined) {
		backup += absentSuffix;
		makeDirectory(path.dirname(file));
		fs.writeFileSync(backup, '', {mode: 0o600, flag: 'wx'});
	} else {
		fs.copyFileSync(file, backup, fs.constants.COPYFILE_EXCL);
	}

	writeFileAtomic(file, plan.after);
	return backup;
}

export type UndoResult = {backup: string; removedFile: boolean};

/** Restores the newest backup of `file` (or removes the file, when setup created it) and deletes that backup. Undefined when there is none. */
export function undoSetup(file: string): UndoResult | undefined {
	const backup = backupsOf(file).at(-1);
	if (backup === undefined) return undefined;
	if (backup.endsWith(absentSuffix)) {
		fs.rmSync(file, {force: true});
		fs.rmSync(backup);
		return {backup, removedFile: true};
	}

	writeFileAtomic(file, fs.readFileSync(backup));
	fs.chmodSync(fs.realpathSync(file), fs.statSync(backup).mode & 0o7777);
	fs.rmSync(backup);
	return {backup, removedFile: false};
}
