/**
 * One server entry from another client, turned into a hangar entry. The keys
 * every client shares (command, args, env, cwd, url, headers, type,
 * disabled) map directly; a client's own keys are mapped by its dialect
 * (Cline's `timeout` is seconds, Gemini's milliseconds; Windsurf calls the URL
 * `serverUrl`). Keys hangar has no use for are dropped with a note saying
 * so, and a key nobody knows is dropped with a note too, so nothing is lost
 * silently. Secret values (env, headers) are copied, never put in a note.
 */
import fs from 'node:fs';
import path from 'node:path';
import type {ForeignServer, HangarEntry, ServerGroup} from './client-model.js';
import type {ClientId} from './client-model.js';
import {parseDotenv} from '../core/config/dotenv.js';
import {fromMcpRemote} from './mcp-remote.js';
import {fromWindowsLaunch, noteWindowsPaths} from './windows-launch.js';
import {fromCommandLine} from './command-line-entry.js';

export type ConvertContext = {
	client: ClientId;
	file: string;
	group: ServerGroup;
	home: string;
	/** The OS whose commands are written (a Windows `npx.cmd` is rewritten elsewhere); the running one when not given. */
	platform?: NodeJS.Platform;
};

/** The mutable entry a rule writes into, and where its notes go. */
export type Draft = {
	entry: HangarEntry;
	notes: string[];
	problems: string[];
	context: ConvertContext;
	/** The client's variable syntax rewritten (for values a rule uses itself, such as envFile's path). */
	variables: (text: string) => string;
};

export type KeyRule = (value: unknown, draft: Draft, key: string) => void;

export type Dialect = {
	/** The client's own keys, and overrides of the shared ones. */
	keys?: Record<string, KeyRule>;
	/** Rewrites the client's variable syntax (`${env:X}`, `${input:x}`, `$X`) into hangar's `${X}`; adds a note for what it cannot. */
	variables?: (text: string, draft: Draft) => string;
};

const isRecord = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value);

export function stringRule(target: 'command' | 'cwd' | 'url'): KeyRule {
	return (value, draft, key) => {
		if (typeof value !== 'string' || value === '') {
			draft.problems.push(`"${key}" is ${describeValue(value)}, not a non-empty string`);
			return;
		}

		draft.entry[target] = value;
	};
}

export function stringMapRule(target: 'env' | 'headers'): KeyRule {
	return (value, draft, key) => {
		if (!isRecord(value)) {
			draft.problems.push(`"${key}" is ${describeValue(value)}, not an object of strings`);
			return;
		}

		const out: Record<string, string> = {...draft.entry[target]};
		for (const [name, inner] of Object.entries(value)) {
			if (typeof inner === 'string') {
				out[name] = inner;
			} else if (typeof inner === 'number' || typeof inner === 'boolean') {
				out[name] = String(inner);
				draft.notes.push(`${key}.${name}: a ${typeof inner}, written as a string`);
			} else {
				draft.notes.push(`${key}.${name}: dropped (${describeValue(inner)}, not a string)`);
			}
		}

		draft.entry[target] = out;
	};
}

const argsRule: KeyRule = (value, draft, key) => {
	if (!Array.isArray(value)) {
		draft.problems.push(`"${key}" is ${describeValue(value)}, not an array of strings`);
		return;
	}

	draft.entry.args = value.map(arg => (typeof arg === 'string' ? arg : JSON.stringify(arg)));
	if (value.some(arg => typeof arg !== 'string')) draft.notes.push(`${key}: non-string arguments written as strings`);
};

const transportNames: Record<string, HangarEntry['type'] | 'stdio'> = {
	stdio: 'stdio',
	http: 'http',
	'streamable-http': 'streamable-http',
	streamableHttp: 'streamable-http',
	'streamable_http': 'streamable-http',
	sse: 'sse',
};

