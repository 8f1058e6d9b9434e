/**
 * The views every surface reads: `hangar_list` entries, an upstream's
 * details, and tool search hits. The TUI, the management tools, the CLI and
 * the exposed tool list all derive from the same supervisor state through
 * these functions, so what one shows another cannot contradict.
 *
 * Everything is answered from memory, never by asking an upstream. Times are
 * ISO strings; cached facts carry the time they were verified. Text that can
 * carry a secret (errors, reasons, the launch command line or URL) is masked
 * here, once for every surface.
 */
import type {BreakerState} from '../engine/upstream/circuit-breaker.js';
import {CallSeries, type SeriesView} from '../engine/upstream/metrics.js';
import {toolTokens} from '../engine/upstream/context-cost.js';
import type {ConfigDrift, ReloadRecord} from '../engine/config/running-config.js';
import type {HangarConfig, ToolDefinition} from '../config/read-config.js';
import {describeApproval, type ToolChange} from '../engine/upstream/pins.js';
import type {AdminState, Upstream, ToolsSource} from '../engine/upstream/upstream.js';
import type {UpstreamEvent, UpstreamState} from '../engine/upstream/upstream-state.js';
import type {Supervisor} from '../engine/supervisor.js';
import {otherSupervisorAdvice, otherSupervisors} from '../engine/supervisor-registry.js';
import type {InstanceModeView} from '../engine/clients/instance-mode.js';
import type {EraView} from '../engine/upstream/upstream-era.js';
import type {NameClash} from '../engine/routing/router.js';
import type {CatalogSource, ServerCapabilities} from '../engine/upstream/catalog.js';
import type {OutputDrops, OutputSource} from '../link/log-buffer.js';
import {maskArgs, maskText} from '../base/secret-mask.js';
import {logFileFailures} from '../base/logger.js';
import {saveAdvice} from '../engine/state-files.js';
import {signInAttemptOf, type SignInAttempt} from '../engine/sign-in-start.js';

export type StatusEntry = {
	name: string;
	state: UpstreamState;
	/** What a person (or the config) set: quarantined, stopped and disabled upstreams never start on demand. */
	admin: AdminState;
	/** A call would be routed right now, without a start. */
	ready: boolean;
	/** A call would be attempted (ready, or startable on demand) rather than refused. */
	callable: boolean;
	/** The tool list is from a previous run or the config, or older than the refresh interval (never listed: false, and toolsSource is "none": not listed yet). */
	stale: boolean;
	breaker: BreakerState;
	pid: number | null;
	transport: 'stdio' | 'remote';
	tools: number;
	toolsSource: ToolsSource;
	calls: number;
	/** Calls that failed (timeouts, crashes, transport errors); refusals are not counted. */
	failures: number;
	consecutiveFailures: number;
	/** Tool results with isError (the tool answered; not an upstream failure). */
	toolErrors: number;
	inFlight: number;
	latencyMs: {p50: number | null; p95: number | null};
	lastError: string | null;
	/** When the tool list was last read from the upstream itself. */
	lastVerifiedAt: string | null;
	/** When hangar retries by itself (probe when degraded, restart when dead). */
	nextRetryAt: string | null;
	/** When it entered its current state. */
	stateSince: string;
	/** Seconds since it started, while running. */
	upSeconds: number | null;
	/** Seconds since its last call began or ended, while running. */
	idleSeconds: number | null;
	restarts: number;
	quarantineReason: string | null;
	/** A sign-in a person started (the TUI's key): waiting for the browser, or failed and why; absent when none is under way or the last one succeeded. */
	signIn?: SignInAttempt | undefined;
	/**
	 * A server with `"instances": "per-client"`: one entry per client session
	 * running an instance of it, oldest session first. The fields above are
	 * the template's (its tool list, what people act on), except the server's
	 * totals: calls, failures and toolErrors count the template and every
	 * instance ever run under it (including those whose session closed),
	 * inFlight the template's and the live instances', and latencyMs is over
	 * their merged recent calls (`serverEntry`, instance-totals.ts). Each
	 * instance's own calls, pid and breaker are below. Absent for a shared server.
	 */
	instances?: InstanceEntry[];
	/** A dual-era server's era twin (its 2026-07-28 mode, for 2026-07-28 clients: engine/clients/era-twins.ts), while one exists; absent otherwise. */
	eraTwin?: Omit<InstanceEntry, 'client'>;
	/** How many instances run ("instances": auto, shared or per-client) and what an "auto" one learned; set on a server's entry (`serverEntry`). */
	instanceMode?: InstanceModeView;
	/** Which protocol generation it speaks (2026-07-28 "modern", 2025 "legacy", or both: "dual"), as its last probe with server/discover found; era null: not known yet. */
	era: EraView;
	/** Estimated tokens of its exposed tool and prompt definitions in a client's context (see context-cost.ts; 0 when none are exposed). */
	contextTokens: number;
};

