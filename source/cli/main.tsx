/**
 * The `mcp-hangar` command. Parses flags with meow, refuses flags and
 * commands it does not know (naming the closest one), prints help for any
 * command, and hands over to the core or to the config-file commands;
 * nothing here speaks MCP or spawns processes itself.
 */
// First: `tui` shows its first frame before the rest of the CLI loads (see terminal-screen.ts).
import '../tui/terminal-screen.js';
import process from 'node:process';
import meow from 'meow';
import {ConfigError, loadConfig, resolveConfigPath} from '../core/config/read-config.js';
import {Logger, fileSink, logLevels, stderrSink, type LogLevel} from '../core/base/logger.js';
import type {HttpListenOptions} from '../core/endpoints/http-endpoint.js';
import {UsageError} from '../core/base/usage-error.js';
import {HangarError} from '../core/base/errors.js';
import {terminalOutput} from '../core/base/terminal-text.js';
import {systemErrorSentence} from '../core/base/system-error.js';
import {commandHelpText, flagHelp, verbNames, generalHelpText} from './help.js';
import {didYouMean} from '../core/base/closest-match.js';
import {clientIds} from '../client-files/client-model.js';
import {selfCommand} from '../client-files/hangar-launch.js';
import {ClientFileError} from '../client-files/read-client-file.js';

// Words after a lone "--" are the command of `add`, never flags of hangar's own.
const argv = process.argv.slice(2);
const separator = argv.indexOf('--');
const ownArgv = separator === -1 ? argv : argv.slice(0, separator);
const afterSeparator = separator === -1 ? undefined : argv.slice(separator + 1);

// Every flag of every command (see cli-help.ts for which applies where).
const flagSpecs = {
	stdio: {type: 'boolean', default: false},
	standalone: {type: 'boolean', default: false},
	linger: {type: 'boolean', default: false},
	follow: {type: 'boolean', shortFlag: 'f', default: false},
	calls: {type: 'boolean', default: false},
	actions: {type: 'boolean', default: false},
	checkConfig: {type: 'boolean', default: false},
	config: {type: 'string', shortFlag: 'c'},
	stateDir: {type: 'string'},
	logFile: {type: 'string'},
	// Its values are checked here, not by meow (whose refusal is a thrown stack trace).
	logLevel: {type: 'string'},
	json: {type: 'boolean', default: false},
	args: {type: 'string'},
	demoTraffic: {type: 'string'},
	http: {type: 'boolean', default: false},
	host: {type: 'string'},
	port: {type: 'number'},
	tokenFile: {type: 'string'},
	dryRun: {type: 'boolean', default: false},
	undo: {type: 'boolean', default: false},
	yes: {type: 'boolean', shortFlag: 'y', default: false},
	logout: {type: 'boolean', default: false},
	browser: {type: 'boolean', default: true},
	env: {type: 'string', isMultiple: true},
	url: {type: 'string'},
	header: {type: 'string', isMultiple: true},
	version: {type: 'boolean', default: false},
	help: {type: 'boolean', default: false, shortFlag: 'h'},
} as const;

/** The command usage() points to the help of: the first word naming one, until meow has parsed the line. */
let helpTopic: string | undefined = ownArgv.find(word => verbNames.includes(word));

/**
 * The first flag that takes a value given without one (`--config` last, or
 * before another flag, or `--port=`): meow would read it as an empty path,
 * or drop it, which then means the default.
 */
function flagWithoutValue(words: readonly string[]): string | undefined {
	const valued = new Map<string, string>();
	for (const [name, spec] of Object.entries(flagSpecs) as Array<[string, {type: string; shortFlag?: string}]>) {
		if (spec.type === 'boolean') continue;
		const kebab = name.replaceAll(/[A-Z]/g, letter => `-${letter.toLowerCase()}`);
		valued.set(`--${kebab}`, kebab);
		if (spec.shortFlag !== undefined) valued.set(`-${spec.shortFlag}`, kebab);
	}

	for (let index = 0; index < words.length; index++) {
		const word = words[index]!;
		const equals = word.startsWith('--') ? word.indexOf('=') : -1;
		const kebab = valued.get(equals === -1 ? word : word.slice(0, equals));
		if (kebab === undefined) continue;
		const value = equals === -1 ? words[++index] : word.slice(equals + 1);
		if (value === undefined || value === '' || /^--?[A-Za-z]/.test(value)) return kebab;
	}

	return undefined;
}

