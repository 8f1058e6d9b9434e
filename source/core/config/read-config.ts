/**
 * Configuration: the `mcpServers` map in the shape Claude Desktop and Cursor
 * use, plus hangar's own per-server fields and a top-level `hangar` object of
 * global defaults. Validated once, here, with zod; every problem is reported
 * in one pass with the file, the JSON path and what was expected. The rest
 * of the engine only sees the resolved `HangarConfig`, with every default
 * filled in.
 *
 * Loading is tolerant, entry by entry: one bad entry must not cost the
 * client every other server. An entry that cannot be used (an unknown key,
 * a wrong type, an unset variable, a bad name) is kept with `invalid` set to
 * why, and runs as an upstream in state `invalid`. Keys other clients write
 * are understood where they mean something (`type`, `envFile`, `disabled`,
 * `timeout`, their tool filters) and otherwise ignored with a notice
 * (`alwaysAllow`, `autoApprove`, `globalShortcut`, …); a key nobody knows
 * is still an error for its entry, so a typo never silently does nothing. A
 * bad global setting falls back to its default. Only a file that is not a
 * config at all, or one whose every entry is unusable, is refused whole.
 */
import {startedBy} from '../base/process-origin.js';
import fs from 'node:fs';
import path from 'node:path';
import {z} from 'zod';
import {maskText} from '../base/secret-mask.js';
import type {Logger} from '../base/logger.js';
import {defaultConfigCandidates, defaultStateDir} from './paths.js';
import {shellWord} from '../base/shell-words.js';
import {parseDotenv} from './dotenv.js';
import {closestKey, foreignServerKeys, foreignTopLevelKeys, recogniseShape, serverKeyAliases} from './foreign-keys.js';
import {
	defaults,
	hangarSchema,
	httpUrlError,
	isHttpUrl,
	serverNameMaxLength,
	serverSchema,
	isValidPrefix,
	type ConfigIssue,
	type HangarConfig,
	type HangarSettings,
	type RemoteLaunch,
	type ServerConfig,
	type StdioLaunch,
	type TokenStoreLocation,
} from './config-schema.js';

export {
	defaults,
	type ConfigIssue,
	maxSeconds,
	serverNameMaxLength,
	serverNamePattern,
	type HangarConfig,
	type HangarSettings,
	type RemoteLaunch,
	type ServerConfig,
	type StdioLaunch,
	type ToolDefinition,
} from './config-schema.js';

export class ConfigError extends Error {
	constructor(
		readonly file: string,
		readonly issues: ConfigIssue[],
	) {
		super(
			`Invalid configuration in ${file}:\n${issues.map(issue => `  - ${issue.path}: ${issue.message}`).join('\n')}\n` +
				'Fix these entries (see the configuration reference, docs/configuration.md) and run `mcp-hangar --check-config` again.',
		);
		this.name = 'ConfigError';
	}
}

/** No file where the config was looked for: what a person meets before import or add made one, said as such, with how to make one. */
export class ConfigMissingError extends ConfigError {
	constructor(file: string) {
		super(file, [{path: '$', message: 'file not found'}]);
		const [local, user] = defaultConfigCandidates();
		const flag = file === local || file === user ? '' : ` --config ${shellWord(file)}`;
		this.message =
			`no config file at ${file}.\n  Without --config, hangar uses ./mcp-hangar.json, else ${user}.\n` +
			`  To make one: \`mcp-hangar import\` lists the servers your MCP clients already have (\`mcp-hangar import CLIENT${flag}\` copies them), ` +
			`or \`mcp-hangar add NAME${flag} -- COMMAND [ARGS...]\` adds one. Then \`mcp-hangar --check-config${flag}\` checks it.`;
	}
}

function jsonPath(segments: ReadonlyArray<PropertyKey>): string {
	let out = '$';
	for (const segment of segments) {
		if (typeof segment === 'number') out += `[${segment}]`;
		else if (typeof segment === 'string' && /^[A-Za-z_$][\w$]*$/.test(segment)) out += `.${segment}`;
		else out += `[${JSON.stringify(String(segment))}]`;
	}

	return out;
}

