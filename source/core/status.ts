/**
 * The `hangar_list` view: every upstream's live state from the supervisor's
 * memory. It never waits on an upstream, so a hung server cannot slow it
 * down. Times are ISO strings; a tool list always carries when it was last
 * verified, so a cached list shows its age.
 */
import type {Tool} from '@modelcontextprotocol/sdk/types.js';
import type {Supervisor} from './supervisor.js';
import {statusEntries, type StatusEntry} from './views.js';

export const statusTool: Tool = {
	name: 'hangar_list',
	title: 'List upstream MCP servers',
	description:
		'List every upstream MCP server behind mcp-hangar with its live state (cold, starting, ready, degraded, dead, stopping, stopped, quarantined, disabled), circuit breaker, pid, tool count, call and failure counts, latency and last error. Answers instantly from memory.',
	inputSchema: {type: 'object', properties: {}, additionalProperties: false},
	annotations: {readOnlyHint: true, openWorldHint: false},
};

export type {StatusEntry} from './views.js';

export function statusJson(supervisor: Supervisor): {providers: StatusEntry[]} {
	return {providers: statusEntries(supervisor)};
}
