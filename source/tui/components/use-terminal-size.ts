/**
 * The terminal's size, updated on resize (Ink's own `useWindowSize`). Tests
 * pass a fixed size instead (ink-testing-library's stdout is always 100
 * columns wide).
 */
import {useWindowSize} from 'ink';
import type {TerminalSize} from './tui-context.js';

export function useTerminalSize(fixed?: TerminalSize): TerminalSize {
	const size = useWindowSize();
	return fixed ?? size;
}