function describeIssue(issue: z.core.$ZodIssue): string {
	if (issue.code === 'unrecognized_keys') {
		return `unknown key${issue.keys.length > 1 ? 's' : ''} ${issue.keys.map(key => `"${key}"`).join(', ')} (check the spelling against the configuration reference, docs/configuration.md)`;
	}

	return issue.message;
}

const isRecord = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value);

function describeValue(value: unknown): string {
	if (value === null) return 'null';
	if (Array.isArray(value)) return 'an array';
	return typeof value === 'object' ? 'an object' : `a ${typeof value}`;
}

/** " (did you mean "x"?)" for a key near a known one, or near another name for one (`aliases`), else "". */
function didYouMean(key: string, known: Iterable<string>, aliases?: Readonly<Record<string, string>>): string {
	const match = closestKey(key, known, aliases);
	return match === undefined ? '' : ` (did you mean "${match}"?)`;
}

/** A valid server name close to `name`, for the hint of a bad one (the import makes the same kind of change). */
function suggestName(name: string): string {
	const base = name.split(/[/\\]+/).findLast(segment => /[A-Za-z0-9]/.test(segment)) ?? name;
	const cleaned = base.replaceAll(/[^A-Za-z0-9_-]+/g, '-').replaceAll(/_{2,}/g, '_').replaceAll(/-{2,}/g, '-').replace(/^[^A-Za-z0-9]+/, '');
	return cleaned.slice(0, serverNameMaxLength).replace(/[-_]+$/, '') || 'server';
}

/** The keys hangar reads at the top level of its file; others are reported and ignored. */
export const topLevelKeys = ['$schema', 'hangar', 'mcpServers'] as const;

type HangarFields = z.infer<typeof hangarSchema>;

/**
 * The global settings, each validated on its own: a bad one is reported and
 * takes its default, so a typo in one setting does not stop every server.
 */
function readSettings(raw: unknown, issues: ConfigIssue[]): HangarFields {
	if (raw === undefined) return {};
	if (!isRecord(raw)) {
		issues.push({path: '$.hangar', message: `expected an object of settings, got ${describeValue(raw)}; every setting takes its default`});
		return {};
	}

	const shape = hangarSchema.shape as Record<string, z.ZodType>;
	const out: Record<string, unknown> = {};
	for (const [key, value] of Object.entries(raw)) {
		const field = shape[key];
		if (field === undefined) {
			issues.push({path: jsonPath(['hangar', key]), message: `unknown setting "${key}", ignored${didYouMean(key, Object.keys(shape))} (see the configuration reference, docs/configuration.md)`});
			continue;
		}

		const parsed = field.safeParse(value);
		if (parsed.success) out[key] = parsed.data;
		else for (const issue of parsed.error.issues) issues.push({path: jsonPath(['hangar', key, ...issue.path]), message: `${describeIssue(issue)}; the default applies`});
	}

	const h = out as HangarFields;
	if ((h.backoffMinSeconds ?? defaults.backoffMinSeconds) > (h.backoffMaxSeconds ?? defaults.backoffMaxSeconds)) {
		issues.push({path: '$.hangar.backoffMinSeconds', message: 'expected backoffMinSeconds to be at most backoffMaxSeconds; both take their defaults'});
		delete h.backoffMinSeconds;
		delete h.backoffMaxSeconds;
	}

	if (h.exposure === 'search' && h.managementTools === 'none') {
		issues.push({
			path: '$.hangar.managementTools',
			message: 'expected "all" or "read-only" with "exposure": "search": clients find and call tools there with hangar_find_tools and hangar_call, which "none" turns off; it takes its default',
		});
		delete h.managementTools;
	}

	return h;
}

type ServerFields = z.infer<typeof serverSchema>;

