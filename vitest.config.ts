import {defineConfig} from 'vitest/config';

// Tests drive real subprocesses (hangar itself, real MCP servers, fixtures),
// so they get generous timeouts and at most two workers: the CI machine has
// two cores and may be busy.
export default defineConfig({
	test: {
		include: ['test/**/*.test.ts', 'test/**/*.test.tsx'],
		testTimeout: 60_000,
		hookTimeout: 60_000,
		pool: 'forks',
		maxWorkers: 2,
		reporters: ['default', './test/support/summary-reporter.ts'],
	},
});
