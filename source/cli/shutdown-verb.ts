/**
 * `mcp-hangar shutdown`: stops the supervisor that runs a config (a TUI's,
 * a `serve`, or the daemon a client's `--stdio` started), with its upstreams,
 * as at any exit (SIGTERM: sessions drained, upstreams stopped in order).
 * Like the TUI's q, it asks first when MCP clients are attached, because
 * they lose its tools, and it says what happens to them next: the bridges
 * of a daemon a client started start a new one at once (stopping for good
 * means closing them too), while those of a supervisor a person started
 * (`tui`, `serve`) start none: their calls wait for it and then fail.
 */
import readline from 'node:readline/promises';
import {isAlive} from '../core/base/process-alive.js';
import {terminalText} from '../core/base/terminal-text.js';
import {ConsoleClient} from '../core/endpoints/console-client.js';
import {ownerLabel} from '../core/endpoints/supervisor-client.js';
import type {EndpointOwner} from '../core/endpoints/socket-client.js';
import {mcpClients, type ClientView} from '../core/engine/clients/clients.js';
import {readConfig, type VerbOptions} from './supervisor-verbs.js';
import {supervisorFlags} from '../core/config/paths.js';
import {selfCommand} from '../client-files/hangar-launch.js';

type Output = {out: (text: string) => void; err: (text: string) => void};
/** Asks a yes/no question on the terminal; false when there is none to ask on. */
export type Confirm = (question: string) => Promise<boolean | undefined>;

const onTerminal: Confirm = async question => {
	if (!process.stdin.isTTY || !process.stderr.isTTY) return undefined;
	const prompt = readline.createInterface({input: process.stdin, output: process.stderr});
	try {
		return /^y(es)?$/i.test((await prompt.question(question)).trim());
	} finally {
		prompt.close();
	}
};

const describeClients = (clients: readonly ClientView[]): string =>
	// Client names are the clients' own words: the question goes straight to the terminal.
	terminalText(clients.map(client => `${client.name ?? 'a client'} (${client.transport}, ${client.label})`).join(', '));

/** How long the supervisor gets to stop its upstreams before shutdown says it did not. */
const exitWaitMs = 60_000;

/**
 * For `serve` and `tui`, which need the supervisor in their own process: when
 * the one running this config is the daemon a client started, offer to take
 * over from it (it stops; the clients' bridges then attach to the new one).
 * Resolves true when it stopped, false when the person said no or could not
 * be asked.
 */
export async function offerTakeOver(options: VerbOptions, io: Output, confirm: Confirm = onTerminal): Promise<boolean> {
	const {config} = readConfig(options);
	const link = await ConsoleClient.connect(config, 'a person (taking over)');
	if (typeof link === 'string') return true;
	const owner = link.endpoint;
	await link.close();
	if (owner?.kind !== 'serve' || owner.linger !== true) return false;
	const who = ownerLabel(owner, `${config.hangar.stateDir}/hangar.sock`);
	const answer = await confirm(`${who} runs ${config.path}. Take over from it? It stops with its upstreams, and its clients attach here. [y/N] `);
	if (answer !== true) return false;
	return (await stop(owner.pid, who, config.hangar.stateDir, io)) === 0;
}

/** Stops the supervisor `pid` and waits for it to exit: asked over its socket when `ask` does (its audit then names who asked), else with SIGTERM. */
async function stop(pid: number, who: string, stateDir: string, io: Output, ask?: () => Promise<boolean>): Promise<number> {
	try {
		if (ask === undefined || !(await ask())) process.kill(pid, 'SIGTERM');
	} catch (error) {
		const code = (error as NodeJS.ErrnoException).code;
		if (code === 'ESRCH') return 0;
		io.err(`mcp-hangar: cannot stop ${who}: ${code === 'EPERM' ? 'it runs as another user' : String(error)}.\n`);
		return 1;
	}

	const deadline = Date.now() + exitWaitMs;
	while (isAlive(pid) && Date.now() < deadline) await new Promise(resolve => setTimeout(resolve, 100));
	if (isAlive(pid)) {
		io.err(`mcp-hangar: ${who} is still stopping after ${exitWaitMs / 1000} s (an upstream slow to exit?). See ${stateDir}/hangar.log, or kill -KILL ${pid}.\n`);
		return 1;
	}

	return 0;
}

