/**
 * What a config reload changes: the running config and a new one compared,
 * server by server and setting by setting, on their resolved values (so a
 * changed global default counts for every server that inherits it, and a
 * reordered `env` does not count). Pure data in, data out; the supervisor
 * applies the result and records it.
 *
 * Global `hangar` settings fall into three groups:
 * - shaping upstreams (health, breaker, restart budget, stop grace, log
 *   lines, tool refresh): every upstream runs with the values it was created
 *   with, so a change restarts every upstream, like a changed server;
 * - read when a connection or call begins (exposure, maxMessageBytes,
 *   quarantineNew, the HTTP settings, lingerSeconds): live for what begins
 *   after the reload; clients already connected keep their exposure;
 * - `stateDir`: where the socket, lock and state live, which cannot move
 *   under a running supervisor, and `metricsPort`, listened on once: they
 *   need a restart of hangar, and the reload says so (the rest of the file
 *   is still applied).
 */
import type {HangarConfig, HangarSettings, ServerConfig} from '../../config/read-config.js';
import {canonicalJson} from '../upstream/pins.js';

/** Settings every upstream takes when it is created: a change restarts them all. */
const upstreamSettings = [
	'healthIntervalMs',
	'pingTimeoutMs',
	'failureThreshold',
	'backoffMinMs',
	'backoffMaxMs',
	'restartBudget',
	'stopGraceMs',
	'logLines',
	'toolsRefreshMs',
] as const satisfies ReadonlyArray<keyof HangarSettings>;

/** Settings that need hangar itself restarted. */
const restartSettings = ['stateDir', 'metricsPort'] as const satisfies ReadonlyArray<keyof HangarSettings>;

/** The setting's name in the file (`healthIntervalMs` is `hangar.healthIntervalSeconds` there). */
export function settingName(key: keyof HangarSettings): string {
	return `hangar.${key.endsWith('Ms') ? `${key.slice(0, -2)}Seconds` : key}`;
}

export type ServerChange = {name: string; fields: string[]};

export type ConfigDiff = {
	added: string[];
	removed: string[];
	/** Servers whose resolved entry changed, with what changed (env and header values are never named, only their keys). */
	changed: ServerChange[];
	unchanged: string[];
	settings: {
		/** Applied now: they are read when a connection, call or new upstream begins. */
		live: string[];
		/** Applied by restarting every upstream. */
		restartUpstreams: string[];
		/** Not applied: hangar must be restarted for them. */
		restartHangar: string[];
	};
};

/** The fields of a resolved server entry that differ, as paths ("launch.args", "launch.env.TOKEN", "idleTimeoutMs"). */
export function serverFields(before: ServerConfig, after: ServerConfig): string[] {
	const fields: string[] = [];
	const walk = (a: unknown, b: unknown, at: string): void => {
		if (canonicalJson(a) === canonicalJson(b)) return;
		const record = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value);
		// Env and headers are walked by key (their values may be secrets); other objects are compared whole below one level.
		if (record(a) && record(b) && (at === '' || at === 'launch' || at === 'launch.env' || at === 'launch.headers')) {
			for (const key of new Set([...Object.keys(a), ...Object.keys(b)])) walk(a[key], b[key], at === '' ? key : `${at}.${key}`);
			return;
		}

		fields.push(at);
	};

	walk(before, after, '');
	return fields;
}

export function diffConfigs(before: HangarConfig, after: HangarConfig): ConfigDiff {
	const old = new Map(before.servers.map(server => [server.name, server]));
	const next = new Map(after.servers.map(server => [server.name, server]));
	const settings: ConfigDiff['settings'] = {live: [], restartUpstreams: [], restartHangar: []};
	for (const key of Object.keys(after.hangar) as Array<keyof HangarSettings>) {
		if (canonicalJson(before.hangar[key]) === canonicalJson(after.hangar[key])) continue;
		const name = settingName(key);
		if ((restartSettings as readonly string[]).includes(key)) settings.restartHangar.push(name);
		else if ((upstreamSettings as readonly string[]).includes(key)) settings.restartUpstreams.push(name);
		else settings.live.push(name);
	}

	const diff: ConfigDiff = {added: [], removed: [], changed: [], unchanged: [], settings};
	for (const name of old.keys()) if (!next.has(name)) diff.removed.push(name);
	for (const [name, server] of next) {
		const previous = old.get(name);
		if (previous === undefined) {
			diff.added.push(name);
			continue;
		}

		const fields = serverFields(previous, server);
		if (settings.restartUpstreams.length > 0) fields.push(...settings.restartUpstreams);
		if (fields.length > 0) diff.changed.push({name, fields});
		else diff.unchanged.push(name);
	}

	return diff;
}

/** Whether applying the diff changes anything at all. */
export function isEmptyDiff(diff: ConfigDiff): boolean {
	const {settings} = diff;
	return diff.added.length + diff.removed.length + diff.changed.length + settings.live.length + settings.restartUpstreams.length + settings.restartHangar.length === 0;
}

/** One line a person reads in the log or the TUI: "added gx; removed old; restarted fx (launch.env.TOKEN changed)". */
export function describeDiff(diff: ConfigDiff): string {
	const parts: string[] = [];
	if (diff.added.length > 0) parts.push(`added ${diff.added.join(', ')}`);
	if (diff.removed.length > 0) parts.push(`removed ${diff.removed.join(', ')}`);
	for (const change of diff.changed) parts.push(`restarted ${change.name} (${change.fields.join(', ')} changed)`);
	if (diff.settings.live.length > 0) parts.push(`applied ${diff.settings.live.join(', ')}`);
	if (diff.settings.restartHangar.length > 0) parts.push(`not applied: ${diff.settings.restartHangar.join(', ')} (needs a restart of hangar)`);
	return parts.length === 0 ? 'nothing changed' : parts.join('; ');
}
