/**
 * What of a snapshot can change the screen, as strings. Every frame costs
 * Ink a full redraw of its output grid (tens of milliseconds for a full
 * table on a slow machine), so a snapshot that would draw the same screen is
 * dropped before React sees it.
 *
 * Two parts: `events` (states, counts, errors, details: shown at once) and
 * `clock` (ages and uptimes at the resolution they are shown: the list
 * shows seconds only below ten, then "<1m", then minutes). `seconds` says whether some age is
 * shown to the second, so the clock has to move every second.
 */
import {uptime} from './cell-format.js';
import type {HangarSnapshot} from './hangar-source.js';
import {upIdle} from './table-columns.js';

export type DisplayKey = {events: string; clock: string; seconds: boolean};

export function displayKey(snapshot: HangarSnapshot): DisplayKey {
	const {now, startedAt, entries, details, logs, ...rest} = snapshot;
	const detailed = details !== undefined || logs !== undefined;
	const events = JSON.stringify({
		...rest,
		entries: entries.map(entry => ({...entry, upSeconds: entry.upSeconds === null, idleSeconds: entry.idleSeconds === null})),
		details: details === undefined ? undefined : {...details, server: {...details.server, upSeconds: undefined, idleSeconds: undefined}},
		logs,
	});
	const running = (now - startedAt) / 1000;
	const clock = [uptime(running), ...entries.map(entry => upIdle(entry)), detailed ? String(Math.floor(now / 1000)) : ''].join('|');
	// The detail and log views show times to the second; so do the list and header in their first ten seconds.
	const seconds = detailed || running < 10 || entries.some(entry => (entry.upSeconds !== null && entry.upSeconds < 10) || (entry.idleSeconds !== null && entry.idleSeconds < 10));
	return {events, clock, seconds};
}
