/**
 * The terminal's size, updated on resize. Tests pass a fixed size instead
 * (ink-testing-library's stdout is always 100 columns wide).
 */
import {useEffect, useState} from 'react';
import {useStdout} from 'ink';
import type {TerminalSize} from './tui-context.js';

const fallback: TerminalSize = {columns: 80, rows: 24};

export function useTerminalSize(fixed?: TerminalSize): TerminalSize {
	const {stdout} = useStdout();
	const read = (): TerminalSize => ({columns: stdout.columns || fallback.columns, rows: stdout.rows || fallback.rows});
	const [size, setSize] = useState(read);

	useEffect(() => {
		if (fixed !== undefined) return;
		const onResize = (): void => setSize(read());
		stdout.on('resize', onResize);
		return () => {
			stdout.off('resize', onResize);
		};
	}, [stdout, fixed]);

	return fixed ?? size;
}
