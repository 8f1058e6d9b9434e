/**
 * The official MCP conformance suite (@modelcontextprotocol/conformance, its
 * active server scenarios) against `mcp-hangar serve --http` on loopback,
 * offline, fronting the project's conformance fixture (which passes every
 * scenario on its own: conformance-fixture.test.ts) twice: with
 * `"namespace": false`, where hangar must be transparent, and with the
 * default namespaced names. Expected failures are in a baseline per run, each
 * with its one-line reason; the CLI itself fails on any other failure and on
 * a baseline entry that passes.
 */
import fs from 'node:fs';
import path from 'node:path';
import {afterEach, describe, expect, it} from 'vitest';
import {conformance, conformanceServerPath, scenariosRun, serverScenarios} from '../support/conformance.js';
import {fastHangar, root, tempDir, writeConfig} from '../support/hangar.js';
import {serveHttp, stopHttpHangars} from '../support/http-hangar.js';

const baselineFile = path.join(root, 'test', 'conformance-baseline.yml');
const unprefixedBaselineFile = path.join(root, 'test', 'conformance-baseline-unprefixed.yml');

/** The conformance fixture as an upstream over stdio, started at launch. */
const conformanceUpstream = (extra: Record<string, unknown> = {}) => ({command: process.execPath, args: [conformanceServerPath], lazy: false, ...extra});

/** The baseline's entries with their reasons (the comment after each). */
function baseline(file = baselineFile): Array<{scenario: string; reason: string}> {
	return fs
		.readFileSync(file, 'utf8')
		.split('\n')
		.filter(line => /^\s+- /.test(line))
		.map(line => {
			const match = /^\s+- ([\w-]+)\s*(?:#\s*(.*))?$/.exec(line);
			return {scenario: match?.[1] ?? line, reason: match?.[2] ?? ''};
		});
}

afterEach(async () => {
	await stopHttpHangars();
});

describe('MCP conformance suite against serve --http', () => {
	it('with "namespace": false, passes every active server scenario (its baseline is empty)', async () => {
		const dir = tempDir();
		const hangar = await serveHttp(writeConfig(dir, {fx: conformanceUpstream({namespace: false})}, fastHangar));
		const run = await conformance(['server', '--url', hangar.url, '--expected-failures', unprefixedBaselineFile, '--output-dir', path.join(dir, 'results')]);
		expect(run.code, run.output).toBe(0);
		const expected = new Set(baseline(unprefixedBaselineFile).map(entry => entry.scenario));
		const ran = scenariosRun(run.output);
		expect(ran.length).toBe(Number(/Running active suite \((\d+) scenarios\)/.exec(run.output)?.[1]));
		for (const scenario of ran.filter(scenario => !expected.has(scenario))) {
			expect(run.output, scenario).toMatch(new RegExp(`^✓ ${scenario}: [1-9]\\d* passed, 0 failed$`, 'm'));
		}

		// Resources, templates, subscriptions, prompts and completions pass through unchanged.
		for (const scenario of ['resources-templates-read', 'resources-subscribe', 'prompts-get-embedded-resource', 'completion-complete', 'tools-call-embedded-resource']) {
			expect(expected.has(scenario), scenario).toBe(false);
		}
	});

	it('with namespaced names, passes every active server scenario too: the suite calls the fixture\'s own names, which hangar takes when one upstream has them', async () => {
		const dir = tempDir();
		const hangar = await serveHttp(writeConfig(dir, {fx: conformanceUpstream()}, fastHangar));
		const run = await conformance(['server', '--url', hangar.url, '--expected-failures', baselineFile, '--output-dir', path.join(dir, 'results')]);
		expect(run.code, run.output).toBe(0);
		const ran = scenariosRun(run.output);
		expect(ran.length).toBe(Number(/Running active suite \((\d+) scenarios\)/.exec(run.output)?.[1]));
		for (const scenario of ran) expect(run.output, scenario).toMatch(new RegExp(`^✓ ${scenario}: [1-9]\\d* passed, 0 failed$`, 'm'));
	});

	it('has a one-line reason for every baseline entry, and only scenarios the suite has', async () => {
		const scenarios = await serverScenarios();
		expect(scenarios).toContain('server-initialize');
		for (const file of [baselineFile, unprefixedBaselineFile]) {
			const entries = baseline(file);
			for (const {scenario, reason} of entries) {
				expect(scenarios, scenario).toContain(scenario);
				expect(reason, scenario).toMatch(/^needs /);
			}

			expect(new Set(entries.map(entry => entry.scenario)).size, file).toBe(entries.length);
		}

		// Hangar is transparent, namespaced or not: nothing is expected to fail.
		for (const file of [baselineFile, unprefixedBaselineFile]) {
			expect(baseline(file), file).toEqual([]);
			expect(fs.readFileSync(file, 'utf8'), file).toMatch(/^server: \[\]$/m);
		}
	});
});
