/**
 * Picks what fills the screen: header, the current view's body in the rows
 * left over, footer. The frame is one row shorter than the terminal (see
 * screen-layout.ts); under 60 columns every part uses its compact layout.
 */
import {Box} from 'ink';
import {CallsView} from './CallsView.js';
import {CallView} from './CallView.js';
import {ClientsView} from './ClientsView.js';
import {DetailView} from './DetailView.js';
import {Footer} from './Footer.js';
import {Header} from './Header.js';
import {HelpView} from './HelpView.js';
import {LogView} from './LogView.js';
import {MainView} from './MainView.js';
import {bodyRows, frameRows} from './screen-layout.js';
import {useTuiState} from './tui-context.js';
import {currentView} from './ui-state.js';

const views = {main: MainView, detail: DetailView, logs: LogView, clients: ClientsView, help: HelpView, calls: CallsView, call: CallView} as const;

export function App() {
	const {ui, size} = useTuiState();
	const Body = views[currentView(ui)];
	const height = bodyRows(size, ui);
	return (
		<Box flexDirection="column" width={size.columns} height={frameRows(size)}>
			<Header />
			<Box flexDirection="column" flexGrow={1}>
				<Body height={height} />
			</Box>
			<Footer />
		</Box>
	);
}
