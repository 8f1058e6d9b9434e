/**
 * What watches a running upstream between calls: the health ping (a failed
 * ping counts against the breaker like a failed call), the breaker's probe
 * while degraded (a ping that closes the circuit or schedules the next
 * probe), the periodic tool-list refresh, and the idle stop. Each is a timer
 * in `UpstreamTimers`, armed when the upstream becomes ready and cleared when
 * it stops; the decisions (trip, probe_ok, probe_failed, stop) go back to the
 * upstream's state machine through `WatchedLifecycle`.
 */
import {errorMessage} from '../../base/errors.js';
import type {Clock} from '../../base/clock.js';
import type {HangarSettings} from '../../config/read-config.js';
import {UpstreamTimeoutError, type UpstreamConnection} from '../../link/connection.js';
import type {LogBuffer} from '../../link/log-buffer.js';
import type {CircuitBreaker} from './circuit-breaker.js';
import type {CallMetrics} from './metrics.js';
import type {UpstreamState} from './upstream-state.js';
import type {UpstreamTimers} from './upstream-timers.js';
import {seconds} from '../refusals.js';

/** The lifecycle as health checking sees it: the state machine (the one owner of state) and the live connection. */
export type WatchedLifecycle = {
	readonly state: UpstreamState;
	/** Applies a transition of the upstream's table, with its reason. */
	apply(event: 'trip' | 'probe_ok' | 'probe_failed', reason: string): void;
	/** The connection of a running upstream (ready or degraded), else undefined. */
	connection(): UpstreamConnection | undefined;
	/** Stops it to cold: the idle stop. */
	stopIdle(reason: string): void;
};

/** What health checking is given: the parts it reads and what it may ask for. */
export type HealthDeps = {
	idleTimeoutMs: number;
	settings: HangarSettings;
	clock: Clock;
	timers: UpstreamTimers;
	breaker: CircuitBreaker;
	metrics: CallMetrics;
	log: LogBuffer;
	lifecycle: WatchedLifecycle;
	/** Calls in flight, and since when it is idle (see `Upstream.idleSince`). */
	load: {readonly inFlight: number; readonly idleSince: number};
	refreshTools(why: string): void;
	/** Something the surfaces show changed (a failed ping, a live task's end). */
	onActivity(): void;
};

export class UpstreamHealth {
	private readonly timers: UpstreamTimers;
	private readonly settings: HangarSettings;
	/** Its tasks that are live now (2025-11-25 tasks it runs for a client), held off the idle stop. */
	private liveTasks = 0;
	/** When its last live task ended: idle counts from then too. */
	lastTaskEndedAt = 0;

	constructor(private readonly deps: HealthDeps) {
		this.timers = deps.timers;
		this.settings = deps.settings;
	}

	/** A call or ping failed: counts against the breaker, and trips a ready upstream to degraded at the threshold. */
	recordFailure(what: string): void {
		const {breaker, clock, lifecycle, metrics} = this.deps;
		const opened = breaker.recordFailure(clock.now());
		if (!opened || lifecycle.state !== 'ready') return;
		const at = breaker.nextProbeAt!;
		lifecycle.apply(
			'trip',
			`circuit opened after ${breaker.consecutiveFailures} consecutive failures (${what}: ${metrics.lastError ?? 'unknown'}); probe in ${seconds(at - clock.now())}`,
		);
		this.timers.clear('health');
		this.scheduleProbe();
	}

	/** Arms the health ping and the tool-list refresh (an upstream became ready). */
	scheduleHealth(): void {
		const {lifecycle, settings} = this.deps;
		this.timers.clear('health');
		this.timers.clear('refresh');
		if (settings.toolsRefreshMs > 0) {
			this.timers.every('refresh', settings.toolsRefreshMs, () => {
				if (lifecycle.state === 'ready') this.deps.refreshTools(`periodic refresh (toolsRefreshSeconds ${settings.toolsRefreshMs / 1000})`);
			});
		}

		if (settings.healthIntervalMs <= 0) return;
		this.timers.every('health', settings.healthIntervalMs, () => {
			void this.healthCheck();
		});
	}

