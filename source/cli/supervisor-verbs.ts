/**
 * `mcp-hangar status | call | approve | quarantine | start | stop | restart |
 * logs | reload`: one-shot commands for people and scripts. When a supervisor
 * (`mcp-hangar tui`, `serve`, or the daemon a client's `--stdio` started)
 * listens for the state dir, they go through it: status shows its live state
 * and whether the config file says otherwise, a call runs on its upstreams,
 * the others change it at once. Otherwise status, call, approve and
 * quarantine run standalone on the config and the state dir (the saved
 * state: quarantines, pins, cached tool lists); start, stop, restart, logs
 * and reload need a running supervisor and say how to start one.
 *
 * Output contract: results on stdout, messages and errors on stderr, exit
 * code 0 on success, 1 when the operation failed, 2 for bad usage.
 */
import path from 'node:path';
import process from 'node:process';
import {ConfigError, loadConfig, stateDirOf, type HangarConfig} from '../core/config/read-config.js';
import {supervisorFlags} from '../core/config/paths.js';
import {shellWord} from '../core/base/shell-words.js';
import {HangarError, errorMessage, type Audience} from '../core/base/errors.js';
import {silentLogger, type Logger} from '../core/base/logger.js';
import {killAllTreesSync} from '../core/link/process-registry.js';
import {maskText} from '../core/base/secret-mask.js';
import {terminalJson, terminalOutput, terminalText} from '../core/base/terminal-text.js';
import {createSupervisor} from '../core/endpoints/runtime.js';
import {describeClash, type Supervisor} from '../core/engine/supervisor.js';
import {isPlainObject} from '../core/wire/message-classifier.js';
import {UsageError} from '../core/base/usage-error.js';
import {configIssueViews, stateView, statusEntries, type ConfigIssueView, type StateView} from '../core/views/views.js';
import {statusTable} from './status-table.js';
import {launchWarnings} from './launch-warnings.js';

export {statusTable} from './status-table.js';
import {didYouMean, namesInBrief} from '../core/base/closest-match.js';
import {SupervisorCallError, SupervisorClient, cliClientName, type ConfigAnswer} from '../core/endpoints/supervisor-client.js';
import {argumentErrorKey} from '../core/gateway/tool-requests.js';
import type {DriftView} from '../core/views/views.js';
import type {CallToolResult} from '../core/link/connection.js';
import {CallLog, type CallLogDetail} from '../core/engine/call-log.js';
import {readAuditCalls, restoreCalls} from '../core/engine/observe/audit-log.js';

export type VerbOptions = {configPath: string; stateDir?: string | undefined; logger: Logger};

/**
 * Runs `live` on the running supervisor for the config's state dir, or
 * `standalone` on the config when none is listening.
 */
async function throughSupervisor<T>(
	options: VerbOptions,
	io: Output,
	live: (client: SupervisorClient) => Promise<T>,
	standalone: (config: HangarConfig) => Promise<T>,
): Promise<T> {
	const {config, invalid} = readConfig(options);
	const client = await SupervisorClient.connect(config, cliClientName, why => io.err(`mcp-hangar: not using the running supervisor: ${why}. Working on the config and state dir alone.\n`));
	if (client === undefined) {
		if (invalid !== undefined) throw invalid;
		return standalone(config as HangarConfig);
	}
	options.logger.debug(`talking to ${client.label}`);
	try {
		return await live(client);
	} finally {
		await client.close();
	}
}


type Output = {out: (text: string) => void; err: (text: string) => void};
// Every human line and JSON document goes out through the output rule (terminal-text.ts).
const stdio: Output = terminalOutput;
/** The width to fold tables to: the terminal's, or undefined (no folding) when the output is piped, redirected or not stdout. */
const terminalWidth = (io: Output): number | undefined => (io === stdio && process.stdout.isTTY ? process.stdout.columns : undefined);

type Located = {config: HangarConfig | {path: string; hangar: {stateDir: string}}; invalid: ConfigError | undefined};

/**
 * The config, or, when the file does not validate, where its state dir is:
 * the supervisor running its previous version still answers there (and its
 * status says why the file was not applied). Only a standalone command needs
 * the file itself to be valid.
 */