/** One entry as read: its own fields when they validate, and its problems so far. */
type EntryDraft = {name: string; raw: unknown; fields: ServerFields | undefined; errors: ConfigIssue[]; notices: ConfigIssue[]};

const serverKeys = new Set(Object.keys(serverSchema.shape));

const typeAliases: Record<string, string> = {streamableHttp: 'streamable-http', streamable_http: 'streamable-http'};

/**
 * Sorts an entry's keys: hangar's own are kept, other clients' keys are
 * mapped onto hangar's (with a notice saying how) or ignored with a notice,
 * and any other key is an error. Then validates what is left.
 */
function readEntry(name: string, raw: unknown): EntryDraft {
	const draft: EntryDraft = {name, raw, fields: undefined, errors: [], notices: []};
	const at = (...segments: Array<string | number>) => jsonPath(['mcpServers', name, ...segments]);
	const error = (path: string, message: string, cause?: 'unset-variable') => draft.errors.push({path, message, server: name, ...(cause === undefined ? {} : {cause})});
	const notice = (key: string, message: string) => draft.notices.push({path: at(key), message, severity: 'notice', server: name});
	if (!isValidPrefix(name)) {
		error(
			at(),
			`bad server name "${name}": expected 1-${serverNameMaxLength} letters, digits, "-" or single "_" (no "__", not ending in "_"), because it becomes the tool prefix "<server>__<tool>"; rename it, e.g. to "${suggestName(name)}"`,
		);
	}

	if (!isRecord(raw)) {
		error(at(), `expected an object with "command" (a subprocess) or "url" (a remote server), got ${describeValue(raw)}`);
		return draft;
	}

	const own: Record<string, unknown> = {};
	const excluded: unknown[] = [];
	for (const [key, value] of Object.entries(raw)) {
		if (serverKeys.has(key)) {
			own[key] = value;
			continue;
		}

		const foreign = foreignServerKeys[key];
		if (foreign === undefined) {
			error(at(key), `unknown key "${key}"${didYouMean(key, serverKeys, serverKeyAliases)}: not a key of hangar's, nor one another MCP client is known to write (see the configuration reference, docs/configuration.md)`);
		} else if (foreign.use === 'ignored') {
			notice(key, `"${key}" (${foreign.who}) is ignored: ${foreign.why}`);
		} else {
			notice(key, `"${key}" (${foreign.who}) is read as ${foreign.as}`);
			switch (key) {
				case 'timeout': {
					if (typeof value !== 'number' || !(value > 0)) error(at(key), 'expected a positive number (a call timeout)');
					else own['callTimeoutSeconds'] ??= value >= 1000 ? value / 1000 : value;
					break;
				}

				case 'transportType': {
					own['type'] ??= value;
					break;
				}

				case 'serverUrl': {
					own['url'] ??= value;
					break;
				}

				case 'httpUrl': {
					own['url'] ??= value;
					own['type'] ??= 'streamable-http';
					break;
				}

				case 'enabled': {
					if (typeof value !== 'boolean') error(at(key), 'expected true or false');
					else own['disabled'] ??= !value;
					break;
				}

				default: {
					// disabledTools, deniedTools: deny lists.
					if (Array.isArray(value)) excluded.push(...(value as unknown[]));
					else error(at(key), 'expected an array of tool names');
				}
			}
		}
	}

	if (typeof own['type'] === 'string' && typeAliases[own['type']] !== undefined) own['type'] = typeAliases[own['type']];
	if (excluded.length > 0) own['excludeTools'] = [...(Array.isArray(own['excludeTools']) ? (own['excludeTools'] as unknown[]) : []), ...excluded];
	const parsed = serverSchema.safeParse(own);
	if (parsed.success) draft.fields = parsed.data;
	else for (const issue of parsed.error.issues) error(at(...(issue.path as Array<string | number>)), describeIssue(issue));
	return draft;
}

