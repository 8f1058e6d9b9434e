/**
 * What a console (the terminal UI) shows of a supervisor, as plain data: the
 * list, the clients, and an upstream's details or log when the screen
 * focuses on one. The TUI that owns the supervisor reads it in-process; a
 * TUI attached to another process's supervisor receives the same snapshot
 * over the local socket (gateway/console.ts), so both show exactly the same
 * thing. `watchConsole` says when a snapshot may have changed.
 */
import {callMatches, type CallLog, type CallLogDetail, type CallLogEntry} from '../engine/call-log.js';
import type {ClientView} from '../engine/clients/clients.js';
import type {SeriesView} from '../engine/upstream/metrics.js';
import type {ApprovalPlan} from '../engine/upstream/tool-list.js';
import type {LogLine} from '../link/log-buffer.js';
import type {Supervisor} from '../engine/supervisor.js';
import {configView, otherSupervisorViews, statusEntries, upstreamDetails, type OtherSupervisorView, type StatusEntry, type UpstreamDetails} from './views.js';

/**
 * What the current screen shows beyond the list: an upstream's details or
 * log, or the attached clients (always read, for the header's count, but
 * only their own screen shows them one by one).
 */
export type Focus = {name: string; want: 'details' | 'logs'} | {want: 'clients'} | CallsFocus | undefined;

/**
 * The calls view: the calls that match `filter` (see `callMatches`), a
 * window of at most `limit` of them around the selected one (`at`, a seq;
 * none: the newest), and with `open`, one call's arguments and result.
 */
export type CallsFocus = {want: 'calls'; filter?: string | undefined; at?: number | undefined; open?: number | undefined; limit?: number | undefined};

/** A window of the calls log, newest first. */
export type CallsWindow = {
	rows: CallLogEntry[];
	/** How many matching calls are newer than `rows[0]`. */
	offset: number;
	/** Matching calls held in all. */
	total: number;
	/** Calls held (matching or not), and how many the log keeps. */
	held: number;
	limit: number;
	/** The call asked for with `open`, while it is held. */
	open: CallLogDetail | undefined;
};

/** Rows of the calls log a calls view gets at most (more than a screen, so moving a page stays in the window). */
export const callsWindowLimit = 200;

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
	config: {
		drift: string | null;
		lastReload: {at: string; outcome: string; summary: string} | null;
		/** Another supervisor runs this config from another state dir: what to do (see supervisor-registry.ts); absent from an older supervisor. */
		others?: string | null;
	};
	/** Calls, failures and p95 per 5 s over the last 5 minutes, for each upstream called in that time (the others were idle). */
	history: Readonly<Record<string, SeriesView>>;
	/** Estimated tokens of the definitions a client receives (see context-cost.ts): under the configured exposure, and under each. */
	context: {exposure: 'direct' | 'search'; current: number; direct: number; search: number};
	/** Set when the focus wants calls. */
	calls?: CallsWindow | undefined;
};

/** Log lines a full-screen log view asks for at most (the buffer holds `hangar.logLines`). */
export const logViewLines = 10_000;

/** The upstream a focus names, when the supervisor has it. */
function focusedUpstream(supervisor: Supervisor, focus: Focus): {name: string; want: 'details' | 'logs'} | undefined {
	return focus !== undefined && 'name' in focus && supervisor.upstreams.has(focus.name) ? focus : undefined;
}

/** Everything the screen with `focus` shows, read from memory now (never waits on an upstream). */
export function consoleSnapshot(supervisor: Supervisor, focus: Focus): ConsoleSnapshot {
	const toolNames: Record<string, readonly string[]> = {};
	for (const [name, upstream] of supervisor.upstreams) toolNames[name] = upstream.tools.map(tool => tool.name);
	const upstream = focusedUpstream(supervisor, focus);
	let logs: LogLines | undefined;
	if (upstream?.want === 'logs') {
		const log = supervisor.upstream(upstream.name).log;
		const tail = log.tail(logViewLines);
		// Lines held but not shown (when the buffer holds more than the view asks for) count as before the first.
		logs = {lines: tail, first: log.droppedLines + log.size - tail.length};
	}

	const history: Record<string, SeriesView> = {};
	const now = Date.now();
	for (const [name, upstream] of supervisor.upstreams) {
		if (upstream.metrics.calledLately(now)) history[name] = upstream.metrics.series(now)!;
	}

	const cost = supervisor.contextCost();
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
		history,
		context: {exposure: cost.exposure, current: cost.current, direct: cost.direct, search: cost.search},
		...(focus?.want === 'calls' ? {calls: callsWindow(supervisor.calls, focus)} : {}),
	};
}

/** What a calls view with `focus` shows of `log`: the window of matching calls around the selected one, and the opened call. */
export function callsWindow(log: CallLog, focus: CallsFocus): CallsWindow {
	const filter = focus.filter ?? '';
	const matching = log.newest(log.limit, filter === '' ? undefined : entry => callMatches(entry, filter));
	const limit = Math.max(1, Math.min(focus.limit ?? callsWindowLimit, log.limit));
	let index = focus.at === undefined ? 0 : matching.findIndex(entry => entry.seq <= focus.at!);
	// The selected call fell off the log (or the filter hides it): the window ends at the oldest held.
	if (index === -1) index = Math.max(0, matching.length - 1);
	const offset = Math.max(0, Math.min(index - Math.floor(limit / 2), matching.length - limit));
	return {
		rows: matching.slice(offset, offset + limit),
		offset,
		total: matching.length,
		held: log.size,
		limit: log.limit,
		open: focus.open === undefined ? undefined : log.get(focus.open),
	};
}

/** The other supervisors as last read, per supervisor: a screen redrawn many times a second lists the registry at most once a second. */
const othersRead = new WeakMap<Supervisor, {at: number; others: OtherSupervisorView[]}>();

function recentOthers(supervisor: Supervisor, fresh: () => OtherSupervisorView[]): OtherSupervisorView[] {
	const now = Date.now();
	const last = othersRead.get(supervisor);
	if (last !== undefined && now - last.at < 1000) return last.others;
	const others = fresh();
	othersRead.set(supervisor, {at: now, others});
	return others;
}

function configState(supervisor: Supervisor): ConsoleSnapshot['config'] {
	const view = configView(supervisor, {readOthers: false});
	const last = view.reloads.at(-1);
	const others = recentOthers(supervisor, () => otherSupervisorViews(supervisor));
	return {
		drift: view.drift?.message ?? null,
		lastReload: last === undefined ? null : {at: last.at, outcome: last.outcome, summary: last.summary},
		others: others.length === 0 ? null : others.map(other => other.advice).join('; '),
	};
}

/**
 * What approving each quarantined upstream would pin now: what a console
 * needs to ask before lifting one. Plans, not sentences, so each console
 * phrases the times with its own clock.
 */
export function quarantinedApprovalPlans(supervisor: Supervisor): Record<string, ApprovalPlan> {
	const plans: Record<string, ApprovalPlan> = {};
	for (const [name, upstream] of supervisor.upstreams) {
		if (upstream.state === 'quarantined') plans[name] = upstream.approvalPlan;
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
		const upstream = focus !== undefined && 'name' in focus ? supervisor.upstreams.get(focus.name) : undefined;
		offLog = upstream?.log.onLine(onEvent);
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