/** One instance of a per-client server (see StatusEntry.instances). */
export type InstanceEntry = Pick<StatusEntry, 'name' | 'state' | 'breaker' | 'pid' | 'calls' | 'failures' | 'inFlight' | 'restarts' | 'upSeconds' | 'idleSeconds' | 'lastError'> & {
	/** The client session it serves: its label, and the client's name once known. */
	client: string;
};

/**
 * ISO strings of times already formatted. Most times in a status stay the
 * same from one call to the next (when each upstream entered its state, when
 * its tools were verified), and formatting them anew was about a sixth of
 * hangar's work per hangar_list with 200 upstreams. Cleared when it grows
 * past a bound.
 */
const isoStrings = new Map<number, string>();
const isoStringsBound = 4096;

function isoString(ms: number): string {
	let text = isoStrings.get(ms);
	if (text === undefined) {
		if (isoStrings.size >= isoStringsBound) isoStrings.clear();
		text = new Date(ms).toISOString();
		isoStrings.set(ms, text);
	}

	return text;
}

const iso = (ms: number | undefined): string | null => (ms === undefined ? null : isoString(ms));
const masked = (text: string | undefined): string | null => (text === undefined ? null : maskText(text));
const secondsSince = (ms: number, now: number): number => Math.max(0, Math.round((now - ms) / 1000));

const maskedAttempt = (attempt: SignInAttempt | undefined): SignInAttempt | undefined => (attempt?.state === 'failed' ? {...attempt, reason: maskText(attempt.reason)} : attempt);

/** `tokens`: its share of the context cost (`Supervisor.contextCost().upstreams[name]`), when known. */
export function statusEntry(upstream: Upstream, now = Date.now(), tokens?: {tools: number; prompts: number}): StatusEntry {
	const snapshot = upstream.snapshot();
	const running = snapshot.state === 'ready' || snapshot.state === 'degraded';
	return {
		name: snapshot.name,
		state: snapshot.state,
		admin: upstream.admin,
		ready: snapshot.state === 'ready',
		callable: upstream.callable,
		stale: upstream.toolsStale,
		breaker: snapshot.breaker,
		pid: snapshot.pid ?? null,
		transport: snapshot.transport,
		tools: snapshot.tools,
		toolsSource: snapshot.toolsSource,
		calls: snapshot.calls,
		failures: snapshot.failures,
		consecutiveFailures: snapshot.consecutiveFailures,
		toolErrors: snapshot.toolErrors,
		inFlight: snapshot.inFlight,
		latencyMs: {p50: snapshot.latencyMs.p50 ?? null, p95: snapshot.latencyMs.p95 ?? null},
		lastError: masked(snapshot.lastError),
		lastVerifiedAt: iso(snapshot.lastVerifiedAt),
		nextRetryAt: iso(snapshot.nextRetryAt),
		stateSince: isoString(snapshot.stateSince),
		upSeconds: running && snapshot.startedAt !== undefined ? secondsSince(snapshot.startedAt, now) : null,
		idleSeconds: running ? (snapshot.inFlight > 0 ? 0 : secondsSince(upstream.idleSince, now)) : null,
		restarts: snapshot.restarts,
		quarantineReason: masked(upstream.quarantineInfo?.reason),
		signIn: maskedAttempt(signInAttemptOf(upstream)),
		era: upstream.era,
		contextTokens: tokens === undefined ? 0 : tokens.tools + tokens.prompts,
	};
}