export function readConfig(options: VerbOptions): Located {
	try {
		return {config: loadConfig(options.configPath, {stateDir: options.stateDir, environmentOf: shellEnvironment()}), invalid: undefined};
	} catch (error) {
		if (!(error instanceof ConfigError)) throw error;
		return {config: {path: error.file, hangar: {stateDir: stateDirOf(options.configPath, {stateDir: options.stateDir})}}, invalid: error};
	}
}

/** Whose environment a one-shot command read `${VAR}`s from: the person's shell, not a client's supervisor. */
function shellEnvironment(command?: string): string {
	return `this shell's environment, where ${command === undefined ? 'this command' : `mcp-hangar ${command}`} ran; a supervisor a client starts has that client's environment instead`;
}

/** A HangarError's message already ends with its hint (worded for a shell: this is the CLI). */
/** `cli-once`: said by a command that ran its own hangar, which exits with it. */
function describe(error: unknown, audience: Audience = 'cli'): string {
	return `mcp-hangar: ${error instanceof HangarError ? error.messageFor(audience) : maskText(errorMessage(error))}\n`;
}

/** `mcp-hangar VERB` with the flags that reach this config's supervisor (its --state-dir too, when one was given): to copy as it is. */
function command(verb: string, config: {path: string; hangar: {stateDir: string}}): string {
	return `mcp-hangar ${verb} ${supervisorFlags(config.path, config.hangar.stateDir)}`;
}

/**
 * Runs `live` on the running supervisor; when there is none, says so (and
 * why not the one that runs, if one does) with what to run, and returns 1.
 */
async function onlyLive(options: VerbOptions, io: Output, what: string, live: (client: SupervisorClient) => Promise<number>): Promise<number> {
	const {config} = readConfig(options);
	let skipped: string | undefined;
	const client = await SupervisorClient.connect(config, cliClientName, why => {
		skipped = why;
	});
	if (client === undefined) {
		io.err(
			`mcp-hangar: cannot ${what}: ${skipped ?? `no hangar is running for ${config.path} (state dir ${config.hangar.stateDir})`}.\n` +
				`  Upstreams run inside a supervisor. Start one with \`${command('serve', config)}\` (or \`${command('tui', config)}\`); an MCP client's \`${command('--stdio', config)}\` starts one by itself. Then run this again.\n`,
		);
		return 1;
	}

	options.logger.debug(`talking to ${client.label}`);
	try {
		return await live(client);
	} catch (error) {
		io.err(describe(error));
		return 1;
	} finally {
		await client.close();
	}
}

/** Runs `work` on a supervisor of this command's own (none runs this config); `command` names it in the audit's shutdown line ("mcp-hangar call finished"). */
async function withSupervisor<T>(config: HangarConfig, options: VerbOptions & {readOnly?: boolean}, work: (supervisor: Supervisor) => Promise<T>, command = 'mcp-hangar status'): Promise<T> {
	// A read-only supervisor serves status, which shows the config's issues and the state's problems in its output.
	const supervisor = await createSupervisor(config, options.logger, {readOnly: options.readOnly, quiet: options.readOnly});
	const stop = () => {
		killAllTreesSync();
		process.exit(130);
	};

	process.once('SIGINT', stop);
	process.once('SIGTERM', stop);
	try {
		return await work(supervisor);
	} finally {
		await supervisor.shutdown(`${command} finished`);
		process.off('SIGINT', stop);
		process.off('SIGTERM', stop);
	}
}

function otherWriterNote(supervisor: Supervisor): string | undefined {
	const pid = supervisor.store.writerPid;
	if (pid === undefined) return undefined;
	return `hangar process ${pid} (a --stdio hangar serving one client on its own) is running on this state dir; this is the saved state, not its live state (ask its client for hangar_list).`;
}

// ---------------------------------------------------------------------------
// status

