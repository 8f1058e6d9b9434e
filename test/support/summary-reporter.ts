/**
 * Prints one plain closing line, `N passed, N failed` (and `, N skipped`),
 * after vitest's own summary, so tools that read a run's last line get the
 * counts without parsing vitest's coloured output.
 */
import type {Reporter, TestModule} from 'vitest/node';

export default class SummaryReporter implements Reporter {
	onTestRunEnd(testModules: ReadonlyArray<TestModule>): void {
		let passed = 0;
		let failed = 0;
		let skipped = 0;
		for (const module of testModules) {
			for (const test of module.children.allTests()) {
				const state = test.result().state;
				if (state === 'passed') passed += 1;
				else if (state === 'failed') failed += 1;
				else skipped += 1;
			}

			if (module.state() === 'failed' && [...module.children.allTests()].length === 0) failed += 1;
		}

		process.stdout.write(`\n${passed} passed, ${failed} failed${skipped > 0 ? `, ${skipped} skipped` : ''}\n`);
	}
}
