/**
 * The upstream list: the filter line when a filter is open or set, then the
 * table.
 */
import {Box} from 'ink';
import {FilterBar} from './FilterBar.js';
import {useTuiState} from './tui-context.js';
import {UpstreamTable} from './UpstreamTable.js';

export function MainView({height}: {height: number}) {
	const {ui} = useTuiState();
	const filtered = ui.filter.editing || ui.filter.query !== '';
	return (
		<Box flexDirection="column">
			{filtered ? <FilterBar /> : null}
			<UpstreamTable height={height} />
		</Box>
	);
}
