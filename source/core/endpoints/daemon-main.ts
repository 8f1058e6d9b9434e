/**
 * The daemon a `--stdio` bridge starts (daemon.ts: `mcp-hangar serve
 * --linger --config … --state-dir … --log-file …`), run from `dist/cli.js`
 * without the CLI: no meow, no help text, no client files. It does what the
 * CLI's `serve --linger` does (cli/main.tsx), in the same order: read the
 * config, spawn the upstreams started at launch before the engine loads
 * (early-launch.ts), then serve. A config that cannot be read exits 1 with
 * the same sentence the CLI writes. What loads here is what an idle daemon
 * holds (docs/performance.md, "Idle memory").
 */
import {ConfigError, loadConfig, resolveConfigPath} from '../config/read-config.js';
import {Logger, fileSink, stderrSink} from '../base/logger.js';
import {terminalOutput} from '../base/terminal-text.js';
import {launchEarly} from './early-launch.js';

export type LingeringServeArgs = {config?: string; stateDir?: string; logLevel?: 'debug' | 'info' | 'warn' | 'error' | 'silent'; logFile?: string};

export async function runLingeringServe(args: LingeringServeArgs): Promise<void> {
	// The title meow gives the CLI's processes (its bin's name), which `ps` and the tests look for.
	process.title = 'mcp-hangar';
	try {
		const configPath = resolveConfigPath(args.config);
		const config = loadConfig(configPath, {stateDir: args.stateDir});
		launchEarly(config, {standalone: false});
		const {serveDaemon} = await import('./runtime.js');
		const logger = new Logger(args.logFile === undefined ? stderrSink() : fileSink(args.logFile), args.logLevel ?? 'info');
		await serveDaemon({configPath, config, stateDir: args.stateDir, logger, http: undefined, linger: true});
	} catch (error) {
		terminalOutput.err(`mcp-hangar: ${error instanceof ConfigError ? error.message : error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
		process.exit(1);
	}
}
