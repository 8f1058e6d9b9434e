/**
 * Table columns and how they fit a width (the upstream table's are here;
 * the clients view has its own, in client-columns.ts). Each column has a
 * priority: the columns are chosen most important first while they fit
 * (a column that does not fit is skipped, a smaller one after it may still
 * fit), then shown in their own order, so a row never wraps. The upstream's
 * state, name, last error and failures come before its latency and pid: at
 * 80 columns a broken upstream still says why. The tool count comes next:
 * with long names at 140 columns, it stays where latency gives way. The last column (the last
 * error) takes whatever width is left over its minimum.
 */
import type {SeriesView} from '../../core/engine/upstream/metrics.js';
import type {StatusEntry} from '../../core/views/views.js';
import {serverNameMaxLength} from '../../core/config/config-schema.js';
import {count, cut, cutMiddle, fit, latency, printable, shortDuration} from './cell-format.js';
import type {HangarSnapshot} from './hangar-source.js';
import type {Segment} from './Segments.js';
import {mergeBuckets, sparkline} from './sparkline.js';
import {breakerTone, shownState, stateTone, type Tone} from './state-style.js';

export type Cell = {text: string; tone?: Tone};

export type ColumnSpec<Row = StatusEntry> = {
	id: string;
	title: string;
	/** A fixed width, or 'name' (its longest cell, within bounds), or 'rest' (what is left, at least `min`). */
	width: number | 'name' | 'rest';
	align: 'left' | 'right';
	/** Lower comes first when the width is short (default: the order of the list). */
	priority?: number;
	/** For 'rest': the least width worth showing (default 12). */
	min?: number;
	/** For 'rest': the width it holds against columns of later priority (default its min); it gets all that is left in the end. */
	want?: number;
	/** For 'rest': the name gives up characters (down to 12) for its minimum. */
	squeezesName?: boolean;
	/** For 'name': its cap (default `nameBounds.max`); longer cells are cut with "…". */
	max?: number;
	/** For 'name': how wide it may grow past `max` with room the last column does not want (a wide terminal); default `max`. */
	wide?: number;
	/** Cut in the middle ("a-very-lo…name-num00"), not at the end: names that share a long start stay apart. */
	cutMiddle?: boolean;
	cell: (row: Row) => Cell;
	/** Its text changes with the clock alone (ages): drawn as a text node of its own, so the rest of the row stays the same string from frame to frame (see Segments). */
	ticks?: boolean;
};

export type Column<Row = StatusEntry> = ColumnSpec<Row> & {width: number};

/** Spaces between two columns. */
const columnGap = 2;
/** Width of the selection marker in front of each row. */
const markerWidth = 2;
/** A name longer than `max` is cut with "…"; a 19-character name (sequential-thinking) still fits whole. */
export const nameBounds = {min: 8, max: 20};
const restMin = 12;
/** How far the name gives way to the last error's minimum. */
const nameShrinksTo = 12;

/** The UP/IDLE cell: exact under an hour (35s, 4m10s), as in the details. */
export function upIdle(entry: StatusEntry): string {
	if (entry.upSeconds === null) return '-';
	return `${shortDuration(entry.upSeconds)}/${shortDuration(entry.idleSeconds ?? 0)}`;
}

/** The breaker as one character: ● closed (calls flow), ○ open (calls fail fast), ◐ half-open (a probe runs); the help has the legend. */
export const breakerGlyph: Record<StatusEntry['breaker'], string> = {closed: '●', open: '○', 'half-open': '◐'};

function failedCell(entry: StatusEntry): Cell {
	return {text: count(entry.failures), tone: entry.consecutiveFailures > 0 ? {color: 'red'} : entry.failures > 0 ? {color: 'yellow'} : {}};
}

// A name is cut in the middle, so six "a-very-long-upstream-name-numNN" stay apart; on a wide terminal it grows to the longest a name may be.
const nameColumn: ColumnSpec = {id: 'name', title: 'NAME', width: 'name', wide: serverNameMaxLength, cutMiddle: true, align: 'left', priority: 0, cell: entry => ({text: printable(entry.name), tone: {bold: true}})};
const stateWidth = 11;
// A per-client server resting cold while its instances serve shows theirs ("ready ×2"): cold would say nothing runs.
const stateColumn: ColumnSpec = {
	id: 'state',
	title: 'STATE',
	width: stateWidth,
	align: 'left',
	priority: 0,
	cell(entry) {
		const shown = shownState(entry, stateWidth);
		return {text: shown.label, tone: stateTone[shown.state]};
	},
};
// The row already names the upstream: a leading 'upstream "name": ' would only use up the cell.
const errorColumn: ColumnSpec = {
	id: 'error',
	title: 'LAST ERROR',
	width: 'rest',
	min: 16,
	want: 36,
	squeezesName: true,
	align: 'left',
	priority: 2,
	cell: entry => ({text: printable(withoutSubject(entry.lastError ?? '', entry.name)), tone: {color: 'red'}}),
};

