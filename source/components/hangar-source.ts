/**
 * What the terminal UI may know about hangar, and the one place it touches
 * the supervisor. Screens render a `HangarSnapshot` (plain data, the same
 * views `hangar_list` and the management tools serve) and send commands
 * through `HangarSource.command`; they never see a `Provider`, a process or
 * an MCP message. Tests give the UI a source made of plain arrays instead.
 */
import type {ClientView} from '../core/engine/clients.js';
import {clock} from './cell-format.js';
import type {LogBuffer, LogLine} from '../core/upstream/log-buffer.js';
import {describeApproval} from '../core/engine/pins.js';
import type {Command, Supervisor} from '../core/engine/supervisor.js';
import {statusEntries, upstreamDetails, type StatusEntry, type UpstreamDetails} from '../core/engine/views.js';

/**
 * What the current screen shows beyond the list: an upstream's details or
 * log, or the attached clients (always read, for the header's count, but
 * only their own screen shows them one by one).
 */
export type Focus = {name: string; want: 'details' | 'logs'} | {want: 'clients'} | undefined;

export type HangarSnapshot = {
	configPath: string;
	/** Where hangar's own log goes (never the terminal while the UI runs). */
	logFile: string;
	/** When the supervisor started, in ms since the epoch. */
	startedAt: number;
	/** When this snapshot was read, in ms since the epoch. */
	now: number;
	/** MCP clients attached to this hangar right now, oldest connection first. */
	clients: readonly ClientView[];
	/** A short note for the header about how this hangar runs (e.g. demo traffic), if any. */
	notice: string | undefined;
	entries: readonly StatusEntry[];
	/** Tool names per upstream, for the filter. */
	toolNames: Readonly<Record<string, readonly string[]>>;
	/** Set when the focus wants details. */
	details: UpstreamDetails | undefined;
	/** Set when the focus wants logs: the upstream's whole log buffer. */
	logs: LogLines | undefined;
};

/**
 * An upstream's log buffer, oldest line first. The buffer is bounded: old
 * lines fall off the front as new ones come. `first` numbers the first line
 * among every line the buffer ever held, so a view scrolled back can stay on
 * the same lines while the buffer moves under it. A line never changes once
 * buffered, so `first` and the count say which lines these are. The lines
 * are the buffer's own (`at` in ms): only the few shown are formatted.
 */
export type LogLines = {lines: readonly LogLine[]; first: number};

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
	command: (name: string, action: Command) => Promise<string>;
	/**
	 * MCP clients attached right now. The snapshot's count can be a frame old
	 * (up to a second under load); q asks before quitting by this one, so a
	 * client that just left does not hold the quit in a question.
	 */
	attachedClients: () => number;
	/** What approving `name` would pin now, as a phrase ("its 6 tools as last listed (…)"): the lift question says it. */
	approvalPins: (name: string) => string;
};

export type SupervisorSourceOptions = {
	logFile: string;
	/** How commands are labelled in hangar's log and in transition reasons (default "a person in the TUI"). */
	via?: string;
	/** A note the header shows, e.g. "demo traffic: flaky-demo/echo at 2/s" (default none). */
	notice?: string;
};

/** Log lines a full-screen log view asks for at most (the buffer holds `hangar.logLines`). */
const logViewLines = 10_000;

function logLines(log: LogBuffer): LogLines {
	const tail = log.tail(logViewLines);
	// Lines held but not shown (when the buffer holds more than the view asks for) count as before the first.
	return {lines: tail, first: log.droppedLines + log.size - tail.length};
}

export function supervisorSource(supervisor: Supervisor, options: SupervisorSourceOptions): HangarSource {
	const via = options.via ?? 'a person in the TUI';
	return {
		read(focus) {
			const entries = statusEntries(supervisor);
			const toolNames: Record<string, readonly string[]> = {};
			for (const [name, provider] of supervisor.providers) toolNames[name] = provider.tools.map(tool => tool.name);
			const upstream = focus !== undefined && 'name' in focus && supervisor.providers.has(focus.name) ? focus : undefined;
			return {
				configPath: supervisor.config.path,
				logFile: options.logFile,
				startedAt: supervisor.startedAt,
				now: Date.now(),
				clients: supervisor.clients.list(),
				notice: options.notice,
				entries,
				toolNames,
				details: upstream?.want === 'details' ? upstreamDetails(supervisor, upstream.name, {stderr: 30}) : undefined,
				logs: upstream?.want === 'logs' ? logLines(supervisor.provider(upstream.name).log) : undefined,
			};
		},
		subscribe(focus, listener) {
			const onEvent = (): void => listener();
			supervisor.on('transition', onEvent);
			supervisor.on('toolsChanged', onEvent);
			supervisor.on('activity', onEvent);
			// A client connecting, leaving, introducing itself or calling (thousands a second under load).
			supervisor.clients.on('changed', onEvent);
			const provider = focus !== undefined && 'name' in focus ? supervisor.providers.get(focus.name) : undefined;
			const offLog = provider?.log.onLine(onEvent);
			return () => {
				supervisor.off('transition', onEvent);
				supervisor.off('toolsChanged', onEvent);
				supervisor.off('activity', onEvent);
				supervisor.clients.off('changed', onEvent);
				offLog?.();
			};
		},
		command: async (name, action) => supervisor.command(name, action, via),
		approvalPins: name => describeApproval(supervisor.provider(name).approvalPlan, ms => `at ${clock(ms)}`),
		attachedClients: () => supervisor.clients.size,
	};
}
