/**
 * The import rules of docs/architecture.md, checked against the code: the
 * engine never imports React or Ink, only a few modules import the MCP SDK,
 * the TUI neither speaks MCP nor spawns, and each folder of source/core/
 * imports only the layers below it.
 */
import path from 'node:path';
import {describe, expect, it} from 'vitest';
import {root} from '../support/hangar.js';
import {importsUnder, layers, sdkModules, type SourceImport} from './import-rules.js';

const sourceRoot = path.join(root, 'source');
const core = importsUnder(sourceRoot, 'core');
const isUi = (specifier: string) => specifier === 'react' || specifier.startsWith('react/') || specifier === 'ink' || specifier.startsWith('ink-');
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
		const importers = new Set(core.filter(({specifier}) => specifier.startsWith('@modelcontextprotocol/sdk')).map(({file}) => file.slice('core/'.length)));
		expect([...importers].filter(file => !sdkModules.includes(file))).toEqual([]);
	});

	it('keeps the TUI from speaking MCP or spawning processes', () => {
		const ui = [...importsUnder(sourceRoot, 'components'), ...importsUnder(sourceRoot, '.').filter(({file}) => file === 'tui.tsx')];
		expect(ui.length).toBeGreaterThan(10);
		const forbidden = ui.filter(({specifier}) => specifier.startsWith('@modelcontextprotocol/sdk') || specifier === 'execa' || specifier === 'node:child_process');
		expect(forbidden.map(({file, specifier}) => `${file}: ${specifier}`)).toEqual([]);
	});

	it('has each folder of source/core/ import only the layers below it', () => {
		expect(layerViolations(core)).toEqual([]);
	});

	it('catches an import that points up a layer', () => {
		const upward: SourceImport = {file: 'core/wire/line-transport.ts', specifier: '../engine/supervisor.js', target: 'core/engine/supervisor.js'};
		expect(layerViolations([upward])).toEqual(['core/wire/line-transport.ts imports core/engine/supervisor.js (layer engine is above wire)']);
		expect(layerViolations([{file: 'core/engine/provider.ts', specifier: '../wire/x.js', target: 'core/wire/x.js'}])).toEqual([]);
	});
});