const missing = flagWithoutValue(ownArgv);
if (missing !== undefined) usage(`--${missing} needs a value: ${flagHelp[missing]?.[0] ?? `--${missing} VALUE`}`);

function parseCommandLine() {
	try {
		return meow(generalHelpText(), {
			importMeta: import.meta,
			argv: ownArgv,
			// Help and version are flags of every command here (tui --help, -h), not only of a bare `mcp-hangar --help`.
			autoHelp: false,
			autoVersion: false,
			flags: flagSpecs,
		});
	} catch (error) {
		// meow's validation throws: said as bad usage, with no stack trace.
		const message = error instanceof Error ? error.message : String(error);
		const twice = /The flag --(\S+) can only be set once/.exec(message);
		usage(twice === null ? message.replaceAll('`', '') : `--${twice[1]} was given more than once: it takes one value`);
	}
}

const cli = parseCommandLine();
const {flags} = cli;
if (flags.logLevel !== undefined && !(logLevels as readonly string[]).includes(flags.logLevel)) {
	usage(`--log-level "${flags.logLevel}" is not a log level: use one of ${logLevels.join(', ')}`);
}

/** Every flag this CLI knows, as typed: --kebab-name, with --no-NAME for booleans, and the short ones. */
function knownFlags(): {long: Set<string>; short: Set<string>} {
	const long = new Set<string>();
	const short = new Set<string>();
	for (const [name, spec] of Object.entries(flagSpecs) as Array<[string, {type: string; shortFlag?: string}]>) {
		const kebab = name.replaceAll(/[A-Z]/g, letter => `-${letter.toLowerCase()}`);
		long.add(kebab);
		if (spec.type === 'boolean') long.add(`no-${kebab}`);
		if (spec.shortFlag !== undefined) short.add(spec.shortFlag);
	}

	return {long, short};
}

/** The first flag in `words` this CLI does not know, said with the closest known one. */
function unknownFlag(words: readonly string[]): string | undefined {
	const {long, short} = knownFlags();
	for (const word of words) {
		if (/^--[^-]/.test(word)) {
			const name = word.slice(2).split('=')[0]!;
			if (!long.has(name)) return `unknown flag --${name}.${didYouMean(name, [...long].filter(flag => !flag.startsWith('no-')), match => `--${match}`)}`;
		} else if (/^-[A-Za-z]/.test(word)) {
			const letter = [...word.slice(1)].find(char => !short.has(char));
			if (letter !== undefined) return `unknown flag -${letter}${word.length > 2 ? ` (in ${word})` : ''}. Short flags: ${[...short].map(char => `-${char}`).join(', ')}`;
		}
	}

	return undefined;
}

const verb = cli.input[0];
helpTopic = verb;
// One-shot commands keep stderr for their own messages: the engine's info lines would bury them.
const oneShot = ['status', 'call', 'approve', 'quarantine', 'start', 'stop', 'restart', 'logs', 'reload', 'shutdown', 'auth'].includes(verb ?? '');
const logLevel = (flags.logLevel ?? (oneShot ? 'warn' : 'info')) as LogLevel;

/** The --http flags of serve and tui, checked before anything starts. */
async function httpFlags(): Promise<HttpListenOptions | undefined> {
	const given = (['host', 'port', 'tokenFile'] as const).filter(name => flags[name] !== undefined);
	if (!flags.http) {
		if (given.length > 0) usage(`--${given[0] === 'tokenFile' ? 'token-file' : given[0]} only applies with --http`);
		return undefined;
	}

	if (verb !== 'serve' && verb !== 'tui') usage('--http only applies to "serve" and "tui"');
	const {resolveHttpOptions} = await import('../core/endpoints/http-endpoint.js');
	return resolveHttpOptions(flags, process.env);
}

