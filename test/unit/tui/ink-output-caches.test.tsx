/**
 * Ink's output caches shared across frames (source/tui/ink-output-caches.ts):
 * the same frames come out as with Ink's per-frame caches, and the shared
 * caches stay within their bound however many distinct lines are drawn.
 */
import {Writable} from 'node:stream';
import {Box, Text, render} from 'ink';
import {describe, expect, it} from 'vitest';
import {shareInkOutputCaches, sharedOutputCacheSizes} from '../../../source/tui/ink-output-caches.js';

/** Styles, wide characters, emoji, truncation, rows of several text nodes, wrapping, borders over backgrounds, clips. */
function App({n}: {n: number}) {
	return (
		<Box flexDirection="column" width={60}>
			<Text bold color="cyan">{`header ${n}s`}</Text>
			{Array.from({length: 8}, (_, row) => (
				<Box key={row} flexDirection="row">
					<Text wrap="truncate-end" inverse={row === n % 8}>{`\u001B[32m● up-${row}\u001B[39m  ready  `}</Text>
					<Text wrap="truncate-end" inverse={row === n % 8}>{`${n + row}s/${n}s`}</Text>
					<Text wrap="truncate-end" dimColor={row % 2 === 0}>{`  ▁▂▃▅▇ 漢字 👍🏽 \u001B[1;31mfailed\u001B[22;39m ${'a long reason that is cut at the edge '.repeat(2)}`}</Text>
				</Box>
			))}
			<Text wrap="wrap" color="yellow">{`a wrapped line that goes on past the width of sixty columns, frame ${n}`}</Text>
			<Box flexDirection="row">
				<Box width={12}><Text>{`tick ${String(n % 10)}`}</Text></Box>
				<Box width={10}><Text wrap="wrap">{n % 2 === 0 ? 'aaaa bbbbbbbbb cc' : 'aaaaaaaaa bbbb cc'}</Text></Box>
				<Box width={10}><Text wrap="truncate-middle" color="green">{`${'x'.repeat(n)}|${n}`}</Text></Box>
			</Box>
			<Box borderStyle="round" borderColor="cyan" backgroundColor={n % 2 === 0 ? 'blue' : 'magenta'} width={30} paddingX={1}>
				<Text color="white" bold={n % 3 === 0}>{`boxed ${n} 漢字`}</Text>
			</Box>
			<Box width={9} overflow="hidden"><Box flexShrink={0}><Text>{`\u001B[35m漢字漢字\u001B[39m-clipped-${n}`}</Text></Box></Box>
			<Box height={2} marginTop={-1} marginLeft={20}><Text inverse>{`over ${n}`}</Text></Box>
		</Box>
	);
}

/** Every frame Ink writes for `count` renders of the app. */
function frames(count: number, app: (n: number) => React.JSX.Element = n => <App n={n} />): string[] {
	const written: string[] = [];
	const stdout = Object.assign(new Writable({write: (chunk: Buffer, _encoding, done) => {
		written.push(String(chunk));
		done();
	}}), {columns: 60, rows: 20});
	const instance = render(app(0), {stdout: stdout as unknown as NodeJS.WriteStream, debug: true, patchConsole: false});
	for (let n = 1; n <= count; n++) instance.rerender(app(n));
	instance.unmount();
	return written;
}

describe("Ink's output caches shared across frames", () => {
	it('draw the same frames as per-frame caches, and stay within their bound', async () => {
		// Before sharing (this file runs in a fresh module graph: nothing has shared them yet).
		expect(sharedOutputCacheSizes()).toBeUndefined();
		const own = frames(12);
		expect(own.length).toBeGreaterThan(10);

		expect(await shareInkOutputCaches(64)).toBe(true);
		expect(frames(12)).toEqual(own);
		expect(sharedOutputCacheSizes()!.styledChars).toBeGreaterThan(0);

		// 300 frames of a distinct line each: the caches are cleared past 64 entries, never holding all of them.
		frames(300, n => <Text>{`line ${n} ${'x'.repeat(n % 40)}`}</Text>);
		const sizes = sharedOutputCacheSizes()!;
		expect(sizes.styledChars).toBeLessThanOrEqual(65);
		expect(sizes.widths).toBeLessThanOrEqual(65);
		expect(sizes.blockWidths).toBeLessThanOrEqual(65);
	});
});
