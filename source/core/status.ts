/**
 * The `hangar_list` view: every upstream's live state from the supervisor's
 * memory. It never waits on an upstream, so a hung server cannot slow it
 * down. Times are ISO strings; a tool list always carries when it was last
 * verified, so a cached list shows its age.
 */
import type {Tool} from '@modelcontextprotocol/sdk/types.js';
import type {Supervisor} from './supervisor.js';

export const statusTool: Tool = {
	name: 'hangar_list',
	title: 'List upstream MCP servers',
	description:
		'List every upstream MCP server behind mcp-hangar with its live state (cold, starting, ready, degraded, dead, stopping, stopped, quarantined, disabled), circuit breaker, pid, tool count, call and failure counts, latency and last error. Answers instantly from memory.',
	inputSchema: {type: 'object', properties: {}, additionalProperties: false},
	annotations: {readOnlyHint: true, openWorldHint: false},
};

const iso = (ms: number | undefined): string | null => (ms === undefined ? null : new Date(ms).toISOString());

export type StatusEntry = {
	name: string;
	state: string;
	breaker: string;
	pid: number | null;
	tools: number;
	calls: number;
	failures: number;
	consecutiveFailures: number;
	latencyMs: {p50: number | null; p95: number | null};
	lastError: string | null;
	lastVerifiedAt: string | null;
	nextRetryAt: string | null;
};

export function statusJson(supervisor: Supervisor): {providers: StatusEntry[]} {
	return {
		providers: supervisor.list().map(snapshot => ({
			name: snapshot.name,
			state: snapshot.state,
			breaker: snapshot.breaker,
			pid: snapshot.pid ?? null,
			tools: snapshot.tools,
			calls: snapshot.calls,
			failures: snapshot.failures,
			consecutiveFailures: snapshot.consecutiveFailures,
			latencyMs: {p50: snapshot.latencyMs.p50 ?? null, p95: snapshot.latencyMs.p95 ?? null},
			lastError: snapshot.lastError ?? null,
			lastVerifiedAt: iso(snapshot.lastVerifiedAt),
			nextRetryAt: iso(snapshot.nextRetryAt),
		})),
	};
}
