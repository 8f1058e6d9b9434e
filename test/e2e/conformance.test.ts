/**
 * The official MCP conformance suite (@modelcontextprotocol/conformance
 * 0.2.0-alpha.12), its 2025-11-25 requirements (33 scenarios), run through
 * hangar on loopback, offline, fronting the project's conformance fixture
 * (which passes all of them on its own: conformance-fixture.test.ts): through
 * `serve --http`, and through `--stdio` behind an HTTP adapter (the suite
 * speaks only HTTP), each with `"namespace": false`, where hangar must be
 * transparent, and with the default namespaced names. Expected failures are
 * in a baseline per naming, each with its one-line reason; the CLI itself
 * fails on any other failure and on a baseline entry that passes. The runs
 * of one endpoint go at once: each scenario mostly waits.
 */
import {randomUUID} from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import {afterEach, describe, expect, it} from 'vitest';
import {conformanceServerPath, notRunThroughHangar, referencePassesActive, requirementsRun, serverScenarios} from '../support/conformance.js';
import {fastHangar, processesWithTag, root, tempDir, waitFor, writeConfig} from '../support/hangar.js';
import {serveHttp, stopHttpHangars} from '../support/http-hangar.js';
import {serveStdioOverHttp, stopStdioAdapters} from '../support/stdio-adapter.js';

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

/** Checks one run: the CLI passed it against its baseline, it ran all 33 scenarios, and every one outside the baseline passed with checks. */
function expectRequirementsPass(run: {code: number | null; output: string; ran: string[]}, file: string): string[] {
	expect(run.code, run.output).toBe(0);
	expect(run.ran.length, run.output).toBe(Number(/Running requirements 2025-11-25 \((\d+) scenarios\)/.exec(run.output)?.[1]));
	expect(run.ran.length).toBe(33);
	const expected = new Set(baseline(file).map(entry => entry.scenario));
	const passed = run.ran.filter(scenario => !expected.has(scenario));
	// server-sse-polling checks nothing against a server that does not close its streams early.
	for (const scenario of passed) expect(run.output, scenario).toMatch(new RegExp(`^✓ ${scenario}: ${scenario === 'server-sse-polling' ? '\\d+' : '[1-9]\\d*'} passed, 0 failed$`, 'm'));
	// Every active scenario the suite's reference server passes directly passes through hangar.
	for (const scenario of referencePassesActive) expect(passed, scenario).toContain(scenario);
	return passed;
}

afterEach(async () => {
	await stopStdioAdapters();
	await stopHttpHangars();
});

describe('MCP conformance suite, 2025-11-25 requirements, through hangar', () => {
	// Seconds on an idle machine (about 15 s for both runs); the limit allows for a busy one.
	it('through serve --http: 33 of 33 with "namespace": false, 32 of 33 namespaced (json-schema-2020-12 looks its tool up by its bare name)', {timeout: 300_000}, async () => {
		const [plain, namespaced] = await Promise.all(
			[{namespace: false}, {}].map(async (naming, index) => {
				const dir = tempDir();
				const hangar = await serveHttp(writeConfig(dir, {fx: conformanceUpstream(naming)}, fastHangar));
				return requirementsRun(hangar.url, index === 0 ? unprefixedBaselineFile : baselineFile, path.join(dir, 'results'));
			}),
		);
		expect(expectRequirementsPass(plain!, unprefixedBaselineFile)).toHaveLength(33);
		expect(expectRequirementsPass(namespaced!, baselineFile)).toHaveLength(32);
	});

	it('through --stdio behind an HTTP adapter: 33 of 33 with "namespace": false, 32 of 33 namespaced', {timeout: 300_000}, async () => {
		const bridgeTag = randomUUID();
		const [plain, namespaced] = await Promise.all(
			[{namespace: false}, {}].map(async (naming, index) => {
				const dir = tempDir();
				const config = writeConfig(dir, {fx: conformanceUpstream(naming)}, fastHangar);
				// The supervisor of this config; each adapter session's `--stdio` is a bridge to it, as a client's would be.
				await serveHttp(config);
				const url = await serveStdioOverHttp(config, bridgeTag);
				return requirementsRun(url, index === 0 ? unprefixedBaselineFile : baselineFile, path.join(dir, 'results'));
			}),
		);
		expect(expectRequirementsPass(plain!, unprefixedBaselineFile)).toHaveLength(33);
		expect(expectRequirementsPass(namespaced!, baselineFile)).toHaveLength(32);
		// Each session's bridge ends with its session.
		await stopStdioAdapters();
		await waitFor(() => processesWithTag(bridgeTag).length === 0 || undefined, 'the --stdio bridges to exit');
	});

	it('has a one-line reason for every baseline entry and every scenario not run through hangar, and only scenarios the suite has', async () => {
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

		// Unprefixed, hangar is transparent: nothing is expected to fail.
		expect(baseline(unprefixedBaselineFile)).toEqual([]);
		expect(fs.readFileSync(unprefixedBaselineFile, 'utf8')).toMatch(/^server: \[\]$/m);
		expect(baseline(baselineFile).map(entry => entry.scenario)).toEqual(['json-schema-2020-12']);

		// Every scenario the suite lists is either run through hangar or named here with why not.
		for (const [scenario, reason] of Object.entries(notRunThroughHangar)) {
			expect(scenarios, scenario).toContain(scenario);
			expect(referencePassesActive, scenario).not.toContain(scenario);
			expect(reason, scenario).not.toBe('');
		}

		// The 2025-11-25 runs: the 31 active scenarios and the two pending ones of that revision.
		const runThroughHangar = [...referencePassesActive, 'json-schema-2020-12', 'server-sse-polling'];
		expect(scenarios.filter(scenario => !runThroughHangar.includes(scenario) && notRunThroughHangar[scenario] === undefined)).toEqual([]);
	});
});
