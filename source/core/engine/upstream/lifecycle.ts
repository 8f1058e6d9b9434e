/**
 * One upstream's lifecycle outside the state table itself: it opens the
 * connection (a start, with its timeout, the first tool list and catalog
 * read, and the pin check), notices when it closes (a crash), plans the
 * automatic restart within the restart budget, and stops it (closing the
 * process: stdin, SIGTERM, SIGKILL). It owns what these leave behind: the
 * connection, the start and stop in progress, the last exit, the restart
 * time and count, and a launch problem no retry can fix.
 *
 * Every change of state is a transition of the upstream's machine
 * (upstream-state.ts), applied here with its reason; nothing assigns a state.
 */
import type {Clock} from '../../base/clock.js';
import {HangarError, errorMessage} from '../../base/errors.js';
import {describeShortage} from '../../base/resource-limits.js';
import type {HangarSettings, ServerConfig, ToolDefinition} from '../../config/read-config.js';
import {describeExit, type ExitInfo} from '../../link/child-process-transport.js';
import type {ClientSide} from '../../link/client-side.js';
import {ConnectionLostError, listMethods, type OpenConnection, type UpstreamConnection} from '../../link/connection.js';
import {diagnoseSpawnFailure, SpawnError, type LaunchProblem} from '../../link/launch-problem.js';
import {UnsupportedServerVersion} from '../../link/modern-mode.js';
import {attemptStderr, stderrLinesRead, stderrSummary, type LogBuffer} from '../../link/log-buffer.js';
import {rugPulled, seconds, startFailed, startInterrupted, unavailable} from '../refusals.js';
import {hasWorkingSignIn, signInNeededIn} from '../../link/oauth-bearer.js';
import {AbortReason, abortable, type ProgressRelay} from './call-path.js';
import {catalogKinds, servesKind, type CatalogKind, type CatalogLists, type ServerCapabilities} from './catalog.js';
import type {CircuitBreaker} from './circuit-breaker.js';
import {type CallMetrics, quarantinedPrefix} from './metrics.js';
import {pinTools, rugPullReason, type ToolChange} from './pins.js';
import type {RestartPolicy} from './restart-policy.js';
import {RugPull, type ToolList} from './tool-list.js';
import type {UpstreamRecord} from './upstream-record.js';
import {startDeadline, type StartDeadline} from './start-deadline.js';
import {StartSteps} from './start-steps.js';
import {runningStates, type StopTarget, type UpstreamEvent, type UpstreamMachine, type UpstreamState} from './upstream-state.js';
import type {UpstreamTimers} from './upstream-timers.js';
import {eraHint, nextVerdict} from './upstream-era.js';

/** The catalog a fresh connection serves: its capabilities and every list they say it has. */
export type OpenedCatalog = {capabilities: ServerCapabilities; lists: Partial<CatalogLists>};

/** What the lifecycle tells the rest of the upstream. */
export type LifecycleEvents = {
	/** A start read these lists and passed the pin check: take them (called before `started`). */
	opened(tools: ToolDefinition[], catalog: OpenedCatalog): void;
	/** It became ready (a start): arm the health ping and the idle stop. */
	ready(): void;
	/** The connection of a running upstream closed: its timers are void. */
	gone(): void;
	/** The upstream said a list changed, or a watched resource did. */
	toolsChanged(meta: Record<string, unknown> | undefined): void;
	listChanged(kinds: CatalogKind[], why: string, meta: Record<string, unknown> | undefined): void;
	resourceUpdated(uri: string, meta: Record<string, unknown> | undefined): void;
	/** The upstream's notifications/tasks/status params. */
	taskStatus(params: Record<string, unknown>): void;
	/** Progress for one of its tasks after the CreateTaskResult (ConnectionEvents.onTaskProgress). */
	taskProgress(upstreamTaskId: string, progress: Record<string, unknown>): void;
	/** Hangar's id for one of the upstream's task ids (see ConnectionEvents.exposedTaskId). */
	exposedTaskId(upstreamTaskId: string): string | undefined;
};