export async function statusVerb(options: VerbOptions & {json: boolean}, io: Output = stdio): Promise<number> {
	return throughSupervisor(
		options,
		io,
		async client => {
			const {entries, context} = await client.statusWithContext();
			const {config} = await client.config();
			const drift = config.drift;
			const lastReload = config.reloads.at(-1) ?? null;
			// An older supervisor's answer has no state view.
			const state = (config as Partial<typeof config>).state;
			// An older supervisor's answer has no issues.
			const issues = (config as Partial<typeof config>).issues ?? [];
			if (options.json) {
				io.out(`${terminalJson({config: client.owner?.config ?? config.path, live: true, note: `live state of ${client.label}`, drift, lastReload, configIssues: issues, contextTokens: context ?? null, state: state ?? null, otherSupervisors: state?.others ?? [], upstreams: entries}, 2)}\n`);
			} else {
				io.out(statusTable(entries, Date.now(), terminalWidth(io)));
				io.err(`Live state of ${client.label}.\n`);
				io.err(contextLine(context));
				io.err(issueLines(config.path, issues));
				if (drift !== null) io.err(driftLine(drift));
				if (state !== undefined) io.err(stateLines(state));
			}

			return 0;
		},
		async config => statusStandalone(config, options, io),
	);
}

/**
 * What the definitions cost each client's context, for a person reading
 * status: "Context: ~26967 tokens of tool and prompt definitions to each
 * client (direct exposure; search exposure would send ~6890)".
 */
export function contextLine(context: {exposure: 'direct' | 'search'; current: number; direct: number; search: number} | undefined): string {
	if (context === undefined) return '';
	const other = context.exposure === 'direct' ? `search exposure would send ~${context.search}` : `direct exposure would send ~${context.direct}`;
	return `Context: ~${context.current} tokens of tool and prompt definitions to each client (${context.exposure} exposure; ${other}; estimated at 4 characters a token).\n`;
}

/** What reading the state dir found wrong, and whether the supervisor saves there, for a person reading status. */
function stateLines(state: StateView): string {
	// One line each: a problem can quote the damaged file (a JSON parse error does), newlines and all.
	const lines = state.problems.slice(0, 10).map(problem => `State: ${terminalText(problem)}\n`);
	// An older supervisor's state view has neither.
	for (const failure of state.writeFailures ?? []) {
		const lost = failure.lostLines === undefined ? '' : ` (${failure.lostLines} log lines lost)`;
		lines.push(`State: cannot write ${failure.file} since ${failure.since}: ${terminalText(failure.error)}${lost}; ${failure.advice}.\n`);
	}

	for (const what of state.notWritten ?? []) lines.push(`State: not saved in state.json for its size: ${terminalText(what)}\n`);
	if (state.problems.length > 10) lines.push(`State: and ${state.problems.length - 10} more problems (see hangar's log)\n`);
	// An older supervisor's state view has no `others`.
	for (const other of state.others ?? []) lines.push(`Warning: ${terminalText(other.advice)}.\n`);
	if (!state.writer) lines.push(`State: hangar pid ${state.writerPid ?? '?'} writes ${state.dir}; quarantine and approve are refused here until it exits, then this supervisor takes the dir over.\n`);
	return lines.join('');
}

/**
 * What the loader tolerated in the config, for a person reading status: each
 * error (an entry made invalid, a setting ignored) on its own line, other
 * clients' ignored keys counted. Part of status's output, not log lines.
 */
function issueLines(file: string, issues: readonly ConfigIssueView[]): string {
	const errors = issues.filter(issue => issue.severity === 'error');
	const notices = issues.length - errors.length;
	const check = `mcp-hangar --check-config --config ${shellWord(path.resolve(file))}`;
	const lines = errors.slice(0, 20).map(issue => `Config: ${issue.path}: ${issue.message}\n`);
	if (errors.length > 20) lines.push(`Config: and ${errors.length - 20} more problems in ${file} (${check} lists them all)\n`);
	if (notices > 0) lines.push(`Config: ${notices} ${notices === 1 ? 'key' : 'keys'} of other clients ignored (${check} lists ${notices === 1 ? 'it' : 'them'})\n`);
	return lines.join('');
}

/** The config drift, for a person reading status. */
function driftLine(drift: DriftView): string {
	return `Config: ${drift.message}\n`;
}

