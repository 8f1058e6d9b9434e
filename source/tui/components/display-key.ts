/**
 * What of a snapshot can change the screen, as strings. Every frame costs
 * Ink a full redraw of its output grid (tens of milliseconds for a full
 * table on a slow machine), so a snapshot that would draw the same screen is
 * dropped before React sees it.
 *
 * Two parts: `events` (states, counts, errors, details: shown at once) and
 * `clock` (ages and uptimes at the resolution they are shown: to the second
 * under an hour, then hours). `seconds` says whether some age is shown to
 * the second, so the clock has to move every second.
 *
 * The clients one by one count only while their screen is open: elsewhere
 * only how many are attached is shown, so a client's calls (thousands a
 * second under load) do not redraw the list.
 */
import {count, secondsShownBelow, uptime} from './cell-format.js';
import {clientRows} from './client-columns.js';
import type {Focus, HangarSnapshot} from './hangar-source.js';
import {upIdle} from './table-columns.js';

/**
 * `events` is worked out when first asked for, then kept: a JSON of fifty
 * upstreams (their history included) is needed only when the clock cannot
 * decide alone (in the detail, log and clients views, where ages tick by
 * the second, every read is drawn whatever its events say), and each key is
 * compared with the next one too.
 */
export type DisplayKey = {events: () => string; clock: string; seconds: boolean};

export function displayKey(snapshot: HangarSnapshot, focus: Focus): DisplayKey {
	const {now, startedAt, entries, details, logs, clients, ...rest} = snapshot;
	const detailed = details !== undefined || logs !== undefined;
	const listed = focus?.want === 'clients' ? clientRows(clients, now) : [];
	let events: string | undefined;
	const eventsKey = (): string =>
		(events ??= JSON.stringify({
			...rest,
			entries: entries.map(entry => ({...entry, upSeconds: entry.upSeconds === null, idleSeconds: entry.idleSeconds === null})),
			details: details === undefined ? undefined : {...details, server: {...details.server, upSeconds: undefined, idleSeconds: undefined}},
			// Buffered lines never change: which upstream, where the buffer starts and how long it is say which lines it holds.
			logs: logs === undefined ? undefined : [focus !== undefined && 'name' in focus ? focus.name : undefined, logs.first, logs.lines.length],
			attached: clients.length,
			// The header's uptime follows the clock alone while it keeps its width; a wider one moves the rest of the header line.
			uptimeWidth: uptime((now - startedAt) / 1000).length,
			// The header counts idle clients: a client going idle is an event, not the clock.
			idle: clients.filter(client => client.idle === true).length,
			clients: listed.map(({client}) => ({...client, calls: count(client.calls), connectedAt: undefined, lastCallAt: client.lastCallAt === null, lastSeenAt: undefined})),
		}));
	const running = (now - startedAt) / 1000;
	const clock = [
		uptime(running),
		...entries.map(entry => upIdle(entry)),
		...listed.map(row => `${row.connected}/${row.lastCall}`),
		detailed ? String(Math.floor(now / 1000)) : '',
	].join('|');
	// The detail and log views show times to the second; so do the list and header in their first hour.
	const seconds =
		detailed ||
		running < secondsShownBelow ||
		listed.some(row => row.seconds) ||
		entries.some(entry => (entry.upSeconds !== null && entry.upSeconds < secondsShownBelow) || (entry.idleSeconds !== null && entry.idleSeconds < secondsShownBelow));
	return {events: eventsKey, clock, seconds};
}