/** Width of a history column: 60 buckets of 5 s merged six by six (30 s a character), the last 5 minutes. */
export const historyWidth = 10;

const history = (id: string, title: string, priority: number, pick: (series: SeriesView) => string, tone: Tone) => (histories: Readonly<Record<string, SeriesView>>): ColumnSpec => ({
	id,
	title,
	width: historyWidth,
	align: 'left',
	priority,
	cell: entry => {
		const series = histories[entry.name];
		return series === undefined ? {text: '', tone: {dim: true}} : {text: pick(series), tone};
	},
});

const callsHistory = history('callsHistory', 'CALLS 5m', 20, series => sparkline(series.calls, historyWidth, 'sum'), {color: 'cyan'});
const p95History = history('p95History', 'P95 5m', 22, series => sparkline(series.p95, historyWidth, 'max'), {color: 'yellow'});
// Failures on the scale of the calls: a bar as high as the calls one means every call failed.
const failHistory = history(
	'failHistory',
	'FAIL 5m',
	21,
	series => (series.failures.some(n => n > 0) ? sparkline(series.failures, historyWidth, 'sum', Math.max(...mergeBuckets(series.calls, historyWidth, 'sum').map(n => n ?? 0))) : ''),
	{color: 'red'},
);

/** Every column of the list, in the order shown; `histories` feeds the sparklines (wide terminals only, by priority). */
export function upstreamColumns(histories: Readonly<Record<string, SeriesView>> = {}): ColumnSpec[] {
	return [
		nameColumn,
		stateColumn,
		{id: 'breaker', title: 'BRK', width: 3, align: 'left', priority: 4, cell: entry => ({text: breakerGlyph[entry.breaker], tone: breakerTone[entry.breaker]})},
		// A per-client server runs one process per client session: the row counts them (the details list each).
		{id: 'pid', title: 'PID', width: 7, align: 'right', priority: 12, cell: entry => ({text: entry.instances === undefined ? (entry.pid === null ? '-' : String(entry.pid)) : `${entry.instances.length} inst`})},
		{id: 'up', title: 'UP/IDLE', width: 13, align: 'right', priority: 8, ticks: true, cell: entry => ({text: upIdle(entry)})},
		{id: 'tools', title: 'TOOLS', width: 5, align: 'right', priority: 5, cell: entry => ({text: String(entry.tools), tone: entry.stale ? {dim: true} : {}})},
		{id: 'tokens', title: '~TOKENS', width: 7, align: 'right', priority: 11, cell: entry => ({text: entry.contextTokens === 0 ? '-' : count(entry.contextTokens)})},
		{id: 'calls', title: 'CALLS', width: 6, align: 'right', priority: 6, cell: entry => ({text: count(entry.calls)})},
		// Failed calls since hangar started, red while failures run in a row (the reason line under the table counts them).
		{id: 'failures', title: 'FAILED', width: 6, align: 'right', priority: 1, cell: failedCell},
		{id: 'latency', title: 'P50/P95', width: 11, align: 'right', priority: 7, cell: entry => ({text: latency(entry.latencyMs)})},
		{id: 'restarts', title: 'RESTARTS', width: 8, align: 'right', priority: 6, cell: entry => ({text: String(entry.restarts), tone: entry.restarts > 0 ? {color: 'yellow'} : {}})},
		// Only when some upstream was called lately: three columns of blanks say nothing.
		...(Object.keys(histories).length === 0 ? [] : [callsHistory(histories), failHistory(histories), p95History(histories)]),
		errorColumn,
	];
}

/** The list's columns without history (what a test or a narrow terminal sees). */
export const fullColumns: ColumnSpec[] = upstreamColumns();

/** Under 60 columns: what matters most, nothing else. */
export const compactColumns: ColumnSpec[] = [
	nameColumn,
	stateColumn,
	{id: 'failures', title: 'FAILED', width: 6, align: 'right', cell: failedCell},
	{id: 'restarts', title: 'RST', width: 3, align: 'right', cell: entry => ({text: String(entry.restarts)})},
];

/**
 * The columns that fit in `width` (the selection marker included), with
 * their widths resolved, in the specs' order. Chosen by priority (ties: the
 * specs' order); the name shrinks to its minimum before a column of the
 * first priority is given up.
 */