export type LifecycleDeps = {
	name: string;
	config: ServerConfig;
	settings: HangarSettings;
	machine: UpstreamMachine;
	breaker: CircuitBreaker;
	restartPolicy: RestartPolicy;
	timers: UpstreamTimers;
	metrics: CallMetrics;
	log: LogBuffer;
	record: UpstreamRecord;
	/** Checks a fresh list against the pins. */
	toolList: Pick<ToolList, 'pinnedChanges'>;
	clock: Clock;
	openConnection: OpenConnection;
	clientSide: ClientSide | undefined;
	/** An era twin's: always opened in its 2026-07-28 mode, and the server's saved era verdict is left as it is (engine/clients/era-twins.ts). */
	eraPin?: 'modern' | undefined;
	events: LifecycleEvents;
};

const settleEvent: Record<StopTarget, UpstreamEvent> = {
	cold: 'settle_cold',
	stopped: 'settle_stopped',
	quarantined: 'settle_quarantined',
	disabled: 'settle_disabled',
};

export class Lifecycle {
	/** Its last failure's restart plan ("restarting in 8 s"): a refusal says the time still ahead instead. */
	private plan = '';
	private current: UpstreamConnection | undefined;
	private startPromise: Promise<UpstreamConnection> | undefined;
	private startAbort: AbortController | undefined;
	private stopPromise: Promise<void> | undefined;
	/** Where a stop in progress lands. */
	private stopTarget: StopTarget | undefined;
	private exit: ExitInfo | undefined;
	/** When the automatic restart runs (only while dead). */
	private restartTime: number | undefined;
	private restarts = 0;
	private started: number | undefined;
	/** Set when its last start failed for a reason a retry cannot fix (see launch-problem.ts). */
	private permanent: LaunchProblem | undefined;
	private disposed = false;
	/** Starts in a row that ran out of time: each doubles the next one's deadline (see start-deadline.ts). */
	private timeoutsInARow = 0;
	/** The deadline of the start in progress. */
	private deadline: StartDeadline | undefined;

	constructor(private readonly deps: LifecycleDeps) {
		const persisted = deps.record.read().lastExit;
		if (persisted !== undefined) this.exit = {code: persisted.code, signal: persisted.signal, at: persisted.at};
	}

	get state(): UpstreamState {
		return this.deps.machine.state;
	}

	/** The live connection, once a start handed it out and until it closes or stops. */
	connection(): UpstreamConnection | undefined {
		return this.current;
	}

	/** The start in progress, while starting. */
	get starting(): Promise<UpstreamConnection> | undefined {
		return this.startPromise;
	}

	/** The stop in progress, while stopping. */
	get stopping(): Promise<void> | undefined {
		return this.stopPromise;
	}

	/** Where the stop in progress lands (only while stopping). */
	get stoppingTo(): StopTarget | undefined {
		return this.state === 'stopping' ? this.stopTarget : undefined;
	}

	get lastExit(): ExitInfo | undefined {
		return this.exit;
	}

	get restartAt(): number | undefined {
		return this.restartTime;
	}

	get restartCount(): number {
		return this.restarts;
	}

	get startedAt(): number | undefined {
		return this.started;
	}

	get permanentProblem(): LaunchProblem | undefined {
		return this.permanent;
	}

	/** The transitions health checking applies (trip, probe_ok, probe_failed). */
	apply(event: 'trip' | 'probe_ok' | 'probe_failed', reason: string): void {
		this.deps.machine.apply(event, reason);
	}

	stopIdle(reason: string): void {
		this.stop('cold', reason).catch(() => {});
	}

