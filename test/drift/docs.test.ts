/**
 * The docs are checked against the code, so they fail here instead of
 * drifting: the state diagrams in docs/architecture.md are what `toMermaid`
 * makes of the transition tables, and the README's error table, upstream
 * states, CLI flags, config keys (with their defaults) and `hangar_list`
 * fields match the code. Where the code only exists as source text (the zod
 * schemas, the meow flags) it is read as text.
 */
import {spawnSync} from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import {fileURLToPath} from 'node:url';
import {describe, expect, it} from 'vitest';
import {commandHelps, generalHelpText, verbNames, flagHelp} from '../../source/cli/help.js';
import {defaults, parseConfig, topLevelKeys} from '../../source/core/config/read-config.js';
import {connectionTransitions} from '../../source/core/gateway/connection-state.js';
import {bridgeTransitions} from '../../source/core/endpoints/bridge-state.js';
import {ErrorCode, JsonRpcCode} from '../../source/core/base/errors.js';
import {upstreamInitialStates, upstreamStates, upstreamTransitions} from '../../source/core/engine/upstream/upstream-state.js';
import {toMermaid} from '../../source/core/base/state-machine.js';
import {managementTools, statusJson} from '../../source/core/gateway/management-tools.js';
import {layers, sdkModules} from './import-rules.js';
import {silentLogger} from '../../source/core/base/logger.js';
import {StateStore} from '../../source/core/engine/state-store.js';
import {Supervisor} from '../../source/core/engine/supervisor.js';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');
const read = (file: string) => fs.readFileSync(path.join(root, file), 'utf8');
/** The README's reference moved to docs/: the README and every doc, read as one text (a section is found by its title in any of them). */
const docFiles = ['README.md', ...fs.readdirSync(path.join(root, 'docs')).filter(name => name.endsWith('.md')).map(name => `docs/${name}`)];
const readme = read('README.md');
const reference = docFiles.map(file => read(file)).join('\n');
const architecture = read('docs/architecture.md');

// ---------------------------------------------------------------------------
// Markdown helpers

