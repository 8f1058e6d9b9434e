/**
 * Test-only preload (`node --expose-gc --import gc-on-signal.mjs ...`): on
 * SIGUSR2 the process runs a full garbage collection and appends its RSS
 * and heap use, as one JSON line, to the file named by HANGAR_TEST_GC_REPORT.
 * Hangar itself has no such hook; a memory test loads this into it.
 */
import fs from 'node:fs';

process.on('SIGUSR2', () => {
	for (let round = 0; round < 4; round++) globalThis.gc();
	const rssKiB = Number(/VmRSS:\s+(\d+)/.exec(fs.readFileSync('/proc/self/status', 'utf8'))[1]);
	fs.appendFileSync(process.env.HANGAR_TEST_GC_REPORT, `${JSON.stringify({rss: rssKiB * 1024, heapUsed: process.memoryUsage().heapUsed})}\n`);
});