async function statusStandalone(config: HangarConfig, options: VerbOptions & {json: boolean}, io: Output): Promise<number> {
	// Reads only: taking the writer lock would leave a hangar that starts meanwhile unable to save its state.
	return withSupervisor(config, {...options, readOnly: true}, async supervisor => {
		const entries = statusEntries(supervisor);
		const note = otherWriterNote(supervisor);
		const {exposure, current, direct, search} = supervisor.contextCost();
		const context = {exposure, current, direct, search};
		const state = stateView(supervisor);
		const issues = configIssueViews(supervisor.config);
		if (options.json) {
			io.out(`${terminalJson({config: supervisor.config.path, live: false, note: note ?? null, configIssues: issues, contextTokens: context, state, otherSupervisors: state.others, upstreams: entries}, 2)}\n`);
		} else {
			io.out(statusTable(entries, Date.now(), terminalWidth(io)));
			io.err(contextLine(context));
			io.err(issueLines(supervisor.config.path, issues));
			// Nothing runs to find out that an entry cannot start: said as --check-config says it.
			for (const line of launchWarnings(supervisor.config.servers)) io.err(`${line}\n`);
			io.err(stateLines({...state, writer: true}));
			io.err(`${note ?? `No hangar process is running on this state dir: upstreams start when a client calls (${command('--stdio', supervisor.config)}) or in ${command('tui', supervisor.config)}.`}\n`);
		}

		return 0;
	});
}

// ---------------------------------------------------------------------------
// call

export function parseArgsJson(text: string | undefined): Record<string, unknown> | undefined {
	if (text === undefined) return undefined;
	let parsed: unknown;
	try {
		parsed = JSON.parse(text);
	} catch (error) {
		throw new UsageError(`--args is not valid JSON (${errorMessage(error)}); pass an object such as --args '{"message":"hi"}'`);
	}

	if (!isPlainObject(parsed)) {
		throw new UsageError(`--args must be a JSON object such as '{"message":"hi"}', not ${JSON.stringify(parsed)}`);
	}

	return parsed as Record<string, unknown>;
}

type CallOptions = VerbOptions & {server: string; tool: string; args: Record<string, unknown> | undefined; json: boolean};

/** Prints a tool's result; 1 when it is an error result. */
function printResult(options: CallOptions, result: CallToolResult, io: Output): number {
	if (options.json) {
		io.out(`${terminalJson(result, 2)}\n`);
	} else {
		for (const item of result.content ?? []) {
			if (item.type === 'text') io.out(`${item.text}\n`);
			else io.out(`[${item.type} content: use --json to see it]\n`);
		}

		if ((result.content ?? []).length === 0 && result.structuredContent !== undefined) io.out(`${terminalJson(result.structuredContent, 2)}\n`);
	}

	if (result.isError === true) {
		io.err(`mcp-hangar: upstream "${options.server}": tool "${options.tool}" returned an error (isError); its output is above.\n`);
		return 1;
	}

	return 0;
}

export async function callVerb(options: CallOptions, io: Output = stdio): Promise<number> {
	return throughSupervisor(
		options,
		io,
		async client => {
			// The supervisor words these for MCP clients (hangar_call answers a wrong server or tool as a tool error, its data in _meta); say them as the CLI does.
			const lookupFailure = (data: Record<string, unknown>): boolean => {
				if (data['error'] === 'UnknownTool' && Array.isArray(data['tools'])) io.err(unknownTool(options, data['tools'] as string[]));
				else if (data['error'] === 'UnknownServer' && Array.isArray(data['known'])) io.err(unknownServer(options, data['known'] as string[]));
				else return false;
				return true;
			};

			try {
				const result = await client.call(options.server, options.tool, options.args);
				const data = result.isError === true && isPlainObject(result._meta) ? result._meta[argumentErrorKey] : undefined;
				if (isPlainObject(data) && lookupFailure(data)) return 1;
				return printResult(options, result, io);
			} catch (error) {
				if (!lookupFailure(error instanceof SupervisorCallError && isPlainObject(error.data) ? error.data : {})) io.err(describe(error));
				return 1;
			}
		},
		async config => callStandalone(config, options, io),
	);
}