	/** Resolves with a live connection, starting the upstream if it may be started on demand; refuses (HangarError) when it may not. */
	async whenReady(why: string, signal: AbortSignal, progress: ProgressRelay | undefined): Promise<UpstreamConnection> {
		for (;;) {
			signal.throwIfAborted();
			switch (this.state) {
				case 'ready': {
					return this.current!;
				}

				case 'starting': {
					const waiting = abortable(this.startPromise!, signal);
					return progress === undefined ? waiting : progress.during(`waiting for upstream "${this.deps.name}" to start`, waiting);
				}

				case 'cold': {
					const starting = abortable(this.begin(`on demand: ${why}`), signal);
					return progress === undefined ? starting : progress.during(`starting upstream "${this.deps.name}"`, starting);
				}

				case 'stopping': {
					await abortable(this.stopPromise ?? Promise.resolve(), signal);
					continue;
				}

				case 'degraded': {
					throw unavailable(this.deps.name, why, {
						state: 'degraded',
						consecutiveFailures: this.deps.breaker.consecutiveFailures,
						lastError: this.deps.metrics.lastError,
						nextProbeAt: this.deps.breaker.nextProbeAt,
					});
				}

				case 'dead': {
					// The reason of the transition to dead says how it ended (exit, stderr, restart plan).
					throw unavailable(this.deps.name, why, {
						state: 'dead',
						reason: this.restartTime === undefined ? this.lastTransitionReason() : this.lastTransitionReason().replace(`; ${this.plan}`, ''),
						restartAt: this.restartTime,
						permanent: this.permanent?.hint,
					});
				}

				case 'stopped': {
					throw unavailable(this.deps.name, why, {state: 'stopped', reason: this.lastTransitionReason()});
				}

				case 'quarantined': {
					throw unavailable(this.deps.name, why, {state: 'quarantined', reason: this.quarantineReason(), byConfig: this.deps.config.quarantined});
				}

				case 'disabled': {
					throw unavailable(this.deps.name, why, {state: 'disabled'});
				}

				case 'invalid': {
					throw unavailable(this.deps.name, why, {state: 'invalid', reason: this.deps.config.invalid ?? 'see its details'});
				}

				case 'needs-sign-in': {
					// A sign-in made since (mcp-hangar auth, while this supervisor was not reachable) is picked up by the first call.
					// Keyed by the configured server's name: an instance or era twin shares its server's sign-in.
					if (hasWorkingSignIn(this.deps.config.name, this.deps.config.launch)) {
						const starting = abortable(this.begin(`on demand: ${why} (a new sign-in is in the token store)`), signal);
						return progress === undefined ? starting : progress.during(`starting upstream "${this.deps.name}"`, starting);
					}

					throw unavailable(this.deps.name, why, {state: 'needs-sign-in', reason: this.lastTransitionReason(), server: this.deps.config.name});
				}
			}
		}
	}

	/** Why it is quarantined: the record's reason, the config's, or the last transition's. */
	quarantineReason(): string {
		const admin = this.deps.record.read().admin;
		if (admin !== undefined) return admin.reason;
		if (this.deps.config.quarantined) return '"quarantined": true in the config';
		return this.lastTransitionReason();
	}

	private lastTransitionReason(): string {
		return this.deps.machine.transitions().at(-1)?.reason ?? 'no reason recorded';
	}

	// ---------------------------------------------------------------------
	// Start

