#!/usr/bin/env node
/**
 * The `mcp-hangar` command. Parses flags with meow and hands over to the
 * core; nothing here speaks MCP or spawns processes itself.
 */
import process from 'node:process';
import meow from 'meow';
import {ConfigError, loadConfig, resolveConfigPath} from './core/config/config.js';
import {Logger, fileSink, logLevels, stderrSink, type LogLevel} from './core/base/logger.js';
import {HttpSetupError, resolveHttpOptions, type HttpListenOptions} from './core/endpoints/http-endpoint.js';
import {serveDaemon, serveStdio} from './core/endpoints/runtime.js';
import {adminCommand, callCommand, lifecycleCommand, logsCommand, parseArgsJson, reloadCommand, statusCommand} from './commands.js';
import {UsageError} from './usage.js';

const cli = meow(
	`
  Usage
    $ mcp-hangar tui [options]              Open the terminal UI: watch and steer every upstream live
    $ mcp-hangar --stdio [options]          Serve every upstream's tools as one MCP server on stdin/stdout, through
                                            the supervisor running this config (started first if none runs)
    $ mcp-hangar serve [options]            Run the supervisor headless; --stdio clients attach to it
    $ mcp-hangar serve --http [options]     ... and serve MCP over Streamable HTTP at http://HOST:PORT/mcp
    $ mcp-hangar status [--json]            Show every upstream (the hangar_list view) for the config
    $ mcp-hangar call SERVER TOOL [--args JSON] [--json]
                                            Call one tool; its result on stdout, exit code 1 on error
    $ mcp-hangar approve SERVER             Lift a quarantine and pin the upstream's tools
    $ mcp-hangar quarantine SERVER          Quarantine an upstream: never started, tools hidden
    $ mcp-hangar start SERVER               Start an upstream in the running supervisor
    $ mcp-hangar stop SERVER                Stop it; it does not start on demand until started again
    $ mcp-hangar restart SERVER             Stop it and start it again
    $ mcp-hangar logs SERVER [-f]           Its stderr and state changes; -f follows until Ctrl-C
    $ mcp-hangar reload                     Apply the config file's changes to the running supervisor now
    $ mcp-hangar --check-config [options]   Validate the config file and exit (non-zero on errors)

  Options
    --config, -c PATH   Config file (default: ./mcp-hangar.json, then ~/.config/mcp-hangar/config.json)
    --state-dir PATH    Where hangar keeps its state (default: $MCP_HANGAR_STATE_DIR or ~/.local/state/mcp-hangar)
    --log-file PATH     Write hangar's log to this file instead of stderr (tui: default STATE_DIR/hangar.log)
    --log-level LEVEL   debug, info, warn, error or silent (default: info; warn for the one-shot commands)
    --standalone        --stdio: run a supervisor for this client alone, neither using nor starting a shared one
    --linger            serve: exit once no client has been attached for hangar.lingerSeconds
                        (what --stdio starts when no supervisor runs)
    --follow, -f        logs: keep printing new lines until Ctrl-C
    --json              status, call: print JSON instead of text
    --args JSON         call: the tool's arguments as a JSON object
    --demo-traffic SERVER/TOOL
                        tui: call this tool twice a second, to watch hangar at work without a client
    --http              serve, tui: also serve MCP over Streamable HTTP at /mcp
    --host ADDRESS      --http: the address to listen on (default: 127.0.0.1; anything but
                        loopback needs a token)
    --port N            --http: the port to listen on (default: 8080; 0: any free port)
    --token-file PATH   --http: clients must send "Authorization: Bearer <the file's content>"
                        (default: $MCP_HANGAR_TOKEN; none: no token, loopback only)
    --version           Print the version
    --help              Print this help

  Examples
    $ mcp-hangar tui --config config.example.json --demo-traffic flaky-demo/echo
    $ mcp-hangar status --config config.example.json
    $ mcp-hangar call everything echo --args '{"message":"hi"}' --config config.example.json
    $ mcp-hangar restart everything --config config.example.json
    $ mcp-hangar logs everything -f --config config.example.json
    $ mcp-hangar --stdio --config ~/mcp-hangar.json
    $ MCP_HANGAR_TOKEN=$(openssl rand -hex 32) mcp-hangar serve --http --port 8080

  Add it to an MCP client (Claude Desktop, Cursor, Claude Code) as a stdio server:
    {"mcpServers": {"hangar": {"command": "mcp-hangar", "args": ["--stdio", "--config", "/path/to/mcp-hangar.json"]}}}
`,
	{
		importMeta: import.meta,
		flags: {
			stdio: {type: 'boolean', default: false},
			standalone: {type: 'boolean', default: false},
			linger: {type: 'boolean', default: false},
			follow: {type: 'boolean', shortFlag: 'f', default: false},
			checkConfig: {type: 'boolean', default: false},
			config: {type: 'string', shortFlag: 'c'},
			stateDir: {type: 'string'},
			logFile: {type: 'string'},
			logLevel: {type: 'string', choices: [...logLevels]},
			json: {type: 'boolean', default: false},
			args: {type: 'string'},
			demoTraffic: {type: 'string'},
			http: {type: 'boolean', default: false},
			host: {type: 'string'},
			port: {type: 'number'},
			tokenFile: {type: 'string'},
		},
	},
);

