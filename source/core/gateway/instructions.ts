/**
 * The `instructions` a client gets at initialize: hangar's own, worded for
 * the naming mode that runs (`<namespace>__<tool>` names, the tools' own
 * names under `"namespace": false`, or both) and the exposure, followed by
 * each upstream's own instructions, attributed to it with its serverInfo
 * (as last seen at its initialize, so a cold upstream's come from the
 * state store). A client connected to an upstream directly would have read
 * those; through hangar it still does.
 */
import type {HangarConfig} from '../config/read-config.js';
import type {StateStore} from '../engine/state-store.js';

/** How exposed tool names are formed, in words. */
function namingSentence(config: HangarConfig): string {
	const prefixed = config.servers.filter(server => server.namespace !== false);
	const own = config.servers.length - prefixed.length;
	if (config.servers.length > 0 && prefixed.length === 0) return 'Tools keep their upstream\'s own names.';
	if (own === 0) return 'Tool names are "<server>__<tool>".';
	return `Tool names are "<server>__<tool>", except for ${own === 1 ? 'the server' : `${own} servers`} with "namespace": false, whose tools keep their own names (${config.servers.filter(server => server.namespace === false).map(server => server.name).join(', ')}).`;
}

/** Hangar's own paragraph, for the exposure and whether its hangar_* tools are offered. */
function hangarParagraph(config: HangarConfig): string {
	const lead = 'mcp-hangar serves the tools of several upstream MCP servers.';
	if (config.hangar.managementTools === 'none') return `${lead} ${namingSentence(config)}`;
	if (config.hangar.exposure === 'search') {
		return `${lead} Find tools with hangar_find_tools (fuzzy search over names and descriptions; each hit has its input schema) and call them with hangar_call {server, tool, arguments}. hangar_list shows every upstream's live state.`;
	}

	return `${lead} ${namingSentence(config)} Call hangar_list to see every upstream's live state (ready, cold, degraded, dead, ...), breaker, failures and latency; hangar_find_tools searches every tool.`;
}

/** Hangar's instructions, then each upstream's that has any, under a heading that names it. */
export function sessionInstructions(config: HangarConfig, store: StateStore): string {
	const parts = [hangarParagraph(config)];
	for (const server of config.servers) {
		const identity = store.has(server.name) ? store.upstream(server.name).identity : undefined;
		if (identity?.instructions === null || identity?.instructions === undefined) continue;
		const info = identity.serverInfo === null ? '' : ` (${identity.serverInfo.name} ${identity.serverInfo.version})`;
		const naming = server.namespace === false ? 'its tools keep their own names' : `its tools are "${server.namespace}__<tool>"`;
		parts.push(`## Upstream "${server.name}"${info}; ${naming}\n\n${identity.instructions}`);
	}

	return parts.join('\n\n');
}
