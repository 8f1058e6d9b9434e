/**
 * The table `mcp-hangar status` prints: one row per upstream, columns
 * folded to the terminal's width, ages in words.
 */
import {terminalText} from '../core/base/terminal-text.js';
import type {StatusEntry} from '../core/views/views.js';

const ago = (iso: string | null, now: number): string => {
	if (iso === null) return '-';
	const seconds = Math.max(0, Math.round((now - Date.parse(iso)) / 1000));
	if (seconds < 60) return `${seconds}s ago`;
	if (seconds < 3600) return `${Math.round(seconds / 60)}m ago`;
	if (seconds < 86_400) return `${Math.round(seconds / 3600)}h ago`;
	return `${Math.round(seconds / 86_400)}d ago`;
};

// A line's own breaks (LF, CRLF), tabs and runs of spaces fold to one space, as the TUI folds them. Not \s: it also
// counts a BOM, the line separator and other characters the output rule must show escaped, and folding them would
// hide them in plain sight; a lone carriage return, a vertical tab and a form feed are left to it too (\x0d …).
const oneLine = (text: string): string => text.replaceAll(/(?:\r\n|[\t\n ])+/g, ' ');

/** "shared", "per-client", or what "auto" runs now ("auto: per-client" once the upstream asked a client for roots, sampling or elicitation); per client, how many of the limit run ("per-client 2/32"). */
function instancesCell(entry: StatusEntry): string {
	const mode = entry.instanceMode;
	if (mode === undefined) return '-';
	const setting = mode.setting === 'auto' ? `auto: ${mode.runs}` : mode.setting;
	return mode.limit === undefined ? setting : `${setting} ${entry.instances?.length ?? 0}/${mode.limit}`;
}

/** The revision it is driven in ("2026-07-28", "2025-11-25"), "-" before its first start told. */
function eraCell(entry: StatusEntry): string {
	return entry.era.era === null ? '-' : entry.era.era === 'dual' ? 'dual-era' : (entry.era.protocolVersion ?? entry.era.era);
}

/** The row of one instance under its server's: its state, counts, pid and whom it serves (`serves`), then its last error. */
function instanceRow(instance: NonNullable<StatusEntry['eraTwin']>, serves: string): string[] {
	const last = `pid ${instance.pid ?? '-'}, ${serves}${instance.lastError === null ? '' : `: ${instance.lastError}`}`;
	return [`  ${instance.name}`, instance.state, '', '', '', '', '', String(instance.calls), String(instance.failures), '', String(instance.restarts), '', '', oneLine(last)];
}

/**
 * Words of `text` in lines of at most `room` characters (a word longer than
 * that is cut where it must be).
 */
function foldText(text: string, room: number): string[] {
	const lines: string[] = [];
	let current = '';
	for (const word of text.split(' ')) {
		for (let rest = word; rest.length > 0; ) {
			const space = current === '' ? 0 : 1;
			if (current.length + space + rest.length <= room) {
				current = current === '' ? rest : `${current} ${rest}`;
				rest = '';
			} else if (current === '') {
				lines.push(rest.slice(0, room));
				rest = rest.slice(room);
			} else {
				lines.push(current);
				current = '';
			}
		}
	}

	return [...lines, current].filter(line => line !== '');
}

/**
 * LAST ERROR: the quarantine's reason or the last error, on one line. A
 * server waiting for a sign-in also says how to give it one: its error is
 * kept without the hint the caller got, and a person reading status is the
 * one who can act.
 */
function lastErrorCell(entry: StatusEntry): string {
	const text = oneLine(entry.quarantineReason ?? entry.lastError ?? '');
	if (entry.state === 'needs-sign-in') return `${text === '' ? 'it needs a sign-in' : text}; to sign in: mcp-hangar auth ${entry.name}`;
	return text === '' ? '-' : text;
}

/**
 * The hangar_list view as an aligned table, one row per upstream. LAST ERROR
 * is never cut: piped or redirected (`width` undefined), each row is one
 * line; on a terminal `width` columns wide, a long error folds onto the next
 * lines under its column (or under the row when the column starts too far
 * right), so its hint is still there.
 */
export function statusTable(entries: readonly StatusEntry[], now = Date.now(), width?: number): string {
	const header = ['NAME', 'STATE', 'ADMIN', 'CALLABLE', 'TOOLS', '~TOKENS', 'VERIFIED', 'CALLS', 'FAILED', 'P50', 'RESTARTS', 'INSTANCES', 'ERA', 'LAST ERROR'];
	const rows = entries.flatMap(entry => [[
		entry.name,
		entry.state,
		entry.admin,
		entry.callable ? 'yes' : 'no',
		entry.toolsSource === 'none' ? 'not listed yet' : `${entry.tools}${entry.stale ? ' (stale)' : ''}`,
		entry.contextTokens === undefined || entry.contextTokens === 0 ? '-' : String(entry.contextTokens),
		ago(entry.lastVerifiedAt, now),
		String(entry.calls),
		// As the TUI's FAILED column and reason line: failed calls, then the failures in a row (starts included) that open the breaker.
		entry.consecutiveFailures > 0 ? `${entry.failures} (${entry.consecutiveFailures} in a row)` : String(entry.failures),
		entry.latencyMs.p50 === null ? '-' : `${entry.latencyMs.p50}ms`,
		String(entry.restarts),
		instancesCell(entry),
		eraCell(entry),
		lastErrorCell(entry),
	],
	// A per-client server's instances, one row each under it; a dual-era server's era twin too.
	...(entry.instances ?? []).map(instance => instanceRow(instance, `client ${instance.client}`)),
	...(entry.eraTwin === undefined ? [] : [instanceRow(entry.eraTwin, 'era twin: its 2026-07-28 mode, for 2026-07-28 clients')])]);
	// Escaped before the columns are measured, so a name with a control in it still lines up.
	const cells = rows.map(row => row.map(cell => terminalText(cell)));
	const widths = header.map((title, column) => Math.max(title.length, ...cells.map(row => row[column]!.length)));
	const line = (cells: string[], fold = true) => {
		const head = cells.slice(0, -1).map((cell, column) => cell.padEnd(widths[column]!)).join('  ');
		const last = cells.at(-1)!;
		const offset = head.length + 2;
		if (!fold || width === undefined || offset + last.length <= width) return `${head}  ${last}`.trimEnd();
		// Too little room right of the other columns: the error goes under the row, indented.
		const indent = width - offset >= 24 ? offset : 4;
		const folded = foldText(last, Math.max(16, width - indent));
		const first = indent === offset ? folded.shift()! : '';
		return [`${head}  ${first}`.trimEnd(), ...folded.map(text => `${' '.repeat(indent)}${text}`)].join('\n');
	};

	return `${[line(header, false), ...cells.map(row => line(row))].join('\n')}\n`;
}