	/** Starts it: `start` from cold or dead; concurrent callers share the returned promise. */
	begin(reason: string): Promise<UpstreamConnection> {
		const {deps} = this;
		this.deps.timers.clear('restart');
		this.restartTime = undefined;
		this.permanent = undefined;
		deps.machine.apply('start', reason);
		const controller = new AbortController();
		this.startAbort = controller;
		const deadline = {...startDeadline(deps.config, deps.record.read().tools === undefined, this.timeoutsInARow), steps: new StartSteps()};
		this.deadline = deadline;
		const cancelTimeout = deps.clock.after(deadline.ms, () => controller.abort(new AbortReason('start-timeout', deadline.steps.waitingOn('its start requests'))));
		const began = performance.now();
		const promise = (async () => {
			let connection: UpstreamConnection | undefined;
			try {
				connection = await deadline.steps.wait('initialize', deps.openConnection(
					deps.config,
					deps.log,
					{
						onClose: exit => this.onConnectionClosed(connection, exit),
						onToolsChanged: meta => deps.events.toolsChanged(meta),
						onListChanged: (kind, meta) => deps.events.listChanged(kind === 'prompts' ? ['prompts'] : ['resources', 'resourceTemplates'], `the upstream sent notifications/${kind}/list_changed`, meta),
						onResourceUpdated: (uri, meta) => deps.events.resourceUpdated(uri, meta),
						onRootsAtStart: () => {
							deps.record.update(upstream => {
								upstream.rootsAtStart = {at: deps.clock.now(), asked: true};
							});
						},
						onTaskStatus: params => deps.events.taskStatus(params),
						onTaskProgress: (upstreamTaskId, progress) => deps.events.taskProgress(upstreamTaskId, progress),
						exposedTaskId: upstreamTaskId => deps.events.exposedTaskId(upstreamTaskId),
						onSignInNeeded: reason => this.onSignInLost(connection, reason),
					},
					controller.signal,
					deps.settings.stopGraceMs,
					deps.clientSide,
					deps.eraPin ?? eraHint(deps.record.read().era, deps.config),
				));
				// The catalog is read beside the tools: it adds no round trip to the start, and a list
				// that fails to read is logged and left as it was rather than failing the start.
				const [tools, catalog] = await Promise.all([deadline.steps.wait('tools/list', connection.listTools(controller.signal)), this.readCatalog(connection, controller.signal, deadline.steps)]);
				// What it asked its client while starting (roots) is answered before it serves a call; whether it asks is learned.
				const told = deps.clientSide?.capabilities['roots'] !== undefined;
				const expected = deps.record.read().rootsAtStart?.asked;
				const {askedRoots} = await deadline.steps.wait('ping', connection.clientRequestsSettled(controller.signal, deps.settings.pingTimeoutMs, {told, expected}));
				if (told && expected === true && !askedRoots) {
					// It used to ask and did not within the wait: the next start does not wait for it (onRootsAtStart learns it again).
					deps.record.update(upstream => {
						upstream.rootsAtStart = {at: deps.clock.now(), asked: false};
					});
				}
				controller.signal.throwIfAborted();
				const changes = deps.toolList.pinnedChanges(tools);
				if (changes.length > 0) throw new RugPull(changes, tools);
				this.current = connection;
				this.started = deps.clock.now();
				this.timeoutsInARow = 0;
				deps.events.opened(tools, catalog);
				deps.record.update(upstream => {
					upstream.counters.starts += 1;
					// An era twin's identity is its 2026-07-28 path's: the server's record keeps its 2025 mode's, which its era verdict was learned of.
					if (deps.eraPin !== undefined) return;
					upstream.identity = connection!.identity;
					const {verdict, note} = nextVerdict(upstream.era, connection!.era, deps.config, upstream.identity, deps.clock.now());
					upstream.era = verdict;
					if (note !== undefined) deps.log.push('hangar', note);
				});
				const ms = Math.round(performance.now() - began);
				const pid = connection.pid === undefined ? '' : `pid ${connection.pid}, `;
				// Status shows the last failure since this start: a crash or failed start before it is over (hangar_details' recentErrors keep it, with its time).
				deps.metrics.lastError = undefined;
				const closing = deps.breaker.state !== 'closed';
				if (closing) deps.breaker.recordSuccess();
				deps.machine.apply('started', `started in ${ms} ms (${pid}${tools.length} tools)${closing ? '; circuit closed' : ''}`);

				deps.events.ready();
				return connection;
			} catch (error) {
				if (error instanceof RugPull && connection !== undefined) {
					const exit = await connection.close(deps.settings.stopGraceMs);
					if (exit !== undefined) this.recordExit(exit);
					throw this.rugPull(error.changes, error.tools, 'stop');
				}

				void connection?.close(deps.settings.stopGraceMs);
				throw this.onStartFailed(error, controller.signal, began);
			} finally {
				cancelTimeout();
				if (this.startAbort === controller) this.startAbort = undefined;
				this.startPromise = undefined;
			}
		})();
		this.startPromise = promise;
		// Callers that gave up (deadline, cancel) must not leave an unhandled rejection behind.
		promise.catch(() => {});
		return promise;
	}

