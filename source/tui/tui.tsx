/**
 * `mcp-hangar tui`: the Ink app (source/tui/components/) shows a supervisor live
 * and sends it a person's commands. When a supervisor already runs for the
 * same config (`serve`, another TUI, the daemon a client started), the TUI
 * attaches to it over the local socket and quitting only detaches;
 * otherwise the supervisor runs in this process, and quitting stops it.
 *
 * The terminal belongs to Ink, on the alternate screen (terminal-screen.ts):
 * hangar's log goes to a file, upstream output to per-upstream buffers, and
 * Node's own warnings to the log, so nothing writes behind the frame.
 * Without an interactive terminal it refuses to start (exit code 2) and
 * says what to run instead.
 */
import fs from 'node:fs';
import path from 'node:path';
import process from 'node:process';
import {supervisorSource} from './components/hangar-source.js';
import {remoteSource} from './components/remote-source.js';
import {loadConfig, type HangarConfig} from '../core/config/read-config.js';
import {stateDirOf, supervisorFlags} from '../core/config/paths.js';
import {ConsoleClient} from '../core/endpoints/console-client.js';
import {Logger, fileSink, logFileFailures, type LogLevel} from '../core/base/logger.js';
import {terminalOutput} from '../core/base/terminal-text.js';
import type {HttpListenOptions} from '../core/endpoints/http-endpoint.js';
import {startOwner} from '../core/endpoints/runtime.js';
import {parseDemoTarget, startDemoTraffic} from './demo-traffic.js';
import {selfCommand} from '../client-files/hangar-launch.js';
import {shareInkOutputCaches} from './ink-output-caches.js';
import {clearForUi, enterAlternateScreen, leaveAlternateScreen} from './terminal-screen.js';

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

/** What to run instead, for the config this TUI was asked to open, so the commands can be copied as they are. */
function noTerminalMessage(configPath: string, stateDir: string | undefined): string {
	// Its --state-dir too, when one was given: the commands reach the same state as this TUI would have.
	const config = supervisorFlags(configPath, stateDirOf(configPath, {stateDir}));
	const self = selfCommand();
	return (
		'mcp-hangar tui needs an interactive terminal (stdin and stdout must be a TTY that supports raw mode).\n' +
		`  To serve MCP to a client over stdin/stdout: ${self} --stdio ${config}\n` +
		`  To print every upstream's state:             ${self} status ${config}\n`
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
		const ui = await import('./components/render-tui.js');
		await shareInkOutputCaches();
		return ui;
	} finally {
		set(previous);
	}
}

function interactive(): boolean {
	return process.stdin.isTTY === true && process.stdout.isTTY === true && typeof process.stdin.setRawMode === 'function';
}

/** Where the TUI's log goes: --log-file, else hangar.log in the state dir. Node's warnings go there too, not over the frame. */
function openLog(config: HangarConfig, options: TuiOptions): {logger: Logger; logFile: string} {
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
	return {logger, logFile};
}

/** How an attached TUI's commands are labelled in the owner's log and in transition reasons. */
const attachedVia = `a person in the TUI (pid ${process.pid}, attached)`;

/**
 * The TUI on a supervisor another process owns: the same screen, fed over
 * the socket. Flags that need the supervisor in this process are refused,
 * saying why. q detaches, and says on the terminal what keeps running.
 */