/** A launch for display, from whatever of an unusable entry could be read. */
function readableLaunch(raw: unknown, baseDir: string, store: TokenStoreLocation): StdioLaunch | RemoteLaunch {
	const entry = isRecord(raw) ? raw : {};
	const url = [entry['url'], entry['serverUrl'], entry['httpUrl']].find(value => typeof value === 'string');
	if (typeof entry['command'] !== 'string' && typeof url === 'string') {
		return {kind: 'remote', url, headers: {}, transport: 'auto', auth: {store, clientId: undefined, clientSecret: undefined, clientMetadataUrl: undefined, scope: undefined, grant: 'authorization_code'}};
	}

	const args = Array.isArray(entry['args']) ? entry['args'].filter((arg): arg is string => typeof arg === 'string') : [];
	return {kind: 'stdio', command: typeof entry['command'] === 'string' ? entry['command'] : '', args, env: {}, cwd: baseDir};
}

/** Validates parsed JSON; returns the resolved config, with `issues` for what did not stop it, or throws ConfigError when nothing of it can be used. */
export type LoadOptions = {
	stateDir?: string | undefined;
	/**
	 * Whose environment `${VAR}`s are read from, as an unset one's error names
	 * it ("this shell's environment, where …"); by default this process's, a
	 * supervisor's: its pid and the client that started it.
	 */
	environmentOf?: string | undefined;
};