/** Flags that only mean something to some commands: given elsewhere they would silently do nothing. */
function checkCommandFlags(): void {
	const only: Array<[boolean, string, string[]]> = [
		[flags.dryRun, '--dry-run', ['import', 'setup']],
		[flags.undo, '--undo', ['setup']],
		[(flags.env ?? []).length > 0, '--env', ['add']],
		[flags.url !== undefined, '--url', ['add']],
		[(flags.header ?? []).length > 0, '--header', ['add']],
		[flags.logout, '--logout', ['auth']],
		[!flags.browser, '--no-browser', ['auth']],
	];
	for (const [given, flag, verbs] of only) {
		if (given && !verbs.includes(verb ?? '')) usage(`${flag} only applies to ${verbs.map(name => `"${name}"`).join(' and ')}`);
	}

	if (afterSeparator !== undefined && verb !== 'add') usage('"--" only applies to "add" (mcp-hangar add NAME -- COMMAND [ARGS...])');
}

function printHelp(topic: string | undefined): void {
	if (topic === undefined) {
		process.stdout.write(generalHelpText());
		return;
	}

	if (!verbNames.includes(topic)) usage(`no help for "${topic}": not a command.${didYouMean(topic, verbNames)} Commands: ${verbNames.join(', ')}`);
	process.stdout.write(commandHelpText(topic));
}

function takes(count: number, what: string): string[] {
	const rest = cli.input.slice(1);
	if (rest.length !== count) usage(`"${verb}" ${what}${rest.length > count ? ` (got ${rest.join(' ')})` : ''}`);
	return rest;
}

/**
 * A person's command piped into a reader that stops early (`| head -1`):
 * the rest of its output has nowhere to go, which is no error of the
 * command's. Later writes go nowhere; the command finishes what it was doing
 * (a file `setup` writes is written whole, a one-shot supervisor stops its
 * upstreams) and exits as it would have, and `-f`, which would follow for
 * ever, ends at once. Never for --stdio, serve or tui, whose stdout is a
 * protocol or a screen with its own handling.
 */
function endQuietlyWhenStdoutCloses(): void {
	process.stdout.on('error', (error: NodeJS.ErrnoException) => {
		if (error.code !== 'EPIPE' && error.code !== 'ERR_STREAM_DESTROYED') throw error;
		if (flags.follow) process.exit(0);
	});
}

