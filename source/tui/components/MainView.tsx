/**
 * The upstream list: the filter line when a filter is open or set, then the
 * table.
 */
import {Box} from 'ink';
import {FilterBar} from './FilterBar.js';
import {filterRows} from './screen-layout.js';
import {useTuiState} from './tui-context.js';
import {UpstreamTable} from './UpstreamTable.js';

export function MainView({height}: {height: number}) {
	const {ui} = useTuiState();
	return (
		<Box flexDirection="column">
			{filterRows(ui) > 0 ? <FilterBar /> : null}
			<UpstreamTable height={height} />
		</Box>
	);
}