export function parseConfig(raw: unknown, file: string, options: LoadOptions = {}): HangarConfig {
	if (!isRecord(raw)) throw new ConfigError(file, [{path: '$', message: `expected a JSON object with "mcpServers", got ${describeValue(raw)}`}]);
	if (raw['mcpServers'] === undefined) {
		throw new ConfigError(file, [{path: '$', message: recogniseShape(raw) ?? 'expected "mcpServers": an object mapping server names to servers'}]);
	}

	if (!isRecord(raw['mcpServers'])) throw new ConfigError(file, [{path: '$.mcpServers', message: `expected an object mapping server names to servers, got ${describeValue(raw['mcpServers'])}`}]);
	const issues: ConfigIssue[] = [];
	const topLevel: readonly string[] = topLevelKeys;
	for (const key of Object.keys(raw)) {
		if (topLevel.includes(key)) continue;
		const who = foreignTopLevelKeys[key];
		if (who === undefined) issues.push({path: jsonPath([key]), message: `unknown top-level key "${key}", ignored${didYouMean(key, topLevel)} (hangar reads "mcpServers", "hangar" and "$schema")`});
		else issues.push({path: jsonPath([key]), message: `"${key}" (${who}) is ignored`, severity: 'notice'});
	}

	if (raw['$schema'] !== undefined && typeof raw['$schema'] !== 'string') issues.push({path: '$.$schema', message: 'expected a string; ignored'});
	const h = readSettings(raw['hangar'], issues);
	const drafts = Object.entries(raw['mcpServers']).map(([name, value]) => readEntry(name, value));

	// A namespace is a name prefix like a server name, and two servers sharing one would make
	// every name of theirs ambiguous: the later entry cannot be used.
	const namespaceOwners = new Map<string, string>();
	for (const draft of drafts) {
		if (draft.fields === undefined) continue;
		const namespace = draft.fields.namespace ?? draft.name;
		if (namespace === false || !isValidPrefix(namespace)) {
			if (namespace !== false && draft.fields.namespace !== undefined) {
				draft.errors.push({
					path: jsonPath(['mcpServers', draft.name, 'namespace']),
					message: `bad namespace "${namespace}": expected 1-${serverNameMaxLength} letters, digits, "-" or single "_" (no "__", not ending in "_"), or false for unprefixed names`,
					server: draft.name,
				});
			}

			continue;
		}

		const first = namespaceOwners.get(namespace);
		if (first === undefined) namespaceOwners.set(namespace, draft.name);
		else {
			draft.errors.push({
				path: jsonPath(['mcpServers', draft.name, 'namespace']),
				message: `namespace "${namespace}" is already the prefix of server "${first}"; give one of them another "namespace" (or false for unprefixed names)`,
				server: draft.name,
			});
		}
	}

	const baseDir = path.dirname(file);
	const ms = (value: number) => Math.round(value * 1000);
	const settings: HangarSettings = {
		// --state-dir is relative to where hangar was started; the config's own stateDir to the config file.
		stateDir: options.stateDir === undefined ? path.resolve(baseDir, h.stateDir ?? defaultStateDir()) : path.resolve(options.stateDir),
		healthIntervalMs: ms(h.healthIntervalSeconds ?? defaults.healthIntervalSeconds),
		pingTimeoutMs: ms(h.pingTimeoutSeconds ?? defaults.pingTimeoutSeconds),
		failureThreshold: h.failureThreshold ?? defaults.failureThreshold,
		backoffMinMs: ms(h.backoffMinSeconds ?? defaults.backoffMinSeconds),
		backoffMaxMs: ms(h.backoffMaxSeconds ?? defaults.backoffMaxSeconds),
		restartBudget: {
			maxRestarts: h.restartBudget?.maxRestarts ?? defaults.restartBudget.maxRestarts,
			windowMs: ms(h.restartBudget?.windowSeconds ?? defaults.restartBudget.windowSeconds),
		},
		stopGraceMs: ms(h.stopGraceSeconds ?? defaults.stopGraceSeconds),
		callTimeoutMs: ms(h.callTimeoutSeconds ?? defaults.callTimeoutSeconds),
		maxMessageBytes: h.maxMessageBytes ?? defaults.maxMessageBytes,
		logLines: h.logLines ?? defaults.logLines,
		toolsRefreshMs: ms(h.toolsRefreshSeconds ?? defaults.toolsRefreshSeconds),
		quarantineNew: h.quarantineNew ?? defaults.quarantineNew,
		pinning: h.pinning ?? defaults.pinning,
		exposure: h.exposure ?? defaults.exposure,
		managementTools: h.managementTools ?? defaults.managementTools,
		httpCallTimeoutMs: ms(h.httpCallTimeoutSeconds ?? defaults.httpCallTimeoutSeconds),
		taskResultTimeoutMs: ms(h.taskResultTimeoutSeconds ?? defaults.taskResultTimeoutSeconds),
		httpSessionIdleMs: ms(h.httpSessionIdleSeconds ?? defaults.httpSessionIdleSeconds),
		httpAllowedOrigins: (h.httpAllowedOrigins ?? defaults.httpAllowedOrigins).map(origin => new URL(origin).origin),
		lingerMs: ms(h.lingerSeconds ?? defaults.lingerSeconds),
		inputRequiredMs: ms(h.inputRequiredSeconds ?? defaults.inputRequiredSeconds),
		firstListWaitMs: ms(h.firstListWaitSeconds ?? defaults.firstListWaitSeconds),
		maxInstancesPerServer: h.maxInstancesPerServer ?? defaults.maxInstancesPerServer,
		maxInstances: h.maxInstances ?? defaults.maxInstances,
		metricsPort: h.metricsPort ?? defaults.metricsPort,
		auditLog: h.auditLog ?? defaults.auditLog,
		auditMaxBytes: h.auditMaxBytes ?? defaults.auditMaxBytes,
		auditFiles: h.auditFiles ?? defaults.auditFiles,
		auditArguments: h.auditArguments ?? defaults.auditArguments,
		tokenStore: h.tokenStore ?? defaults.tokenStore,
	};
	const store: TokenStoreLocation = {kind: settings.tokenStore, file: tokenStorePath(settings.stateDir)};

	const variables: Record<string, string | undefined> = {
		...process.env,
		HANGAR_CONFIG_DIR: baseDir,
		HANGAR_STATE_DIR: settings.stateDir,
	};
	const servers = drafts.map((draft): ServerConfig => {
		const {name, fields: server, errors} = draft;
		let launch: StdioLaunch | RemoteLaunch = readableLaunch(draft.raw, baseDir, store);
		// A disabled entry never runs: its variables are not needed, so an unset one is no error.
		const disabled = server?.disabled ?? (isRecord(draft.raw) && draft.raw['disabled'] === true);
		if (server !== undefined && errors.length === 0 && !disabled) {
			const expandWith = (from: Record<string, string | undefined>) => (value: string, at: Array<string | number>) =>
				expandVariables(value, from, jsonPath(['mcpServers', name, ...at]), errors, name, options.environmentOf, server.url !== undefined);
			// The entry's envFile is read first (its path expands from the environment): its variables expand the
			// entry's own ${VAR}s too, which is where an unset variable's error tells the person to put it.
			const fileVariables = readEnvFile(server.envFile, baseDir, expandWith(variables), errors, name);
			const expand = expandWith({...variables, ...fileVariables, HANGAR_CONFIG_DIR: baseDir, HANGAR_STATE_DIR: settings.stateDir});
			const expandAll = (record: Record<string, string> | undefined, key: string) =>
				Object.fromEntries(Object.entries(record ?? {}).map(([k, v]) => [k, expand(v, [key, k])]));
			launch =
				server.url === undefined
					? {
							kind: 'stdio',
							command: expand(server.command!, ['command']),
							args: (server.args ?? []).map((arg, index) => expand(arg, ['args', index])),
							env: {...fileVariables, ...expandAll(server.env, 'env')},
							cwd: path.resolve(baseDir, expand(server.cwd ?? '.', ['cwd'])),
						}
					: {
							kind: 'remote',
							url: expandUrl(server.url, expand, errors, jsonPath(['mcpServers', name, 'url']), name),
							headers: expandAll(server.headers, 'headers'),
							transport: server.type === 'sse' ? 'sse' : server.type === 'http' || server.type === 'streamable-http' ? 'streamable-http' : 'auto',
							auth: {
								store,
								clientId: server.oauth?.clientId === undefined ? undefined : expand(server.oauth.clientId, ['oauth', 'clientId']),
								clientSecret:
									server.oauth?.clientSecretEnv === undefined
										? undefined
										: {variable: server.oauth.clientSecretEnv, envFile: server.envFile === undefined ? undefined : path.resolve(baseDir, expand(server.envFile, ['envFile']))},
								clientMetadataUrl: server.oauth?.clientMetadataUrl,
								scope: server.oauth?.scope,
								grant: server.oauth?.grant ?? 'authorization_code',
							},
						};
		}

		// An entry that turned out unusable while expanding keeps only what is safe to show: no env or headers.
		if (errors.length > 0) launch = readableLaunch(draft.raw, baseDir, store);
		issues.push(...errors, ...draft.notices);
		const prefix = jsonPath(['mcpServers', name]);
		const invalid =
			errors.length === 0 ? undefined : errors.map(issue => `${issue.path === prefix ? '' : `${issue.path.slice(prefix.length).replace(/^\./, '')}: `}${issue.message}`).join('; ');
		const lazy = server?.lazy ?? h.lazy ?? defaults.lazy;
		return {
			name,
			launch,
			lazy,
			// An upstream started at launch (lazy: false) is meant to stay up: it is idle-stopped only if its own entry asks for it.
			idleTimeoutMs: ms(server?.idleTimeoutSeconds ?? (lazy ? (h.idleTimeoutSeconds ?? defaults.idleTimeoutSeconds) : 0)),
			callTimeoutMs: ms(server?.callTimeoutSeconds ?? h.callTimeoutSeconds ?? defaults.callTimeoutSeconds),
			startTimeoutMs: ms(server?.startTimeoutSeconds ?? h.startTimeoutSeconds ?? defaults.startTimeoutSeconds),
			tools: server?.tools,
			disabled: server?.disabled ?? (isRecord(draft.raw) && draft.raw['disabled'] === true),
			quarantined: server?.quarantined ?? false,
			namespace: server?.namespace ?? name,
			includeTools: server?.includeTools,
			excludeTools: server?.excludeTools,
			instances: server?.instances ?? 'auto',
			invalid,
			maxUpstreamMessageBytes: h.maxUpstreamMessageBytes ?? defaults.maxUpstreamMessageBytes,
		};
	});

	// Loading is tolerant entry by entry, but a file none of whose entries can be used is not a config worth running.
	if (servers.length > 0 && servers.every(server => server.invalid !== undefined)) {
		throw new ConfigError(
			file,
			issues.filter(issue => issue.severity !== 'notice'),
		);
	}

	return {path: file, hangar: settings, servers, issues};
}

