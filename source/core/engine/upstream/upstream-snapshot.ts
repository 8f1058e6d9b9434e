/**
 * What one upstream looks like now, as one plain value: its state, breaker,
 * process, tools, call counts and latency, last error and next retry. What
 * status, the TUI and the admin tools read (through the views).
 */
import type {BreakerState, CircuitBreaker} from './circuit-breaker.js';
import type {CallPath} from './call-path.js';
import type {Lifecycle} from './lifecycle.js';
import type {CallMetrics} from './metrics.js';
import type {ToolList, ToolsSource} from './tool-list.js';
import type {UpstreamState} from './upstream-state.js';

export type UpstreamSnapshot = {
	name: string;
	state: UpstreamState;
	breaker: BreakerState;
	pid: number | undefined;
	transport: 'stdio' | 'remote';
	tools: number;
	toolsSource: ToolsSource;
	lastVerifiedAt: number | undefined;
	calls: number;
	failures: number;
	toolErrors: number;
	consecutiveFailures: number;
	latencyMs: {p50: number | undefined; p95: number | undefined};
	lastError: string | undefined;
	nextRetryAt: number | undefined;
	startedAt: number | undefined;
	inFlight: number;
	restarts: number;
	stateSince: number;
};

/** The parts a snapshot is read from, and what the upstream works out itself. */
export type SnapshotParts = {
	name: string;
	state: UpstreamState;
	breaker: CircuitBreaker;
	pid: number | undefined;
	transport: 'stdio' | 'remote';
	toolList: ToolList;
	metrics: CallMetrics;
	calls: CallPath;
	lifecycle: Lifecycle;
	nextRetryAt: number | undefined;
	stateSince: number;
};

export function snapshotOf(parts: SnapshotParts): UpstreamSnapshot {
	const m = parts.metrics.snapshot();
	return {
		name: parts.name,
		state: parts.state,
		breaker: parts.breaker.state,
		pid: parts.pid,
		transport: parts.transport,
		tools: parts.toolList.tools.length,
		toolsSource: parts.toolList.source,
		lastVerifiedAt: parts.toolList.verifiedAt,
		calls: m.calls,
		failures: m.failures,
		toolErrors: parts.calls.toolErrors,
		consecutiveFailures: parts.breaker.consecutiveFailures,
		latencyMs: m.latencyMs,
		lastError: m.lastError,
		nextRetryAt: parts.nextRetryAt,
		startedAt: parts.lifecycle.startedAt,
		inFlight: parts.calls.inFlight,
		restarts: parts.lifecycle.restartCount,
		stateSince: parts.stateSince,
	};
}
