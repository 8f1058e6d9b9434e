/**
 * The lines of the `?` help screen: every binding of the keymap by context,
 * then what the columns mean and where hangar's files are, wrapped to the
 * terminal's width (a description is never cut: its end often says the
 * most, like "after a y/n question"). Plain data, so the help view renders
 * it and the scroll limit counts it.
 */
import {wrap} from './cell-format.js';
import type {HangarSnapshot} from './hangar-source.js';
import {helpSections} from './keymap.js';

/** A row's key is padded to the keys' common width; a wrapped row goes on in rows with a blank key. */
export type HelpLine = {kind: 'title'; text: string} | {kind: 'row'; key: string; text: string} | {kind: 'blank'};

/** Characters before a row's text: two spaces, the key, two spaces. */
const helpIndent = (keyWidth: number): number => keyWidth + 4;

const columnNotes: Array<[string, string]> = [
	['STATE', 'cold, starting, ready, degraded, dead, stopping, stopped, quarantined, disabled (always the word, coloured); a per-client server whose instances run: theirs and how many (ready ×2; dead 1/3: one of three)'],
	['BRK', 'the breaker: ● closed (calls flow), ○ open (calls fail fast until a probe), ◐ half-open (a probe is running)'],
	['UP/IDLE', 'time since it started / since its last call, while running (to the second under an hour)'],
	['~TOKENS', 'estimated tokens its exposed tool and prompt definitions cost each client (JSON characters / 4)'],
	['TOOLS', 'tools known; dim when listed from the cache or the config rather than by the running upstream'],
	['FAILED', 'failed calls since hangar started; red while failures run in a row (the line under the table counts them, failed starts included: what opens the breaker)'],
	['P50/P95', 'call latency, median and 95th percentile of the last 256 calls'],
	['RESTARTS', 'automatic restarts after a crash or a failed start'],
	['CALLS 5m', 'in wide terminals, with FAIL 5m and P95 5m: calls, failures and p95 latency over the last 5 minutes, 30 s a character'],
	['LAST ERROR', 'the last failure; the line under the table shows the selected (or first broken) upstream\'s whole'],
];

const callNotes: Array<[string, string]> = [
	['RESULT', 'ok; tool error (the tool answered with isError); or the error\'s code (UpstreamTimeout, CircuitOpen, a JSON-RPC code)'],
	['CLIENT', 'the client\'s name from initialize, else its session label; "demo traffic" for the calls of --demo-traffic'],
];

const clientNotes: Array<[string, string]> = [
	['CLIENT', 'the name and version the client sent in initialize (a 2026-07-28 client: in each request); "(not initialized)" until it does; "(no clientInfo)": a 2026-07-28 client whose requests do not name it; "(no recent request)": a 2026-07-28 client connected but silent for 5 minutes'],
	['TRANSPORT', 'socket: an `mcp-hangar --stdio` attached through the local socket; http: an HTTP session'],
	['PROTOCOL', 'the protocol version it speaks: the one its initialize negotiated (2025-11-25, 2024-11-05, ...), or 2026-07-28'],
	['LABEL', 'the session as hangar\'s log names it'],
	['(idle)', 'an HTTP session with no request for 60 s and no stream open: not counted when quitting asks'],
];

/** The last answer: the help view draws it on every frame and the scroll limit counts it on every key. */
let last: {configPath: string; logFile: string; width: number; lines: readonly HelpLine[]} | undefined;

/** The help screen's lines at `width` columns (the same array while the inputs stay the same). */
export function helpLines(snapshot: Pick<HangarSnapshot, 'configPath' | 'logFile'>, width: number): readonly HelpLine[] {
	const {configPath, logFile} = snapshot;
	if (last?.configPath !== configPath || last.logFile !== logFile || last.width !== width) {
		last = {configPath, logFile, width, lines: buildLines(configPath, logFile, width)};
	}

	return last.lines;
}

function buildLines(configPath: string, logFile: string, width: number): HelpLine[] {
	const lines: HelpLine[] = [];
	for (const section of helpSections()) {
		lines.push({kind: 'title', text: section.title});
		for (const row of section.rows) lines.push({kind: 'row', key: row.keys, text: row.description});
	}

	lines.push({kind: 'blank'}, {kind: 'title', text: 'Columns of the list'});
	for (const [key, text] of columnNotes) lines.push({kind: 'row', key, text});
	lines.push({kind: 'blank'}, {kind: 'title', text: 'Columns of the calls (t)'});
	for (const [key, text] of callNotes) lines.push({kind: 'row', key, text});
	lines.push({kind: 'blank'}, {kind: 'title', text: 'Columns of the clients (c)'});
	for (const [key, text] of clientNotes) lines.push({kind: 'row', key, text});
	lines.push({kind: 'blank'}, {kind: 'title', text: 'Files'});
	lines.push({kind: 'row', key: 'config', text: configPath});
	lines.push({kind: 'row', key: 'log', text: `${logFile} (hangar's own log; each upstream's output is under l)`});
	return wrapRows(lines, width);
}

function wrapRows(lines: readonly HelpLine[], width: number): HelpLine[] {
	const keyWidth = Math.max(...lines.map(line => (line.kind === 'row' ? line.key.length : 0)));
	const room = Math.max(10, width - helpIndent(keyWidth));
	return lines.flatMap((line): HelpLine[] => {
		if (line.kind !== 'row') return [line];
		return wrap(line.text, room, Number.POSITIVE_INFINITY).map((text, index) => ({kind: 'row', key: index === 0 ? line.key.padEnd(keyWidth) : ' '.repeat(keyWidth), text}));
	});
}