/** The variables of an entry's `envFile` (relative to the config file); a file that cannot be read makes the entry unusable. */
function readEnvFile(
	envFile: string | undefined,
	baseDir: string,
	expand: (value: string, at: Array<string | number>) => string,
	errors: ConfigIssue[],
	server: string,
): Record<string, string> {
	if (envFile === undefined) return {};
	const file = path.resolve(baseDir, expand(envFile, ['envFile']));
	try {
		return parseDotenv(fs.readFileSync(file, 'utf8'));
	} catch (error) {
		errors.push({
			path: jsonPath(['mcpServers', server, 'envFile']),
			message: `cannot read the env file ${file} (${(error as NodeJS.ErrnoException).code ?? String(error)}); create it, or fix the path (relative to the config file)`,
			cause: 'unreadable-env-file',
			server,
		});
		return {};
	}
}

/**
 * Expands `${VAR}` and `${VAR:-default}` from the environment (plus
 * HANGAR_CONFIG_DIR and HANGAR_STATE_DIR), as Claude Code does in .mcp.json,
 * and `${env:VAR}` as VS Code and Cursor write it. An unset variable without
 * a default makes the entry unusable, rather than becoming an empty string.
 * VS Code's `${input:…}` prompts have no meaning here and say so.
 */
/**
 * Whose environment a variable was looked up in, and where to set it so it
 * reaches the upstream: the config's `env` or `envFile` (read again on a
 * reload), since a variable set in a shell afterwards never reaches a
 * supervisor that is already running.
 */