const typeRule: KeyRule = (value, draft, key) => {
	const type = typeof value === 'string' ? transportNames[value] : undefined;
	if (type === undefined) {
		draft.notes.push(`${key} ${JSON.stringify(value)} dropped: hangar knows "stdio", "http", "streamable-http" and "sse"`);
		return;
	}

	// stdio is what a command server is anyway.
	if (type !== 'stdio') draft.entry.type = type;
};

/** A key hangar has no use for: dropped, with the reason. */
export function ignoredRule(reason: string): KeyRule {
	return (_value, draft, key) => {
		draft.notes.push(`${key} dropped: ${reason}`);
	};
}

/**
 * A client's OAuth settings of a remote server (Claude Code's and Gemini
 * CLI's `oauth`): its `clientId` becomes hangar's pre-registered client,
 * `scopes` its scope; a `clientSecret` is never copied into the config (a
 * note says where it goes), and the rest hangar finds by discovery.
 */
export const oauthRule: KeyRule = (value, draft, key) => {
	if (!isRecord(value)) {
		draft.notes.push(`${key} dropped: ${describeValue(value)}, not an object`);
		return;
	}

	const oauth: NonNullable<HangarEntry['oauth']> = {};
	if (typeof value['clientId'] === 'string') oauth.clientId = value['clientId'];
	if (Array.isArray(value['scopes']) && value['scopes'].every(scope => typeof scope === 'string')) oauth.scope = value['scopes'].join(' ');
	if (value['clientSecret'] !== undefined) {
		draft.notes.push(`${key}.clientSecret not copied: hangar never writes a secret into its config; put it in an environment variable and name it in "oauth": {"clientSecretEnv": "VAR"}`);
	}

	const rest = Object.keys(value).filter(name => !['clientId', 'scopes', 'clientSecret'].includes(name));
	if (rest.length > 0) draft.notes.push(`${key}: ${rest.join(', ')} dropped (hangar discovers the authorization server and runs its own callback listener)`);
	if (Object.keys(oauth).length > 0) draft.entry.oauth = {...draft.entry.oauth, ...oauth};
	draft.notes.push(`${key}: hangar signs in to this server itself (mcp-hangar auth NAME), once for every client`);
};

/** A timeout in `unit`, as hangar's callTimeoutSeconds or startTimeoutSeconds. */
export function timeoutRule(target: 'callTimeoutSeconds' | 'startTimeoutSeconds', unit: 'seconds' | 'milliseconds'): KeyRule {
	return (value, draft, key) => {
		if (typeof value !== 'number' || !(value > 0)) {
			draft.notes.push(`${key} ${JSON.stringify(value)} dropped: expected a positive number`);
			return;
		}

		draft.entry[target] = unit === 'seconds' ? value : value / 1000;
		draft.notes.push(`${key} → ${target}`);
	};
}

/** A client's list of tool names (or globs) to serve or hide, as hangar's includeTools or excludeTools (lists that meet are joined). */
export function toolFilterRule(target: 'includeTools' | 'excludeTools'): KeyRule {
	return (value, draft, key) => {
		if (!Array.isArray(value) || value.some(item => typeof item !== 'string' || item === '')) {
			draft.notes.push(`${key} dropped: expected an array of tool names`);
			return;
		}

		draft.entry[target] = [...(draft.entry[target] ?? []), ...(value as string[])];
		if (key !== target) draft.notes.push(`${key} → ${target}`);
	};
}

const disabledRule: KeyRule = (value, draft, key) => {
	if (typeof value !== 'boolean') {
		draft.notes.push(`${key} ${JSON.stringify(value)} dropped: expected true or false`);
		return;
	}

	if (value) draft.entry.disabled = true;
};

const approvalReason = 'hangar does not approve calls itself; the client keeps asking before each call, as it does for any server';

/**
 * Keeps the dotenv file as a reference (its absolute path: hangar reads
 * `envFile` relative to its own config, not the client's), so its secrets
 * stay in that one file and a change to it reaches hangar. hangar reads it
 * when it loads the config, below the entry's own env, as the clients do.
 */
