/**
 * Recognises the command line every MCP client launches hangar with, a
 * plain `--stdio` (with --config/-c, --state-dir, --log-level, --log-file),
 * before the CLI loads: `dist/cli.js` then tries the quick attach
 * (core/endpoints/stdio-bridge.ts), which needs neither meow nor the config
 * schema. Anything else (another flag, a command, `--standalone`, a flag
 * given twice, a log level that does not exist, a terminal on stdin) is
 * left to the CLI, which parses, refuses and explains. No imports: this is
 * loaded by every start.
 *
 * The same goes for the command line a `--stdio` bridge starts its daemon
 * with, `serve --linger` and the same flags (core/endpoints/daemon.ts):
 * `dist/cli.js` starts that daemon without meow, the help text and the
 * client files (core/endpoints/quick-main.ts), a few MiB less at idle; and
 * for `--stdio --standalone`.
 */

export type StdioArgs = {config?: string; stateDir?: string; logLevel?: 'debug' | 'info' | 'warn' | 'error' | 'silent'; logFile?: string};

const valued: Record<string, keyof StdioArgs> = {'--config': 'config', '-c': 'config', '--state-dir': 'stateDir', '--log-level': 'logLevel', '--log-file': 'logFile'};
const levels = new Set(['debug', 'info', 'warn', 'error', 'silent']);

/** The flags of a plain `--stdio`, or undefined when the full CLI must read this command line. */
export function plainStdioArgs(argv: readonly string[]): StdioArgs | undefined {
	return quickArgs(argv, ['--stdio']);
}

/** The flags of `--stdio --standalone` (in any order), or undefined when the full CLI must read this command line. */
export function standaloneStdioArgs(argv: readonly string[]): StdioArgs | undefined {
	return quickArgs(argv, ['--stdio', '--standalone']);
}

/** The flags of `serve --linger` as a bridge starts its daemon (in any order), or undefined when the full CLI must read it. */
export function lingeringServeArgs(argv: readonly string[]): StdioArgs | undefined {
	if (argv[0] !== 'serve') return undefined;
	return quickArgs(argv.slice(1), ['--linger']);
}

/** `argv` when it is each of `words` once plus the flags above, each at most once; else undefined. */
function quickArgs(argv: readonly string[], words: readonly string[]): StdioArgs | undefined {
	const found: Record<string, string> = {};
	const seen = new Set<string>();
	for (let index = 0; index < argv.length; index++) {
		const word = argv[index]!;
		if (words.includes(word)) {
			if (seen.has(word)) return undefined;
			seen.add(word);
			continue;
		}

		const equals = word.startsWith('--') ? word.indexOf('=') : -1;
		const name = equals === -1 ? word : word.slice(0, equals);
		const key = valued[name];
		if (key === undefined || found[key] !== undefined) return undefined;
		const value = equals === -1 ? argv[++index] : word.slice(equals + 1);
		if (value === undefined || value === '' || value.startsWith('-')) return undefined;
		found[key] = value;
	}

	if (seen.size !== words.length) return undefined;
	if (found['logLevel'] !== undefined && !levels.has(found['logLevel'])) return undefined;
	return found as StdioArgs;
}
