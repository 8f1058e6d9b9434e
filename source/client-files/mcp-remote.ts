/**
 * An `mcp-remote` entry (`npx -y mcp-remote URL [flags]`), the stdio
 * bridge people run to reach a remote server that wants OAuth, turned into
 * the native `url` entry it stands for: hangar connects to the URL itself
 * and signs in once for every client (`mcp-hangar auth NAME`), where
 * mcp-remote runs one process and one sign-in per client. Its `--header`
 * flags become headers (with the entry's env substituted, as mcp-remote
 * does), `--transport` the type, and `--static-oauth-client-info`'s
 * `client_id` the pre-registered client; its secret is never copied into
 * the config (a note says where it goes).
 */
import type {HangarEntry} from './client-model.js';

const launchers = new Set(['npx', 'bunx', 'pnpx', 'pnpm', 'yarn', 'mcp-remote']);

/** The index of mcp-remote's own URL argument in `args`, or undefined when the entry is not mcp-remote. */
function urlIndex(command: string, args: readonly string[]): number | undefined {
	const base = command.split(/[/\\]/).at(-1)!.replace(/\.(cmd|exe)$/i, '');
	if (!launchers.has(base)) return undefined;
	if (base === 'mcp-remote') return args.findIndex(arg => /^https?:\/\//.test(arg));
	const at = args.findIndex(arg => /^mcp-remote(@[\w.-]+)?$/.test(arg));
	if (at === -1) return undefined;
	const url = args.findIndex((arg, index) => index > at && /^https?:\/\//.test(arg));
	return url === -1 ? undefined : url;
}

/** With the entry's env values in place of `${VAR}` (mcp-remote expands its header values from its own environment), and the names it replaced. */
function withEnv(text: string, env: Record<string, string> | undefined): {text: string; names: string[]} {
	const names: string[] = [];
	const out = text.replaceAll(/\$\{([A-Za-z_]\w*)\}/g, (whole, name: string) => {
		const value = env?.[name];
		if (value === undefined) return whole;
		names.push(name);
		return value;
	});
	return {text: out, names: [...new Set(names)]};
}

/**
 * What a header whose `${VAR}`s the entry's env set holds now, said without
 * the values; the note that a client passed `${VAR}` on for hangar to expand
 * (variables.ts) is no longer true of those, and goes.
 */
function noteExpandedHeader(notes: string[], header: string, template: string, names: readonly string[], url: string): void {
	const stale = names.filter(name => !url.includes(`\${${name}}`)).map(name => `\${${name}} is expanded by hangar`);
	notes.splice(0, notes.length, ...notes.filter(note => !stale.some(prefix => note.startsWith(prefix))));
	const shown = names.reduce((text, name) => text.replaceAll(`\${${name}}`, '***'), template);
	const variables = names.join(' and ');
	notes.push(
		`headers.${header} written as ${JSON.stringify(shown)}: mcp-remote put the entry's env ${variables} in it, so hangar's config holds ${names.length === 1 ? 'that value' : 'those values'}; ` +
			`to keep ${names.length === 1 ? 'it' : 'them'} out of the file, write ${JSON.stringify(template)} there and set ${variables} where hangar runs`,
	);
}

/** Rewrites an mcp-remote entry in place as a `url` entry, with notes; false (nothing changed) for any other entry. */
export function fromMcpRemote(entry: HangarEntry, notes: string[]): boolean {
	if (entry.command === undefined || entry.url !== undefined) return false;
	const args = entry.args ?? [];
	const at = urlIndex(entry.command, args);
	if (at === undefined || at === -1) return false;

	const headers: Record<string, string> = {};
	const dropped: string[] = [];
	let type: HangarEntry['type'];
	let oauth: HangarEntry['oauth'];
	for (let index = at + 1; index < args.length; index++) {
		const flag = args[index]!;
		const value = args[index + 1];
		if (flag === '--header' && value !== undefined) {
			const colon = value.indexOf(':');
			if (colon > 0) {
				const header = value.slice(0, colon).trim();
				const template = value.slice(colon + 1).trim();
				const expanded = withEnv(template, entry.env);
				headers[header] = expanded.text;
				if (expanded.names.length > 0) noteExpandedHeader(notes, header, template, expanded.names, args[at]!);
			}


			index++;
		} else if (flag === '--transport' && value !== undefined) {
			type = value.startsWith('sse') ? 'sse' : value.startsWith('http') ? 'http' : undefined;
			index++;
		} else if (flag === '--static-oauth-client-info' && value !== undefined) {
			try {
				const info = JSON.parse(value) as {client_id?: unknown; client_secret?: unknown};
				if (typeof info.client_id === 'string') oauth = {clientId: info.client_id};
				if (info.client_secret !== undefined) {
					notes.push('--static-oauth-client-info\'s client_secret not copied: hangar never writes a secret into its config; put it in an environment variable and name it in "oauth": {"clientSecretEnv": "VAR"}');
				}
			} catch {
				notes.push('--static-oauth-client-info dropped: it is not JSON hangar can read (a file path is not read)');
			}

			index++;
		} else if (/^--(static-oauth-client-metadata|resource|host|auth-timeout)$/.test(flag) && value !== undefined) {
			dropped.push(flag);
			index++;
		} else {
			dropped.push(flag);
		}
	}

	entry.url = args[at];
	delete entry.command;
	delete entry.args;
	delete entry.env;
	if (Object.keys(headers).length > 0) entry.headers = {...entry.headers, ...headers};
	if (type !== undefined) entry.type = type;
	if (oauth !== undefined) entry.oauth = oauth;
	notes.push(`"mcp-remote ${args[at]}" became a native url server: hangar connects to it and signs in itself (mcp-hangar auth NAME), once for every client`);
	if (dropped.length > 0) notes.push(`mcp-remote flags dropped: ${dropped.join(' ')} (hangar has its own OAuth client and callback listener)`);
	return true;
}