/** Whether every `${…}` in `text` is one hangar expands (`${VAR}`, `${VAR:-default}`; not the editors' own names, which hangar refuses). */
const isHangarVariables = (text: string): boolean =>
	!/\$\{(?:workspaceFolder|workspaceRoot|userHome)/.test(text) && !text.replaceAll(/\$\{[A-Za-z_][A-Za-z0-9_]*(?::-[^}]*)?\}/g, '').includes('${');

const envFileRule: KeyRule = (value, draft, key) => {
	if (typeof value !== 'string' || value === '') {
		draft.notes.push(`${key} dropped: expected a path`);
		return;
	}

	const written = draft.variables(value).replace(/^~(?=$|[/\\])/, draft.context.home);
	const file = written.startsWith('${') ? written : path.resolve(draft.context.group.projectDir ?? path.dirname(draft.context.file), written);
	draft.entry.envFile = file;
	// A path with a variable in it is not read here: hangar expands it when it loads the config, or refuses the entry for a variable it has not (that variable's note and the refusal say so).
	if (file.includes('${')) {
		if (isHangarVariables(file)) draft.notes.push(`${key} "${file}" kept as written: hangar expands its variables, then reads the file, when it loads the config`);
		return;
	}

	let text: string;
	try {
		text = fs.readFileSync(file, 'utf8');
	} catch (error) {
		draft.notes.push(`${key} ${file} kept, but it cannot be read now (${(error as NodeJS.ErrnoException).code ?? String(error)}): the entry shows as invalid until it can`);
		return;
	}

	const names = Object.keys(parseDotenv(text));
	const shadowed = names.filter(name => name in (draft.entry.env ?? {}));
	draft.notes.push(
		`${key} ${file} kept as a reference: hangar reads its ${names.length} variable${names.length === 1 ? '' : 's'} (${names.join(', ') || 'none'}) when it loads the config` +
			(shadowed.length === 0 ? '' : `; env sets ${shadowed.join(', ')} itself, and that wins`),
	);
};

export {parseDotenv};

export const sharedKeys: Record<string, KeyRule> = {
	command: stringRule('command'),
	args: argsRule,
	env: stringMapRule('env'),
	cwd: stringRule('cwd'),
	url: stringRule('url'),
	headers: stringMapRule('headers'),
	type: typeRule,
	transportType: typeRule,
	disabled: disabledRule,
	envFile: envFileRule,
	alwaysAllow: ignoredRule(approvalReason),
	autoApprove: ignoredRule(approvalReason),
	description: ignoredRule('hangar keeps no description of a server'),
	includeTools: toolFilterRule('includeTools'),
	excludeTools: toolFilterRule('excludeTools'),
	disabledTools: toolFilterRule('excludeTools'),
	deniedTools: toolFilterRule('excludeTools'),
};

/** Every string the entry passes to a process or a server, for variable rewriting. */
function rewriteStrings(entry: HangarEntry, rewrite: (text: string) => string): void {
	if (entry.command !== undefined) entry.command = rewrite(entry.command);
	if (entry.args !== undefined) entry.args = entry.args.map(arg => rewrite(arg));
	if (entry.cwd !== undefined) entry.cwd = rewrite(entry.cwd);
	if (entry.url !== undefined) entry.url = rewrite(entry.url);
	for (const map of ['env', 'headers'] as const) {
		const record = entry[map];
		if (record !== undefined) entry[map] = Object.fromEntries(Object.entries(record).map(([k, v]) => [k, rewrite(v)]));
	}
}

function describeValue(value: unknown): string {
	if (value === null) return 'null';
	if (Array.isArray(value)) return 'an array';
	if (typeof value === 'object') return 'an object';
	if (value === '') return 'an empty string';
	return `a ${typeof value}`;
}

