/**
 * `c`: the MCP clients attached to this hangar, oldest first, one row each:
 * name and version, transport, protocol version, label, connected since, calls, last call.
 * Consoles (terminal UIs attached to this supervisor) are listed too, as
 * "console" under TRANSPORT, and counted apart from the MCP clients.
 * Columns fit the width (see client-columns.ts); ↑↓ scroll when there are more
 * clients than rows. With none attached it says how to attach one, with
 * the command a client should launch (absolute, as setup writes it).
 */
import {Box} from 'ink';
import {launchCommandLine, selfCommand} from '../../client-files/hangar-launch.js';
import {wrap} from './cell-format.js';
import {clientRows, fitClientColumns} from './client-columns.js';
import {scrollRoom, scrollWindow} from './screen-layout.js';
import {Segments, StableSegments, type Segment} from './Segments.js';
import {headerSegments, rowSegments} from './table-columns.js';
import {useTuiState} from './tui-context.js';

/** What to do about an empty list, wrapped to `width`. */
function emptyLines(configPath: string, width: number): Segment[][] {
	const indented = (text: string, indent: number, tone: Segment['tone']): Segment[][] =>
		wrap(text, Math.max(1, width - indent), 3).map(line => [{text: ' '.repeat(indent)}, {text: line, tone}]);
	return [
		...indented('No MCP client is attached.', 2, {bold: true}),
		...indented(`To attach one, give an MCP client this as its server command while this TUI runs (or run: ${selfCommand()} setup CLIENT):`, 2, {dim: true}),
		...indented(launchCommandLine(configPath), 4, {color: 'cyan'}),
	];
}

export function ClientsView({height}: {height: number}) {
	const {snapshot, size, layout, ui} = useTuiState();
	const rows = clientRows(snapshot.clients, snapshot.now);
	const room = scrollRoom(height, ui);
	const {start, end, note} = scrollWindow(rows.length, ui.scroll, room, 'rows');
	const shown = rows.slice(start, end);
	const consoles = rows.filter(row => row.client.console === true).length;
	const attached = rows.length - consoles;
	const count = [
		attached === 0 ? 'none attached' : `${attached} attached`,
		...(consoles === 0 ? [] : [`${consoles} console${consoles === 1 ? '' : 's'}`]),
		...(rows.length === 0 ? [] : [`oldest first${note}`]),
	].join(', ');
	const title = <Segments segments={[{text: 'CLIENTS', tone: {bold: true}}, {text: `  ${count}`, tone: {dim: true}}]} />;
	if (rows.length === 0) {
		return (
			<Box flexDirection="column">
				{title}
				{emptyLines(snapshot.configPath, size.columns)
					.slice(0, room)
					.map((line, index) => (
					<Segments key={index} segments={line} />
				))}
			</Box>
		);
	}

	const columns = fitClientColumns(layout, size.columns, rows);
	return (
		<Box flexDirection="column">
			{title}
			<Segments segments={headerSegments(columns)} />
			{shown.map(row => (
				<StableSegments key={row.client.id} segments={rowSegments(row, columns)} />
			))}
		</Box>
	);
}
