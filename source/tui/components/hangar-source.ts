/**
 * What the terminal UI may know about hangar, and the one place it touches
 * the supervisor. Screens render a `HangarSnapshot` (plain data, the same
 * views `hangar_list` and the management tools serve) and send commands
 * through `HangarSource.act`; they never see a `Upstream`, a process or
 * an MCP message. `supervisorSource` reads a supervisor in this process;
 * `remoteSource` (remote-source.ts) one that another process owns, over the
 * local socket. Tests give the UI a source made of plain arrays instead.
 */
import {clock} from './cell-format.js';
import {mcpClients} from '../../core/engine/clients/clients.js';
import {consoleSnapshot, watchConsole, type ConsoleSnapshot, type Focus, type LogLines} from '../../core/views/console-view.js';
import {describeApproval} from '../../core/engine/upstream/pins.js';
import type {PersonAction, Supervisor} from '../../core/engine/supervisor.js';
import {startSignIn, type SignInStart} from '../../core/engine/sign-in-start.js';

export type {Focus, LogLines};

/**
 * What the screen shows: the supervisor's console snapshot (the same data
 * in-process and over the socket, see console-view.ts) and what this
 * terminal adds: where its log goes, a note, and, when attached to a
 * supervisor another process owns, who owns it and how old the data is.
 */
export type HangarSnapshot = ConsoleSnapshot & {
	/** Where hangar's own log goes (never the terminal while the UI runs). */
	logFile: string;
	/** A short note for the header about how this hangar runs (e.g. demo traffic), if any. */
	notice: string | undefined;
	/** Set when attached: the process that owns the supervisor ("hangar pid 123 (mcp-hangar serve)"). */
	owner?: string | undefined;
	/** Set when the data is not fresh (attached, and the owner is gone or slow): how old it is and why. */
	stale?: {seconds: number; why: string} | undefined;
};

export type HangarSource = {
	/** Everything the current screen shows, read from memory now (never waits on an upstream). */
	read: (focus: Focus) => HangarSnapshot;
	/**
	 * Calls `listener` whenever `read(focus)` may have changed. It can fire
	 * thousands of times a second under load: listeners only mark the screen
	 * dirty. Returns the unsubscribe function.
	 */
	subscribe: (focus: Focus, listener: () => void) => () => void;
	/** A person's command; resolves with a sentence, rejects with an error whose message (and `hint`) say why. */
	act: (name: string, action: PersonAction) => Promise<string>;
	/** Starts a person's OAuth sign-in in the supervisor's process; resolves with the URL to open once the supervisor waits for the redirect. */
	startSignIn: (name: string) => Promise<SignInStart>;
	/**
	 * MCP clients attached right now. The snapshot's count can be a frame old
	 * (up to a second under load); q asks before quitting by this one, so a
	 * client that just left does not hold the quit in a question.
	 */
	attachedClients: () => number;
	/** What approving `name` would pin now, as a phrase ("its 6 tools as last listed (…)"): the lift question says it. */
	approvalPins: (name: string) => string;
	/** Quitting detaches from a supervisor another process owns: nothing stops, so q asks nothing (default: quitting stops it). */
	detaches?: boolean;
};

export type SupervisorSourceOptions = {
	logFile: string;
	/** How commands are labelled in hangar's log and in transition reasons (default "a person in the TUI"). */
	via?: string;
	/** A note the header shows, e.g. "demo traffic: flaky-demo/echo at 2/s" (default none); a function is read at every frame, for a note that changes. */
	notice?: string | (() => string | undefined);
};

export function supervisorSource(supervisor: Supervisor, options: SupervisorSourceOptions): HangarSource {
	const via = options.via ?? 'a person in the TUI';
	return {
		read: focus => ({...consoleSnapshot(supervisor, focus), logFile: options.logFile, notice: typeof options.notice === 'function' ? options.notice() : options.notice}),
		subscribe: (focus, listener) => watchConsole(supervisor, focus, listener),
		act: async (name, action) => supervisor.act(name, action, via),
		startSignIn: async name => startSignIn(supervisor, name, via),
		approvalPins: name => describeApproval(supervisor.upstream(name).approvalPlan, ms => `at ${clock(ms)}`),
		// Consoles (TUIs attached to this supervisor) are not asked about: they detach and look for the next owner.
		attachedClients: () => supervisor.clients.mcpSize,
	};
}

/** The MCP clients of a snapshot, consoles left out: what the header counts. */
export const mcpClientCount = (snapshot: Pick<HangarSnapshot, 'clients'>): number => mcpClients(snapshot.clients).length;

/** The MCP clients of a snapshot that are not idle HTTP sessions: what quitting asks about. */
export const activeClientCount = (snapshot: Pick<HangarSnapshot, 'clients'>): number => mcpClients(snapshot.clients).filter(client => client.idle !== true).length;