function unsetVariable(name: string, environmentOf: string | undefined, remote: boolean): string {
	const whose = environmentOf ?? `the environment of hangar pid ${process.pid}${startedBy === undefined ? '' : `, started by ${startedBy}, whose environment it has`}`;
	// A url server has no "env" of its own: its envFile is where a value goes.
	const where = remote ? 'in this server\'s "envFile"' : 'in this server\'s "env" or in its "envFile"';
	return `variable \${${name}} is not set (in ${whose}): set it ${where} (read again on mcp-hangar reload), or write \${${name}:-default}`;
}

function expandVariables(value: string, variables: Record<string, string | undefined>, at: string, issues: ConfigIssue[], server: string, environmentOf: string | undefined, remote = false): string {
	const promptVariable = /\$\{(input:[^}]*|workspaceFolder[^}]*|userHome)\}/.exec(value);
	if (promptVariable !== null) {
		issues.push({path: at, message: `"\${${promptVariable[1]}}" is VS Code's own variable, which hangar does not expand: write \${VAR} and set VAR in the environment hangar starts in`, server});
	}

	return value.replaceAll(/\$\{(?:env:)?([A-Za-z_][A-Za-z0-9_]*)(?::-([^}]*))?\}/g, (whole, name: string, fallback: string | undefined) => {
		const found = variables[name];
		if (found !== undefined && found !== '') return found;
		if (fallback !== undefined) return fallback;
		issues.push({path: at, message: unsetVariable(name, environmentOf, remote), cause: 'unset-variable', server});
		return whole;
	});
}

