/**
 * The `/` filter line above the table: the query (with a cursor while it is
 * typed) and how many upstreams match.
 */
import {useTuiState} from './tui-context.js';
import {Segments} from './Segments.js';

export function FilterBar() {
	const {ui, rows, snapshot} = useTuiState();
	const {query, editing} = ui.filter;
	const matches = `${rows.length} of ${snapshot.entries.length} match`;
	return (
		<Segments
			segments={[
				{text: '/ ', tone: {color: 'cyan', bold: true}},
				{text: query, tone: {bold: true}},
				{text: editing ? '▏' : '', tone: {color: 'cyan'}},
				{text: `  ${matches}`, tone: {dim: true}},
				{text: editing ? '  (Enter keeps it, Esc clears it)' : '  (Esc clears it)', tone: {dim: true}},
			]}
		/>
	);
}
