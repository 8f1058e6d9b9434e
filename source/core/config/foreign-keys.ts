/**
 * What other MCP clients write in their config files, so a file pasted from
 * one of them loads: the keys hangar understands (mapped onto its own by
 * config.ts), the keys it ignores with a notice, and the shapes of whole
 * files that are not hangar's (a VS Code `mcp.json` has `servers`, not
 * `mcpServers`). A key in none of these tables is unknown: an error for its
 * entry, so a typo never silently does nothing.
 */
import {closestMatch} from '../base/closest-match.js';

/**
 * Other names people write for a server key: the word spelt out, or another
 * tool's word for it (Docker Compose's "environment", "working_dir"). They
 * are not read as the key (a file with one is refused like any unknown key),
 * but one of them, or a typo of one ("enviroment"), suggests the key.
 */
export const serverKeyAliases: Readonly<Record<string, string>> = {
	environment: 'env',
	environmentVariables: 'env',
	envVars: 'env',
	arguments: 'args',
	argv: 'args',
	cmd: 'command',
	workingDirectory: 'cwd',
	workingDir: 'cwd',
};

/**
 * The known key nearest to `key` (see closestMatch), counting a near alias
 * as its key; a known key wins a tie. Undefined when none is near.
 */
export function closestKey(key: string, known: Iterable<string>, aliases: Readonly<Record<string, string>> = {}): string | undefined {
	const names = new Map<string, string>([...known].map(name => [name, name]));
	for (const [alias, name] of Object.entries(aliases)) if (!names.has(alias)) names.set(alias, name);
	const match = closestMatch(key, names.keys());
	return match === undefined ? undefined : names.get(match);
}

/** A server entry key of another client: mapped onto hangar's (`as` says to what), or ignored (`why` says why). */
export type ForeignKey = {who: string; use: 'understood'; as: string} | {who: string; use: 'ignored'; why: string};

const approval = 'hangar does not approve calls itself; the client still asks before each call, as it does for any server';

export const foreignServerKeys: Readonly<Record<string, ForeignKey>> = {
	timeout: {who: 'Cline, Gemini CLI', use: 'understood', as: 'callTimeoutSeconds (1000 or more: milliseconds, as Gemini CLI writes it; less: seconds, as Cline does)'},
	transportType: {who: 'Cline', use: 'understood', as: 'type'},
	serverUrl: {who: 'Windsurf', use: 'understood', as: 'url'},
	httpUrl: {who: 'Gemini CLI', use: 'understood', as: 'url with "type": "streamable-http"'},
	enabled: {who: 'Codex', use: 'understood', as: '"disabled": true when false'},
	disabledTools: {who: 'Windsurf, 1mcp', use: 'understood', as: 'excludeTools'},
	deniedTools: {who: 'mcpmu', use: 'understood', as: 'excludeTools'},
	alwaysAllow: {who: 'Cline, Roo Code', use: 'ignored', why: approval},
	autoApprove: {who: 'Cline', use: 'ignored', why: approval},
	trust: {who: 'Gemini CLI', use: 'ignored', why: approval},
	description: {who: 'several clients', use: 'ignored', why: 'hangar keeps no description of a server'},
	watchPaths: {who: 'Roo Code', use: 'ignored', why: 'hangar does not restart a server when files change; use `mcp-hangar restart NAME`'},
	networkTimeout: {who: 'Roo Code', use: 'ignored', why: 'hangar has callTimeoutSeconds and startTimeoutSeconds'},
	authProviderType: {who: 'Gemini CLI', use: 'ignored', why: 'hangar signs in to a server that asks for OAuth by itself (mcp-hangar auth NAME)'},
	gallery: {who: 'VS Code', use: 'ignored', why: 'it only says where VS Code found the server'},
	version: {who: 'VS Code', use: 'ignored', why: 'it only says which version VS Code installed'},
	dev: {who: 'VS Code', use: 'ignored', why: 'hangar has no development mode for servers'},
};

/** Top-level keys of other clients' files that hangar ignores with a notice: who writes each. */
export const foreignTopLevelKeys: Readonly<Record<string, string>> = {
	globalShortcut: 'Claude Desktop',
	preferences: 'Claude Desktop',
	inputs: 'VS Code (its "${input:…}" variables; hangar reads ${VAR} from the environment)',
	theme: 'Gemini CLI',
	selectedAuthType: 'Gemini CLI',
};

const isRecord = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value);

/**
 * For a file with no `mcpServers`: which client's file it looks like and
 * what to do, as a sentence; undefined when it resembles none.
 */
export function recogniseShape(raw: Record<string, unknown>): string | undefined {
	const convert = 'run `mcp-hangar import FILE` to copy its servers into hangar\'s config';
	if (isRecord(raw['servers'])) {
		return `this looks like a VS Code mcp.json ("servers"${raw['inputs'] === undefined ? '' : ' and "inputs"'}), not hangar's config, which lists servers under "mcpServers": ${convert}, or rename "servers" to "mcpServers"${raw['inputs'] === undefined ? '' : ' and replace its "${input:…}" variables with ${VAR}'}`;
	}

	if (isRecord(raw['mcp']) && isRecord(raw['mcp']['servers'])) {
		return `this looks like a VS Code settings.json (servers under "mcp.servers"), not hangar's config, which lists servers under "mcpServers": ${convert}`;
	}

	if (isRecord(raw['context_servers'])) return 'this looks like a Zed settings.json ("context_servers"), not hangar\'s config: copy its servers into an object under "mcpServers", each with "command", "args" and "env"';
	if (isRecord(raw['mcp_servers'])) return `this looks like a Codex config ("mcp_servers"), not hangar's config, which lists servers under "mcpServers": ${convert}`;
	if (isRecord(raw['mcp'])) return 'this looks like an opencode config (servers under "mcp"), not hangar\'s config: copy its servers into an object under "mcpServers", each with "command" and "args" (opencode writes both in one "command" array)';
	if (isRecord(raw['projects'])) return `this looks like Claude Code's ~/.claude.json with no user servers: ${convert} (it reads project servers too)`;
	return undefined;
}
