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

/** One `warning:` line per entry whose command cannot run here, then a note on whose PATH that was; empty when all can. */
export function launchWarnings(servers: readonly ServerConfig[]): string[] {
	const lines: string[] = [];
	for (const server of servers) {
		if (server.disabled || server.invalid !== undefined || server.launch.kind !== 'stdio') continue;
		const problem = diagnoseLaunch(server.launch);
		if (problem !== undefined) lines.push(`warning: "${server.name}": ${problem.message}. ${problem.hint}`);
	}

	if (lines.length > 0) lines.push('note: commands were looked up with this shell\'s PATH and files; the client that starts hangar may have another PATH.');
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
