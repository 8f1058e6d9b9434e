/**
 * `mcp-hangar tui`: the terminal UI. Owned by the TUI work in progress;
 * replaced by the Ink app (source/components/).
 */
import type {Logger} from './core/logger.js';

export type TuiOptions = {configPath: string; stateDir?: string | undefined; logFile?: string | undefined; logLevel: string; logger?: Logger};

export async function runTui(_options: TuiOptions): Promise<void> {
	throw new Error('the terminal UI is not built yet');
}
