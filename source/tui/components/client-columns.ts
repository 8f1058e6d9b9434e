/**
 * The clients view's rows and columns: who each client is (clientInfo from
 * its initialize), how it is connected and which protocol version it speaks, since when, how many calls it made
 * and its last one. Ages are computed once per row at the resolution the
 * table shows them (seconds only in the first ten), and the display key
 * reads the same rows, so the screen is redrawn when a shown age moves and
 * not otherwise.
 */
import type {ClientView} from '../../core/engine/clients/clients.js';
import {count, printable, secondsShownBelow, shortDuration} from './cell-format.js';
import {fitColumns, type Column, type ColumnSpec} from './table-columns.js';

export type ClientRow = {
	client: ClientView;
	/** "claude-code 1.0.3", or "(not initialized)" until initialize arrives ("(no recent request)": a 2026-07-28 connection whose identity went idle); " (idle)" after it for an idle HTTP session. */
	name: string;
	/** Time since it connected: 7s, 4m10s, 3h. */
	connected: string;
	/** "7s ago", or "-" before its first call. */
	lastCall: string;
	/** Some age of the row is shown to the second: the clock has to move every second. */
	seconds: boolean;
};

const secondsShownMs = secondsShownBelow * 1000;

/**
 * A client that has not said who it is: a 2025 one before initialize, a
 * 2026-07-28 one whose requests carry no clientInfo, or a 2026-07-28
 * connection whose client has sent nothing for a while (its identity went).
 */
const unnamed = (client: ClientView): string => (client.protocolVersion === null ? '(not initialized)' : client.modern === true ? '(no clientInfo)' : '(no recent request)');

export function clientRows(clients: readonly ClientView[], now: number): ClientRow[] {
	return clients.map(client => {
		const sinceCall = client.lastCallAt === null ? undefined : now - client.lastCallAt;
		return {
			client,
			name: (client.name === null ? unnamed(client) : printable(client.version === null || client.version === '' ? client.name : `${client.name} ${client.version}`)) + (client.idle === true ? ' (idle)' : ''),
			connected: shortDuration((now - client.connectedAt) / 1000),
			lastCall: sinceCall === undefined ? '-' : `${shortDuration(sinceCall / 1000)} ago`,
			seconds: now - client.connectedAt < secondsShownMs || (sinceCall !== undefined && sinceCall < secondsShownMs),
		};
	});
}

const nameColumn: ColumnSpec<ClientRow> = {
	id: 'name',
	title: 'CLIENT',
	width: 'name',
	// Client names carry a version (and "(idle)"): a little more room than upstream names.
	max: 26,
	align: 'left',
	cell: row => ({text: row.name, tone: row.client.name === null ? {dim: true} : {bold: true}}),
};
const callsColumn: ColumnSpec<ClientRow> = {id: 'calls', title: 'CALLS', width: 6, align: 'right', cell: row => ({text: count(row.client.calls)})};
const lastCallColumn: ColumnSpec<ClientRow> = {
	id: 'lastCall',
	title: 'LAST CALL',
	width: 'rest',
	align: 'left',
	cell: row => ({text: row.client.lastTool === null ? row.lastCall : `${row.lastCall}  ${printable(row.client.lastTool)}`}),
};

/** A console (a TUI attached over the socket) says so here: it is a person watching, not an MCP client. */
const transportColumn: ColumnSpec<ClientRow> = {
	id: 'transport',
	title: 'TRANSPORT',
	width: 9,
	align: 'left',
	cell: row => (row.client.console === true ? {text: 'console', tone: {color: 'cyan'}} : {text: row.client.transport}),
};

/** The protocol version it speaks (2025-11-25, 2024-11-05, 2026-07-28 ...): a person mixing generations sees which is which. */
const protocolColumn: ColumnSpec<ClientRow> = {
	id: 'protocol',
	title: 'PROTOCOL',
	width: 10,
	align: 'left',
	cell: row => (row.client.protocolVersion === null ? {text: '-', tone: {dim: true}} : {text: printable(row.client.protocolVersion)}),
};

/** Every column, when the width allows. */
const clientColumns: Array<ColumnSpec<ClientRow>> = [
	nameColumn,
	transportColumn,
	protocolColumn,
	{id: 'label', title: 'LABEL', width: 10, align: 'left', cell: row => ({text: printable(row.client.label), tone: {dim: true}})},
	{id: 'connected', title: 'CONNECTED', width: 9, align: 'right', cell: row => ({text: row.connected})},
	callsColumn,
	lastCallColumn,
];

/** Narrower: the protocol version, the label and the connection's age give way to the calls. */
const mediumClientColumns: Array<ColumnSpec<ClientRow>> = [nameColumn, transportColumn, callsColumn, lastCallColumn];

/** Under 60 columns: who, how many calls, the last one. */
const compactClientColumns: Array<ColumnSpec<ClientRow>> = [nameColumn, callsColumn, lastCallColumn];

/**
 * The columns for a width: every one if all fit, else the medium set, cut
 * from the right like the list's when even that does not fit. Dropping
 * strictly from the right would lose the calls and the last call first,
 * which say most about a client.
 */
export function fitClientColumns(layout: 'full' | 'compact', width: number, rows: readonly ClientRow[]): Array<Column<ClientRow>> {
	const sets = layout === 'compact' ? [compactClientColumns] : [clientColumns, mediumClientColumns];
	let fitted: Array<Column<ClientRow>> = [];
	for (const specs of sets) {
		fitted = fitColumns(specs, width, rows);
		if (fitted.length === specs.length) break;
	}

	return fitted;
}