const {flags} = cli;
const configPath = resolveConfigPath(flags.config);
// One-shot commands keep stderr for their own messages: the engine's info lines would bury them.
const oneShot = ['status', 'call', 'approve', 'quarantine', 'start', 'stop', 'restart', 'logs', 'reload'].includes(cli.input[0] ?? '');
const logLevel = (flags.logLevel ?? (oneShot ? 'warn' : 'info')) as LogLevel;
const logger = new Logger(flags.logFile === undefined ? stderrSink() : fileSink(flags.logFile), logLevel);

/** The --http flags of serve and tui, checked before anything starts. */
function httpFlags(command: string | undefined): HttpListenOptions | undefined {
	const given = (['host', 'port', 'tokenFile'] as const).filter(name => flags[name] !== undefined);
	if (!flags.http) {
		if (given.length > 0) usage(`--${given[0] === 'tokenFile' ? 'token-file' : given[0]} only applies with --http`);
		return undefined;
	}

	if (command !== 'serve' && command !== 'tui') usage('--http only applies to "serve" and "tui"');
	return resolveHttpOptions(flags, process.env);
}

async function main(): Promise<void> {
	const [command, ...rest] = cli.input;
	const http = httpFlags(command);
	if (command === 'tui') {
		if (rest.length > 0) usage(`"tui" takes no arguments (got ${rest.join(' ')})`);
		const {runTui} = await import('./tui.js');
		await runTui({configPath, stateDir: flags.stateDir, logFile: flags.logFile, logLevel, demoTraffic: flags.demoTraffic, http});
		return;
	}

	if (command === 'serve') {
		if (rest.length > 0) usage(`"serve" takes no arguments (got ${rest.join(' ')})`);
		await serveDaemon({configPath, stateDir: flags.stateDir, logger, http, linger: flags.linger});
		return;
	}

	if (command === 'status') {
		if (rest.length > 0) usage(`"status" takes no arguments (got ${rest.join(' ')})`);
		process.exitCode = await statusCommand({configPath, stateDir: flags.stateDir, logger, json: flags.json});
		return;
	}

	if (command === 'call') {
		if (rest.length !== 2) usage('"call" needs SERVER and TOOL, e.g. mcp-hangar call everything echo --args \'{"message":"hi"}\'');
		process.exitCode = await callCommand({configPath, stateDir: flags.stateDir, logger, server: rest[0]!, tool: rest[1]!, args: parseArgsJson(flags.args), json: flags.json});
		return;
	}

	if (command === 'approve' || command === 'quarantine') {
		if (rest.length !== 1) usage(`"${command}" needs exactly one SERVER, e.g. mcp-hangar ${command} memory`);
		process.exitCode = await adminCommand({configPath, stateDir: flags.stateDir, logger, server: rest[0]!, action: command});
		return;
	}

	if (command === 'start' || command === 'stop' || command === 'restart') {
		if (rest.length !== 1) usage(`"${command}" needs exactly one SERVER, e.g. mcp-hangar ${command} memory`);
		process.exitCode = await lifecycleCommand({configPath, stateDir: flags.stateDir, logger, server: rest[0]!, action: command});
		return;
	}

	if (command === 'logs') {
		if (rest.length !== 1) usage('"logs" needs exactly one SERVER, e.g. mcp-hangar logs memory -f');
		process.exitCode = await logsCommand({configPath, stateDir: flags.stateDir, logger, server: rest[0]!, follow: flags.follow});
		return;
	}

	if (command === 'reload') {
		if (rest.length > 0) usage(`"reload" takes no arguments (got ${rest.join(' ')})`);
		process.exitCode = await reloadCommand({configPath, stateDir: flags.stateDir, logger});
		return;
	}

	if (command !== undefined) usage(`unknown command "${command}"`);

	if (flags.checkConfig) {
		const config = loadConfig(configPath, {stateDir: flags.stateDir});
		process.stdout.write(
			`${config.path}: OK, ${config.servers.length} upstream${config.servers.length === 1 ? '' : 's'} (${config.servers.map(server => server.name).join(', ')})\n`,
		);
		return;
	}

	if (flags.stdio) {
		if (process.stdin.isTTY) {
			process.stderr.write(
				'mcp-hangar is serving MCP on stdin/stdout. It is meant to be started by an MCP client; type JSON-RPC lines, or press Ctrl-D to stop.\n',
			);
		}

		await serveStdio({configPath, stateDir: flags.stateDir, logger, logLevel: flags.logLevel as LogLevel | undefined, standalone: flags.standalone});
		return;
	}

	cli.showHelp(2);
}

function usage(problem: string): never {
	process.stderr.write(`mcp-hangar: ${problem}. Run mcp-hangar --help for the commands.\n`);
	process.exit(2);
}

main().catch((error: unknown) => {
	if (error instanceof UsageError || error instanceof HttpSetupError) usage(error.message);
	if (error instanceof ConfigError) {
		process.stderr.write(`mcp-hangar: ${error.message}\n`);
		process.exit(1);
	}

	process.stderr.write(`mcp-hangar: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
	process.exit(1);
});