export function fitColumns<Row>(specs: ReadonlyArray<ColumnSpec<Row>>, width: number, rows: readonly Row[]): Array<Column<Row>> {
	const name = specs.find(spec => spec.width === 'name');
	const longestName = name === undefined ? 0 : Math.max(name.title.length, ...rows.map(row => [...name.cell(row).text].length));
	let nameWidth = Math.min(name?.max ?? nameBounds.max, Math.max(nameBounds.min, longestName));
	const order = specs.map((spec, index) => ({spec, index, priority: spec.priority ?? index})).sort((a, b) => a.priority - b.priority || a.index - b.index);
	let restHeld = 0;
	const widthOf = (spec: ColumnSpec<Row>): number => (spec.width === 'name' ? nameWidth : spec.width === 'rest' ? restHeld : spec.width);
	const chosen = new Set<ColumnSpec<Row>>();
	let used = markerWidth;
	for (const {spec, priority} of order) {
		const gap = chosen.size === 0 ? 0 : columnGap;
		if (spec.width === 'rest') {
			const least = spec.min ?? restMin;
			restHeld = Math.min(spec.want ?? least, width - used - gap);
			// The reason something is broken is worth more than the last letters of a long name.
			const short = least - restHeld;
			if (short > 0 && spec.squeezesName === true && name !== undefined && chosen.has(name) && nameWidth - short >= nameShrinksTo) {
				nameWidth -= short;
				used -= short;
				restHeld = least;
			}

			if (restHeld < least) continue;
		}

		let want = widthOf(spec);
		if (used + gap + want > width && priority === 0) {
			// The first priority keeps its place: the name gives up what it must.
			const short = used + gap + want - width;
			if (name !== undefined && chosen.has(name) && nameWidth - short >= nameBounds.min) {
				nameWidth -= short;
				used -= short;
			} else if (spec === name) {
				want = Math.max(0, width - used - gap);
				if (want >= Math.min(nameBounds.min, longestName)) nameWidth = want;
			}
		}

		if (used + gap + want > width || want <= 0) continue;
		chosen.add(spec);
		used += gap + want;
	}

	// A wide terminal: what the last column does not want (or nobody takes) lets a long name show whole, up to its wide cap.
	if (name !== undefined && chosen.has(name)) {
		const rest = specs.find(spec => spec.width === 'rest' && chosen.has(spec));
		const spare = width - used + (rest === undefined ? 0 : restHeld - (rest.want ?? rest.min ?? restMin));
		const grow = Math.min(spare, Math.min(name.wide ?? name.max ?? nameBounds.max, longestName) - nameWidth);
		if (grow > 0) {
			nameWidth += grow;
			used += grow;
		}
	}

	const fitted: Array<Column<Row>> = [];
	for (const spec of specs) {
		if (!chosen.has(spec)) continue;
		if (spec.width === 'rest') fitted.push({...spec, width: width - used + restHeld});
		else fitted.push({...spec, width: widthOf(spec)});
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

/**
 * One row as a line: the selection marker, then each cell fitted to its
 * column. A left-aligned last cell is not padded: every character of a
 * frame costs the renderer, and ages redraw the table every second in an
 * upstream's first hour.
 */
export function rowSegments<Row>(row: Row, columns: ReadonlyArray<Column<Row>>, selected = false, liveRow?: (latest: HangarSnapshot) => Row | undefined): Segment[] {
	const segments: Segment[] = [{text: selected ? '› ' : ' '.repeat(markerWidth), tone: {bold: true}}];
	columns.forEach((column, index) => {
		if (index > 0) segments.push({text: ' '.repeat(columnGap)});
		const last = index === columns.length - 1 && column.align === 'left';
		const cell = column.cell(row);
		const shown = cellText(cell.text, column, last);
		if (column.ticks !== true) {
			segments.push({text: shown, tone: cell.tone});
			return;
		}

		// A ticking cell follows the newest read of its row (tick-context.ts), or stays as it is when the row has gone from it.
		const live = liveRow === undefined ? undefined : (latest: HangarSnapshot): string => {
			const now = liveRow(latest);
			return now === undefined ? shown : cellText(column.cell(now).text, column, last);
		};

		segments.push({text: shown, tone: cell.tone, ticks: true, ...(live === undefined ? {} : {live})});
	});
	return segments;
}

/** A cell's text in its column: fitted, or only cut when it is the unpadded last one. */
function cellText<Row>(text: string, column: Column<Row>, last: boolean): string {
	const shown = column.cutMiddle === true ? cutMiddle(text, column.width) : text;
	return last ? cut(shown, column.width) : fit(shown, column.width, column.align);
}

/** An error without its leading 'upstream "name": ', where the line already names the upstream. */
export function withoutSubject(text: string, name: string): string {
	const subject = `upstream "${name}": `;
	return text.startsWith(subject) ? text.slice(subject.length) : text;
}