/** A url with its variables expanded, checked as the schema checks one without variables. */
function expandUrl(url: string, expand: (value: string, at: Array<string | number>) => string, errors: ConfigIssue[], at: string, server: string): string {
	const before = errors.length;
	const expanded = expand(url, ['url']);
	if (errors.length === before && !isHttpUrl(expanded)) errors.push({path: at, message: `${httpUrlError} (it is ${JSON.stringify(maskText(expanded))} with its variables expanded)`, server});
	return expanded;
}

/** Reads and validates a config file. Throws ConfigError for every problem, including unreadable files. */
export function loadConfig(file: string, options: LoadOptions = {}): HangarConfig {
	const absolute = path.resolve(file);
	let text: string;
	try {
		text = fs.readFileSync(absolute, 'utf8');
	} catch (error) {
		const code = (error as NodeJS.ErrnoException).code;
		if (code === 'ENOENT') throw new ConfigMissingError(absolute);
		throw new ConfigError(absolute, [{path: '$', message: `cannot read the file (${code ?? String(error)})`}]);
	}

	return parseConfigText(text, absolute, options);
}

/** Validates the text of a config file read from `file` (a reload reads it itself, to know which text it applied). */
export function parseConfigText(text: string, file: string, options: LoadOptions = {}): HangarConfig {
	// Editors on Windows may start the file with a byte order mark, which JSON.parse refuses.
	if (text.startsWith('\uFEFF')) text = text.slice(1);
	let raw: unknown;
	try {
		raw = JSON.parse(text);
	} catch (error) {
		throw new ConfigError(file, [{path: '$', message: `not valid JSON: ${describeJsonError(text, error as Error)}${otherClientsFormat(text, file)}`}]);
	}

	return parseConfig(raw, file, options);
}

/**
 * When a file that is not JSON looks like another client's config (VS Code's
 * JSON with comments, Codex's TOML), what to do instead: hangar's own config
 * is plain JSON, and `import` reads those files.
 */
function otherClientsFormat(text: string, file: string): string {
	const importIt = `To bring its servers into hangar, run: mcp-hangar import ${file} --config mcp-hangar.json`;
	if (/^\s*\[[\w."-]+\]\s*(#.*)?$/m.test(text) && /^\s*[\w"-]+\s*=/m.test(text)) return `. This looks like TOML (Codex's config.toml); hangar's config is JSON. ${importIt}`;
	if (/^\s*(\/\/|\/\*)/m.test(text)) return `. This looks like JSON with comments (as VS Code and Zed write it); hangar's config is plain JSON. ${importIt}`;
	if (/,\s*[}\]]/.test(text)) return `. It has a comma before "}" or "]" (JSON allows none; VS Code and Cursor accept it): remove it, or, for another client's file, run: mcp-hangar import ${file} --config mcp-hangar.json`;
	return '';
}

/** JSON.parse's message, with the line and column when it gives a position (it only gives an offset). */
function describeJsonError(text: string, error: Error): string {
	const match = /at position (\d+)/.exec(error.message);
	if (match === null) return error.message;
	// Node 22 names the line itself ("(line 3 column 29)"); it is said once, in hangar's words.
	const message = error.message.replace(/ \(line \d+ column \d+\)/, '');
	const position = Number(match[1]);
	const before = text.slice(0, position);
	const line = before.split('\n').length;
	const column = position - before.lastIndexOf('\n');
	return `${message} (line ${line}, column ${column})`;
}

export {resolveConfigPath, stateDirOf} from './paths.js';

/** Where the OAuth tokens and client registrations of a state dir's upstreams are kept (link/oauth-store.ts). */
export function tokenStorePath(stateDir: string): string {
	return path.join(stateDir, 'oauth-tokens.json');
}

/** What the loader tolerated, for a log: errors (an entry made invalid, a setting ignored) at warn, other clients' ignored keys at info. */
export function logConfigIssues(config: HangarConfig, logger: Pick<Logger, 'info' | 'warn'>): void {
	for (const issue of config.issues) {
		const line = `${config.path}: ${issue.path}: ${issue.message}`;
		if (issue.severity === 'notice') logger.info(line);
		else logger.warn(line);
	}
}