/** A server's entry as every surface shows it: `statusEntry`, with a per-client server's instances. */
export function serverEntry(supervisor: Supervisor, upstream: Upstream, now = Date.now()): StatusEntry {
	const entry = statusEntry(upstream, now, supervisor.contextCost().upstreams[upstream.name]);
	entry.instanceMode = supervisor.instanceModes.view(upstream);
	// The server's counts are its instances' and its era twin's too, those that have stopped included: they never go down when a client leaves.
	const twin = supervisor.eraTwins.twinOf(upstream);
	const live = supervisor.instancesOf(upstream.name).map(instance => instance.upstream);
	const totals = supervisor.instanceTotals.of(upstream, twin === undefined ? live : [...live, twin]);
	if (totals !== undefined) Object.assign(entry, totals);
	if (twin !== undefined) {
		const {name, state, breaker, pid, calls, failures, inFlight, restarts, upSeconds, idleSeconds, lastError} = statusEntry(twin, now);
		entry.eraTwin = {name, state, breaker, pid, calls, failures, inFlight, restarts, upSeconds, idleSeconds, lastError};
	}

	if (entry.instanceMode.runs !== 'per-client') return entry;
	entry.instanceMode.limit = supervisor.config.hangar.maxInstancesPerServer;
	entry.instances = supervisor.instancesOf(upstream.name).map(({upstream: instance, client}) => {
		const {name, state, breaker, pid, calls, failures, inFlight, restarts, upSeconds, idleSeconds, lastError} = statusEntry(instance, now);
		return {name, client: client.name === null ? client.label : `${client.label} ("${client.name}")`, state, breaker, pid, calls, failures, inFlight, restarts, upSeconds, idleSeconds, lastError};
	});
	return entry;
}

export function statusEntries(supervisor: Supervisor): StatusEntry[] {
	const now = Date.now();
	return [...supervisor.upstreams.values()].map(upstream => serverEntry(supervisor, upstream, now));
}

export type ToolDetail = {
	/** The upstream's own name. */
	name: string;
	/** `<namespace>__<tool>` (or its own name) as clients see it in direct exposure; null when another upstream keeps that name (see `clashes`). */
	exposedName: string | null;
	title: string | null;
	description: string | null;
	inputSchema: Record<string, unknown>;
	outputSchema: Record<string, unknown> | null;
	annotations: Record<string, unknown> | null;
	calls: number;
	failures: number;
	latencyMs: {p50: number | null; p95: number | null};
	/** Whether this tool's definition is pinned (see `pins`). */
	pinned: boolean;
	/** Estimated tokens of its definition as clients list it (see context-cost.ts). */
	tokens: number;
	/** Its calls, failures and p95 per 5 s over the last 5 minutes; null when not called in that time. */
	history: SeriesView | null;
};

export type TransitionView = {at: string; from: UpstreamState; to: UpstreamState; event: UpstreamEvent; reason: string};
export type CallView = {at: string; tool: string; ms: number; ok: boolean; error: string | null};
export type ErrorView = {at: string; source: 'call' | 'lifecycle'; message: string};
export type LogView = {at: string; source: 'stderr' | 'stdout' | 'hangar'; text: string};

