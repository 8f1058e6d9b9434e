/**
 * The official MCP conformance suite's own reference server (its
 * everything-server, vendored in test/fixtures/conformance-reference) as
 * hangar's upstream over Streamable HTTP with `"namespace": false`: the
 * suite's 2025-11-25 requirements run against it directly and through
 * `serve --http` at once (each run mostly waits, so together they take about
 * as long as one), and every scenario that passes directly passes through
 * hangar. The reference server is dual-era, so this also checks that hangar
 * drives such an upstream in its 2025 mode (its 2026-07-28 path lacks
 * completion, sampling, elicitation and resources/subscribe, which a 2025
 * client reaches directly). One transport only, the
 * cheaper one: conformance.test.ts already runs the same requirements through
 * `--stdio` against the project's fixture.
 */
import fs from 'node:fs';
import path from 'node:path';
import {afterEach, describe, expect, it} from 'vitest';
import {referencePassesActive, requirementsRun, scenariosPassed, serveConformanceReference, stopConformanceFixtures} from '../support/conformance.js';
import {fastHangar, tempDir, writeConfig} from '../support/hangar.js';
import {serveHttp, stopHttpHangars} from '../support/http-hangar.js';

afterEach(async () => {
	await stopHttpHangars();
	await stopConformanceFixtures();
});

describe("the conformance suite's reference server behind hangar", () => {
	// About 13 s on a loaded 2-core machine (load 13), the direct run alone about 4 s; the limit allows for a busier one.
	it('passes through serve --http, with "namespace": false, every 2025-11-25 scenario it passes directly', {timeout: 300_000}, async () => {
		const reference = await serveConformanceReference();
		const dir = tempDir();
		const noFailures = path.join(dir, 'no-expected-failures.yml');
		fs.writeFileSync(noFailures, 'server: []\n');
		const hangar = await serveHttp(writeConfig(dir, {reference: {url: reference.url, namespace: false, lazy: false}}, fastHangar));

		const [direct, through] = await Promise.all([
			requirementsRun(reference.url, noFailures, path.join(dir, 'direct')),
			requirementsRun(hangar.url, noFailures, path.join(dir, 'through-hangar')),
		]);
		for (const run of [direct, through]) expect(run.ran, run.output).toHaveLength(33);
		const passedDirectly = scenariosPassed(direct.output);
		// The checked-in measurement the fixture and hangar runs are held to (test/support/conformance.ts) is still what the reference server passes.
		for (const scenario of referencePassesActive) expect(passedDirectly, `${scenario} directly:\n${direct.output}`).toContain(scenario);

		const passedThrough = new Set(scenariosPassed(through.output));
		const failedThroughHangar = passedDirectly.filter(scenario => !passedThrough.has(scenario));
		expect(failedThroughHangar, through.output).toEqual([]);
		expect(reference.stderr()).toBe('');
	});
});
