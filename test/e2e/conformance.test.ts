/**
 * The official MCP conformance suite (@modelcontextprotocol/conformance, its
 * active server scenarios) against `mcp-hangar serve --http` on loopback,
 * offline. Expected failures are in test/conformance-baseline.yml: only
 * scenarios that need a test tool or a capability hangar does not provide,
 * each with its reason. The CLI itself fails on any other failure and on a
 * baseline entry that passes.
 */
import fs from 'node:fs';
import path from 'node:path';
import {afterEach, describe, expect, it} from 'vitest';
import {conformance, serverScenarios} from '../support/conformance.js';
import {fastHangar, fixture, root, tempDir, writeConfig} from '../support/hangar.js';
import {serveHttp, stopHttpHangars} from '../support/http-hangar.js';

const baselineFile = path.join(root, 'test', 'conformance-baseline.yml');

/** The baseline's entries with their reasons (the comment after each). */
function baseline(): Array<{scenario: string; reason: string}> {
	return fs
		.readFileSync(baselineFile, 'utf8')
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
	it('passes every active server scenario but those in the baseline', async () => {
		const dir = tempDir();
		const hangar = await serveHttp(writeConfig(dir, {fx: fixture('normal', [], {lazy: false})}, fastHangar));
		const run = await conformance(['server', '--url', hangar.url, '--expected-failures', baselineFile, '--output-dir', path.join(dir, 'results')]);
		expect(run.code, run.output).toBe(0);
		for (const scenario of ['server-initialize', 'ping', 'tools-list', 'server-sse-multiple-streams', 'dns-rebinding-protection']) {
			expect(run.output, scenario).toMatch(new RegExp(`✓ ${scenario}: \\d+ passed, 0 failed`));
		}
	});

	it('has a one-line reason for every baseline entry, and only scenarios the suite has', async () => {
		const scenarios = await serverScenarios();
		expect(scenarios).toContain('server-initialize');
		const entries = baseline();
		expect(entries.length).toBeGreaterThan(0);
		for (const {scenario, reason} of entries) {
			expect(scenarios, scenario).toContain(scenario);
			expect(reason, scenario).toMatch(/^needs /);
		}

		expect(new Set(entries.map(entry => entry.scenario)).size).toBe(entries.length);
	});
});