	/** The capabilities of a fresh connection and every list they say it serves. */
	private async readCatalog(connection: UpstreamConnection, signal: AbortSignal, steps: StartSteps): Promise<OpenedCatalog> {
		const capabilities = (connection.serverCapabilities ?? {}) as ServerCapabilities;
		const lists: Partial<CatalogLists> = {};
		await Promise.all(
			catalogKinds
				.filter(kind => servesKind(capabilities, kind))
				.map(async kind => {
					try {
						lists[kind] = (await steps.wait(listMethods[kind].method, connection.listAll(kind, signal))) as never;
					} catch (error) {
						if (!signal.aborted) this.deps.log.push('hangar', `reading its ${kind} failed at start: ${errorMessage(error)}`);
					}
				}),
		);
		return {capabilities, lists};
	}

	private onStartFailed(error: unknown, signal: AbortSignal, began: number): HangarError {
		const {deps} = this;
		const reason: unknown = signal.aborted ? signal.reason : undefined;
		if (reason instanceof AbortReason && reason.kind === 'stopping') return startInterrupted(deps.name);

		const ms = Math.round(performance.now() - began);
		const signIn = signInNeededIn(error);
		if (signIn !== undefined) {
			// Not a failure to retry: nothing changes until a person signs in, so no restart, breaker or budget.
			deps.metrics.lastError = `needs sign-in: ${signIn.reason}`;
			deps.machine.apply('sign_in_needed', signIn.reason);
			return unavailable(deps.name, 'start', {state: 'needs-sign-in', reason: signIn.reason, server: deps.config.name});
		}

		const startedAtWallClock = deps.clock.now() - ms;
		const {lines: stderr, earlier} = attemptStderr(deps.log.tail(stderrLinesRead, 'stderr'), Math.max(startedAtWallClock, deps.log.spawnedAt ?? 0));
		const exit = this.exit !== undefined && this.exit.at >= startedAtWallClock ? this.exit : undefined;
		const problem = this.launchProblem(error, exit);
		if (problem !== undefined) return this.onPermanentFailure(problem, ms, stderr);
		let what: string;
		if (reason instanceof AbortReason && reason.kind === 'start-timeout') {
			const {ms: limit, why} = this.deadline ?? {ms: deps.config.startTimeoutMs, why: undefined};
			this.timeoutsInARow += 1;
			what = `no answer to ${reason.waitingOn ?? 'its start requests'} within the start timeout of ${seconds(limit)}${why === undefined ? '' : ` (${why})`}; the next start gets ${seconds(startDeadline(deps.config, deps.record.read().tools === undefined, this.timeoutsInARow).ms)} (startTimeoutSeconds)`;
		} else if (error instanceof SpawnError) {
			this.timeoutsInARow = 0;
			what = error.message;
		} else if (exit !== undefined) {
			this.timeoutsInARow = 0;
			what = `the process ${describeExit(exit)} during initialization`;
		} else if (error instanceof ConnectionLostError || /connection closed/i.test(errorMessage(error))) {
			what = 'the connection closed during initialization';
		} else {
			what = errorMessage(error);
		}

		const detail = `${what}${stderr.length > 0 ? `; last stderr${earlier ? ' (from an earlier start)' : ''}: ${stderr.join(' | ')}` : ''}`;
		deps.metrics.lastError = `start failed: ${detail}`;
		// Hangar's own shortage at spawn (the open-file limit, ...) is not the upstream's failure: retried, no budget spent.
		const plan = error instanceof SpawnError && describeShortage(error.code) !== undefined ? `${this.planRestart(deps.restartPolicy.shortageDelayMs)} (hangar's shortage: no restart budget spent)` : this.countFailure();
		deps.machine.apply('start_failed', `start failed after ${ms} ms: ${detail}; ${plan}`);
		return startFailed(deps.name, {detail, restartAt: this.restartTime, remote: deps.config.launch.kind !== 'stdio', stderr, check: error instanceof UnsupportedServerVersion ? error.check : undefined});
	}

