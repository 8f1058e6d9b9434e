/**
 * Two supervisors `dist/cli.js` runs without the CLI (no meow, no help
 * text, no client files: about 5 MiB less at idle, docs/performance.md,
 * "Idle memory"), each doing what the CLI does for that command line
 * (cli/main.tsx), in the same order:
 *
 * - the daemon a `--stdio` bridge starts (daemon.ts: `mcp-hangar serve
 *   --linger --config … --state-dir … --log-file …`): read the config, spawn
 *   the upstreams started at launch before the engine loads
 *   (early-launch.ts), then serve;
 * - `--stdio --standalone` with the plain `--stdio` flags.
 *
 * A config that cannot be read exits 1 with the sentence the CLI writes.
 */
import {ConfigError, loadConfig, resolveConfigPath} from '../config/read-config.js';
import {Logger, fileSink, stderrSink} from '../base/logger.js';
import {systemErrorSentence} from '../base/system-error.js';
import {terminalOutput} from '../base/terminal-text.js';
import {launchEarly} from './early-launch.js';

export type QuickArgs = {config?: string; stateDir?: string; logLevel?: 'debug' | 'info' | 'warn' | 'error' | 'silent'; logFile?: string};

export async function runLingeringServe(args: QuickArgs): Promise<void> {
	await asTheCliWould('serve', async () => {
		const configPath = resolveConfigPath(args.config);
		const config = loadConfig(configPath, {stateDir: args.stateDir});
		launchEarly(config, {standalone: false});
		const {serveDaemon} = await import('./runtime.js');
		const logger = new Logger(args.logFile === undefined ? stderrSink() : fileSink(args.logFile), args.logLevel ?? 'info');
		await serveDaemon({configPath, config, stateDir: args.stateDir, logger, http: undefined, linger: true});
	});
}

export async function runStandaloneStdio(args: QuickArgs): Promise<void> {
	await asTheCliWould('--stdio --standalone', async () => {
		const {serveStdio, stdioLogger} = await import('./stdio.js');
		const configPath = resolveConfigPath(args.config);
		const logger = stdioLogger({configPath, stateDir: args.stateDir, logLevel: args.logLevel, logFile: args.logFile});
		await serveStdio({configPath, stateDir: args.stateDir, logger, logLevel: args.logLevel, standalone: true});
	});
}

async function asTheCliWould(command: string, run: () => Promise<void>): Promise<void> {
	// The title meow gives the CLI's processes (its bin's name), which `ps` and the tests look for.
	process.title = 'mcp-hangar';
	try {
		await run();
	} catch (error) {
		const said = error instanceof ConfigError ? error.message : (systemErrorSentence(error, command) ?? (error instanceof Error ? (error.stack ?? error.message) : String(error)));
		terminalOutput.err(`mcp-hangar: ${said}\n`);
		process.exit(1);
	}
}