async function runAttached(config: HangarConfig, link: ConsoleClient, options: TuiOptions): Promise<void> {
	const ownFlag = options.demoTraffic === undefined ? (options.http === undefined ? undefined : '--http') : '--demo-traffic';
	if (ownFlag !== undefined) {
		await link.close();
		terminalOutput.err(
			`mcp-hangar tui: ${ownFlag} needs the supervisor to run in this process, but ${link.owner} already runs ${config.path}. ` +
				`Drop ${ownFlag} to attach to it, or stop it first: mcp-hangar shutdown ${supervisorFlags(config.path, config.hangar.stateDir)}\n`,
		);
		process.exit(1);
	}

	let first;
	try {
		first = await link.read({focus: undefined});
	} catch (error) {
		await link.close();
		terminalOutput.err(
			`mcp-hangar tui: ${link.owner} runs ${config.path} but did not answer the terminal UI (${(error as Error).message}). ` +
				`It may be an older mcp-hangar: restart it with this version, or use mcp-hangar status ${supervisorFlags(config.path, config.hangar.stateDir)}.\n`,
		);
		process.exit(1);
	}

	const {renderTui} = await loadUi();
	const {logger, logFile} = openLog(config, options);
	const source = remoteSource({
		link,
		first,
		logFile,
		reconnect: async () => ConsoleClient.connect(config, attachedVia),
		log: line => logger.info(`terminal UI: ${line}`),
	});
	clearForUi();
	const instance = renderTui(source, {
		onQuit() {
			logger.info('detached from the terminal UI');
			void source.close().finally(() => instance.unmount());
		},
		// Ctrl-C while detaching: nothing of ours is left to wait for.
		onForceQuit: () => process.exit(0),
	});
	// Nothing runs here: a signal just ends the terminal UI.
	for (const signal of ['SIGTERM', 'SIGHUP'] as const) {
		process.on(signal, () => {
			instance.unmount();
			process.exit(0);
		});
	}

	logger.info(`terminal UI attached to ${link.owner}`, {config: config.path, stateDir: config.hangar.stateDir});
	await instance.waitUntilExit();
	// What follows is for the shell's screen, after the UI is gone.
	leaveAlternateScreen();
	const lost = source.lost();
	const clients = source.attachedClients();
	terminalOutput.out(
		lost === undefined
			? `Detached from ${source.owner()}: it keeps running, with its upstreams and ${clients} MCP client${clients === 1 ? '' : 's'}.\n`
			: `Detached; the supervisor was gone (${lost}).\n`,
	);
	process.exit(0);
}

export async function runTui(options: TuiOptions): Promise<void> {
	if (!interactive()) {
		terminalOutput.err(noTerminalMessage(options.configPath, options.stateDir));
		process.exit(2);
	}

	// Already on when the CLI showed its first frame; restored at exit, also after a crash.
	enterAlternateScreen();
	const config = loadConfig(options.configPath, {stateDir: options.stateDir});
	const target = options.demoTraffic === undefined ? undefined : parseDemoTarget(options.demoTraffic, config.servers.map(server => server.name));
	// A supervisor already runs this config: attach to it rather than refuse (or run a second one).
	const link = await ConsoleClient.connect(config, attachedVia);
	if (typeof link !== 'string') {
		await runAttached(config, link, options);
		return;
	}

	// Before anything else runs, so nothing but this import sees the changed environment.
	const {renderTui} = await loadUi();
	const {logger, logFile} = openLog(config, options);

	// MCP clients (`mcp-hangar --stdio`, the CLI, HTTP with --http) attach to this supervisor.
	const {supervisor, controller, http} = await startOwner(config, logger, 'tui', options.http, {stateDir: options.stateDir});
	const problems = supervisor.store.problems.length;
	const traffic = target === undefined ? undefined : startDemoTraffic(supervisor, target);
	// Read at every frame: the writer's notice goes once this hangar took the state dir over.
	const notice = (): string | undefined => {
		const writer = supervisor.store.writerPid;
		const notices = [
			...(http === undefined ? [] : [`MCP over HTTP: ${http.url}`]),
			// Another hangar writes the state dir: quarantines and approvals are refused (with the reason) until it exits and this one takes over.
			...(writer === undefined ? [] : [`state dir held by hangar pid ${writer}: quarantine and approve are refused until it exits`]),
			...(problems > 0 ? [`state.json: ${problems} problem${problems === 1 ? '' : 's'} at load, the rest kept (see ${logFile})`] : []),
			// Read at every frame: gone once a write succeeds again.
			...[supervisor.store.writeFailure, ...logFileFailures()].map(failure =>
				failure === undefined ? '' : `cannot write ${path.basename(failure.file)} since ${new Date(failure.since).toISOString().slice(11, 19)}: ${failure.error} (mcp-hangar status says what to do)`,
			).filter(text => text !== ''),
			...(traffic === undefined ? [] : [`demo traffic: ${traffic.label}`]),
		];
		return notices.length > 0 ? notices.join('  ·  ') : undefined;
	};

	const source = supervisorSource(supervisor, {logFile, notice});
	const quit = (): void => {
		traffic?.stop();
		logger.info('quit from the terminal UI');
		void controller.exit('quit from the terminal UI', 0);
	};

	// A second Ctrl-C while stopping: the same as a second signal, kill what is left at once.
	const forceQuit = (): void => {
		process.kill(process.pid, 'SIGINT');
	};

	clearForUi();
	const instance = renderTui(source, {onQuit: quit, onForceQuit: forceQuit});
	logger.info(`terminal UI open with ${config.servers.length} upstreams`, {config: config.path, stateDir: config.hangar.stateDir});
	void supervisor.launch();
	await instance.waitUntilExit();
}
