/**
 * `mcp-hangar --stdio`'s start-up overlap. Loading hangar (the MCP SDK, the
 * engine) takes longer than most upstreams take to boot, and an upstream
 * spawned only after it would add its whole boot to the client's wait for its
 * first answer. So, before the rest loads, the upstreams the supervisor is
 * sure to start at launch are spawned (upstream/early-spawn.ts), as many as
 * the launch queue starts at once; the supervisor takes them over when it
 * starts them.
 *
 * Only when nothing may stop them: a stdio upstream with `lazy: false`, not
 * disabled or quarantined (in the config or the state file), with
 * `quarantineNew` off, and no supervisor socket in the state dir (this
 * `--stdio` may become a bridge, which starts no upstream).
 */
import fs from 'node:fs';
import path from 'node:path';
import type {HangarConfig, ServerConfig, StdioLaunch} from '../config/read-config.js';
import {quarantinedIn} from '../engine/state-read.js';
import {spawnEarly} from '../link/early-spawn.js';

/** As many as `Supervisor.launch` starts at once. */
const launchConcurrency = 4;

/** The upstreams `--stdio` may spawn before its engine has loaded (see above), in launch order. */
export function earlyLaunches(config: HangarConfig, options: {standalone: boolean}): Array<ServerConfig & {launch: StdioLaunch}> {
	if (process.platform === 'win32' || config.hangar.quarantineNew) return [];
	if (!options.standalone && fs.existsSync(path.join(config.hangar.stateDir, 'hangar.sock'))) return [];
	const quarantined = quarantinedIn(config.hangar.stateDir);
	if (quarantined === undefined) return [];
	const eligible = config.servers.filter(
		(server): server is ServerConfig & {launch: StdioLaunch} =>
			server.launch.kind === 'stdio' && !server.lazy && !server.disabled && !server.quarantined && !quarantined.has(server.name),
	);
	return eligible.slice(0, launchConcurrency);
}

/** Spawns the upstreams `--stdio` will start at launch; returns their names. */
export function launchEarly(config: HangarConfig, options: {standalone: boolean}): string[] {
	const servers = earlyLaunches(config, options);
	for (const server of servers) spawnEarly(server.launch);
	return servers.map(server => server.name);
}
