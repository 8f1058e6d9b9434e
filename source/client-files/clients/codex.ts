/**
 * Codex: ~/.codex/config.toml (or $CODEX_HOME/config.toml), one
 * `[mcp_servers.NAME]` table per server with `command`/`args`/`env`/`cwd` or
 * `url`, and keys of its own: `enabled`, `startup_timeout_sec`,
 * `tool_timeout_sec`, `bearer_token_env_var`, `http_headers`,
 * `env_http_headers`, `enabled_tools` and `disabled_tools` (hangar's
 * `includeTools` and `excludeTools`). Setup cuts the server tables out of the
 * text and appends one `[mcp_servers.hangar]`, leaving every other line
 * (comments included) as it was.
 */
import {objectAt, pathsOf, type ClientFormat, type HangarLaunch} from '../client-format.js';
import {ignoredRule, stringMapRule, timeoutRule, toolFilterRule, type KeyRule} from '../server-entry.js';
import {literalVariables} from '../variables.js';
import {tomlLayout, tomlString} from '../toml.js';

const enabledRule: KeyRule = (value, draft, key) => {
	if (typeof value !== 'boolean') draft.notes.push(`${key} ${JSON.stringify(value)} dropped: expected true or false`);
	else if (!value) draft.entry.disabled = true;
};

const bearerRule: KeyRule = (value, draft, key) => {
	if (typeof value !== 'string' || !/^[A-Za-z_][A-Za-z0-9_]*$/.test(value)) {
		draft.notes.push(`${key} dropped: expected the name of an environment variable`);
		return;
	}

	draft.entry.headers = {...draft.entry.headers, Authorization: `Bearer \${${value}}`};
	draft.notes.push(`${key} → headers.Authorization "Bearer \${${value}}" (set ${value} where hangar runs)`);
};

const envHeadersRule: KeyRule = (value, draft, key) => {
	if (typeof value !== 'object' || value === null || Array.isArray(value)) {
		draft.notes.push(`${key} dropped: expected a table of header = "VARIABLE"`);
		return;
	}

	const headers = {...draft.entry.headers};
	for (const [header, variable] of Object.entries(value)) {
		if (typeof variable === 'string') headers[header] = `\${${variable}}`;
	}

	draft.entry.headers = headers;
	draft.notes.push(`${key} → headers as \${VARIABLE} references`);
};

export const codex: ClientFormat = {
	id: 'codex',
	label: 'Codex',
	syntax: 'toml',
	locations: environment => {
		const paths = pathsOf(environment);
		const home = environment.env['CODEX_HOME'] || paths.join(environment.home, '.codex');
		return [{client: 'codex', scope: 'user', file: paths.join(home, 'config.toml')}];
	},
	groups: root => {
		const servers = objectAt(root, ['mcp_servers']);
		return {groups: servers === undefined ? [] : [{path: ['mcp_servers'], projectDir: undefined, servers}], notes: []};
	},
	dialect: {
		keys: {
			enabled: enabledRule,
			startup_timeout_sec: timeoutRule('startTimeoutSeconds', 'seconds'),
			startup_timeout_ms: timeoutRule('startTimeoutSeconds', 'milliseconds'),
			tool_timeout_sec: timeoutRule('callTimeoutSeconds', 'seconds'),
			bearer_token_env_var: bearerRule,
			http_headers: stringMapRule('headers'),
			env_http_headers: envHeadersRule,
			env_vars: ignoredRule('hangar passes its whole environment to the servers it starts'),
			// Codex serves the enabled ones less the disabled ones: hangar's exclude wins over include the same way.
			enabled_tools: toolFilterRule('includeTools'),
			disabled_tools: toolFilterRule('excludeTools'),
			required: ignoredRule('hangar starts even when a server cannot; that server reports its error'),
			scopes: ignoredRule('hangar asks for the scope the server names when it signs in (set "oauth": {"scope": ...} to choose)'),
		},
		variables: literalVariables,
	},
	serversPath: () => ['mcp_servers'],
	hangarEntry: launch => ({command: launch.command, args: launch.args}),
	rewrite: rewriteCodexConfig,
};

/** The text with every `[mcp_servers…]` table (and root `mcp_servers.…` key) removed and one `[mcp_servers.hangar]` appended. */
export function rewriteCodexConfig(text: string, launch: HangarLaunch): string {
	const layout = tomlLayout(text);
	const cuts: Array<[number, number]> = [];
	for (const section of layout.sections) {
		if (section.path[0] !== 'mcp_servers') continue;
		cuts.push([section.start, keepCommentsBefore(text, section.start, section.end)]);
	}

	for (const entry of layout.entries) {
		if (entry.key[0] === 'mcp_servers') cuts.push([entry.start, entry.end]);
	}

	let out = text;
	for (const [from, to] of cuts.sort((a, b) => b[0] - a[0])) out = out.slice(0, from) + out.slice(to);
	out = out.replace(/\s*$/, '');
	const eol = text.includes('\r\n') ? '\r\n' : '\n';
	const table = [
		'[mcp_servers.hangar]',
		`command = ${tomlString(launch.command)}`,
		`args = [${launch.args.map(arg => tomlString(arg)).join(', ')}]`,
	].join(eol);
	return `${out === '' ? '' : `${out}${eol}${eol}`}${table}${eol}`;
}

/** Where a section's cut ends: before the comment lines that sit right on top of the next header (they describe it). */
function keepCommentsBefore(text: string, start: number, end: number): number {
	if (end >= text.length) return text.length;
	let keep = end;
	for (;;) {
		const previousLineStart = text.lastIndexOf('\n', keep - 2) + 1;
		if (previousLineStart <= start) return keep;
		const line = text.slice(previousLineStart, keep);
		if (!/^\s*#/.test(line)) return keep;
		keep = previousLineStart;
	}
}