const unknownTool = (options: CallOptions, tools: readonly string[]): string =>
	`mcp-hangar: upstream "${options.server}": unknown tool "${options.tool}".${didYouMean(options.tool, tools)} Its ${tools.length} tools: ${namesInBrief(tools)}.\n  Run ${command('status', {path: options.configPath, hangar: {stateDir: stateDirOf(options.configPath, options)}})} to see the upstreams; tool names here are the upstream's own, without "${options.server}__".\n`;

const unknownServer = (options: CallOptions, known: readonly string[]): string =>
	`mcp-hangar: upstream "${options.server}": lookup failed: no upstream of that name is configured. ${known.length > 0 ? `Configured upstreams: ${known.join(', ')}.` : 'The config has no upstreams.'}\n`;

async function callStandalone(config: HangarConfig, options: CallOptions, io: Output): Promise<number> {
	return withSupervisor(config, options, async supervisor => {
		try {
			const upstream = supervisor.upstream(options.server);
			if (upstream.state !== 'quarantined' && !upstream.listsTool(options.tool)) {
				io.err(unknownTool(options, upstream.tools.map(tool => tool.name)));
				return 1;
			}

			return printResult(options, await supervisor.callByName(options.server, options.tool, options.args), io);
		} catch (error) {
			io.err(describe(error, 'cli-once'));
			return 1;
		}
	}, 'mcp-hangar call');
}

// ---------------------------------------------------------------------------
// approve, quarantine

export async function adminVerb(options: VerbOptions & {server: string; action: 'approve' | 'quarantine'}, io: Output = stdio): Promise<number> {
	const via = `a person (mcp-hangar ${options.action})`;
	return throughSupervisor(
		options,
		io,
		async client => {
			try {
				io.out(`${await client.act(options.server, options.action, via)}\n`);
				return 0;
			} catch (error) {
				io.err(describe(error));
				return 1;
			}
		},
		async config => adminStandalone(config, options, via, io),
	);
}

async function adminStandalone(config: HangarConfig, options: VerbOptions & {server: string; action: 'approve' | 'quarantine'}, via: string, io: Output): Promise<number> {
	return withSupervisor(config, options, async supervisor => {
		// The supervisor refuses what it cannot save (another hangar writes the state dir) and says why.
		try {
			const message = await supervisor.act(options.server, options.action, via);
			io.out(`${message}\n`);
			return 0;
		} catch (error) {
			io.err(describe(error));
			return 1;
		}
	}, `mcp-hangar ${options.action}`);
}

/**
 * `--check-config`: validates the config (a ConfigError exits 1 from the CLI)
 * and reports the name clashes between unprefixed servers that it can see
 * without starting anything: from predefined `tools` and the lists cached by
 * earlier runs. Clashes are warnings (exit 0): each name still has one owner.
 */
/**
 * Every problem of the file in one pass. The engine runs a file with some
 * unusable entries (they show as \`invalid\`), but the check fails on any
 * error so a person sees them all before a client does; other clients' keys
 * that hangar ignores are notes, not failures.
 */