/**
 * What the attached clients do once `owner` stops (docs/supervisor.md): the
 * bridges of a daemon a client started start another at once; those of one
 * a person started (`tui`, `serve`) wait for a person to start it again.
 */
function whatClientsDo(owner: EndpointOwner | undefined, config: {path: string; hangar: {stateDir: string}}): string {
	if (owner?.kind === 'serve' && owner.linger === true) {
		return 'Clients started with `mcp-hangar --stdio` start a new supervisor at once when theirs stops: to stop for good, close them too (or remove hangar from their config).';
	}

	const started = owner?.kind === 'tui' ? 'tui' : 'serve';
	// What the bridges wait: the settings the supervisor gave them (the config's hangar.callTimeoutSeconds).
	const wait = owner?.bridge === undefined ? 'hangar.callTimeoutSeconds' : `${owner.bridge.requestTimeoutMs / 1000} s, hangar.callTimeoutSeconds`;
	return `Its clients do not start another (one a person started is started again only by a person): their calls wait for one and then fail (after ${wait}) with -32012 "supervisor unavailable". To serve them again, run \`${selfCommand()} ${started} ${supervisorFlags(config.path, config.hangar.stateDir)}\`.`;
}

export async function shutdownVerb(options: VerbOptions & {yes: boolean}, io: Output, confirm: Confirm = onTerminal): Promise<number> {
	const {config} = readConfig(options);
	const via = 'a person (mcp-hangar shutdown)';
	const link = await ConsoleClient.connect(config, via);
	if (typeof link === 'string') {
		io.out(`No hangar is running for ${config.path} (state dir ${config.hangar.stateDir}): nothing to stop (${link}).\n`);
		return 0;
	}

	const owner = link.endpoint;
	let others: ClientView[];
	try {
		const {snapshot} = await link.read({focus: {want: 'clients'}});
		// This command's own session is a console: mcpClients leaves it out.
		others = mcpClients(snapshot.clients);
	} finally {
		await link.close();
	}

	const who = ownerLabel(owner, `${config.hangar.stateDir}/hangar.sock`);
	if (owner === undefined) {
		io.err(`mcp-hangar: cannot stop ${who}: its endpoint.json does not say which process it is. Stop it where it runs (q in its TUI, Ctrl-C on its serve).\n`);
		return 1;
	}

	const attached = others.length === 0 ? '' : `${others.length} MCP client${others.length === 1 ? ' is' : 's are'} attached: ${describeClients(others)}`;
	const restart = whatClientsDo(owner, config);
	if (others.length > 0 && !options.yes) {
		const answer = await confirm(`Stop ${who}? ${attached}. ${restart} [y/N] `);
		if (answer === undefined) {
			io.err(`mcp-hangar: not stopping ${who}: ${attached}.\n  Run \`${selfCommand()} shutdown --yes ${supervisorFlags(config.path, config.hangar.stateDir)}\` to stop it anyway. ${restart}\n`);
			return 1;
		}

		if (!answer) {
			io.out(`Left ${who} running.\n`);
			return 1;
		}
	}

	if (!isAlive(owner.pid)) {
		io.out(`${who} had already stopped.\n`);
		return 0;
	}

	const ask = async (): Promise<boolean> => {
		const asking = await ConsoleClient.connect(config, via);
		if (typeof asking === 'string' || asking.endpoint?.pid !== owner.pid) {
			if (typeof asking !== 'string') await asking.close();
			return false;
		}

		try {
			await asking.shutdown();
			return true;
		} catch {
			// A hangar from before this request: the signal does it, its audit naming the signal.
			return false;
		} finally {
			await asking.close();
		}
	};

	if ((await stop(owner.pid, who, config.hangar.stateDir, io, ask)) !== 0) return 1;
	io.out(`Stopped ${who} and its upstreams.${others.length === 0 ? '' : ` ${restart}`}\n`);
	return 0;
}
