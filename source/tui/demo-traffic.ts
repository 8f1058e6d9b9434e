/**
 * Demo traffic for `mcp-hangar tui --demo-traffic SERVER/TOOL`: steady calls
 * through the supervisor's normal call path, so a person trying the TUI
 * without any MCP client sees calls, latency, failures, the breaker and
 * restarts at work (`npm start` points it at the example's flaky upstream).
 * The calls are real; their failures are counted like any client's.
 */
import type {Supervisor} from '../core/engine/supervisor.js';
import {UsageError} from '../core/base/usage-error.js';

export type DemoTraffic = {
	/** What it calls, for the header: "flaky-demo/echo at 2/s". */
	readonly label: string;
	stop: () => void;
};

/** Parses "server/tool" against the configured servers; throws a UsageError saying what is wrong. */
export function parseDemoTarget(text: string, servers: readonly string[]): {server: string; tool: string} {
	const match = /^([^/]+)\/(.+)$/.exec(text);
	if (match === null) throw new UsageError(`--demo-traffic takes SERVER/TOOL, e.g. flaky-demo/echo (got "${text}")`);
	const server = match[1]!;
	const tool = match[2]!;
	if (!servers.includes(server)) {
		throw new UsageError(`--demo-traffic: no upstream "${server}" in the config (configured: ${servers.join(', ') || 'none'})`);
	}

	return {server, tool};
}

/**
 * Calls `server`'s `tool` `perSecond` times a second, at most one call in
 * flight at a time per slot (a hung upstream does not pile up calls).
 */
export function startDemoTraffic(supervisor: Supervisor, target: {server: string; tool: string}, perSecond = 2): DemoTraffic {
	let count = 0;
	let inFlight = 0;
	const maxInFlight = Math.max(1, perSecond);
	const timer = setInterval(() => {
		if (inFlight >= maxInFlight) return;
		inFlight += 1;
		count += 1;
		supervisor
			.callByName(target.server, target.tool, {message: `demo call ${count}`}, {caller: 'demo traffic'})
			.catch(() => {}) // Failures are the point of the demo: they show in the table, not here.
			.finally(() => {
				inFlight -= 1;
			});
	}, Math.round(1000 / perSecond));
	return {
		label: `${target.server}/${target.tool} at ${perSecond}/s`,
		stop: () => clearInterval(timer),
	};
}
