/**
 * `mcp-hangar add NAME … -- COMMAND [ARGS…]` and `mcp-hangar remove NAME`:
 * one server added to or removed from hangar's config file, in place (see
 * config-files/hangar-config-file.ts: validated, atomic, everything else
 * kept as written).
 *
 * Output contract: what changed on stdout; exit 0 when done, 1 when the
 * config refuses the change (a name taken, an invalid result), 2 for bad
 * usage.
 */
import {didYouMean} from '../core/base/closest-match.js';
import type {HangarEntry} from '../client-files/client-model.js';
import {editableConfigPath, entryProblem, isSettingIssue, openHangarConfig, saveHangarConfig, withServer, type HangarConfigFile} from '../client-files/hangar-config-file.js';
import {isValidServerName, validServerName} from '../client-files/server-name.js';
import {selfCommand} from '../client-files/hangar-launch.js';
import {displayPath, maskedOutput, summarizeEntry} from './server-summary.js';
import {maskText} from '../core/base/secret-mask.js';
import {shellWord} from '../core/base/shell-words.js';
import {emptiedValueWarnings, launchWarnings} from './launch-warnings.js';
import {ConfigError, parseConfig, type ServerConfig} from '../core/config/read-config.js';
import {UsageError} from '../core/base/usage-error.js';

type Output = {out: (text: string) => void; err: (text: string) => void};

export type AddOptions = {
	name: string;
	command: string[];
	env: string[];
	url: string | undefined;
	headers: string[];
	config: string | undefined;
};

function parsePairs(values: readonly string[], flag: string, separator: '=' | ':', example: string): Record<string, string> {
	const out: Record<string, string> = {};
	for (const value of values) {
		const at = value.indexOf(separator);
		const key = at === -1 ? '' : value.slice(0, at).trim();
		if (key === '') throw new UsageError(`${flag} "${maskText(value)}" is not ${separator === '=' ? 'KEY=VALUE' : '"Name: value"'}; e.g. ${flag} ${example}`);
		out[key] = separator === ':' ? value.slice(at + 1).trim() : value.slice(at + 1);
	}

	return out;
}

/** The entry `add` writes, from its flags and the words after `--`. */
export function entryFromFlags(options: AddOptions): HangarEntry {
	const [command, ...args] = options.command;
	if (options.url !== undefined) {
		if (command !== undefined) throw new UsageError(`"add ${options.name}" takes either --url or a command after --, not both`);
		if (options.env.length > 0) throw new UsageError('--env applies to command servers; a --url server takes --header');
		const headers = parsePairs(options.headers, '--header', ':', '"Authorization: Bearer ${TOKEN}"');
		return {url: options.url, ...(Object.keys(headers).length > 0 ? {headers} : {})};
	}

	if (command === undefined) {
		throw new UsageError(`"add ${options.name}" needs a command after -- (e.g. mcp-hangar add ${options.name} -- npx -y @modelcontextprotocol/server-memory) or --url URL`);
	}

	if (options.headers.length > 0) throw new UsageError('--header applies to --url servers; a command server takes --env');
	const env = parsePairs(options.env, '--env', '=', 'API_KEY=${API_KEY}');
	return {command, ...(args.length > 0 ? {args} : {}), ...(Object.keys(env).length > 0 ? {env} : {})};
}

/** The entry as hangar would load it from `configPath` (none when it cannot be used here yet, e.g. an unset variable: the entry's own status says so). */
function serversOf(name: string, entry: HangarEntry, configPath: string): ServerConfig[] {
	try {
		return parseConfig({mcpServers: {[name]: entry}}, configPath).servers;
	} catch (error) {
		if (error instanceof ConfigError) return [];
		throw error;
	}
}

export function addVerb(options: AddOptions, unmasked: Output): number {
	const io = maskedOutput(unmasked);
	if (!isValidServerName(options.name)) {
		throw new UsageError(
			`bad server name "${options.name}": expected 1-32 letters, digits, "-" or single "_" (no "__", not ending in "_"), because it becomes the tool prefix "<server>__<tool>"; e.g. "${validServerName(options.name)}"`,
		);
	}

	const entry = entryFromFlags(options);
	// The flags are what is wrong, not the file: say so before the file is opened.
	const problem = entryProblem(entry);
	if (problem !== undefined) throw new UsageError(`"add ${options.name}": the entry these arguments make is not usable: ${problem}. Nothing was written`);
	const configPath = editableConfigPath(options.config);
	const config = openHangarConfig(configPath);
	warnOfSettings(config, io);
	if (Object.hasOwn(config.servers, options.name)) {
		io.err(
			`mcp-hangar: cannot add "${options.name}": ${displayPath(configPath)} already has a server of that name. Pick another name, or run ${selfCommand()} remove ${options.name}${options.config === undefined ? '' : ` --config ${shellWord(configPath)}`} first to replace it.\n`,
		);
		return 1;
	}

	saveHangarConfig(config, withServer(config.text, options.name, entry));
	io.out(`Added "${options.name}" to ${displayPath(configPath)}${config.exists ? '' : ' (a new file)'}: ${summarizeEntry(entry)}\n`);
	// Written, as asked; but what would not start as written is said now, not at its first call.
	const warnings = [...emptiedValueWarnings(options.name, entry.env, entry.headers), ...launchWarnings(serversOf(options.name, entry, configPath))];
	// Not masked: a warning quotes a value only when it looks like an example's placeholder ("Bearer YOUR_API_KEY"), and masking would hide which.
	for (const line of warnings) unmasked.err(`${line}\n`);
	return 0;
}

/** The file's `hangar` settings that hangar ignores or takes the default of: no reason to refuse the edit, but said. */
function warnOfSettings(config: HangarConfigFile, io: Output): void {
	for (const issue of config.issues.filter(found => isSettingIssue(found))) io.err(`warning: ${displayPath(config.path)}: ${issue.path}: ${issue.message}\n`);
}

export function removeVerb(options: {name: string; config: string | undefined}, io: Output): number {
	const configPath = editableConfigPath(options.config);
	const config = openHangarConfig(configPath);
	warnOfSettings(config, io);
	const names = Object.keys(config.servers);
	if (!config.exists || !Object.hasOwn(config.servers, options.name)) {
		const known = names.length === 0 ? 'It has no servers.' : `Its servers: ${names.join(', ')}.`;
		io.err(`mcp-hangar: cannot remove "${options.name}": ${displayPath(configPath)} has no server of that name.${didYouMean(options.name, names)} ${known}\n`);
		return 1;
	}

	saveHangarConfig(config, withServer(config.text, options.name, undefined));
	io.out(`Removed "${options.name}" from ${displayPath(configPath)}.\n`);
	return 0;
}