export async function checkConfigVerb(options: VerbOptions, io: Output = stdio): Promise<number> {
	const config = loadConfig(options.configPath, {stateDir: options.stateDir, environmentOf: shellEnvironment('--check-config')});
	const errors = config.issues.filter(issue => issue.severity !== 'notice');
	const notices = config.issues.filter(issue => issue.severity === 'notice');
	// The clashes come from the state dir, read before anything is printed: a failure there never follows an "OK".
	// Its own log lines (state, shutdown) are not the check's to print: stderr stays for errors.
	const supervisor = await createSupervisor(config, silentLogger, {readOnly: true});
	let clashes: string[];
	try {
		clashes = supervisor.clashes().map(clash => describeClash(clash));
	} finally {
		await supervisor.shutdown('check finished');
	}

	// Errors and warnings come together: fixing the errors first should not hide what else is wrong.
	if (errors.length > 0) {
		const invalid = config.servers.filter(server => server.invalid !== undefined && !server.disabled).map(server => server.name);
		const usable = config.servers.length - invalid.length;
		io.err(`${new ConfigError(config.path, errors).message}\n`);
		// A setting's problem does not stop hangar either: the file runs, as status and the TUI show.
		if (errors.some(issue => issue.path === '$.hangar' || issue.path.startsWith('$.hangar.'))) io.err('Until then hangar runs this file with each of those settings ignored or at its default.\n');
		if (invalid.length > 0) io.err(`Until then hangar serves the other ${usable} upstream${usable === 1 ? '' : 's'}; ${invalid.map(name => `"${name}"`).join(', ')} show${invalid.length === 1 ? 's' : ''} as invalid, and ${invalid.length === 1 ? 'its' : 'their'} calls say why.\n`);
	} else {
		const names = config.servers.map(server => server.name);
		io.out(
			names.length === 0
				? `${config.path}: OK, but it has no upstreams yet: add one under "mcpServers" (\`mcp-hangar add --help\`), or import your clients' servers (\`mcp-hangar import --help\`)\n`
				: `${config.path}: OK, ${names.length} upstream${names.length === 1 ? '' : 's'} (${names.join(', ')})\n`,
		);
	}

	const report = errors.length > 0 ? io.err : io.out;
	for (const notice of notices) report(`note: ${notice.path}: ${notice.message}\n`);
	for (const line of launchWarnings(config.servers)) report(`${line}\n`);
	for (const clash of clashes) report(`warning: ${clash}\n`);
	return errors.length > 0 ? 1 : 0;
}

// ---------------------------------------------------------------------------
// start, stop, restart: through the running supervisor only

export async function lifecycleVerb(options: VerbOptions & {server: string; action: 'start' | 'stop' | 'restart'}, io: Output = stdio): Promise<number> {
	return onlyLive(options, io, `${options.action} "${options.server}"`, async client => {
		io.out(`${await client.act(options.server, options.action, `a person (mcp-hangar ${options.action})`)}\n`);
		return 0;
	});
}

// ---------------------------------------------------------------------------
// reload

/** What a reload did, for a person; 1 when the file was refused. */
function reloadAnswer(answer: ConfigAnswer, io: Output): number {
	const record = answer.reload;
	if (record === null) return 0;
	if (record.outcome === 'refused') {
		io.err(`mcp-hangar: reload refused: ${record.error ?? record.summary}\n  The running config stays until the file validates.\n`);
		return 1;
	}

	io.out(record.outcome === 'unchanged' ? `nothing to reload: ${answer.config.path} (and the envFiles it names) says what already runs\n` : `reloaded ${answer.config.path}: ${record.summary}\n`);
	if (answer.config.drift !== null) io.err(driftLine(answer.config.drift));
	return 0;
}

export async function reloadVerb(options: VerbOptions, io: Output = stdio): Promise<number> {
	return onlyLive(options, io, 'reload the config', async client => reloadAnswer(await client.config({via: 'mcp-hangar reload'}), io));
}

// ---------------------------------------------------------------------------
// logs

// One line each: what an upstream printed is escaped whole, so it cannot end the line or pass as another.
const logLine = (line: {at: string; source: string; text: string}): string => `${line.at} ${line.source.padEnd(6)} ${terminalText(line.text)}\n`;

/**
 * Runs `next` (a read that waits for new lines, then prints them) until
 * Ctrl-C or SIGTERM, which close the connection; the read that close cuts
 * short ends the loop quietly. A supervisor that closes the connection
 * mid-follow has stopped (shutdown, its linger): said so, not taken for a
 * connection refused at its open-file limit.
 */
async function follow(client: {close(): Promise<void>; label: string}, next: () => Promise<void>, io: Output): Promise<void> {
	let stopped = false;
	const stop = (): void => {
		stopped = true;
		void client.close();
	};

	process.once('SIGINT', stop);
	process.once('SIGTERM', stop);
	try {
		while (!stopped) {
			try {
				await next();
			} catch (error) {
				if (stopped) break;
				if (!(error instanceof HangarError && error.codeName === 'SupervisorUnavailable')) throw error;
				io.err(`mcp-hangar: ${client.label} closed the connection: it stopped or is stopping, so there is nothing more to follow. Run the command again to follow the supervisor that runs next.\n`);
				return;
			}
		}
	} finally {
		process.off('SIGINT', stop);
		process.off('SIGTERM', stop);
	}
}

