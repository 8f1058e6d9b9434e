/**
 * Which protocol generation each upstream speaks, learned once and kept in
 * the state store beside its tool list (issue 31): a start without a saved
 * verdict probes with `server/discover` (link/connection.ts), and the
 * verdict, with its date, the launch and the server's `name@version`, is
 * saved, so the next start goes straight to the right era and a legacy
 * server that exits on the probe is not spawned twice. A verdict holds for
 * the launch it was learned of (a changed command, arguments, cwd or URL
 * probes again) and the server version: a legacy upstream that reports
 * another version is probed again at its next start; a modern one's
 * `server/discover` at each start is its probe, so its verdict follows.
 */
import {createHash} from 'node:crypto';
import type {ServerConfig} from '../../config/read-config.js';
import type {ConnectionEra, EraHint, SavedEra} from '../../link/connection.js';
import type {PersistedUpstream} from '../state-store.js';

export type EraVerdict = {
	/** `dual`: it answers both generations (its 2025 mode drives the upstream, its era twin the 2026-07-28 one); verdicts saved before dual-era upstreams were told apart say `legacy`. */
	era: SavedEra;
	/** When it was learned (ms since 1970). */
	at: number;
	/** The revision it was driven in then. */
	protocolVersion?: string | undefined;
	/** The launch it was learned of (launchKey). */
	launch: string;
	/** The server's name@version then; null when it said none. */
	server: string | null;
	/** Learned by a hangar that tells dual-era upstreams apart; a `legacy` verdict without it may be a dual-era one's, so its next start probes once more. */
	dualChecked?: boolean;
};

/** What status, hangar_list and the TUI show of an upstream's era. */
export type EraView = {
	/** null: never started with this launch, so not known yet. */
	era: SavedEra | null;
	protocolVersion: string | null;
	/** When it was learned (ISO), null while unknown. */
	learnedAt: string | null;
};

/** A launch as a short key: what it runs (command, arguments and cwd, or URL), not its environment or headers. */
export function launchKey(launch: ServerConfig['launch']): string {
	const what = launch.kind === 'stdio' ? [launch.command, launch.args, launch.cwd] : [launch.url];
	return createHash('sha256').update(JSON.stringify(what)).digest('hex').slice(0, 16);
}

/** The server's `name@version` as it said, or null when it said nothing. */
export function serverKey(identity: PersistedUpstream['identity']): string | null {
	const info = identity?.serverInfo;
	return info == null ? null : `${info.name}@${info.version}`;
}

/** The era a start opens in: the saved verdict when it was learned of this launch (a dual-era upstream's own start: its 2025 mode); undefined: probe. */
export function eraHint(saved: EraVerdict | undefined, config: ServerConfig): EraHint {
	if (saved === undefined || saved.launch !== launchKey(config.launch)) return undefined;
	if (saved.era === 'legacy' && saved.dualChecked !== true) return undefined;
	return saved.era === 'dual' ? 'legacy' : saved.era;
}

/** Whether the saved verdict says the upstream is dual-era (for the launch that runs now): 2026-07-28 clients get its era twin. */
export function isDualEra(saved: EraVerdict | undefined, config: ServerConfig): boolean {
	return saved?.era === 'dual' && saved.launch === launchKey(config.launch);
}

/**
 * The verdict to keep after a start: a probe's result, a modern verdict
 * brought up to date, or none when a legacy upstream reports another
 * version than it was learned of (its next start probes). `note` says what
 * changed, for the upstream's log.
 */
export function nextVerdict(
	saved: EraVerdict | undefined,
	opened: ConnectionEra,
	config: ServerConfig,
	identity: PersistedUpstream['identity'],
	now: number,
): {verdict: EraVerdict | undefined; note: string | undefined} {
	const server = serverKey(identity);
	const fresh: EraVerdict = {era: opened.dual === true ? 'dual' : opened.era, at: now, protocolVersion: opened.protocolVersion, launch: launchKey(config.launch), server, dualChecked: true};
	if (opened.tentative === true) return {verdict: saved, note: 'era not saved: the probe could not conclude; its next start probes again'};
	if (opened.probed || saved === undefined) return {verdict: fresh, note: `era learned: ${describeEra(fresh.era, fresh.protocolVersion)}, saved for its next starts`};
	if (saved.server === server || saved.server === null || server === null) return {verdict: saved, note: undefined};
	if (opened.era === 'modern') return {verdict: fresh, note: `it is ${server} now, not ${saved.server}, and still answers server/discover`};
	return {verdict: undefined, note: `it is ${server} now, not ${saved.server}: its era is probed again at its next start`};
}

export function eraView(saved: EraVerdict | undefined, config: ServerConfig): EraView {
	if (saved === undefined || saved.launch !== launchKey(config.launch)) return {era: null, protocolVersion: null, learnedAt: null};
	return {era: saved.era, protocolVersion: saved.protocolVersion ?? null, learnedAt: new Date(saved.at).toISOString()};
}

/** "2026-07-28 (modern)", "2025-11-25 (legacy)", "2025-11-25 and 2026-07-28 (dual-era)", "not known yet". */
export function describeEra(era: SavedEra | null, protocolVersion: string | null | undefined): string {
	if (era === null) return 'not known yet (learned at its first start)';
	if (era === 'dual') return `${protocolVersion ?? '2025'} and 2026-07-28 (dual-era)`;
	return `${protocolVersion ?? (era === 'modern' ? '2026-07-28' : '2025')} (${era})`;
}