/** The text under the first heading whose title is `title`, up to the next heading of the same or a higher level. */
function section(markdown: string, title: string): string {
	const lines = markdown.split('\n');
	let inFence = false;
	let start = -1;
	let level = 0;
	for (const [index, line] of lines.entries()) {
		if (line.startsWith('```')) inFence = !inFence;
		if (inFence) continue;
		const heading = /^(#{1,6})\s+(.*?)\s*$/.exec(line);
		if (heading === null) continue;
		if (start === -1) {
			if (heading[2] === title) {
				start = index + 1;
				level = heading[1]!.length;
			}
		} else if (heading[1]!.length <= level) {
			return lines.slice(start, index).join('\n');
		}
	}

	if (start === -1) throw new Error(`no heading "${title}"`);
	return lines.slice(start).join('\n');
}

/** Body rows of the Markdown tables in `text`, as trimmed cells. */
function tableRows(text: string): string[][] {
	return text
		.split('\n')
		.filter(line => line.startsWith('|') && !/^\|\s*-{3}/.test(line))
		.map(line => line.slice(1, line.trimEnd().endsWith('|') ? line.trimEnd().length - 1 : undefined).split('|').map(cell => cell.trim()))
		.filter(cells => !['Field', 'Code', 'State', 'Flag', 'Module'].includes(cells[0]!));
}

/** The names in backticks in a table's first column, e.g. `` `cold` `` -> cold. */
function firstColumnNames(text: string): string[] {
	return tableRows(text).flatMap(cells => [...cells[0]!.matchAll(/`([^`]+)`/g)].map(match => match[1]!));
}

/** The fenced ```mermaid block between a diagram's markers. */
function diagramBlock(markdown: string, id: string): string {
	const start = `<!-- diagram:${id}:start -->`;
	const end = `<!-- diagram:${id}:end -->`;
	const from = markdown.indexOf(start);
	const to = markdown.indexOf(end);
	expect(from, `marker ${start} in docs/architecture.md`).toBeGreaterThan(-1);
	expect(to, `marker ${end} after ${start}`).toBeGreaterThan(from);
	const region = markdown.slice(from + start.length, to);
	const fence = /```mermaid\n([\s\S]*?)\n```/.exec(region);
	expect(fence, `a \`\`\`mermaid block between the ${id} markers`).not.toBeNull();
	return fence![1]!;
}

// ---------------------------------------------------------------------------
// Source-text helpers (for things the code does not export)

const quotes = new Set(["'", '"', '`']);

/** Skips a string literal starting at `index`; returns the index after it. */
function skipString(text: string, index: number): number {
	const quote = text[index]!;
	for (let at = index + 1; at < text.length; at++) {
		if (text[at] === '\\') at++;
		else if (text[at] === quote) return at + 1;
	}

	return text.length;
}

/**
 * The top-level `key: value` entries of the object literal whose `{` is at
 * `open`, with nesting, strings and comments skipped.
 */
function objectEntries(text: string, open: number): Array<{key: string; value: string}> {
	expect(text[open]).toBe('{');
	const entries: Array<{key: string; value: string}> = [];
	let depth = 0;
	let entryStart = open + 1;
	const push = (end: number) => {
		const entry = text.slice(entryStart, end).replaceAll(/\/\/[^\n]*|\/\*[\s\S]*?\*\//g, '').trim();
		if (entry === '') return;
		const match = /^(?:([A-Za-z_$][\w$]*)|'([^']*)'|"([^"]*)")\s*:\s*([\s\S]*)$/.exec(entry);
		if (match === null) throw new Error(`cannot read an object entry: ${entry.slice(0, 80)}`);
		entries.push({key: match[1] ?? match[2] ?? match[3]!, value: match[4]!});
	};

	for (let at = open + 1; at < text.length; at++) {
		const char = text[at]!;
		if (quotes.has(char)) {
			at = skipString(text, at) - 1;
		} else if (char === '/' && text[at + 1] === '/') {
			at = text.indexOf('\n', at);
			if (at === -1) break;
		} else if (char === '/' && text[at + 1] === '*') {
			at = text.indexOf('*/', at) + 1;
		} else if ('([{'.includes(char)) {
			depth++;
		} else if (')]}'.includes(char)) {
			if (depth === 0) {
				push(at);
				return entries;
			}

			depth--;
		} else if (char === ',' && depth === 0) {
			push(at);
			entryStart = at + 1;
		}
	}

	throw new Error('unterminated object literal');
}

/** Keys of the first `strictObject({...})` / `object({...})` at or after `from`, nested ones as `outer.inner`. */
function zodObjectKeys(text: string, from: number): string[] {
	const call = /\.(?:strictObject|looseObject|object)\(\s*\{/g;
	call.lastIndex = from;
	const match = call.exec(text);
	if (match === null) throw new Error('no zod object found');
	const open = match.index + match[0].length - 1;
	return objectEntries(text, open).flatMap(({key, value}) =>
		/^z\.(?:strictObject|looseObject|object)\(\{/.test(value.replaceAll(/\s+/g, ''))
			? zodObjectKeys(value, 0).map(inner => `${key}.${inner}`)
			: [key],
	);
}

function schemaKeys(name: string): string[] {
	const source = read('source/core/config/config-schema.ts');
	const at = source.indexOf(`const ${name} =`);
	if (at === -1) throw new Error(`no "const ${name} =" in source/core/config/config-schema.ts`);
	return zodObjectKeys(source, at);
}

/** The flags of source/cli/main.tsx (its `flagSpecs`, given to meow): `--kebab-name` and the short flags. */
function cliFlags(): Array<{long: string; short: string | undefined}> {
	const source = read('source/cli/main.tsx');
	const at = /\bconst flagSpecs = \{/.exec(source);
	if (at === null) throw new Error('no "const flagSpecs = {" in source/cli/main.tsx');
	return objectEntries(source, at.index + at[0].length - 1).map(({key, value}) => ({
		long: `--${key.replaceAll(/[A-Z]/g, letter => `-${letter.toLowerCase()}`)}`,
		short: /shortFlag:\s*'(\w)'/.exec(value)?.[1],
	}));
}

// ---------------------------------------------------------------------------

describe('docs/architecture.md', () => {
	it('has the upstream state diagram generated from upstreamTransitions', () => {
		expect(diagramBlock(architecture, 'upstream')).toBe(toMermaid(upstreamTransitions, upstreamInitialStates));
	});

	it('has the connection state diagram generated from connectionTransitions', () => {
		expect(diagramBlock(architecture, 'connection')).toBe(toMermaid(connectionTransitions, 'awaiting_initialize'));
	});

	it('has the bridge state diagram generated from bridgeTransitions', () => {
		expect(diagramBlock(architecture, 'bridge')).toBe(toMermaid(bridgeTransitions, 'connecting'));
	});

	it('is what scripts/diagrams.js generates, and --check catches a drifted copy', () => {
		const script = path.join(root, 'scripts', 'diagrams.js');
		const run = (...args: string[]) => spawnSync(process.execPath, [script, ...args], {cwd: root, encoding: 'utf8'});
		const check = run('--check');
		expect(check.status, `node scripts/diagrams.js --check (is dist/ built?):\n${check.stdout}${check.stderr}`).toBe(0);

		const copy = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'hangar-docs-')), 'architecture.md');
		const drifted = architecture.replace(/^ {4}ready --> degraded: trip$/m, '    ready --> degraded: tripped');
		expect(drifted).not.toBe(architecture);
		fs.writeFileSync(copy, drifted);
		const stale = run('--check', '--file', copy);
		expect(stale.status).toBe(1);
		expect(stale.stderr).toContain('upstream');
		expect(fs.readFileSync(copy, 'utf8')).toBe(drifted);

		expect(run('--file', copy).status).toBe(0);
		expect(fs.readFileSync(copy, 'utf8')).toBe(architecture);
	});

	it('lists the hops of a tools/call, one through the bridge, a resources/read, a sampling request and a config reload, each a function that exists, none twice', () => {
		const hops = section(architecture, 'Hops');
		const lists = hops.split(/\n\n(?=A )/).filter(part => /^\d+\. /m.test(part));
		expect(lists.map(list => list.split('\n')[0]!.split(' ').slice(0, 3).join(' '))).toEqual(['A `tools/call` from', 'A `resources/read`:', 'A sampling request', 'A `tools/call` through', 'A config reload']);
		expect(lists).toHaveLength(5);
		for (const list of lists) {
			const steps = [...list.matchAll(/^\d+\. `([^`:]+):([\w.]+)`/gm)].map(match => ({file: match[1]!, name: match[2]!}));
			expect(steps.length, list).toBeGreaterThan(5);
			expect(new Set(steps.map(step => `${step.file}:${step.name}`)).size, `a hop visited twice in:\n${list}`).toBe(steps.length);
			for (const {file, name} of steps) {
				const text = read(path.join('source/core', file));
				const [owner, member] = name.includes('.') ? name.split('.') : [undefined, name];
				if (owner !== undefined) expect(text, `${file} has class ${owner}`).toMatch(new RegExp(`\\bclass ${owner}\\b`));
				expect(text, `${file} defines ${name}`).toMatch(new RegExp(`^\\s*(?:export )?(?:(?:private|static|readonly) )*(?:async )?(?:function )?${member}(?:<[^>]*>)?\\(`, 'm'));
			}
		}
	});

	it('states the import rules', () => {
		const rules = section(architecture, 'Rules');
		for (const file of sdkModules) expect(rules).toContain(`\`${file}\``);
		for (const layer of layers) expect(section(architecture, 'Layers and data flow')).toContain(`\`${layer}/\``);
	});
});

/** GitHub's anchor for a heading: lowercase, punctuation dropped, spaces as hyphens. */
const headingSlug = (title: string): string =>
	title
		.trim()
		.toLowerCase()
		.replaceAll(/[^\p{L}\p{N}_\- ]/gu, '')
		.replaceAll(' ', '-');

/** The anchors a markdown file defines: its headings' slugs (outside code fences) and its `<a id>`s. */
function anchorsOf(markdown: string): Set<string> {
	const found = new Set<string>();
	let inFence = false;
	for (const line of markdown.split('\n')) {
		if (line.startsWith('```')) inFence = !inFence;
		const heading = inFence ? null : /^#{1,6}\s+(.*?)\s*$/.exec(line);
		if (heading !== null) found.add(headingSlug(heading[1]!));
	}

	for (const match of markdown.matchAll(/<a id="([^"]+)"/g)) found.add(match[1]!);
	return found;
}

describe('links between the README and docs/', () => {
	it('every relative link names a file that exists and an anchor that file has', () => {
		const broken: string[] = [];
		for (const file of docFiles) {
			const text = read(file).replaceAll(/```[\s\S]*?```/g, '');
			for (const match of text.matchAll(/\]\(([^)\s#]*)(?:#([^)\s]+))?\)/g)) {
				const [, target = '', anchor] = match;
				if (/^[a-z]+:/.test(target)) continue;
				const linked = target === '' ? file : path.normalize(path.join(path.dirname(file), target));
				if (!fs.existsSync(path.join(root, linked))) {
					broken.push(`${file}: ${match[0]} (no file ${linked})`);
					continue;
				}

				if (anchor !== undefined && linked.endsWith('.md') && !anchorsOf(read(linked)).has(anchor)) broken.push(`${file}: ${match[0]} (no anchor #${anchor} in ${linked})`);
			}
		}

		expect(broken).toEqual([]);
	});
});

describe('README.md', () => {
	it('has one error table row per ErrorCode and JSON-RPC code, with its number', () => {
		const errors = section(reference, 'Errors');
		const documented = Object.fromEntries(
			tableRows(errors).map(cells => [cells[1]!.replaceAll('`', ''), Number(cells[0]!.replace('−', '-'))]),
		);
		expect(documented).toEqual({...ErrorCode, ...JsonRpcCode});
		for (const [name, code] of Object.entries({...ErrorCode, ...JsonRpcCode})) {
			expect(tableRows(errors).find(cells => cells[1] === `\`${name}\``)?.[2], `a meaning for ${name} (${code})`).toMatch(/\w{3}/);
		}

		expect(errors, 'the note on the SDK codes').toMatch(/-32000[\s\S]*-32001|-32001[\s\S]*-32000/);
	});

	it('documents every upstream state, and only those, in table order', () => {
		expect(firstColumnNames(section(reference, 'Upstream states'))).toEqual([...upstreamStates]);
	});

	it('documents every CLI flag of source/cli/main.tsx', () => {
		const cli = section(reference, 'CLI');
		const flags = cliFlags();
		expect(flags.map(flag => flag.long)).toContain('--stdio');
		for (const flag of flags) {
			expect(cli, `README CLI section mentions ${flag.long}`).toContain(`\`${flag.long}\``);
			if (flag.short !== undefined) expect(cli, `README CLI section mentions -${flag.short}`).toContain(`\`-${flag.short}\``);
		}

		for (const builtin of ['--version', '--help']) expect(cli).toContain(`\`${builtin}\``);
		const documented = firstColumnNames(cli).filter(name => name.startsWith('--'));
		expect(documented.sort()).toEqual([...new Set([...flags.map(flag => flag.long), '--version', '--help'])].sort());
	});

	it('documents every command, and the CLI\'s own help covers every flag', () => {
		const cli = section(reference, 'CLI');
		for (const name of verbNames) expect(cli, `README CLI section shows mcp-hangar ${name}`).toContain(`mcp-hangar ${name}`);
		expect(Object.keys(flagHelp).sort()).toEqual(cliFlags().map(flag => flag.long.slice(2)).sort());
		for (const help of commandHelps) for (const flag of help.flags) expect(flagHelp, `${help.name}'s flag ${flag}`).toHaveProperty([flag]);
	});

	it('gives in the help overview every form of each command and every flag that docs/cli.md lists', () => {
		const cli = section(reference, 'CLI');
		const block = /```\n([\s\S]*?)```/.exec(cli)![1]!;
		const documented = block.split('\n').filter(line => line.startsWith('mcp-hangar ')).map(line => line.split(/\s{2,}/)[0]!.trim());
		const overview = generalHelpText();
		const usage = overview.slice(0, overview.indexOf('\nOptions\n'));
		const shown = [...usage.matchAll(/^ {2}\$ (mcp-hangar .*?)(?: {2,}|$)/gm)].map(match => match[1]!.trim());
		expect(shown.sort()).toEqual(documented.sort());
		const options = overview.slice(overview.indexOf('\nOptions\n'), overview.indexOf('\nExamples\n'));
		for (const flag of firstColumnNames(cli).filter(name => name.startsWith('--'))) expect(options, `the overview's options show ${flag}`).toMatch(new RegExp(`(^|[ ,])${flag}([ ,]|$)`, 'm'));
	});

	it('documents every key of the hangar settings, with its default', () => {
		const settings = section(reference, 'Global settings (`hangar`)');
		const keys = schemaKeys('hangarSchema');
		expect(keys).toContain('restartBudget.maxRestarts');
		expect(firstColumnNames(settings).sort()).toEqual([...keys].sort());

		const flatDefaults: Record<string, unknown> = {};
		for (const [key, value] of Object.entries(defaults)) {
			if (typeof value === 'object') {
				for (const [inner, innerValue] of Object.entries(value)) flatDefaults[`${key}.${inner}`] = innerValue;
			} else {
				flatDefaults[key] = value;
			}
		}

		for (const [key, value] of Object.entries(flatDefaults)) {
			const row = tableRows(settings).find(cells => cells[0] === `\`${key}\``);
			expect(row, `a row for hangar.${key}`).toBeDefined();
			expect(row![2], `the default of hangar.${key}`).toMatch(new RegExp(`(^|[^\\d.])${String(value).replace('.', '\\.')}($|[^\\d.])`));
		}
	});

	it('documents every server field and top-level key', () => {
		const configuration = section(reference, 'Configuration');
		expect(firstColumnNames(section(reference, 'Server fields (`mcpServers.<name>`)')).sort()).toEqual(schemaKeys('serverSchema').sort());
		for (const key of topLevelKeys) expect(configuration, `top-level key ${key}`).toContain(`\`${key}\``);
		for (const variable of ['HANGAR_CONFIG_DIR', 'HANGAR_STATE_DIR', '${VAR}', '${VAR:-default}']) {
			expect(configuration).toContain(variable);
		}
	});

	it('documents every hangar_list field', async () => {
		const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'hangar-docs-'));
		// A per-client server's entry has the fields of a shared one and its instances.
		const config = parseConfig({mcpServers: {fx: {command: 'true'}, px: {command: 'true', instances: 'per-client'}}}, path.join(dir, 'mcp-hangar.json'), {stateDir: path.join(dir, 'state')});
		const store = await StateStore.open(config.hangar.stateDir, silentLogger);
		const supervisor = new Supervisor(config, store, silentLogger);
		const fields = [...new Set(statusJson(supervisor).upstreams.flatMap(entry => Object.keys(entry)))];
		await supervisor.shutdown('test finished');
		expect(fields).toContain('state');
		expect(firstColumnNames(section(reference, '`hangar_list` fields')).sort()).toEqual(fields.sort());
	});

	it('documents every management tool, and only those', () => {
		expect(firstColumnNames(section(reference, 'Management tools')).sort()).toEqual(managementTools.map(tool => tool.name).sort());
	});

	it('gives the exact test command that CI runs', () => {
		expect(read('.ci/run')).toMatch(/^npm test$/m);
		expect(section(readme, 'Development')).toMatch(/```sh\nnpm test\n```/);
	});
});
