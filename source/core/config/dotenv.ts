/**
 * Dotenv files (`KEY=value` lines), as Cursor's and VS Code's `envFile`
 * points to: read by the config loader for an entry's `envFile`, and by
 * `mcp-hangar import`.
 *
 * Node's own parser (`util.parseEnv`, the one behind `node --env-file`) reads
 * them, so a file means to hangar what it means to the tools people run it
 * with: `export` prefixes, single, double and backtick quotes, `#` comments
 * after a value (quoted or not), `\n` escapes in double quotes only, values
 * over several lines inside quotes, and the last of two equal keys wins.
 */
import {parseEnv} from 'node:util';

/** The variables a dotenv text sets, in the order the file first names them (Node's parser returns them sorted). */
export function parseDotenv(text: string): Record<string, string> {
	const values = parseEnv(text);
	const position = (key: string) => {
		const at = new RegExp(`^[ \\t]*(?:export[ \\t]+)?${key.replaceAll(/[.*+?^${}()|[\]\\]/g, String.raw`\$&`)}[ \\t]*=`, 'm').exec(text)?.index;
		return at ?? text.length;
	};

	const out: Record<string, string> = {};
	for (const key of Object.keys(values).sort((a, b) => position(a) - position(b))) out[key] = values[key]!;
	return out;
}
