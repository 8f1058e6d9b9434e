/**
 * What watches a running upstream between calls: the health ping (a failed
 * ping counts against the breaker like a failed call), the breaker's probe
 * while degraded (a ping that closes the circuit or schedules the next
 * probe), the periodic tool-list refresh, and the idle stop. Each is a timer
 * in `UpstreamTimers`, armed when the upstream becomes ready and cleared when
 * it stops; the decisions (trip, probe_ok, probe_failed, stop) go back to the
 * upstream's state machine through `HealthHost`.
 */
import {errorMessage} from '../../base/errors.js';
import type {HangarSettings, ServerConfig} from '../../config/read-config.js';
import {UpstreamTimeoutError, type UpstreamConnection} from '../../link/connection.js';
import type {LogBuffer} from '../../link/log-buffer.js';
import type {CircuitBreaker} from './circuit-breaker.js';
import type {CallMetrics} from './metrics.js';
import type {UpstreamState} from './upstream-state.js';
import type {UpstreamTimers} from './upstream-timers.js';
import {seconds} from '../refusals.js';

/** What health checking needs from the upstream it watches. */
export type HealthHost = {
	readonly config: ServerConfig;
	readonly state: UpstreamState;
	/** The connection of a running upstream (ready or degraded), else undefined. */
	readonly liveConnection: UpstreamConnection | undefined;
	readonly breaker: CircuitBreaker;
	readonly metrics: CallMetrics;
	readonly log: LogBuffer;
	/** Calls in flight now. */
	readonly callsInFlight: number;
	/** Since when it has been idle (see Upstream.idleSince). */
	readonly idleSince: number;
	apply(event: 'trip' | 'probe_ok' | 'probe_failed', reason: string): void;
	refreshTools(why: string): void;
	stopIdle(reason: string): void;
	activity(): void;
};

export class UpstreamHealth {
	constructor(
		private readonly host: HealthHost,
		private readonly timers: UpstreamTimers,
		private readonly settings: HangarSettings,
	) {}

	/** A call or ping failed: counts against the breaker, and trips a ready upstream to degraded at the threshold. */
	recordFailure(what: string): void {
		const {host} = this;
		const opened = host.breaker.recordFailure(Date.now());
		if (!opened || host.state !== 'ready') return;
		const at = host.breaker.nextProbeAt!;
		host.apply(
			'trip',
			`circuit opened after ${host.breaker.consecutiveFailures} consecutive failures (${what}: ${host.metrics.lastError ?? 'unknown'}); probe in ${seconds(at - Date.now())}`,
		);
		this.timers.clear('health');
		this.scheduleProbe();
	}

	/** Arms the health ping and the tool-list refresh (an upstream became ready). */
	scheduleHealth(): void {
		const {host, settings} = this;
		this.timers.clear('health');
		this.timers.clear('refresh');
		if (settings.toolsRefreshMs > 0) {
			this.timers.every('refresh', settings.toolsRefreshMs, () => {
				if (host.state === 'ready') host.refreshTools(`periodic refresh (toolsRefreshSeconds ${settings.toolsRefreshMs / 1000})`);
			});
		}

		if (settings.healthIntervalMs <= 0) return;
		this.timers.every('health', settings.healthIntervalMs, () => {
			void this.healthCheck();
		});
	}

	/** Arms the idle stop from `idleSince`; with calls in flight, the last one to finish re-arms it. */
	scheduleIdle(): void {
		const {host} = this;
		this.timers.clear('idle');
		const idleTimeoutMs = host.config.idleTimeoutMs;
		if (idleTimeoutMs <= 0 || host.callsInFlight > 0) return;
		if (host.state !== 'ready' && host.state !== 'degraded') return;
		this.timers.once('idle', host.idleSince + idleTimeoutMs - Date.now(), () => {
			if (host.callsInFlight > 0 || (host.state !== 'ready' && host.state !== 'degraded')) return;
			const idleMs = Date.now() - host.idleSince;
			if (idleMs < idleTimeoutMs) {
				this.scheduleIdle();
				return;
			}

			host.stopIdle(`idle for ${seconds(idleMs)} (idleTimeoutSeconds ${idleTimeoutMs / 1000})`);
		});
	}

	/** Clears the timers that only make sense while the connection lives. */
	connectionGone(): void {
		for (const name of ['health', 'refresh', 'probe', 'idle'] as const) this.timers.clear(name);
	}

	private scheduleProbe(): void {
		this.timers.clear('probe');
		const at = this.host.breaker.nextProbeAt;
		if (at === undefined) return;
		this.timers.once('probe', at - Date.now(), () => {
			void this.probe();
		});
	}

	private async probe(): Promise<void> {
		const {host} = this;
		const connection = host.liveConnection;
		if (host.state !== 'degraded' || connection === undefined) return;
		host.breaker.beginProbe();
		const began = performance.now();
		try {
			await connection.ping(this.settings.pingTimeoutMs);
			if (host.state !== 'degraded' || connection !== host.liveConnection) return;
			host.breaker.recordSuccess();
			host.apply('probe_ok', `probe ping answered in ${Math.round(performance.now() - began)} ms; circuit closed`);
			this.scheduleHealth();
			this.scheduleIdle();
		} catch (error) {
			if (host.state !== 'degraded' || connection !== host.liveConnection) return;
			host.breaker.recordFailure(Date.now());
			const at = host.breaker.nextProbeAt!;
			host.metrics.lastError = `probe failed: ${pingFailure(error, this.settings.pingTimeoutMs)}`;
			host.apply('probe_failed', `${host.metrics.lastError}; next probe in ${seconds(at - Date.now())}`);
			this.scheduleProbe();
		}
	}

	private async healthCheck(): Promise<void> {
		const {host} = this;
		const connection = host.liveConnection;
		if (host.state !== 'ready' || connection === undefined) return;
		try {
			await connection.ping(this.settings.pingTimeoutMs);
		} catch (error) {
			if (host.state !== 'ready' || connection !== host.liveConnection) return;
			host.metrics.lastError = `health ping failed: ${pingFailure(error, this.settings.pingTimeoutMs)}`;
			host.log.push('hangar', host.metrics.lastError);
			this.recordFailure('health ping');
			host.activity();
		}
	}
}

function pingFailure(error: unknown, timeoutMs: number): string {
	if (error instanceof UpstreamTimeoutError) return `no answer to ping within ${seconds(timeoutMs)}`;
	const message = errorMessage(error);
	if (/timed out/i.test(message)) return `no answer to ping within ${seconds(timeoutMs)}`;
	return message;
}