async function main(): Promise<void> {
	if (!flags.stdio && verb !== 'serve' && verb !== 'tui') endQuietlyWhenStdoutCloses();
	const problem = unknownFlag(ownArgv);
	if (problem !== undefined) usage(problem);
	if (flags.version) {
		process.stdout.write(`${cli.pkg.version ?? 'unknown'}\n`);
		return;
	}

	if (verb === 'help') {
		if (cli.input.length > 2) usage(`"help" takes at most one COMMAND (got ${cli.input.slice(1).join(' ')})`);
		printHelp(cli.input[1]);
		return;
	}

	if (flags.help) {
		printHelp(verb !== undefined && verbNames.includes(verb) ? verb : undefined);
		return;
	}

	if (verb !== undefined && !verbNames.includes(verb)) usage(`unknown command "${verb}".${didYouMean(verb, verbNames)}`);
	checkCommandFlags();
	const configPath = resolveConfigPath(flags.config);
	const http = await httpFlags();
	// Each command loads only what it uses: the engine and the MCP SDK take most of a second to load, help and edits need neither.
	const engine = async () => import('../core/endpoints/runtime.js');
	const oneShots = async () => import('./supervisor-verbs.js');
	const logger = () => new Logger(flags.logFile === undefined ? stderrSink() : fileSink(flags.logFile), logLevel);
	const io = terminalOutput;

	switch (verb) {
		case 'tui': {
			takes(0, 'takes no arguments');
			// --http and --demo-traffic need the supervisor in this process: a person at a terminal, while a client's
			// daemon runs this config, is offered to take over from it (as serve does), on the shell's screen.
			if ((flags.demoTraffic !== undefined || http !== undefined) && process.stdin.isTTY) {
				const {leaveAlternateScreen} = await import('../tui/terminal-screen.js');
				const {offerTakeOver} = await import('./shutdown-verb.js');
				leaveAlternateScreen();
				await offerTakeOver({configPath, stateDir: flags.stateDir, logger: logger()}, io);
			}

			const {runTui} = await import('../tui/tui.js');
			await runTui({configPath, stateDir: flags.stateDir, logFile: flags.logFile, logLevel, demoTraffic: flags.demoTraffic, http});
			return;
		}

		case 'serve': {
			takes(0, 'takes no arguments');
			// A person at a terminal starting serve while a client's daemon runs this config: offer to take over from it.
			if (!flags.linger && process.stdin.isTTY) {
				const {offerTakeOver} = await import('./shutdown-verb.js');
				await offerTakeOver({configPath, stateDir: flags.stateDir, logger: logger()}, io);
			}

			// The upstreams started at launch are spawned before the engine loads, so that they boot beside it (early-launch.ts).
			const config = loadConfig(configPath, {stateDir: flags.stateDir});
			const {launchEarly} = await import('../core/endpoints/early-launch.js');
			launchEarly(config, {standalone: false});
			const {serveDaemon} = await engine();
			await serveDaemon({configPath, config, stateDir: flags.stateDir, logger: logger(), http, linger: flags.linger});
			return;
		}

		case 'status': {
			takes(0, 'takes no arguments');
			const {statusVerb} = await oneShots();
			process.exitCode = await statusVerb({configPath, stateDir: flags.stateDir, logger: logger(), json: flags.json});
			return;
		}

		case 'call': {
			const [server, tool] = takes(2, 'needs SERVER and TOOL, e.g. mcp-hangar call everything echo --args \'{"message":"hi"}\'');
			const {callVerb, parseArgsJson} = await oneShots();
			process.exitCode = await callVerb({configPath, stateDir: flags.stateDir, logger: logger(), server: server!, tool: tool!, args: parseArgsJson(flags.args), json: flags.json});
			return;
		}

		case 'approve':
		case 'quarantine': {
			const [server] = takes(1, `needs exactly one SERVER, e.g. mcp-hangar ${verb} memory`);
			const {adminVerb} = await oneShots();
			process.exitCode = await adminVerb({configPath, stateDir: flags.stateDir, logger: logger(), server: server!, action: verb});
			return;
		}

		case 'start':
		case 'stop':
		case 'restart': {
			const [server] = takes(1, `needs exactly one SERVER, e.g. mcp-hangar ${verb} memory`);
			const {lifecycleVerb} = await oneShots();
			process.exitCode = await lifecycleVerb({configPath, stateDir: flags.stateDir, logger: logger(), server: server!, action: verb});
			return;
		}

		case 'logs': {
			if (flags.actions) {
				const rest = cli.input.slice(1);
				if (rest.length > 1 || flags.follow || flags.calls) usage('"logs --actions" takes at most one SERVER, and neither -f nor --calls');
				const {actionsVerb} = await import('./actions-verb.js');
				process.exitCode = actionsVerb({configPath, stateDir: flags.stateDir, logger: logger(), server: rest[0], json: flags.json});
				return;
			}

			if (flags.calls) {
				const rest = cli.input.slice(1);
				if (rest.length > 1) usage(`"logs --calls" takes at most one SERVER (got ${rest.join(' ')})`);
				const {callsVerb} = await oneShots();
				process.exitCode = await callsVerb({configPath, stateDir: flags.stateDir, logger: logger(), server: rest[0], follow: flags.follow, json: flags.json});
				return;
			}

			const [server] = takes(1, 'needs exactly one SERVER (or --calls, --actions), e.g. mcp-hangar logs memory -f');
			const {logsVerb} = await oneShots();
			process.exitCode = await logsVerb({configPath, stateDir: flags.stateDir, logger: logger(), server: server!, follow: flags.follow});
			return;
		}

		case 'shutdown': {
			takes(0, 'takes no arguments');
			const {shutdownVerb} = await import('./shutdown-verb.js');
			process.exitCode = await shutdownVerb({configPath, stateDir: flags.stateDir, logger: logger(), yes: flags.yes}, io);
			return;
		}

		case 'auth': {
			const [server] = takes(1, 'needs exactly one SERVER (a "url" upstream), e.g. mcp-hangar auth linear');
			const {authVerb} = await import('./auth-verb.js');
			process.exitCode = await authVerb({configPath, stateDir: flags.stateDir, logger: logger(), server: server!, logout: flags.logout, browser: flags.browser}, io);
			return;
		}

		case 'reload': {
			takes(0, 'takes no arguments');
			const {reloadVerb} = await oneShots();
			process.exitCode = await reloadVerb({configPath, stateDir: flags.stateDir, logger: logger()});
			return;
		}

		case 'import': {
			if (cli.input.length > 2) usage(`"import" takes at most one CLIENT or FILE (got ${cli.input.slice(1).join(' ')})`);
			const {importVerb} = await import('./import-verb.js');
			process.exitCode = importVerb({source: cli.input[1], dryRun: flags.dryRun, config: flags.config}, io);
			return;
		}

		case 'setup': {
			const [client] = takes(1, `needs one CLIENT, e.g. mcp-hangar setup claude-desktop (clients: ${clientIds.join(', ')})`);
			const {setupVerb} = await import('./setup-verb.js');
			process.exitCode = setupVerb({client: client!, undo: flags.undo, dryRun: flags.dryRun, config: flags.config}, io);
			return;
		}

		case 'add': {
			const [name] = takes(1, 'needs one NAME, e.g. mcp-hangar add memory -- npx -y @modelcontextprotocol/server-memory');
			const {addVerb} = await import('./edit-verbs.js');
			process.exitCode = addVerb({name: name!, command: afterSeparator ?? [], env: flags.env ?? [], url: flags.url, headers: flags.header ?? [], config: flags.config}, io);
			return;
		}

		case 'remove': {
			const [name] = takes(1, 'needs one NAME, e.g. mcp-hangar remove memory');
			const {removeVerb} = await import('./edit-verbs.js');
			process.exitCode = removeVerb({name: name!, config: flags.config}, io);
			return;
		}

		default:
	}

	if (flags.checkConfig) {
		const {checkConfigVerb} = await oneShots();
		process.exitCode = await checkConfigVerb({configPath, stateDir: flags.stateDir, logger: logger()});
		return;
	}

	if (flags.stdio) {
		if (process.stdin.isTTY) {
			process.stderr.write(
				'mcp-hangar is serving MCP on stdin/stdout. It is meant to be started by an MCP client; type JSON-RPC lines, or press Ctrl-D to stop.\n',
			);
		}

		// Not the engine: attached to a running supervisor, --stdio is a thin bridge that needs none of it.
		const {serveStdio, stdioLogger} = await import('../core/endpoints/stdio.js');
		const stdioLog = stdioLogger({configPath, stateDir: flags.stateDir, logLevel: flags.logLevel as LogLevel | undefined, logFile: flags.logFile});
		await serveStdio({configPath, stateDir: flags.stateDir, logger: stdioLog, logLevel: flags.logLevel as LogLevel | undefined, standalone: flags.standalone});
		return;
	}

	process.stderr.write(generalHelpText());
	process.exitCode = 2;
}