	/**
	 * Whether a failed start is one a retry cannot fix: the spawn itself
	 * failed, or the process exited at once with 126/127 (the shell's and
	 * env's "cannot execute" and "not found"), and the file system or the
	 * spawn's error code (ENOTDIR, E2BIG, a NUL byte…) says why.
	 */
	private launchProblem(error: unknown, exit: ExitInfo | undefined): LaunchProblem | undefined {
		const launch = this.deps.config.launch;
		if (launch.kind !== 'stdio') return undefined;
		if (!(error instanceof SpawnError) && exit?.code !== 127 && exit?.code !== 126) return undefined;
		return diagnoseSpawnFailure(launch, error instanceof SpawnError ? error.code : undefined);
	}

	/** Straight to dead with the reason, no retry, no breaker or budget spent: only a person's start or a config change tries again. */
	private onPermanentFailure(problem: LaunchProblem, ms: number, stderr: string[]): HangarError {
		this.permanent = problem;
		this.deps.metrics.lastError = `start failed: ${problem.message}`;
		this.deps.timers.clear('restart');
		this.restartTime = undefined;
		this.deps.machine.apply('start_failed', `start failed after ${ms} ms: ${problem.message} (permanent: not retried)`);
		return startFailed(this.deps.name, {detail: problem.message, restartAt: undefined, remote: false, stderr, permanent: problem.hint});
	}

	/**
	 * A pinned tool changed: the upstream is quarantined with the diff, and its
	 * new tool list is never exposed. From a start (`how` = 'stop': the start is
	 * abandoned through stopping) or a refresh of a running upstream.
	 */
	rugPull(changes: ToolChange[], tools: readonly ToolDefinition[], how: 'stop' | 'running'): HangarError {
		const {deps} = this;
		const reason = rugPullReason(deps.record.read().pins, changes);
		deps.record.update(upstream => {
			upstream.admin = {state: 'quarantined', at: deps.clock.now(), reason, changes, seen: pinTools(tools)};
		});
		deps.metrics.lastError = `${quarantinedPrefix}${reason}`;
		if (how === 'stop') {
			this.stopTarget = 'quarantined';
			deps.machine.apply('stop', reason);
			deps.machine.apply('settle_quarantined', 'the process was stopped; its changed tools were never exposed');
		} else {
			void this.stop('quarantined', reason).catch(() => {});
		}

		return rugPulled(deps.name, reason, changes);
	}

	// ---------------------------------------------------------------------
	// Crashes and restarts

	/** A crash or a failed start: counted by the breaker, the restart budget and the state file; returns the restart plan as a sentence. */
	private countFailure(): string {
		const {deps} = this;
		deps.breaker.recordFailure(deps.clock.now());
		const delay = deps.restartPolicy.recordCrash(deps.clock.now());
		deps.record.update(upstream => {
			upstream.counters.crashes += 1;
		});
		return this.planRestart(delay);
	}

	/** Schedules an automatic restart when the budget allows; returns a sentence for the transition reason. */
	private planRestart(delay: number | undefined): string {
		const {maxRestarts, windowMs} = this.deps.restartPolicy.budget;
		if (delay === undefined) {
			this.restartTime = undefined;
			return `restart budget spent (${maxRestarts + 1} failures within ${seconds(windowMs)}, at most ${maxRestarts} restarts): stays dead until it is started again`;
		}

		this.restartTime = this.deps.clock.now() + delay;
		this.deps.timers.once('restart', delay, () => {
			if (this.state !== 'dead' || this.disposed) return;
			this.restarts += 1;
			this.begin(`automatic restart after ${seconds(delay)} backoff`).catch(() => {});
		});
		return (this.plan = `restarting in ${seconds(delay)}`);
	}

