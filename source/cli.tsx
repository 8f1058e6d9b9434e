#!/usr/bin/env node
/**
 * The `mcp-hangar` command. Parses flags with meow and hands over to the
 * core; nothing here speaks MCP or spawns processes itself.
 */
import process from 'node:process';
import meow from 'meow';
import {ConfigError, loadConfig, resolveConfigPath} from './core/config.js';
import {Logger, fileSink, logLevels, stderrSink, type LogLevel} from './core/logger.js';
import {serveStdio} from './core/runtime.js';

const cli = meow(
	`
  Usage
    $ mcp-hangar --stdio [options]         Serve every upstream's tools as one MCP server on stdin/stdout
    $ mcp-hangar --check-config [options]  Validate the config file and exit (non-zero on errors)

  Options
    --config, -c PATH   Config file (default: ./mcp-hangar.json, then ~/.config/mcp-hangar/config.json)
    --state-dir PATH    Where hangar keeps its state (default: $MCP_HANGAR_STATE_DIR or ~/.local/state/mcp-hangar)
    --log-file PATH     Write hangar's log to this file instead of stderr
    --log-level LEVEL   debug, info, warn, error or silent (default: info)
    --version           Print the version
    --help              Print this help

  Examples
    $ mcp-hangar --check-config --config config.example.json
    $ mcp-hangar --stdio --config ~/mcp-hangar.json

  Add it to an MCP client (Claude Desktop, Cursor, Claude Code) as a stdio server:
    {"mcpServers": {"hangar": {"command": "mcp-hangar", "args": ["--stdio", "--config", "/path/to/mcp-hangar.json"]}}}
`,
	{
		importMeta: import.meta,
		flags: {
			stdio: {type: 'boolean', default: false},
			checkConfig: {type: 'boolean', default: false},
			config: {type: 'string', shortFlag: 'c'},
			stateDir: {type: 'string'},
			logFile: {type: 'string'},
			logLevel: {type: 'string', default: 'info', choices: [...logLevels]},
		},
	},
);

const {flags} = cli;
const configPath = resolveConfigPath(flags.config);
const logger = new Logger(flags.logFile === undefined ? stderrSink() : fileSink(flags.logFile), flags.logLevel as LogLevel);

async function main(): Promise<void> {
	if (cli.input.length > 0) {
		process.stderr.write(`mcp-hangar: unknown command "${cli.input[0]}". Run mcp-hangar --help for the commands.\n`);
		process.exit(2);
	}

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

		await serveStdio({configPath, stateDir: flags.stateDir, logger});
		return;
	}

	cli.showHelp(2);
}

main().catch((error: unknown) => {
	if (error instanceof ConfigError) {
		process.stderr.write(`mcp-hangar: ${error.message}\n`);
		process.exit(1);
	}

	process.stderr.write(`mcp-hangar: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
	process.exit(1);
});
