/**
 * The calls view's rows and one call's lines, from the engine's calls log
 * (plain data: `CallsWindow`, `CallLogDetail`). Columns fit the width by
 * priority like the list's: the time, client, upstream, tool and outcome
 * stay, latency gives way first, the error takes what is left. One call
 * shows its arguments and result as the engine kept them: a preview cut to
 * a bound, with secrets masked before they left the engine.
 */
import type {CallLogDetail, CallLogEntry} from '../../core/engine/call-log.js';
import {clock, millis, printable} from './cell-format.js';
import type {Segment} from './Segments.js';
import type {ColumnSpec} from './table-columns.js';
import {wrapSegments} from './wrap-segments.js';

/** The outcome as a word, and its colour: the code of an error (UpstreamTimeout, CircuitOpen, -32602, …). */
export function outcomeCell(entry: Pick<CallLogEntry, 'outcome' | 'code' | 'task'>): {text: string; tone: Segment['tone']} {
	// A call run as a task: its status as last seen (a failed or cancelled one is an error, its code "task failed").
	if (entry.task !== undefined && entry.outcome !== 'error') return {text: `task ${entry.task.replace('_', ' ')}`, tone: {color: entry.task === 'completed' ? 'green' : 'cyan'}};
	if (entry.outcome === 'ok') return {text: 'ok', tone: {color: 'green'}};
	if (entry.outcome === 'tool-error') return {text: 'tool error', tone: {color: 'yellow'}};
	return {text: entry.code ?? 'error', tone: {color: 'red', bold: true}};
}

const longest = (rows: readonly CallLogEntry[], pick: (row: CallLogEntry) => string, title: string, max: number): number =>
	Math.min(max, Math.max(title.length, ...rows.map(row => [...pick(row)].length)));

/** The calls view's columns for these rows. */
export function callColumns(rows: readonly CallLogEntry[]): Array<ColumnSpec<CallLogEntry>> {
	return [
		{id: 'time', title: 'TIME', width: 8, align: 'left', priority: 0, cell: row => ({text: clock(row.at), tone: {dim: true}})},
		// Whose call it was stays at 80 columns: nothing may look as if it crossed clients.
		{id: 'client', title: 'CLIENT', width: longest(rows, row => row.client, 'CLIENT', 18), align: 'left', priority: 1, cell: row => ({text: printable(row.client)})},
		{id: 'upstream', title: 'UPSTREAM', width: longest(rows, row => row.upstream, 'UPSTREAM', 20), cutMiddle: true, align: 'left', priority: 0, cell: row => ({text: printable(row.upstream), tone: {bold: true}})},
		{id: 'tool', title: 'TOOL', width: longest(rows, row => row.tool, 'TOOL', 24), align: 'left', priority: 0, cell: row => ({text: printable(row.tool)})},
		{id: 'latency', title: 'LATENCY', width: 7, align: 'right', priority: 2, cell: row => ({text: millis(row.ms)})},
		{id: 'result', title: 'RESULT', width: longest(rows, row => outcomeCell(row).text, 'RESULT', 16), align: 'left', priority: 1, cell: row => outcomeCell(row)},
		{id: 'error', title: 'ERROR', width: 'rest', min: 12, align: 'left', priority: 3, cell: row => ({text: printable(row.error ?? ''), tone: {color: 'red'}})},
	];
}

const label = (text: string): Segment => ({text, tone: {dim: true}});

/** One call, whole: what it was, its error, its arguments and its result, wrapped to `width`. */
export function callDetailLines(call: CallLogDetail, width: number): Segment[][] {
	const outcome = outcomeCell(call);
	const lines: Segment[][] = [
		[label('at '), {text: `${clock(call.at)}  (${new Date(call.at).toISOString()})`}],
		[label('client '), {text: printable(call.client)}, label('  upstream '), {text: printable(call.upstream), tone: {bold: true}}, label('  tool '), {text: printable(call.tool)}],
		[label('latency '), {text: millis(call.ms)}, label('  result '), outcome],
	];
	if (call.error !== null) lines.push([label('error '), {text: printable(call.error), tone: {color: 'red'}}]);
	lines.push([{text: 'ARGUMENTS', tone: {bold: true}}, label('  (secrets masked, cut to a bound)')]);
	lines.push([{text: `  ${printable(call.args)}`}]);
	lines.push([{text: 'RESULT', tone: {bold: true}}]);
	lines.push([{text: `  ${call.result === null ? '(none: the call failed)' : printable(call.result)}`, tone: call.result === null ? {dim: true} : {}}]);
	return lines.flatMap(line => wrapSegments(line, width));
}
