/**
 * `mcp-hangar tui`: the supervisor runs in this process and the Ink app
 * (source/components/) shows it live and sends it a person's commands.
 *
 * The terminal belongs to Ink: hangar's log goes to a file, upstream output
 * to per-upstream buffers, and Node's own warnings to the log, so nothing
 * writes behind the frame. Without an interactive terminal it refuses to
 * start (exit code 2) and says what to run instead.
 */
import fs from 'node:fs';
import path from 'node:path';
import process from 'node:process';
import {supervisorSource} from './components/hangar-source.js';
import {loadConfig} from './core/config/config.js';
import {Logger, fileSink, type LogLevel} from './core/base/logger.js';
import type {HttpListenOptions} from './core/endpoints/http-endpoint.js';
import {startOwner} from './core/endpoints/runtime.js';
import {parseDemoTarget, startDemoTraffic} from './demo/traffic.js';

export type TuiOptions = {
	configPath: string;
	stateDir?: string | undefined;
	logFile?: string | undefined;
	logLevel: LogLevel;
	/** "server/tool" to call twice a second through the normal call path (demo: `npm start`). */
	demoTraffic?: string | undefined;
	/** `--http`: also serve MCP over Streamable HTTP. */
	http?: HttpListenOptions | undefined;
};

/** A path as a shell word: quoted when it holds anything a shell would read otherwise. */
function shellWord(text: string): string {
	return /^[\w@%+=:,./-]+$/.test(text) ? text : `'${text.replaceAll("'", "'\\''")}'`;
}

/** What to run instead, for the config this TUI was asked to open, so the commands can be copied as they are. */
function noTerminalMessage(configPath: string): string {
	const config = `--config ${shellWord(configPath)}`;
	return (
		'mcp-hangar tui needs an interactive terminal (stdin and stdout must be a TTY that supports raw mode).\n' +
		`  To serve MCP to a client over stdin/stdout: mcp-hangar --stdio ${config}\n` +
		`  To print every upstream's state:             mcp-hangar status ${config}\n`
	);
}

/**
 * Environment read once, when the Ink app's modules load, and put back at
 * once afterwards so the upstreams hangar spawns see the environment it was
 * started with:
 * - NODE_ENV "production": React's development build (chosen when NODE_ENV
 *   is anything else at load time) costs several times the CPU per frame.
 * - no CI / CONTINUOUS_INTEGRATION: with either set, Ink draws nothing until
 *   it exits. A person may well open the TUI in a shell that has CI set (a CI
 *   job's debug shell, some dev containers); they still have a terminal.
 */
const uiLoadEnv: Record<string, string | undefined> = {NODE_ENV: 'production', CI: undefined, CONTINUOUS_INTEGRATION: undefined};

async function loadUi(): Promise<typeof import('./components/render-tui.js')> {
	const previous = Object.fromEntries(Object.keys(uiLoadEnv).map(key => [key, process.env[key]]));
	const set = (values: Record<string, string | undefined>): void => {
		for (const [key, value] of Object.entries(values)) {
			if (value === undefined) delete process.env[key];
			else process.env[key] = value;
		}
	};

	set(uiLoadEnv);
	try {
		return await import('./components/render-tui.js');
	} finally {
		set(previous);
	}
}

function interactive(): boolean {
	return process.stdin.isTTY === true && process.stdout.isTTY === true && typeof process.stdin.setRawMode === 'function';
}

export async function runTui(options: TuiOptions): Promise<void> {
	if (!interactive()) {
		process.stderr.write(noTerminalMessage(options.configPath));
		process.exit(2);
	}

	const config = loadConfig(options.configPath, {stateDir: options.stateDir});
	const target = options.demoTraffic === undefined ? undefined : parseDemoTarget(options.demoTraffic, config.servers.map(server => server.name));
	// Before anything else runs, so nothing but this import sees the changed environment.
	const {renderTui} = await loadUi();
	let logFile = options.logFile;
	if (logFile === undefined) {
		// The state store creates its directory private (0700); so must the log's default home, created first.
		fs.mkdirSync(config.hangar.stateDir, {recursive: true, mode: 0o700});
		logFile = path.join(config.hangar.stateDir, 'hangar.log');
	}

	const logger = new Logger(fileSink(logFile), options.logLevel);
	// Node prints warnings to stderr, which would draw over the frame.
	process.removeAllListeners('warning');
	process.on('warning', warning => logger.warn(`node: ${warning.name}: ${warning.message}`));

	// MCP clients (`mcp-hangar --stdio`, the CLI, HTTP with --http) attach to this supervisor.
	const {supervisor, controller, http} = await startOwner(config, logger, 'tui', options.http, {stateDir: options.stateDir});
	const notices: string[] = [];
	if (http !== undefined) notices.push(`MCP over HTTP: ${http.url}`);
	const writer = supervisor.store.writerPid;
	// Another hangar writes the state dir: quarantines and approvals made here last only until this TUI quits.
	if (writer !== undefined) notices.push(`state dir owned by hangar pid ${writer}: changes here are not saved`);
	const traffic = target === undefined ? undefined : startDemoTraffic(supervisor, target);
	if (traffic !== undefined) notices.push(`demo traffic: ${traffic.label}`);
	const source = supervisorSource(supervisor, {logFile, ...(notices.length > 0 ? {notice: notices.join('  ·  ')} : {})});
	const quit = (): void => {
		traffic?.stop();
		logger.info('quit from the terminal UI');
		void controller.exit('quit from the terminal UI', 0);
	};

	// A second Ctrl-C while stopping: the same as a second signal, kill what is left at once.
	const forceQuit = (): void => {
		process.kill(process.pid, 'SIGINT');
	};

	const instance = renderTui(source, {onQuit: quit, onForceQuit: forceQuit});
	logger.info(`terminal UI open with ${config.servers.length} upstreams`, {config: config.path, stateDir: config.hangar.stateDir});
	void supervisor.launch();
	await instance.waitUntilExit();
}