/** Converts one entry. Unusable entries come back with `problem` set and no entry. */
export function convertServer(name: string, raw: unknown, dialect: Dialect, context: ConvertContext): ForeignServer {
	const draft: Draft = {entry: {}, notes: [], problems: [], context, variables: text => text};
	if (dialect.variables !== undefined) draft.variables = text => dialect.variables!(text, draft);
	const base = {client: context.client, file: context.file, group: context.group, name};
	if (!isRecord(raw)) return {...base, entry: undefined, notes: [], problem: `the entry is ${describeValue(raw)}, not an object`};

	const rules = {...sharedKeys, ...dialect.keys};
	// envFile last: its note says which of its variables the explicit env keys override.
	const keys = Object.keys(raw).sort((a, b) => Number(a === 'envFile') - Number(b === 'envFile'));
	for (const key of keys) {
		const rule = rules[key];
		if (rule === undefined) draft.notes.push(`${key} dropped: not a key hangar knows (nor one ${context.client} documents)`);
		else rule(raw[key], draft, key);
	}

	const {entry} = draft;
	if (entry.command === undefined && entry.url === undefined) draft.problems.push('it has neither "command" nor a URL');
	if (entry.command !== undefined && entry.url !== undefined) draft.problems.push('it has both "command" and a URL');
	if (draft.problems.length > 0) return {...base, entry: undefined, notes: draft.notes, problem: draft.problems.join('; ')};

	rewriteStrings(entry, draft.variables);
	fromCommandLine(entry, draft.notes);
	fromWindowsLaunch(entry, draft.notes, context.platform ?? process.platform);
	fromMcpRemote(entry, draft.notes);
	noteWindowsPaths(entry, draft.notes, context.platform ?? process.platform);

	// A command server's keys that a remote one cannot have (and the other way round) would fail hangar's validation.
	if (entry.url === undefined) {
		if (entry.headers !== undefined) {
			draft.notes.push('headers dropped: they only apply to URL servers');
			delete entry.headers;
		}
	} else {
		for (const key of ['args', 'env', 'envFile', 'cwd'] as const) {
			if (entry[key] !== undefined) {
				draft.notes.push(`${key} dropped: it only applies to command servers`);
				delete entry[key];
			}
		}
	}

	if (entry.cwd !== undefined) noteCwd(entry, draft.notes, context);
	// A project's servers run in the project; hangar would run them in its config's directory.
	if (entry.command !== undefined && context.group.projectDir !== undefined) {
		entry.cwd = entry.cwd === undefined ? context.group.projectDir : path.resolve(context.group.projectDir, entry.cwd);
	}

	return {...base, entry: ordered(entry), notes: [...new Set(draft.notes)], problem: undefined};
}

/**
 * A `cwd` hangar would read otherwise than the client: `~` is the home
 * directory to a person, but hangar resolves the path as written, against
 * its config's directory, so it is written out; a relative one outside a
 * project the client resolved against the directory it ran in, which hangar
 * cannot know, so it is kept with a note to write it absolute.
 */
function noteCwd(entry: HangarEntry, notes: string[], context: ConvertContext): void {
	const cwd = entry.cwd!;
	const paths = context.platform === 'win32' ? path.win32 : path.posix;
	if (/^~(?=$|[/\\])/.test(cwd)) {
		entry.cwd = paths.join(context.home, cwd.slice(1));
		notes.push(`cwd "${cwd}" written as "${entry.cwd}": hangar does not expand ~`);
		return;
	}

	if (context.group.projectDir !== undefined || paths.isAbsolute(cwd) || /^(?:[A-Za-z]:[\\/]|\\\\)/.test(cwd) || cwd.includes('${')) return;
	notes.push(
		`cwd "${cwd}" is relative: ${context.client} resolves it against the directory it runs in, hangar against its config file's directory; write the absolute path in hangar's config`,
	);
}

/** Keys in the order hangar's README documents them, so imported entries read alike. */
function ordered(entry: HangarEntry): HangarEntry {
	const order: Array<keyof HangarEntry> = ['type', 'command', 'args', 'env', 'envFile', 'cwd', 'url', 'headers', 'oauth', 'callTimeoutSeconds', 'startTimeoutSeconds', 'includeTools', 'excludeTools', 'disabled'];
	const out: Record<string, unknown> = {};
	for (const key of order) if (entry[key] !== undefined) out[key] = entry[key];
	return out as HangarEntry;
}
