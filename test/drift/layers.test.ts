/**
 * The import rules of docs/architecture.md, checked against the code: the
 * engine never imports React or Ink, only a few modules import the MCP SDK,
 * the TUI neither speaks MCP nor spawns, each folder of source/core/
 * imports only the layers below it, and the thin clients (the `--stdio`
 * bridge, the CLI's client, start-up itself) load no part of the engine.
 */
import fs from 'node:fs';
import path from 'node:path';
import {describe, expect, it} from 'vitest';
import {root, tempDir} from '../support/hangar.js';
import {importClosure, importsUnder, isSdkSpecifier, layers, sdkModules, sdkPackages, type SourceImport} from './import-rules.js';

const sourceRoot = path.join(root, 'source');
const core = importsUnder(sourceRoot, 'core');
const isUi = (specifier: string) => specifier === 'react' || specifier.startsWith('react/') || specifier === 'ink' || specifier.startsWith('ink-');
/** The layers a thin client must not load: the supervision model and everything that needs it. */
const engineSide = /^core\/(engine|views|gateway|link)\//;
const everywhere = importsUnder(sourceRoot, '.');
/**
 * source/'s parts from the bottom up; each imports only the parts before it.
 * `demo/` holds the test upstreams (fixture servers), which import nothing of
 * hangar but the core; `cli.ts` is the binary's entry.
 */
const parts = ['core', 'demo', 'client-files', 'tui', 'cli', 'cli.ts'] as const;
const partOf = (file: string): number | undefined => {
	const index = parts.indexOf((file === 'cli.ts' ? file : file.split('/')[0]) as (typeof parts)[number]);
	return index === -1 ? undefined : index;
};

function partViolations(imports: SourceImport[]): string[] {
	return imports
		.filter(({file, target, typeOnly}) => !typeOnly && target !== undefined && (partOf(target) ?? -1) > (partOf(file) ?? -1))
		.map(({file, target}) => `${file} imports ${target}`);
}

const layerOf = (file: string) => layers.indexOf(file.split('/')[1] as (typeof layers)[number]);

/** The layer rule over a list of imports: every relative import inside core points to the same layer or one below. */
function layerViolations(imports: SourceImport[]): string[] {
	return imports
		.filter(({file, target}) => target?.startsWith('core/') && layerOf(target) > layerOf(file))
		.map(({file, target}) => `${file} imports ${target} (layer ${layers[layerOf(target!)]} is above ${layers[layerOf(file)]})`);
}

