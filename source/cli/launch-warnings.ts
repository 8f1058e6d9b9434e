/**
 * Warnings about config entries that would not start as written, for the
 * commands that write or check the config (`--check-config`, `add`): a
 * command that cannot run from this shell, a value the shell emptied. They
 * are warnings, not refusals: the client that launches hangar may have
 * another PATH (Claude Desktop's is short), and the entry's own start says
 * why it failed.
 */
import {diagnoseLaunch} from '../core/link/launch-problem.js';
import type {ServerConfig} from '../core/config/read-config.js';

/**
 * One `warning:` line per entry whose command cannot run here (then a note
 * on whose PATH that was) and per value left as an example's placeholder;
 * empty when there is none.
 */
export function launchWarnings(servers: readonly ServerConfig[]): string[] {
	const lines: string[] = [];
	for (const server of servers) {
		if (server.disabled || server.invalid !== undefined || server.launch.kind !== 'stdio') continue;
		const problem = diagnoseLaunch(server.launch);
		if (problem !== undefined) lines.push(`warning: "${server.name}": ${problem.message}. ${problem.hint}`);
	}

	if (lines.length > 0) lines.push('note: commands were looked up with this shell\'s PATH and files; the client that starts hangar may have another PATH.');
	return [...lines, ...servers.flatMap(server => placeholderWarnings(server))];
}

/**
 * A value as a README's example writes it for the reader to replace:
 * `<YOUR_TOKEN>`, `<api key>`, `YOUR_API_KEY`, `your-token-here`. A real
 * key is none of these shapes.
 */
export function looksLikePlaceholder(value: string): boolean {
	const text = value.trim();
	if (/^<[^<>]{1,60}>$/.test(text) || /^\[[A-Z][A-Z0-9 _-]{1,60}\]$/.test(text)) return true;
	return /^(?:your|my)[ _-]?[a-z0-9 _-]{0,40}?(?:token|key|secret|password|pat|id|here)$/i.test(text) || /[_-]here$/i.test(text);
}

/** The env values, headers and arguments of an entry that are still an example's placeholders, one warning each. */
function placeholderWarnings(server: ServerConfig): string[] {
	if (server.disabled || server.invalid !== undefined) return [];
	const lines: string[] = [];
	const replace = 'which looks like an example\'s placeholder, not a real value: put the real one in the config file';
	const {launch} = server;
	const variable = (name: string) => `\${${name.replaceAll(/[^A-Za-z0-9_]/g, '_').toUpperCase()}}`;
	if (launch.kind === 'stdio') {
		for (const [key, value] of Object.entries(launch.env)) {
			if (looksLikePlaceholder(value)) lines.push(`warning: "${server.name}": env ${key} is ${JSON.stringify(value)}, ${replace}, or write "${variable(key)}" to take it from the environment hangar runs in.`);
		}

		for (const [index, arg] of launch.args.entries()) {
			if (looksLikePlaceholder(arg)) lines.push(`warning: "${server.name}": argument ${index + 1} is ${JSON.stringify(arg)}, ${replace}.`);
		}
	} else {
		for (const [key, value] of Object.entries(launch.headers)) {
			// A header's scheme stays ("Bearer <TOKEN>"): the token after it is what is checked.
			const scheme = /^(?:Bearer|Basic|Token)\s+/i.exec(value)?.[0] ?? '';
			if (looksLikePlaceholder(value.slice(scheme.length))) {
				lines.push(`warning: "${server.name}": header ${key} is ${JSON.stringify(value)}, ${replace}, or write "${scheme}${variable(`${server.name}_token`)}" to take it from the environment hangar runs in.`);
			}
		}
	}

	return lines;
}

const shellExpanded = 'A ${VAR} in double quotes is expanded by the shell before hangar sees it: write it in single quotes';

/**
 * `add`'s values that look like what a shell leaves of a `${VAR}` it
 * expanded to nothing: an empty `--env` value, a `--header` that is only
 * an auth scheme ("Bearer") or empty.
 */
export function emptiedValueWarnings(name: string, env: Record<string, string> | undefined, headers: Record<string, string> | undefined): string[] {
	const lines: string[] = [];
	for (const [key, value] of Object.entries(env ?? {})) {
		if (value === '') lines.push(`warning: "${name}": env ${key} is empty. ${shellExpanded} ('${key}=\${${key}}'), or edit the config file.`);
	}

	for (const [key, value] of Object.entries(headers ?? {})) {
		if (value === '') lines.push(`warning: "${name}": header ${key} is empty. ${shellExpanded} ('${key}: \${TOKEN}'), or edit the config file.`);
		else if (/^(?:Bearer|Basic|Token)$/i.test(value)) lines.push(`warning: "${name}": header ${key} is "${value}" with no token after it. ${shellExpanded} ('${key}: ${value} \${TOKEN}'), or edit the config file.`);
	}

	return lines;
}