export type UpstreamDetails = {
	server: StatusEntry;
	/** How it is launched: the command line (no env values), or the URL, with secrets masked. */
	launch: string;
	tools: ToolDetail[];
	/** Tools it lists that its config entry's includeTools/excludeTools keep from every surface, each with the rule that does. */
	filteredTools: Array<{name: string; rule: string}>;
	/** Why its config entry cannot be used (state invalid), else null. */
	invalid: string | null;
	/** The last 50 state transitions, oldest first. */
	transitions: TransitionView[];
	/** The last 50 calls, oldest first. */
	recentCalls: CallView[];
	/** Its calls, failures and p95 latency per 5 s over the last 5 minutes (a fixed-size ring in the engine). */
	history: SeriesView;
	/** Failed calls and lifecycle failures (crash, start failure, breaker), oldest first. */
	recentErrors: ErrorView[];
	/** The tail of its stderr (and stray stdout), oldest first. */
	stderr: LogView[];
	/** Output it wrote faster than hangar keeps it, read and dropped since hangar started (see log-buffer.ts). */
	droppedOutput: Record<OutputSource, OutputDrops>;
	/** Why it is quarantined and, after a rug pull, what changed. */
	quarantine: {
		reason: string;
		at: string | null;
		changes: ToolChange[];
		/** What a person's approval would pin (the same sentence its answer gives). */
		approvalPins: string;
	} | null;
	/** How its tools were pinned (at their first listing, or by a person's approval), when, and how many (null: not known yet). */
	pins: {by: 'first-use' | 'approval'; pinnedAt: string; approvedAt: string | null; tools: number | null} | null;
	/** What it answered initialize with, this run or cached (null: never known), where its catalog came from and when it was read. */
	capabilities: ServerCapabilities | null;
	catalogSource: CatalogSource;
	catalogVerifiedAt: string | null;
	/** Its resources, each with its own URI and the one clients see (different when another upstream owns the URI). */
	resources: Array<{uri: string; exposedUri: string; name: string; description: string | null; mimeType: string | null}>;
	resourceTemplates: Array<{uriTemplate: string; exposedUriTemplate: string; name: string; description: string | null}>;
	/** Its prompts, with the name clients see (null when another upstream keeps that name). */
	prompts: Array<{name: string; exposedName: string | null; description: string | null; arguments: string[]}>;
	/** Name clashes it is part of, as owner or as the one left out. */
	clashes: NameClash[];
	/** Config reloads that added or changed this upstream, oldest first. */
	reloads: ReloadView[];
};

export type ReloadView = {at: string; trigger: string; outcome: ReloadRecord['outcome']; summary: string; error: string | null};

export type DriftView =
	| {state: 'invalid'; since: string; error: string; message: string}
	| {state: 'pending'; since: string; message: string}
	| {state: 'restart'; since: string; settings: string[]; message: string};

/** The config behind the supervisor: the file, when it was last applied, whether the file on disk says otherwise, the last reloads. */
export type ConfigView = {
	path: string;
	appliedAt: string;
	/** Null when the file on disk is what runs. */
	drift: DriftView | null;
	/** The last reloads, oldest first (at most 20). */
	reloads: ReloadView[];
	state: StateView;
	/** What the loader tolerated in the running config: `error` (an entry made invalid, a setting ignored) or `notice` (another client's key, ignored). */
	issues: ConfigIssueView[];
};

export type ConfigIssueView = {path: string; message: string; severity: 'error' | 'notice'};

export function configIssueViews(config: HangarConfig): ConfigIssueView[] {
	return config.issues.map(issue => ({path: issue.path, message: maskText(issue.message), severity: issue.severity ?? 'error'}));
}

/** The state dir as this supervisor holds it: whether it saves there, and what reading it found wrong. */
export type StateView = {
	dir: string;
	/** False while another hangar process writes the dir: quarantine and approve are refused until this one takes it over. */
	writer: boolean;
	writerPid: number | null;
	/** Fields of state.json dropped at load (or at a takeover) and why; empty when it read cleanly. */
	problems: string[];
	/** Files of the state dir this supervisor fails to write now (state.json, quarantine.json, hangar.log): the error, since when, what to do. Empty once writes succeed. */
	writeFailures: WriteFailureView[];
	/** Per upstream, what its record in state.json leaves out for its size ("name: ..."). */
	notWritten: string[];
	/** Other live supervisors of the same config in another state dir (see supervisor-registry.ts), each with what to do. */
	others: OtherSupervisorView[];
};

