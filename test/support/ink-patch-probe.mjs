/**
 * Run by test/integration/ink-patch.test.ts in a process of its own (the
 * hooks must be registered before Ink loads): `node ink-patch-probe.mjs
 * patched|plain frames|memory`. Prints one JSON line.
 * - frames: renders a sequence of frames (styles, wide characters, emoji,
 *   truncation, rows split into several text nodes) and prints each.
 * - memory: feeds Ink's text measurement, wrapping and frame output 60,000
 *   distinct strings and prints how much the heap grew.
 */
import {createRequire} from 'node:module';
import {Writable} from 'node:stream';

const [mode, what] = process.argv.slice(2);
const root = new URL('../../', import.meta.url);
if (mode === 'patched') (await import(new URL('dist/tui/ink-patch.js', root).href)).boundInkCaches();
const require = createRequire(new URL('package.json', root));
const inkEntry = require.resolve('ink');
const inkFile = name => new URL(`./${name}.js`, `file://${inkEntry}`).href;

if (what === 'memory') {
	const {default: measureText} = await import(inkFile('measure-text'));
	const {default: wrapText} = await import(inkFile('wrap-text'));
	const {default: Output} = await import(inkFile('output'));
	global.gc();
	const before = process.memoryUsage().heapUsed;
	for (let i = 0; i < 60_000; i++) {
		const line = `\u001B[32mrow ${i}\u001B[39m up ${i}s ${'x'.repeat(60)}`;
		measureText(line);
		wrapText(line, 40, 'truncate-end');
		if (i % 40 === 0) {
			const output = new Output({width: 100, height: 40});
			for (let row = 0; row < 40; row++) output.write(0, row, `${line} ${row}`, {transformers: []});
			output.get();
		}
	}

	global.gc();
	// Every module the hooks edit says so (a piece Ink no longer has would leave its file as Ink's own).
	const editedFiles = [inkFile('measure-text'), inkFile('wrap-text'), inkFile('output'), inkFile('dom'), inkFile('sanitize-ansi'), inkFile('render-node-to-output'), new URL('../../@alcalzone/ansi-tokenize/build/styledChars.js', `file://${inkEntry}`).href];
	const flags = await Promise.all(editedFiles.map(async file => (await import(file)).__hangarBounded === true));
	const patched = flags.every(Boolean) ? true : flags.some(Boolean) ? flags : false;
	console.log(JSON.stringify({growthMiB: (process.memoryUsage().heapUsed - before) / 1048576, patched}));
} else {
	const React = (await import('react')).default;
	const {render, Box, Text} = await import('ink');
	const frames = [];
	const stdout = new Writable({write(chunk, encoding, done) {
		done();
	}});
	stdout.columns = 60;
	stdout.rows = 20;
	const h = React.createElement;
	const App = ({n}) =>
		h(Box, {flexDirection: 'column', width: 60},
			h(Text, {bold: true, color: 'cyan'}, `header ${n}s`),
			...Array.from({length: 8}, (_, row) =>
				h(Box, {key: row, flexDirection: 'row'},
					h(Text, {wrap: 'truncate-end', inverse: row === n % 8}, `\u001B[32m● up-${row}\u001B[39m  ready  `),
					h(Text, {wrap: 'truncate-end', inverse: row === n % 8}, `${n + row}s/${n}s`),
					h(Text, {wrap: 'truncate-end', dimColor: row % 2 === 0}, `  ▁▂▃▅▇ 漢字 👍🏽 \u001B[1;31mfailed\u001B[22;39m ${'a long reason that is cut at the edge '.repeat(2)}`),
				)),
			h(Text, {wrap: 'wrap', color: 'yellow'}, `a wrapped line that goes on past the width of sixty columns, frame ${n}`),
			// A text that keeps its size while it changes, beside one that wraps in a narrow box and changes without changing length.
			h(Box, {flexDirection: 'row'},
				h(Box, {width: 12}, h(Text, {}, `tick ${String(n % 10)}`)),
				h(Box, {width: 10}, h(Text, {wrap: 'wrap'}, n % 2 === 0 ? 'aaaa bbbbbbbbb cc' : 'aaaaaaaaa bbbb cc')),
				h(Box, {width: 10}, h(Text, {wrap: 'truncate-middle', color: 'green'}, `${'x'.repeat(n)}|${n}`)),
			),
			// Writes that overlap (a border and a background under text), a clipped box, and wide characters at a clip's edge.
			h(Box, {borderStyle: 'round', borderColor: 'cyan', backgroundColor: n % 2 === 0 ? 'blue' : 'magenta', width: 30, paddingX: 1},
				h(Text, {color: 'white', bold: n % 3 === 0}, `boxed ${n} 漢字`)),
			h(Box, {width: 9, overflow: 'hidden'}, h(Box, {flexShrink: 0}, h(Text, {}, `\u001B[35m漢字漢字\u001B[39m-clipped-${n}`))),
			h(Box, {height: 2, marginTop: -1, marginLeft: 20}, h(Text, {inverse: true}, `over ${n}`)),
		);
	const instance = render(h(App, {n: 0}), {stdout, debug: true, patchConsole: false});
	const original = stdout.write.bind(stdout);
	stdout.write = (chunk, ...rest) => {
		frames.push(String(chunk));
		return original(chunk, ...rest);
	};
	for (let n = 1; n <= 12; n++) instance.rerender(h(App, {n}));
	instance.unmount();
	console.log(JSON.stringify({frames}));
}