describe('the import rules', () => {
	it('puts every module of source/core/ in a layer folder', () => {
		const files = [...new Set(core.map(({file}) => file))];
		expect(files.length).toBeGreaterThan(20);
		expect(files.filter(file => layerOf(file) === -1)).toEqual([]);
	});

	it('keeps React and Ink out of source/core/', () => {
		expect(core.filter(({specifier}) => isUi(specifier)).map(({file}) => file)).toEqual([]);
	});

	it('lets only the named modules of source/core/ import the MCP SDK', () => {
		const importers = new Set(core.filter(({specifier}) => isSdkSpecifier(specifier)).map(({file}) => file.slice('core/'.length)));
		expect([...importers].filter(file => !sdkModules.includes(file))).toEqual([]);
		// The list names no module that no longer needs it.
		expect(sdkModules.filter(file => !importers.has(file))).toEqual([]);
	});

	it('imports only the v2 SDK packages in source/, never the v1 @modelcontextprotocol/sdk', () => {
		const sdk = everywhere.filter(({specifier}) => isSdkSpecifier(specifier));
		expect(sdk.length).toBeGreaterThan(10);
		const packageOf = (specifier: string) => specifier.split('/').slice(0, 2).join('/');
		expect(sdk.filter(({specifier}) => !(sdkPackages as readonly string[]).includes(packageOf(specifier))).map(({file, specifier}) => `${file}: ${specifier}`)).toEqual([]);
	});

	it('keeps the TUI from speaking MCP or spawning processes', () => {
		const ui = importsUnder(sourceRoot, 'tui');
		expect(ui.length).toBeGreaterThan(10);
		const forbidden = ui.filter(({specifier}) => isSdkSpecifier(specifier) || specifier === 'execa' || specifier === 'node:child_process');
		expect(forbidden.map(({file, specifier}) => `${file}: ${specifier}`)).toEqual([]);
	});

	it('puts every module of source/ in one of its parts: the entry, cli/, tui/, client-files/, core/ or demo/', () => {
		const files = [...new Set(everywhere.map(({file}) => file))];
		expect(files.filter(file => partOf(file) === undefined)).toEqual([]);
	});

	it('has each part of source/ import only the parts below it: core never imports the CLI, the TUI or the client files', () => {
		expect(partViolations(everywhere)).toEqual([]);
		expect(partViolations([{file: 'core/engine/supervisor.ts', specifier: '../../tui/tui.js', target: 'tui/tui.js'}])).toHaveLength(1);
	});

	it('lets no module outside the named list import the MCP SDK, anywhere in source/', () => {
		const importers = new Set(everywhere.filter(({specifier}) => isSdkSpecifier(specifier)).map(({file}) => file));
		expect([...importers].filter(file => !(file.startsWith('core/') && sdkModules.includes(file.slice('core/'.length))) && !file.startsWith('demo/'))).toEqual([]);
	});

	it('has each folder of source/core/ import only the layers below it', () => {
		expect(layerViolations(core)).toEqual([]);
	});

	it('catches an import that points up a layer', () => {
		const upward: SourceImport = {file: 'core/wire/line-transport.ts', specifier: '../engine/supervisor.js', target: 'core/engine/supervisor.js'};
		expect(layerViolations([upward])).toEqual(['core/wire/line-transport.ts imports core/engine/supervisor.js (layer engine is above wire)']);
		expect(layerViolations([{file: 'core/engine/upstream.ts', specifier: '../wire/x.js', target: 'core/wire/x.js'}])).toEqual([]);
	});

	it('keeps the --stdio bridge and the CLI client off the engine: nothing they load, however indirectly, is in engine/, gateway/ or upstream/', () => {
		for (const entry of ['core/endpoints/bridge.ts', 'core/endpoints/supervisor-client.ts']) {
			const loaded = importClosure(sourceRoot, entry, {dynamic: true});
			expect(loaded, entry).toContain('core/wire/message-classifier.ts');
			expect(loaded.filter(file => engineSide.test(file)), entry).toEqual([]);
		}
	});

	it('loads no engine module at start-up: the CLI and the --stdio entry import it only on the paths that run it', () => {
		for (const entry of ['cli.ts', 'core/endpoints/stdio.ts']) {
			const loaded = importClosure(sourceRoot, entry, {dynamic: false});
			expect(loaded.filter(file => engineSide.test(file)), entry).toEqual([]);
		}

		expect(importClosure(sourceRoot, 'core/endpoints/stdio.ts', {dynamic: false})).toContain('core/endpoints/bridge.ts');
	});

	it('follows imports through other modules, skips type-only ones, and follows dynamic ones only when asked', () => {
		const tree = tempDir('hangar-imports-');
		const files: Record<string, string> = {
			'core/endpoints/a.ts': "import {b} from './b.js';\n",
			'core/endpoints/b.ts': "import type {T} from '../engine/t.js';\nexport {c} from '../wire/c.js';\n",
			'core/wire/c.ts': "export const c = 1;\nexport const later = async () => import('../gateway/g.js');\n",
			'core/engine/t.ts': 'export type T = 1;\n',
			'core/gateway/g.ts': "import '../engine/side-effect.js';\n",
			'core/engine/side-effect.ts': '',
		};
		for (const [file, text] of Object.entries(files)) {
			fs.mkdirSync(path.dirname(path.join(tree, file)), {recursive: true});
			fs.writeFileSync(path.join(tree, file), text);
		}

		expect(importClosure(tree, 'core/endpoints/a.ts', {dynamic: false})).toEqual(['core/endpoints/a.ts', 'core/endpoints/b.ts', 'core/wire/c.ts']);
		expect(importClosure(tree, 'core/endpoints/a.ts', {dynamic: true}).filter(file => engineSide.test(file))).toEqual(['core/gateway/g.ts', 'core/engine/side-effect.ts']);
	});
});