export type WriteFailureView = {file: string; error: string; since: string; advice: string; lostLines?: number | undefined};

export type OtherSupervisorView = {pid: number; kind: string; stateDir: string; socket: string | null; startedAt: string; advice: string};

/** The other supervisors of `supervisor`'s config, read now (a directory listing). */
export function otherSupervisorViews(supervisor: Supervisor): OtherSupervisorView[] {
	return otherSupervisors(supervisor.config.path, supervisor.store.dir).map(entry => ({
		pid: entry.pid,
		kind: entry.kind,
		stateDir: entry.stateDir,
		socket: entry.socket ?? null,
		startedAt: entry.startedAt,
		advice: otherSupervisorAdvice(entry),
	}));
}

/** `readOthers: false` leaves `others` empty, for a caller that reads them itself. */
export function stateView(supervisor: Supervisor, readOthers = true): StateView {
	const store = supervisor.store;
	const failure = (file: string, error: string, code: string | undefined, since: number, lostLines?: number): WriteFailureView => ({file, error, since: isoString(since), advice: saveAdvice(code, error), lostLines});
	const written = store.writeFailure;
	const failures = [
		...(written === undefined ? [] : [failure(written.file, written.error, written.code, written.since)]),
		...logFileFailures().map(log => failure(log.file, log.error, log.code, log.since, log.lostLines)),
	];
	return {
		dir: store.dir,
		writer: store.isWriter,
		writerPid: store.writerPid ?? null,
		problems: [...store.problems],
		writeFailures: failures,
		notWritten: store.notWritten,
		others: readOthers ? otherSupervisorViews(supervisor) : [],
	};
}

function reloadView(record: ReloadRecord): ReloadView {
	return {at: isoString(record.at), trigger: record.trigger, outcome: record.outcome, summary: record.summary, error: record.error};
}

/** One sentence on how the file differs from what runs, with what to do. */
export function driftView(drift: ConfigDrift | undefined, file: string): DriftView | null {
	if (drift === undefined) return null;
	const since = isoString(drift.since);
	switch (drift.state) {
		case 'invalid': {
			const first = drift.error.split('\n').slice(1, 4).map(line => line.trim()).join(' ');
			return {state: 'invalid', since, error: drift.error, message: `${file} changed but does not validate, so it was not applied: the previous config still runs (${first || drift.error}). Fix the file; it is reloaded when saved.`};
		}

		case 'pending': {
			return {state: 'pending', since, message: `${file} changed and has not been reloaded yet: the previous config still runs. Run \`mcp-hangar reload\` to apply it now.`};
		}

		case 'restart': {
			return {state: 'restart', since, settings: drift.settings, message: `${drift.settings.join(', ')} changed in ${file}, which only a restart of hangar applies; the rest of the file runs.`};
		}
	}
}

export function configView(supervisor: Supervisor, options: {check?: boolean; readOthers?: boolean} = {}): ConfigView {
	const file = supervisor.configFile;
	return {
		path: supervisor.config.path,
		appliedAt: isoString(file.appliedAt),
		drift: driftView(options.check === true ? file.check() : file.drift, supervisor.config.path),
		reloads: file.reloads.map(record => reloadView(record)),
		state: stateView(supervisor, options.readOthers ?? true),
		issues: configIssueViews(supervisor.config),
	};
}

const failureEvents: ReadonlySet<UpstreamEvent> = new Set(['start_failed', 'crashed', 'trip', 'probe_failed']);

