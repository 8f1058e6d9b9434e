import {defineConfig} from 'vitest/config';
import LongestFirstSequencer from './test/support/sequencer.js';

// Tests are split by level (see README, "Tests"):
// - unit: one module at a time, no build and no subprocess (`npm run test:unit`);
// - integration: an in-process supervisor with real fixture upstreams;
// - e2e: the built binary (dist/), tmux, the conformance suite;
// - drift: docs and import rules checked against the code.
// Tests drive real subprocesses, so they get generous timeouts. Four workers
// on the CI machine's two cores: most of a test's time is spent waiting on
// the processes it drives; a third worker took a full run from about 750 s
// to about 470 s (measured 2026-11-27, load 5-8), and a fourth took the
// run of 1,255 tests from 578 s to 537 s (2026-11-28). The longest files
// start first, across projects (test/support/sequencer.ts). Unit test files
// share their worker's module cache (isolate: false): they are pure code
// that restores what it changes (fake timers, its own env variables), and
// loading zod, the SDK, Ink and React once per worker instead of once per
// file halves the unit project's CPU time. E2e and drift files share their
// worker too: they drive the built binary in processes of their own, and a
// new worker per file cost each file a Node start and the SDK's import
// (about 0.3 s of CPU a file, measured 2026-11-28). Integration files run
// supervisors in-process, so each keeps a worker of its own. The state dir guard gives the
// whole run a temporary HOME and fails it if a test touched the real hangar
// state or config dir.
const shared = {testTimeout: 60_000, hookTimeout: 60_000, globalSetup: ['./test/support/state-dir-guard.ts']};

export default defineConfig({
	test: {
		pool: 'forks',
		maxWorkers: 4,
		sequence: {sequencer: LongestFirstSequencer},
		reporters: ['default', './test/support/summary-reporter.ts'],
		projects: [
			{test: {...shared, name: 'unit', isolate: false, include: ['test/unit/**/*.test.{ts,tsx}']}},
			{test: {...shared, name: 'integration', include: ['test/integration/**/*.test.ts']}},
			{test: {...shared, name: 'e2e', isolate: false, include: ['test/e2e/**/*.test.ts']}},
			{test: {...shared, name: 'drift', isolate: false, include: ['test/drift/**/*.test.ts']}},
		],
	},
});
