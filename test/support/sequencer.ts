/**
 * The order test files start in: the longest first, across all four
 * projects, so that on two workers the last file to start is a short one and
 * no long file runs alone at the end (longest-first is near the best order
 * for two workers).
 *
 * Vitest's own order runs the projects one after another (drift, e2e,
 * integration, unit) and, with no durations cached from an earlier run (a
 * clean clone, as CI has), orders a project's files by their size in bytes.
 * Size says little here: a 50-line file that moves 100 MB answers or runs
 * the benchmark takes minutes, a 600-line one seconds, and the longest unit
 * file (the TUI's) started last. So a file's expected duration is, in this
 * order: its duration in vitest's cache of the last run (a developer's
 * machine), else its weight below, else unknown. Files with a duration start
 * first, longest first; the rest follow in vitest's order.
 */
import path from 'node:path';
import {BaseSequencer, type TestSpecification} from 'vitest/node';

/**
 * Seconds each of the longest files took in one full run on a loaded
 * two-core machine (load 15 to 30, 2026-11-27). Only their order matters;
 * a file missing here (a new one) starts after them. Refresh when a file
 * grows a lot: `npx vitest run --reporter=json --outputFile=FILE`.
 */
export const expectedSeconds: Record<string, number> = {
	'test/unit/tui/components/HangarTui.test.tsx': 155,
	'test/e2e/conformance.test.ts': 150,
	'test/e2e/cli-config-files.test.ts': 147,
	'test/e2e/bench-peers-smoke.test.ts': 142,
	'test/e2e/bench-smoke.test.ts': 130,
	'test/e2e/large-answers.test.ts': 128,
	'test/e2e/http-memory.test.ts': 119,
	'test/e2e/protocol.test.ts': 111,
	'test/e2e/attach.test.ts': 104,
	'test/e2e/package-install.test.ts': 95,
	'test/e2e/check-config.test.ts': 95,
	'test/e2e/client-capabilities.test.ts': 94,
	'test/e2e/client-relay.test.ts': 90,
	'test/e2e/tui-attach.test.ts': 86,
	'test/e2e/http.test.ts': 86,
	'test/e2e/cli-commands.test.ts': 80,
	'test/e2e/one-supervisor.test.ts': 79,
	'test/e2e/tasks.test.ts': 78,
	'test/e2e/faithful-sharing.test.ts': 75,
	'test/e2e/start-races.test.ts': 75,
	'test/e2e/cli-live.test.ts': 75,
	'test/e2e/state-takeover.test.ts': 74,
	'test/e2e/tui-e2e.test.ts': 73,
	'test/e2e/management-tools.test.ts': 61,
	'test/e2e/tui-history.test.ts': 58,
	'test/e2e/consistency.test.ts': 57,
	'test/e2e/oauth.test.ts': 56,
	'test/e2e/gateway-routing.test.ts': 54,
	'test/e2e/config-reload.test.ts': 52,
	'test/integration/remote.test.ts': 51,
	'test/e2e/json-rpc-edge-cases.test.ts': 45,
	'test/e2e/exit.test.ts': 44,
	'test/e2e/claude-code.test.ts': 42,
	'test/e2e/transparent-mcp.test.ts': 41,
	'test/e2e/tolerant-config.test.ts': 40,
	'test/e2e/faithful-listings.test.ts': 40,
	'test/e2e/broken-link.test.ts': 38,
	'test/e2e/http-resume.test.ts': 36,
	'test/e2e/names-and-pages.test.ts': 35,
	'test/integration/lifecycle.test.ts': 35,
	'test/e2e/dual-era.test.ts': 34,
	'test/e2e/gateway-behaviour.test.ts': 33,
	'test/e2e/per-client.test.ts': 32,
	'test/e2e/terminal-safe.test.ts': 31,
	'test/e2e/second-supervisor.test.ts': 31,
	'test/unit/core/engine/state-fuzz.test.ts': 28,
};

export default class LongestFirstSequencer extends BaseSequencer {
	override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
		const vitestOrder = await super.sort(files);
		const {root} = this.ctx.config;
		const expected = new Map<TestSpecification, number>();
		for (const spec of vitestOrder) {
			const file = path.relative(root, spec.moduleId).split(path.sep).join('/');
			const cached = this.ctx.cache.getFileTestResults(`${spec.project.name}:${file}`)?.duration;
			const ms = cached ?? (expectedSeconds[file] === undefined ? undefined : expectedSeconds[file] * 1000);
			if (ms !== undefined) expected.set(spec, ms);
		}

		const known = vitestOrder.filter(spec => expected.has(spec)).sort((a, b) => expected.get(b)! - expected.get(a)!);
		return [...known, ...vitestOrder.filter(spec => !expected.has(spec))];
	}
}