export function upstreamDetails(supervisor: Supervisor, name: string, limits: {transitions?: number; calls?: number; stderr?: number} = {}): UpstreamDetails {
	const upstream = supervisor.upstream(name);
	const launch = upstream.config.launch;
	const transitions = upstream.transitions.slice(-(limits.transitions ?? 50));
	const calls = upstream.history.recent().slice(-(limits.calls ?? 50));
	const errors: ErrorView[] = [
		...calls.filter(call => !call.ok).map(call => ({at: call.at, source: 'call' as const, message: maskText(`${call.tool}: ${call.error ?? 'failed'}`)})),
		...upstream.transitions.filter(record => failureEvents.has(record.event)).map(record => ({at: record.at, source: 'lifecycle' as const, message: maskText(record.reason)})),
	]
		.sort((a, b) => a.at - b.at)
		.slice(-20)
		.map(error => ({...error, at: new Date(error.at).toISOString()}));
	const quarantine = upstream.quarantineInfo;
	const pins = upstream.pins;
	const now = Date.now();
	return {
		server: serverEntry(supervisor, upstream, now),
		launch:
			launch.kind === 'stdio'
				? [maskText(launch.command), ...maskArgs(launch.args)].map(part => (/\s/.test(part) ? JSON.stringify(part) : part)).join(' ')
				: maskText(launch.url),
		tools: upstream.tools.map(tool => toolDetail(supervisor, upstream, tool, now)),
		filteredTools: upstream.toolList.filtered.map(tool => ({...tool})),
		invalid: upstream.config.invalid === undefined ? null : maskText(upstream.config.invalid),
		transitions: transitions.map(record => ({at: new Date(record.at).toISOString(), from: record.from, to: record.to, event: record.event, reason: maskText(record.reason)})),
		recentCalls: calls.map(call => ({at: new Date(call.at).toISOString(), tool: call.tool, ms: Math.round(call.ms * 10) / 10, ok: call.ok, error: masked(call.error)})),
		history: upstream.metrics.series(now) ?? emptySeries.view(now),
		recentErrors: errors,
		stderr: upstream.log
			.tail(limits.stderr ?? 50)
			.filter(line => line.source !== 'hangar')
			.map(line => ({at: new Date(line.at).toISOString(), source: line.source, text: line.text})),
		droppedOutput: upstream.log.dropped,
		quarantine:
			quarantine === undefined
				? null
				: {reason: maskText(quarantine.reason), at: iso(quarantine.at), changes: quarantine.changes, approvalPins: describeApproval(upstream.approvalPlan)},
		pins: pins === undefined ? null : {by: pins.by, pinnedAt: new Date(pins.pinnedAt).toISOString(), approvedAt: iso(pins.approvedAt), tools: pins.tools ?? null},
		...catalogDetails(supervisor, upstream),
		reloads: supervisor.configFile.reloads
			.filter(record => record.diff !== null && (record.diff.added.includes(name) || record.diff.changed.some(change => change.name === name)))
			.map(record => reloadView(record)),
	};
}

const text = (value: unknown): string | null => (typeof value === 'string' ? value : null);

function catalogDetails(supervisor: Supervisor, upstream: Upstream): Pick<UpstreamDetails, 'capabilities' | 'catalogSource' | 'catalogVerifiedAt' | 'resources' | 'resourceTemplates' | 'prompts' | 'clashes'> {
	const router = supervisor.router;
	const catalog = upstream.catalog;
	const exposedTemplates = new Map(router.resourceTemplates().filter(template => template.server === upstream.name).map(template => [template.own, template.uriTemplate]));
	return {
		capabilities: catalog.capabilities ?? null,
		catalogSource: catalog.source,
		catalogVerifiedAt: iso(catalog.verifiedAt),
		resources: catalog.resources.map(resource => ({
			uri: resource.uri,
			exposedUri: router.exposeUri(upstream.name, resource.uri),
			name: resource.name,
			description: text(resource['description']),
			mimeType: text(resource['mimeType']),
		})),
		resourceTemplates: catalog.resourceTemplates.map(template => ({
			uriTemplate: template.uriTemplate,
			exposedUriTemplate: exposedTemplates.get(template.uriTemplate) ?? template.uriTemplate,
			name: template.name,
			description: text(template['description']),
		})),
		prompts: catalog.prompts.map(prompt => ({
			name: prompt.name,
			exposedName: router.exposedNameOf('prompt', upstream.name, prompt.name) ?? null,
			description: prompt.description ?? null,
			arguments: (prompt.arguments ?? []).map(argument => argument.name),
		})),
		clashes: router.clashes().filter(clash => clash.owner === upstream.name || clash.shadowed.includes(upstream.name)),
	};
}