/**
 * An upstream's log (stderr, stray stdout, and hangar's lines about it: its
 * transitions) from the running supervisor; with `follow`, new lines as they
 * come until Ctrl-C.
 */
export async function logsVerb(options: VerbOptions & {server: string; follow: boolean}, io: Output = stdio): Promise<number> {
	return onlyLive(options, io, `show the log of "${options.server}"`, async client => {
		let page = await client.logs(options.server, 0, false);
		for (const line of page.lines) io.out(logLine(line));
		if (!options.follow) return 0;
		await follow(client, async () => {
			page = await client.logs(options.server, page.next, true);
			if (page.gap) io.err(`mcp-hangar: (lines of "${options.server}" were skipped: its log buffer moved on, or a reload replaced it)\n`);
			for (const line of page.lines) io.out(logLine(line));
		}, io);
		return 0;
	});
}

// ---------------------------------------------------------------------------
// logs --calls

/**
 * One call as a line of text, what the TUI's calls view shows: when it
 * finished, the client, upstream/tool, latency, and ok, "tool error" or the
 * error's code with its message; a call run as a task, "task <status>" as
 * last seen (a failed or cancelled one: "task failed: why"). Its arguments and result (masked
 * previews) are in the JSON form (`--json`).
 */
export function callLine(call: CallLogDetail): string {
	const outcome =
		call.task !== undefined && call.outcome !== 'error' ? `task ${call.task}` : call.outcome === 'ok' ? 'ok' : call.outcome === 'tool-error' ? 'tool error' : `${call.code ?? 'error'}: ${call.error ?? ''}`;
	const ms = call.ms < 10 ? `${call.ms.toFixed(1)}ms` : call.ms < 1000 ? `${Math.round(call.ms)}ms` : `${(call.ms / 1000).toFixed(1)}s`;
	// The client's name, the tool's and the error are theirs: escaped, one line whatever they hold.
	return `${new Date(call.at).toISOString()}  ${terminalText(call.client)}  ${terminalText(call.upstream)}/${terminalText(call.tool)}  ${ms}  ${terminalText(outcome)}\n`;
}

/**
 * The calls log of the running supervisor (every tool call across upstreams,
 * the last ones it keeps, earlier runs' included), one line each (`json`:
 * one JSON object each, with the arguments and result); `server` keeps one
 * upstream's; with `follow`, new calls as they finish until Ctrl-C. With no
 * supervisor running, the last calls of the audit file in the state dir
 * (hangar.auditLog), without following.
 */
export async function callsVerb(options: VerbOptions & {server: string | undefined; follow: boolean; json: boolean}, io: Output = stdio): Promise<number> {
	const print = (calls: readonly CallLogDetail[]): void => {
		for (const call of calls) {
			if (options.server === undefined || call.upstream === options.server) io.out(options.json ? `${terminalJson(call)}\n` : callLine(call));
		}
	};

	const live = async (client: SupervisorClient): Promise<number> => {
		let page = await client.calls(0, false);
		print(page.calls);
		if (!options.follow) return 0;
		await follow(client, async () => {
			page = await client.calls(page.next, true);
			if (page.gap) io.err('mcp-hangar: (calls were skipped: more finished than the calls log keeps between two reads)\n');
			print(page.calls);
		}, io);
		return 0;
	};

	if (options.follow) return onlyLive(options, io, 'follow the calls', live);
	return throughSupervisor(options, io, live, async config => {
		const log = new CallLog();
		restoreCalls(log, readAuditCalls(config.hangar.stateDir, log.limit));
		print(log.after(0));
		io.err(`No hangar process is running on this state dir: these are the last calls of its audit file (${config.hangar.stateDir}).\n`);
		return 0;
	});
}
