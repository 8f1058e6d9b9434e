/**
 * Dotenv files (`KEY=value` lines), as Cursor's and VS Code's `envFile`
 * points to: read by the config loader for an entry's `envFile`, and by
 * `mcp-hangar import`.
 */

/** `KEY=value` lines, with optional `export`, quotes and # comments. */
export function parseDotenv(text: string): Record<string, string> {
	const out: Record<string, string> = {};
	for (const line of text.split(/\r?\n/)) {
		const match = /^\s*(?:export\s+)?([A-Za-z_][A-Za-z0-9_.-]*)\s*=\s*(.*?)\s*$/.exec(line);
		if (match === null) continue;
		let value = match[2]!;
		const quoted = /^(["'])(.*)\1$/.exec(value);
		if (quoted === null) value = value.replace(/\s+#.*$/, '');
		else value = quoted[1] === '"' ? quoted[2]!.replaceAll('\\n', '\n') : quoted[2]!;
		out[match[1]!] = value;
	}

	return out;
}