/** What a series without calls reads as. */
const emptySeries = new CallSeries();

function toolDetail(supervisor: Supervisor, upstream: Upstream, tool: ToolDefinition, now: number): ToolDetail {
	const toolMetrics = upstream.history.byTool.get(tool.name);
	const metrics = toolMetrics?.snapshot();
	const exposedName = supervisor.router.exposedNameOf('tool', upstream.name, tool.name) ?? null;
	return {
		name: tool.name,
		exposedName,
		title: tool.title ?? null,
		description: tool.description ?? null,
		inputSchema: tool.inputSchema ?? {type: 'object'},
		outputSchema: tool.outputSchema ?? null,
		annotations: tool.annotations ?? null,
		calls: metrics?.calls ?? 0,
		failures: metrics?.failures ?? 0,
		latencyMs: {p50: metrics?.latencyMs.p50 ?? null, p95: metrics?.latencyMs.p95 ?? null},
		pinned: upstream.toolList.pinOf(tool.name) === 'pinned',
		tokens: exposedName === null || upstream.admin !== 'enabled' ? 0 : toolTokens(exposedName, tool),
		history: toolMetrics?.calledLately(now) === true ? (toolMetrics.series(now) ?? null) : null,
	};
}

export type PromptHit = {
	/** The prompt's exposed name: what prompts/get takes. */
	name: string;
	server: string;
	/** The upstream's own name. */
	prompt: string;
	description: string | null;
	arguments: Array<{name: string; required: boolean}>;
	score: number;
	state: UpstreamState;
};

/** The same search over the exposed prompts, so a client in search exposure finds them too. */
export function findPrompts(supervisor: Supervisor, query: string, limit = 10): PromptHit[] {
	return supervisor.router.searchPrompts(query, limit).map(({tool: prompt, score}) => ({
		name: prompt.name,
		server: prompt.server,
		prompt: prompt.prompt,
		description: prompt.definition.description ?? null,
		arguments: (prompt.definition.arguments ?? []).map(argument => ({name: argument.name, required: argument.required === true})),
		score,
		state: supervisor.upstream(prompt.server).state,
	}));
}

export type ToolHit = {
	/** `<server>__<tool>`: the name to call in direct exposure. */
	name: string;
	server: string;
	/** The upstream's own name: what hangar_call takes. */
	tool: string;
	title: string | null;
	description: string | null;
	inputSchema: Record<string, unknown>;
	/** 0..1, higher is a better match. */
	score: number;
	state: UpstreamState;
	callable: boolean;
	stale: boolean;
	lastVerifiedAt: string | null;
};

/** Fuzzy tool search across every upstream whose tools are exposed (quarantined, disabled and stopped ones are not). */
export function findTools(supervisor: Supervisor, query: string, limit = 10): ToolHit[] {
	return supervisor.searchTools(query, limit).map(({tool, score}) => {
		const upstream = supervisor.upstream(tool.server);
		return {
			name: tool.name,
			server: tool.server,
			tool: tool.tool,
			title: tool.definition.title ?? null,
			description: tool.definition.description ?? null,
			inputSchema: tool.definition.inputSchema ?? {type: 'object'},
			score,
			state: upstream.state,
			callable: upstream.callable,
			stale: upstream.toolsStale,
			lastVerifiedAt: iso(upstream.toolList.verifiedAt),
		};
	});
}