	/**
	 * Holds off the idle stop while one of its tasks is live (a stop would
	 * lose it); returns the release, which re-arms the idle stop from then.
	 */
	holdIdle(): () => void {
		this.liveTasks += 1;
		this.scheduleIdle();
		let released = false;
		return () => {
			if (released) return;
			released = true;
			this.liveTasks -= 1;
			this.lastTaskEndedAt = this.deps.clock.now();
			this.scheduleIdle();
			// A stop that waits for its tasks (an "auto" upstream's shared instance draining) looks again.
			this.deps.onActivity();
		};
	}

	/** Its tasks that are live now. */
	get tasksLive(): number {
		return this.liveTasks;
	}

	/**
	 * Arms the idle stop from `idleSince`; with calls in flight, the last one
	 * to finish re-arms it. An upstream that holds tasks (until their results
	 * are fetched) is never idle: stopping it would lose them; the last one
	 * to end re-arms it.
	 */
	scheduleIdle(): void {
		const {clock, idleTimeoutMs, lifecycle, load} = this.deps;
		this.timers.clear('idle');
		if (idleTimeoutMs <= 0 || load.inFlight > 0 || this.liveTasks > 0) return;
		if (lifecycle.state !== 'ready' && lifecycle.state !== 'degraded') return;
		this.timers.once('idle', load.idleSince + idleTimeoutMs - clock.now(), () => {
			if (load.inFlight > 0 || this.liveTasks > 0 || (lifecycle.state !== 'ready' && lifecycle.state !== 'degraded')) return;
			const idleMs = clock.now() - load.idleSince;
			if (idleMs < idleTimeoutMs) {
				this.scheduleIdle();
				return;
			}

			lifecycle.stopIdle(`idle for ${seconds(idleMs)} (idleTimeoutSeconds ${idleTimeoutMs / 1000})`);
		});
	}

	/** Clears the timers that only make sense while the connection lives. */
	connectionGone(): void {
		for (const name of ['health', 'refresh', 'probe', 'idle'] as const) this.timers.clear(name);
	}

	private scheduleProbe(): void {
		this.timers.clear('probe');
		const at = this.deps.breaker.nextProbeAt;
		if (at === undefined) return;
		this.timers.once('probe', at - this.deps.clock.now(), () => {
			void this.probe();
		});
	}

	private async probe(): Promise<void> {
		const {breaker, clock, lifecycle, metrics} = this.deps;
		const connection = lifecycle.connection();
		if (lifecycle.state !== 'degraded' || connection === undefined) return;
		breaker.beginProbe();
		const began = performance.now();
		try {
			await connection.ping(this.settings.pingTimeoutMs);
			if (lifecycle.state !== 'degraded' || connection !== lifecycle.connection()) return;
			breaker.recordSuccess();
			lifecycle.apply('probe_ok', `probe ping answered in ${Math.round(performance.now() - began)} ms; circuit closed`);
			this.scheduleHealth();
			this.scheduleIdle();
		} catch (error) {
			if (lifecycle.state !== 'degraded' || connection !== lifecycle.connection()) return;
			breaker.recordFailure(clock.now());
			const at = breaker.nextProbeAt!;
			metrics.lastError = `probe failed: ${pingFailure(error, this.settings.pingTimeoutMs)}`;
			lifecycle.apply('probe_failed', `${metrics.lastError}; next probe in ${seconds(at - clock.now())}`);
			this.scheduleProbe();
		}
	}

	private async healthCheck(): Promise<void> {
		const {lifecycle, log, metrics} = this.deps;
		const connection = lifecycle.connection();
		if (lifecycle.state !== 'ready' || connection === undefined) return;
		try {
			await connection.ping(this.settings.pingTimeoutMs);
		} catch (error) {
			if (lifecycle.state !== 'ready' || connection !== lifecycle.connection()) return;
			metrics.lastError = `health ping failed: ${pingFailure(error, this.settings.pingTimeoutMs)}`;
			log.push('hangar', metrics.lastError);
			this.recordFailure('health ping');
			this.deps.onActivity();
		}
	}
}

function pingFailure(error: unknown, timeoutMs: number): string {
	if (error instanceof UpstreamTimeoutError) return `no answer to ping within ${seconds(timeoutMs)}`;
	const message = errorMessage(error);
	if (/timed out/i.test(message)) return `no answer to ping within ${seconds(timeoutMs)}`;
	return message;
}
