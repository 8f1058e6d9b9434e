/**
 * What a console (the terminal UI) shows of a supervisor, as plain data: the
 * list, the clients, and an upstream's details or log when the screen
 * focuses on one. The TUI that owns the supervisor reads it in-process; a
 * TUI attached to another process's supervisor receives the same snapshot
 * over the local socket (gateway/console.ts), so both show exactly the same
 * thing. `watchConsole` says when a snapshot may have changed.
 */
import type {ClientView} from './clients.js';
import type {ApprovalPlan} from './tool-list.js';
import type {LogLine} from '../upstream/log-buffer.js';
import type {Supervisor} from './supervisor.js';
import {configView, statusEntries, upstreamDetails, type StatusEntry, type UpstreamDetails} from './views.js';

/**
 * What the current screen shows beyond the list: an upstream's details or
 * log, or the attached clients (always read, for the header's count, but
 * only their own screen shows them one by one).
 */
export type Focus = {name: string; want: 'details' | 'logs'} | {want: 'clients'} | undefined;

/**
 * An upstream's log buffer, oldest line first. The buffer is bounded: old
 * lines fall off the front as new ones come. `first` numbers the first line
 * among every line the buffer ever held, so a view scrolled back can stay on
 * the same lines while the buffer moves under it. A line never changes once
 * buffered, so `first` and the count say which lines these are. The lines
 * are the buffer's own (`at` in ms): only the few shown are formatted.
 */
export type LogLines = {lines: readonly LogLine[]; first: number};

export type ConsoleSnapshot = {
	configPath: string;
	/** When the supervisor started, in ms since the epoch. */
	startedAt: number;
	/** When this snapshot was read, in ms since the epoch. */
	now: number;
	/** Clients attached to the supervisor right now (MCP clients and consoles), oldest connection first. */
	clients: readonly ClientView[];
	entries: readonly StatusEntry[];
	/** Tool names per upstream, for the filter. */
	toolNames: Readonly<Record<string, readonly string[]>>;
	/** Set when the focus wants details. */
	details: UpstreamDetails | undefined;
	/** Set when the focus wants logs: the upstream's whole log buffer (up to `logViewLines`). */
	logs: LogLines | undefined;
	/** Whether the config file on disk differs from what runs (a refused or pending reload), and the last reload. */
	config: {drift: string | null; lastReload: {at: string; outcome: string; summary: string} | null};
};

/** Log lines a full-screen log view asks for at most (the buffer holds `hangar.logLines`). */
export const logViewLines = 10_000;

/** The upstream a focus names, when the supervisor has it. */
function focusedUpstream(supervisor: Supervisor, focus: Focus): {name: string; want: 'details' | 'logs'} | undefined {
	return focus !== undefined && 'name' in focus && supervisor.providers.has(focus.name) ? focus : undefined;
}

/** Everything the screen with `focus` shows, read from memory now (never waits on an upstream). */
export function consoleSnapshot(supervisor: Supervisor, focus: Focus): ConsoleSnapshot {
	const toolNames: Record<string, readonly string[]> = {};
	for (const [name, provider] of supervisor.providers) toolNames[name] = provider.tools.map(tool => tool.name);
	const upstream = focusedUpstream(supervisor, focus);
	let logs: LogLines | undefined;
	if (upstream?.want === 'logs') {
		const log = supervisor.provider(upstream.name).log;
		const tail = log.tail(logViewLines);
		// Lines held but not shown (when the buffer holds more than the view asks for) count as before the first.
		logs = {lines: tail, first: log.droppedLines + log.size - tail.length};
	}

	return {
		configPath: supervisor.config.path,
		startedAt: supervisor.startedAt,
		now: Date.now(),
		clients: supervisor.clients.list(),
		entries: statusEntries(supervisor),
		toolNames,
		details: upstream?.want === 'details' ? upstreamDetails(supervisor, upstream.name, {stderr: 30}) : undefined,
		logs,
		config: configState(supervisor),
	};
}

function configState(supervisor: Supervisor): ConsoleSnapshot['config'] {
	const view = configView(supervisor);
	const last = view.reloads.at(-1);
	return {drift: view.drift?.message ?? null, lastReload: last === undefined ? null : {at: last.at, outcome: last.outcome, summary: last.summary}};
}

/**
 * What approving each quarantined upstream would pin now: what a console
 * needs to ask before lifting one. Plans, not sentences, so each console
 * phrases the times with its own clock.
 */
export function quarantinedApprovalPlans(supervisor: Supervisor): Record<string, ApprovalPlan> {
	const plans: Record<string, ApprovalPlan> = {};
	for (const [name, provider] of supervisor.providers) {
		if (provider.state === 'quarantined') plans[name] = provider.approvalPlan;
	}

	return plans;
}

/**
 * Calls `listener` whenever `consoleSnapshot(supervisor, focus)` may have
 * changed: a transition, a tool set change, a call starting or ending, a
 * client connecting, leaving or calling, a line in the focused upstream's
 * log. It can fire thousands of times a second under load: listeners only
 * mark something dirty. Returns the unsubscribe function.
 */
export function watchConsole(supervisor: Supervisor, focus: Focus, listener: () => void): () => void {
	const onEvent = (): void => listener();
	// A reload may replace the focused upstream, and its log buffer with it: follow the new one.
	let offLog: (() => void) | undefined;
	const followLog = (): void => {
		offLog?.();
		const provider = focus !== undefined && 'name' in focus ? supervisor.providers.get(focus.name) : undefined;
		offLog = provider?.log.onLine(onEvent);
	};

	const onReload = (): void => {
		followLog();
		listener();
	};

	supervisor.on('transition', onEvent);
	supervisor.on('toolsChanged', onEvent);
	supervisor.on('activity', onEvent);
	supervisor.on('reload', onReload);
	supervisor.clients.on('changed', onEvent);
	followLog();
	return () => {
		supervisor.off('transition', onEvent);
		supervisor.off('toolsChanged', onEvent);
		supervisor.off('activity', onEvent);
		supervisor.off('reload', onReload);
		supervisor.clients.off('changed', onEvent);
		offLog?.();
	};
}