function usage(problem: string): never {
	const topic = helpTopic !== undefined && helpTopic !== 'help' && verbNames.includes(helpTopic) ? ` ${helpTopic}` : '';
	terminalOutput.err(`mcp-hangar: ${problem}${/[.?!]$/.test(problem) ? '' : '.'} Run ${selfCommand()} help${topic} for ${topic === '' ? 'the commands' : 'its usage and examples'}.\n`);
	process.exit(2);
}

main().catch((error: unknown) => {
	// HttpSetupError by name: its module is loaded only for --http.
	if (error instanceof UsageError || (error instanceof Error && error.name === 'HttpSetupError')) usage((error as Error).message);
	// A client's file that does not parse (setup and import read them): its path and the problem, then how to go on.
	if (error instanceof ConfigError || error instanceof ClientFileError) {
		terminalOutput.err(`mcp-hangar: ${error.message}${error instanceof ClientFileError ? '. Fix that file (or move it away), then run the command again.' : ''}\n`);
		process.exit(1);
	}

	// Hangar's own errors say who, what happened and what to do: a sentence, not a stack trace.
	if (error instanceof HangarError) {
		terminalOutput.err(`mcp-hangar: ${error.messageFor('cli')}\n`);
		process.exit(1);
	}

	// The system refused a file (a full disk, a read-only directory): the person's machine, said as a sentence.
	const refused = systemErrorSentence(error, verb);
	if (refused !== undefined) {
		terminalOutput.err(`mcp-hangar: ${refused}\n`);
		process.exit(1);
	}

	terminalOutput.err(`mcp-hangar: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
	process.exit(1);
});
