/**
 * How long a start may take. `startTimeoutSeconds` (30 by default) is the
 * deadline of an ordinary start, but two starts are slower than that on a
 * busy machine or a slow network, and killing them at the deadline makes
 * them fail for ever:
 *
 * - the first run of a package runner (`npx -y pkg`, `uvx pkg`, `bunx`,
 *   `pnpm dlx`, `docker run`, ...) downloads before the server speaks; a kill
 *   at 30 s throws the half-done download away, so every retry starts it
 *   over. Such a start, with no tool list ever learned, gets at least
 *   `firstRunMs`.
 * - a start that ran out of time is given twice as long on its next try
 *   (up to `maxStartMs`), so one that was making progress gets there; the
 *   doubling ends with the first start that succeeds.
 */
import path from 'node:path';
import type {ServerConfig} from '../../config/read-config.js';

/** What the first run of a package runner may take: a download and an install. */
export const firstRunMs = 120_000;
/** The longest a doubled deadline grows to. */
export const maxStartMs = 300_000;

/** Commands that fetch the server's package before running it, and for the general ones, the argument that says so. */
const runners: Record<string, readonly string[] | true> = {
	npx: true,
	bunx: true,
	pnpx: true,
	uvx: true,
	npm: ['exec', 'x'],
	pnpm: ['dlx', 'exec'],
	yarn: ['dlx'],
	bun: ['x'],
	uv: ['run', 'tool'],
	pipx: ['run'],
	docker: ['run'],
	podman: ['run'],
	deno: ['run'],
};

/** Whether `launch` runs a package runner that may first fetch its package. */
export function fetchesPackage(launch: ServerConfig['launch']): boolean {
	if (launch.kind !== 'stdio') return false;
	const name = path.basename(launch.command).replace(/\.(cmd|exe)$/i, '');
	const rule = runners[name];
	if (rule === undefined) return false;
	return rule === true || (launch.args[0] !== undefined && rule.includes(launch.args[0]));
}

export type StartDeadline = {ms: number; /** Why it is longer than the setting, for the transition reason; undefined when it is the setting. */ why: string | undefined};

export function startDeadline(config: Pick<ServerConfig, 'launch' | 'startTimeoutMs'>, neverListed: boolean, timeoutsInARow: number): StartDeadline {
	const setting = config.startTimeoutMs;
	let ms = setting;
	let why: string | undefined;
	if (neverListed && fetchesPackage(config.launch) && ms < firstRunMs) {
		ms = firstRunMs;
		why = 'a first run of a package runner, which may download first';
	}

	if (timeoutsInARow > 0) {
		const doubled = Math.min(Math.max(setting, maxStartMs), ms * 2 ** timeoutsInARow);
		if (doubled > ms) {
			ms = doubled;
			why = `doubled after ${timeoutsInARow} start${timeoutsInARow === 1 ? '' : 's'} in a row ran out of time`;
		}
	}

	return {ms, why};
}
