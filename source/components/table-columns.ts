/**
 * Table columns and how they fit a width (the upstream table's are here;
 * the clients view has its own, in client-columns.ts). Columns are placed
 * left to right while they fit; the first that does not fit is dropped with
 * every column after it, so a row never wraps. The last column (the
 * upstream's last error) may take whatever width is left, if it is enough
 * to be worth reading.
 */
import type {StatusEntry} from '../core/engine/views.js';
import {count, fit, latency, printable, shortDuration} from './cell-format.js';
import type {Segment} from './Segments.js';
import {breakerTone, stateTone, type Tone} from './state-style.js';

export type Cell = {text: string; tone?: Tone};

export type ColumnSpec<Row = StatusEntry> = {
	id: string;
	title: string;
	/** A fixed width, or 'name' (its longest cell, within bounds), or 'rest' (what is left). */
	width: number | 'name' | 'rest';
	align: 'left' | 'right';
	cell: (row: Row) => Cell;
};

export type Column<Row = StatusEntry> = ColumnSpec<Row> & {width: number};

/** Spaces between two columns. */
const columnGap = 2;
/** Width of the selection marker in front of each row. */
const markerWidth = 2;
const nameBounds = {min: 4, max: 24};
const restMin = 12;

/** The UP/IDLE cell: minutes after the first minute, so an idle table does not change every second. */
export function upIdle(entry: StatusEntry): string {
	if (entry.upSeconds === null) return '-';
	return `${shortDuration(entry.upSeconds)}/${shortDuration(entry.idleSeconds ?? 0)}`;
}

const nameColumn: ColumnSpec = {id: 'name', title: 'NAME', width: 'name', align: 'left', cell: entry => ({text: entry.name, tone: {bold: true}})};
const stateColumn: ColumnSpec = {id: 'state', title: 'STATE', width: 11, align: 'left', cell: entry => ({text: entry.state, tone: stateTone[entry.state]})};

export const fullColumns: ColumnSpec[] = [
	nameColumn,
	stateColumn,
	{id: 'breaker', title: 'BREAKER', width: 9, align: 'left', cell: entry => ({text: entry.breaker, tone: breakerTone[entry.breaker]})},
	// A per-client server runs one process per client session: the row counts them (the details list each).
	{id: 'pid', title: 'PID', width: 7, align: 'right', cell: entry => ({text: entry.instances === undefined ? (entry.pid === null ? '-' : String(entry.pid)) : `${entry.instances.length} inst`})},
	{id: 'up', title: 'UP/IDLE', width: 9, align: 'right', cell: entry => ({text: upIdle(entry)})},
	{id: 'tools', title: 'TOOLS', width: 5, align: 'right', cell: entry => ({text: String(entry.tools), tone: entry.stale ? {dim: true} : {}})},
	{id: 'calls', title: 'CALLS', width: 6, align: 'right', cell: entry => ({text: count(entry.calls)})},
	{
		id: 'failures',
		title: 'FAIL c/t',
		width: 9,
		align: 'right',
		cell: entry => ({
			text: `${count(entry.consecutiveFailures)}/${count(entry.failures)}`,
			tone: entry.consecutiveFailures > 0 ? {color: 'red'} : entry.failures > 0 ? {color: 'yellow'} : {},
		}),
	},
	{id: 'latency', title: 'P50/P95', width: 11, align: 'right', cell: entry => ({text: latency(entry.latencyMs)})},
	{id: 'restarts', title: 'RESTARTS', width: 8, align: 'right', cell: entry => ({text: String(entry.restarts), tone: entry.restarts > 0 ? {color: 'yellow'} : {}})},
	// The row already names the upstream: a leading 'upstream "name": ' would only use up the cell.
	{id: 'error', title: 'LAST ERROR', width: 'rest', align: 'left', cell: entry => ({text: printable(withoutSubject(entry.lastError ?? '', entry.name)), tone: {color: 'red'}})},
];

/** Under 60 columns: what matters most, nothing else. */
export const compactColumns: ColumnSpec[] = [
	nameColumn,
	stateColumn,
	{
		id: 'failures',
		title: 'FAIL',
		width: 7,
		align: 'right',
		cell: entry => ({text: `${count(entry.consecutiveFailures)}/${count(entry.failures)}`, tone: entry.consecutiveFailures > 0 ? {color: 'red'} : {}}),
	},
	{id: 'restarts', title: 'RST', width: 3, align: 'right', cell: entry => ({text: String(entry.restarts)})},
];

/** The columns that fit in `width` (the selection marker included), with their widths resolved. */
export function fitColumns<Row>(specs: ReadonlyArray<ColumnSpec<Row>>, width: number, rows: readonly Row[]): Array<Column<Row>> {
	const name = specs.find(spec => spec.width === 'name');
	const longestName = name === undefined ? 0 : Math.max(name.title.length, ...rows.map(row => [...name.cell(row).text].length));
	const nameWidth = Math.min(nameBounds.max, Math.max(nameBounds.min, longestName));
	const fitted: Array<Column<Row>> = [];
	let used = markerWidth;
	for (const spec of specs) {
		const gap = fitted.length === 0 ? 0 : columnGap;
		if (spec.width === 'rest') {
			const rest = width - used - gap;
			if (rest >= restMin) fitted.push({...spec, width: rest});
			break;
		}

		const columnWidth = spec.width === 'name' ? Math.min(nameWidth, width - used) : spec.width;
		if (used + gap + columnWidth > width || (spec.width === 'name' && columnWidth < nameBounds.min)) break;
		fitted.push({...spec, width: columnWidth});
		used += gap + columnWidth;
	}

	return fitted;
}

/** The column titles as a line, aligned with the rows. */
export function headerSegments<Row>(columns: ReadonlyArray<Column<Row>>): Segment[] {
	const segments: Segment[] = [{text: ' '.repeat(markerWidth)}];
	columns.forEach((column, index) => {
		if (index > 0) segments.push({text: ' '.repeat(columnGap)});
		segments.push({text: fit(column.title, column.width, column.align), tone: {bold: true, dim: true}});
	});
	return segments;
}

/** One row as a line: the selection marker, then each cell fitted to its column. */
export function rowSegments<Row>(row: Row, columns: ReadonlyArray<Column<Row>>, selected = false): Segment[] {
	const segments: Segment[] = [{text: selected ? '› ' : ' '.repeat(markerWidth), tone: {bold: true}}];
	columns.forEach((column, index) => {
		if (index > 0) segments.push({text: ' '.repeat(columnGap)});
		const cell = column.cell(row);
		segments.push({text: fit(cell.text, column.width, column.align), tone: cell.tone});
	});
	return segments;
}

function withoutSubject(text: string, name: string): string {
	const subject = `upstream "${name}": `;
	return text.startsWith(subject) ? text.slice(subject.length) : text;
}