	/**
	 * A running upstream's tokens stopped working and could not be refreshed:
	 * its connection is closed and it waits for a person's sign-in. During a
	 * start, the start's own failure handles it.
	 */
	private onSignInLost(connection: UpstreamConnection | undefined, reason: string): void {
		if (connection === undefined || connection !== this.current) return;
		if (this.state !== 'ready' && this.state !== 'degraded') return;
		this.current = undefined;
		this.deps.events.gone();
		this.deps.metrics.lastError = `needs sign-in: ${reason}`;
		this.deps.machine.apply('sign_in_needed', reason);
		void connection.close(this.deps.settings.stopGraceMs);
	}

	private onConnectionClosed(connection: UpstreamConnection | undefined, exit: ExitInfo | undefined): void {
		if (exit !== undefined) this.recordExit(exit);
		// A start in progress (no connection handed out yet) handles its own failure.
		if (connection === undefined || connection !== this.current) return;
		this.current = undefined;
		this.deps.events.gone();
		if (this.state !== 'ready' && this.state !== 'degraded') return;

		const stderr = stderrSummary(this.deps.log.tail(stderrLinesRead, 'stderr').map(line => line.text), 3);
		const what = exit === undefined ? 'the connection closed' : `the process ${describeExit(exit)}`;
		const detail = `${what}${stderr.length > 0 ? `; last stderr: ${stderr.join(' | ')}` : ''}`;
		this.deps.metrics.lastError = `crashed: ${detail}`;
		this.deps.machine.apply('crashed', `${detail}; ${this.countFailure()}`);
	}

	private recordExit(exit: ExitInfo): void {
		this.exit = exit;
		const stderrTail = this.deps.log.tail(10, 'stderr').map(line => line.text);
		this.deps.record.update(upstream => {
			upstream.lastExit = {code: exit.code, signal: exit.signal, at: exit.at, stderrTail};
		});
	}

	// ---------------------------------------------------------------------
	// Stop

	/** Stops the upstream; `target` says where it lands (cold: idle, stopped: a person, ...). */
	async stop(target: StopTarget, reason: string): Promise<void> {
		if (this.state === 'stopping') {
			await this.stopPromise;
		}

		if (runningStates.has(this.state)) {
			this.stopTarget = target;
			this.deps.machine.apply('stop', reason);
			this.clearTimers();
			const stopping = this.runStop(target, reason);
			this.stopPromise = stopping;
			try {
				await stopping;
			} finally {
				if (this.stopPromise === stopping) this.stopPromise = undefined;
			}

			return;
		}

		// Not running: settle directly where the table allows it.
		this.deps.timers.clear('restart');
		this.restartTime = undefined;
		if (this.state === target) return;
		const event: UpstreamEvent | undefined =
			target === 'stopped' ? 'person_stop' : target === 'quarantined' ? 'quarantine' : target === 'disabled' ? 'disable' : undefined;
		if (event === undefined) return; // Going "cold" from a non-running state needs nothing.
		this.deps.machine.apply(event, reason);
	}

	private async runStop(target: StopTarget, reason: string): Promise<void> {
		this.startAbort?.abort(new AbortReason('stopping'));
		await this.startPromise?.catch(() => {});
		const connection = this.current;
		this.current = undefined;
		let how = '';
		if (connection !== undefined) {
			const exit = await connection.close(this.deps.settings.stopGraceMs);
			if (exit !== undefined) {
				this.recordExit(exit);
				how = ` (${exit.stoppedBy === undefined ? describeExit(exit) : `ended by ${exit.stoppedBy}`})`;
			}
		}

		this.deps.machine.apply(settleEvent[target], `${reason}${how}`);
	}

	/** Clears every timer and the planned restart. */
	clearTimers(): void {
		this.deps.timers.clearAll();
		this.restartTime = undefined;
	}

	/** No automatic restart may begin after this (shutdown). */
	dispose(): void {
		this.disposed = true;
		this.clearTimers();
	}

	get isDisposed(): boolean {
		return this.disposed;
	}
}
