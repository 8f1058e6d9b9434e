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
 * two-core machine (load 20 to 28, 2026-11-27; compat-matrix, modern-tasks and
 * conformance-all, added after it, scaled from runs of their own: about 5×
 * their time on an idle machine). Only their order matters; a file
 * missing here (a new one) starts after them. Refresh when a file grows a
 * lot: `npx vitest run --reporter=json --outputFile=FILE`.
 */
export const expectedSeconds: Record<string, number> = {
	'test/e2e/cli-config-files.test.ts': 541,
	'test/e2e/modern-tasks.test.ts': 360,
	'test/e2e/attach.test.ts': 325,
	'test/e2e/bench-smoke.test.ts': 279,
	'test/e2e/tasks.test.ts': 244,
	'test/e2e/consistency.test.ts': 242,
	'test/e2e/check-config.test.ts': 240,
	'test/e2e/protocol.test.ts': 239,
	'test/e2e/faithful-sharing.test.ts': 233,
	'test/unit/tui/components/HangarTui.test.tsx': 213,
	'test/e2e/conformance-all.test.ts': 215,
	'test/e2e/conformance.test.ts': 208,
	'test/e2e/http.test.ts': 186,
	'test/e2e/client-capabilities.test.ts': 185,
	'test/e2e/conformance-reference.test.ts': 181,
	'test/e2e/large-answers.test.ts': 181,
	'test/e2e/http-memory.test.ts': 180,
	'test/e2e/oauth.test.ts': 178,
	'test/e2e/management-tools.test.ts': 170,
	'test/e2e/conformance-auth.test.ts': 167,
	'test/e2e/client-relay.test.ts': 165,
	'test/e2e/cli-live.test.ts': 157,
	'test/e2e/modern-upstream.test.ts': 139,
	'test/e2e/per-client.test.ts': 134,
	'test/e2e/bench-peers-smoke.test.ts': 133,
	'test/e2e/cli-commands.test.ts': 133,
	'test/e2e/gateway-routing.test.ts': 130,
	'test/e2e/state-takeover.test.ts': 129,
	'test/e2e/one-supervisor.test.ts': 126,
	'test/e2e/tolerant-config.test.ts': 121,
	'test/e2e/package-install.test.ts': 120,
	'test/e2e/gateway-behaviour.test.ts': 108,
	'test/e2e/tui-attach.test.ts': 107,
	'test/e2e/http-resume.test.ts': 106,
	'test/e2e/start-races.test.ts': 106,
	'test/e2e/modern-serving.test.ts': 103,
	'test/e2e/config-reload.test.ts': 96,
	'test/e2e/json-rpc-edge-cases.test.ts': 96,
	'test/e2e/tui-e2e.test.ts': 91,
	'test/e2e/transparent-mcp.test.ts': 89,
	'test/e2e/mrtr.test.ts': 78,
	'test/e2e/dual-era.test.ts': 75,
	'test/e2e/compat-matrix.test.ts': 75,
	'test/e2e/terminal-safe.test.ts': 75,
	'test/integration/remote.test.ts': 71,
	'test/integration/lifecycle.test.ts': 69,
	'test/e2e/tui-history.test.ts': 62,
	'test/e2e/exit.test.ts': 60,
	'test/e2e/example-config.test.ts': 59,
	'test/e2e/second-supervisor.test.ts': 58,
	'test/e2e/output-flood.test.ts': 57,
	'test/e2e/conformance-fixture.test.ts': 53,
	'test/e2e/claude-code.test.ts': 50,
	'test/e2e/faithful-listings.test.ts': 48,
	'test/e2e/names-and-pages.test.ts': 47,
	'test/e2e/progress.test.ts': 44,
	'test/unit/core/engine/state-fuzz.test.ts': 39,
	'test/e2e/audit-history.test.ts': 37,
	'test/e2e/early-launch.test.ts': 35,
	'test/e2e/broken-link.test.ts': 30,
	'test/e2e/roots-scope.test.ts': 30,
	'test/e2e/tui-sign-in.test.ts': 28,
	'test/e2e/secrets.test.ts': 27,
	'test/e2e/metrics.test.ts': 26,
	'test/e2e/process-tree.test.ts': 26,
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
