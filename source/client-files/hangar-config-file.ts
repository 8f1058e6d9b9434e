/**
 * Hangar's own config file, edited in place by `import`, `add` and `remove`:
 * one server at a time, through the text, so the person's formatting, key
 * order and other entries stay as they were (an invalid one too: it does not
 * block an edit of another). Every write is validated with the same schema
 * hangar loads the file with, before anything is written, and is atomic. A variable that is unset here, or an `envFile` that does
 * not exist yet, is not a reason to refuse the write: the file is usually
 * written in a shell, and used in a client's environment (and a project's
 * `.env` is often created after its config).
 */
import fs from 'node:fs';
import path from 'node:path';
import {ConfigError, parseConfig, type ConfigIssue} from '../core/config/read-config.js';
import {defaultConfigCandidates, userConfigDir} from '../core/config/paths.js';
import {writeFileAtomic} from './atomic-write.js';
import {parseJson, setJsonValue} from './json-text.js';

export type HangarConfigFile = {
	path: string;
	exists: boolean;
	text: string;
	/** The `mcpServers` entries as written in the file. */
	servers: Record<string, unknown>;
	/** The problems of its entries as read (each names its server): an edit keeps them as they are, and adds none. */
	issues: ConfigIssue[];
};

const emptyConfig = '{\n  "mcpServers": {}\n}\n';

/** The config file to edit: --config, else an existing default one, else the user config dir's (created on first write). */
export function editableConfigPath(explicit: string | undefined): string {
	if (explicit !== undefined) return path.resolve(explicit);
	return defaultConfigCandidates().find(candidate => fs.existsSync(candidate)) ?? path.join(userConfigDir(), 'config.json');
}

/**
 * The problems hangar would report for this text, except unset variables
 * and env files that cannot be read now (the environment's, not the text's).
 * Hangar would run a file with some unusable entries (they show as
 * `invalid`), but an editor does not write one: every error counts here;
 * other clients' keys that hangar ignores (notices) do not.
 */
export function configIssues(file: string, text: string): ConfigIssue[] {
	let raw: unknown;
	try {
		raw = parseJson(text);
	} catch (error) {
		return [{path: '$', message: `not valid JSON: ${(error as Error).message}`}];
	}

	let issues: ConfigIssue[];
	try {
		issues = parseConfig(raw, file).issues.filter(issue => issue.severity !== 'notice');
	} catch (error) {
		if (!(error instanceof ConfigError)) throw error;
		issues = error.issues;
	}

	return issues.filter(issue => issue.cause === undefined);
}

/** Why hangar would refuse this one entry (its problems joined), or undefined. Unset variables and unreadable env files do not count. */
export function entryProblem(entry: unknown): string | undefined {
	const name = 'entry';
	const issues = configIssues('(imported entry)', JSON.stringify({mcpServers: {[name]: entry}}));
	if (issues.length === 0) return undefined;
	const prefix = `$.mcpServers.${name}`;
	return issues.map(issue => `${issue.path === prefix ? '' : `${issue.path.replace(prefix, '').replace(/^\./, '')}: `}${issue.message}`).join('; ');
}

/**
 * Reads hangar's config for editing. Throws ConfigError when the file as a
 * whole is not valid (not JSON, no mcpServers object): fixing it comes
 * first. Entries that are not valid, and `hangar` settings hangar ignores or
 * takes the default of, are no reason to refuse an edit of another one
 * (hangar runs the file with them too): they are kept as they are (the
 * command warns of a setting's), and the edit may be an entry's removal.
 */
export function openHangarConfig(file: string): HangarConfigFile {
	let text: string;
	try {
		text = fs.readFileSync(file, 'utf8');
	} catch (error) {
		if ((error as NodeJS.ErrnoException).code === 'ENOENT') return {path: file, exists: false, text: emptyConfig, servers: {}, issues: []};
		throw new ConfigError(file, [{path: '$', message: `cannot read the file (${(error as NodeJS.ErrnoException).code ?? String(error)})`}]);
	}

	const issues = configIssues(file, text);
	if (issues.some(issue => issue.server === undefined && !isSettingIssue(issue))) throw new ConfigError(file, issues);
	const root = parseJson(text) as {mcpServers: Record<string, unknown>};
	return {path: file, exists: true, text, servers: root.mcpServers, issues};
}

/** A problem of the `hangar` settings: hangar runs the file anyway, that setting ignored or at its default. */
export function isSettingIssue(issue: ConfigIssue): boolean {
	return issue.path === '$.hangar' || issue.path.startsWith('$.hangar.');
}

/** The text with server `name` set to `entry` (added after the last server when new), or removed when `entry` is undefined. */
export function withServer(text: string, name: string, entry: unknown): string {
	return setJsonValue(text, ['mcpServers', name], entry);
}

/**
 * Validates the new text as hangar would load it and writes it atomically.
 * Throws ConfigError and writes nothing when the edit brings a problem the
 * file did not have (the problems of entries it left alone stay).
 */
export function saveHangarConfig(config: HangarConfigFile, text: string): void {
	const key = (issue: ConfigIssue): string => `${issue.path}\n${issue.message}`;
	const before = new Set(config.issues.map(issue => key(issue)));
	const issues = configIssues(config.path, text).filter(issue => !before.has(key(issue)));
	if (issues.length > 0) throw new ConfigError(config.path, issues);
	writeFileAtomic(config.path, text);
}
