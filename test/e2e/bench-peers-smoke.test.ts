/**
 * `node bench/peers.js --smoke --without-peers`: the peers bench on the
 * project's own paths (direct, the minimal hops and the two-process floor,
 * hangar --stdio with its daemon, --standalone, serve --http) with server-everything behind each.
 * Only that it runs and reports sane numbers for every path; nothing about
 * speed. The peers themselves (bench/peers/) are not installed for tests.
 */
import {execFile} from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import {describe, expect, it} from 'vitest';
import {root, tempDir} from '../support/hangar.js';

type PathResult = {
	latency: {n: number; p50: number};
	proxyCpuUsPerCall?: number;
	cpuUsPerCall: Record<string, number | undefined>;
	callsPerSecond: number;
	steady: {p50Ms: number; proxyCpuUsPerCall?: number};
	vsTwoHop?: {addedP50: number | null; cpuPerCall: number | null; throughput: number | null};
	vsSupervisedTwoHop?: {floor: string; addedP50: number | null; cpuPerCall: number | null; throughput: number | null};
	vsSupervisedHop?: {floor: string; addedP50: number | null; cpuPerCall: number | null; throughput: number | null};
};
type Report = {
	withPeers: boolean;
	parts: {
		calls: {status: string; error?: string; result: {paths: Record<string, PathResult>}};
		cold: {status: string; error?: string; result: {paths: Record<string, {startToFirstAnswerMs: number; overDirect: number; idleRssKiB: number; settledIdleRssKiB?: number; settledDaemonIdleRssKiB?: number}>}};
	};
	targets: Array<{id: string; met: boolean}>;
	cleanup: {leftBehind: number};
};

describe('bench/peers.js --smoke --without-peers', () => {
	it('measures every own path with a real upstream and leaves nothing behind', async () => {
		const out = path.join(tempDir('hangar-bench-peers-'), 'peers.json');
		const run = await new Promise<{code: number | null; stdout: string; stderr: string}>(resolve => {
			execFile(process.execPath, [path.join(root, 'bench', 'peers.js'), '--smoke', '--without-peers', '--only', 'calls,cold', '--out', out], {cwd: root, timeout: 170_000}, (error, stdout, stderr) => {
				resolve({code: error === null ? 0 : typeof error.code === 'number' ? error.code : null, stdout, stderr});
			});
		});
		expect(run.code, `bench:peers failed:\n${run.stderr}\n${run.stdout}`).toBe(0);
		expect(run.stdout).toContain('hangar --stdio (bridge + daemon)');
		expect(run.stdout).toContain('steady state (after the load part):');

		const report = JSON.parse(fs.readFileSync(out, 'utf8')) as Report;
		expect(report.withPeers).toBe(false);
		const own = ['direct', 'hop', 'twoHop', 'supervisedHop', 'supervisedTwoHop', 'hangar', 'hangarStandalone', 'httpHop', 'hangarHttp'];
		expect(report.parts.calls.status, report.parts.calls.error).toBe('ok');
		expect(Object.keys(report.parts.calls.result.paths).sort()).toEqual([...own].sort());
		for (const name of own) {
			const result = report.parts.calls.result.paths[name]!;
			expect(result.latency.n).toBeGreaterThan(0);
			expect(result.latency.p50).toBeGreaterThan(0);
			expect(result.callsPerSecond).toBeGreaterThan(0);
			if (name !== 'direct') expect(typeof result.proxyCpuUsPerCall).toBe('number');
			// Measured again once every path is past its JIT warm-up (after the load part).
			expect(result.steady.p50Ms).toBeGreaterThan(0);
			if (name !== 'direct') expect(typeof result.steady.proxyCpuUsPerCall).toBe('number');
		}

		// The two-process floor meters both of its processes, as the default --stdio does, and the default path is compared with it.
		const paths = report.parts.calls.result.paths;
		expect(typeof paths['twoHop']!.cpuUsPerCall['daemon']).toBe('number');
		expect(typeof paths['hangar']!.cpuUsPerCall['daemon']).toBe('number');
		expect(paths['hangar']!.vsTwoHop?.throughput).toBeGreaterThan(0);
		expect(report.targets.map(target => target.id)).toContain('everything.twoHop.vsHop');
		// And with the two-process floor whose daemon does what a supervisor adds to a call (both processes metered).
		expect(typeof paths['supervisedTwoHop']!.cpuUsPerCall['daemon']).toBe('number');
		expect(paths['hangar']!.vsSupervisedTwoHop?.floor).toBe('supervisedTwoHop');
		expect(paths['hangar']!.vsSupervisedTwoHop?.throughput).toBeGreaterThan(0);
		expect(report.targets.map(target => target.id)).toContain('everything.supervisedTwoHop.vsHop');
		// Standalone is also compared with the hop plus what a supervisor adds per call. CPU is read in
		// clock ticks (10 ms), and the smoke's 120 calls can leave the cheap supervised hop at 0 ticks:
		// then the ratio is null (no ratio to a zero), never 0 or Infinity.
		const standalone = paths['hangarStandalone']!.vsSupervisedHop;
		expect(standalone?.floor).toBe('supervisedHop');
		if ((paths['supervisedHop']!.proxyCpuUsPerCall ?? 0) > 0) expect(standalone?.cpuPerCall).toBeGreaterThan(0);
		else expect(standalone?.cpuPerCall).toBeNull();
		expect(standalone?.throughput).toBeGreaterThan(0);
		expect(report.targets.map(target => target.id)).toContain('everything.supervisedHop.vsHop');

		expect(report.parts.cold.status, report.parts.cold.error).toBe('ok');
		// Every path but the supervised two-process floor, a floor of the calls only.
		expect(report.parts.cold.result.paths['supervisedTwoHop']).toBeUndefined();
		for (const name of own.filter(path => path !== 'supervisedTwoHop')) {
			const cold = report.parts.cold.result.paths[name]!;
			expect(cold.startToFirstAnswerMs).toBeGreaterThan(0);
			expect(cold.idleRssKiB).toBeGreaterThan(0);
		}

		// Read again once every path has idled together (45 s in a full run; here 1 s, on two paths).
		expect(report.parts.cold.result.paths['hop']!.settledIdleRssKiB).toBeGreaterThan(0);

		// The attached bridge and the daemon it reaches are read apart, settled as at 0.7 s.
		const attached = report.parts.cold.result.paths['hangarAttached']!;
		expect(attached.settledIdleRssKiB).toBeGreaterThan(0);
		expect(attached.settledDaemonIdleRssKiB).toBeGreaterThan(0);
		expect(report.targets.map(target => target.id)).toEqual(expect.arrayContaining(['bridge.settledIdleRss', 'daemon.settledIdleRss']));

		expect(report.targets.map(target => target.id)).toContain('hangarStandalone.coldStart');
		expect(report.cleanup.leftBehind).toBe(0);
	}, 180_000);
});
