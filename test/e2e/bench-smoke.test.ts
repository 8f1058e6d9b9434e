/**
 * The benchmark's smoke run: `node bench/run.js --smoke` runs every scenario
 * briefly. This asserts only that it completes, prints its table, writes a
 * JSON file with every scenario and sane fields, and leaves no process behind.
 * Nothing here is about speed, except correctness checks: 100 simultaneous
 * calls to a cold upstream start it exactly once, and the soak's calls are
 * each answered exactly once.
 */
import {execFile} from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import {describe, expect, it} from 'vitest';
import {root, tempDir} from '../support/hangar.js';

type LatencySummary = {n: number; p50: number; p95: number; p99: number};
type PacedLoad = {rate: number; sent: number; answered: number; unanswered: number; errors: number; answeredPerSecond: number; cpu: Record<string, {percent: number}>};
type Scenario<T> = {status: string; error?: string; reason?: string; result: T};
type Report = {
	mode: string;
	machine: {nproc: number; cpuModel: string; memTotalMiB: number; node: string};
	scenarios: {
		callOverhead: Scenario<{calls: number; paths: Record<'direct' | 'hop' | 'hangar', LatencySummary>; hangarOverHopAdded: {p50: number | null}}>;
		throughput: Scenario<{paths: Record<'direct' | 'hop' | 'hangar', {calls: number; callsPerSecond: number}>; hangarVsDirect: number}>;
		coldStart: Scenario<{calls: number; spawns: number[]; errors: number; plainStartSpawns: number[]; plainStartMs: {median: number}; lastAnswerMs: {median: number}}>;
		statusUnderTrouble: Scenario<{
			upstreams: number;
			hung: number;
			samples: number;
			hungCallsInFlight: number;
			calm: LatencySummary;
			trouble: LatencySummary & {responseBytes: number};
			troubleWithHistory: LatencySummary & {upstreamsWithHistory: number};
		}>;
		memory: Scenario<{points: Array<{upstreams: number; running: boolean; rssKiB: number}>; perUpstreamKiB: Record<string, number>}>;
		tuiCpu: Scenario<{exitCode: number; leftBehind: number; idle: {percent: number}; loaded: PacedLoad}>;
		bridgeOverhead: Scenario<{
			calls: number;
			paths: Record<'direct' | 'hop' | 'embedded' | 'bridge', LatencySummary & {cpuUsPerCall: Record<string, number>}>;
			bridgeAddedUs: {p50: number};
			bridgeOverEmbeddedP50: number | null;
			throughput: {paths: Record<'embedded' | 'bridge', {calls: number; callsPerSecond: number}>; bridgeVsEmbedded: number};
			serveUnderLoad: PacedLoad;
		}>;
		exposure: Scenario<{configs: Array<{config: string; upstreams: number; toolsKnown: number} & Record<'direct' | 'search', {tools: number; upstreamTools: number; bytes: number}>>}>;
		soak: Scenario<{
			calls: number;
			callsPerSecond: number;
			lost: number;
			duplicated: number;
			unknownIds: number;
			outcomes: {results: number; toolErrors: number; errors: Record<string, number>};
			flakyRestarts: number;
			rssKiB: {afterWarmup: number; end: number};
			rssGrowth: number;
			leftover: number;
		}>;
	};
	targets: Record<string, {met: boolean | null}>;
	cleanup: {leftBehind: number};
};

// The smoke run is a fixed amount of work (no event to wait for): about 100 s on an idle two-core machine and
// over 110 s on a loaded one, so its limit is the conformance runs' (a hung run still fails).
function runSmoke(out: string): Promise<{code: number | null; stdout: string; stderr: string}> {
	return new Promise(resolve => {
		execFile(process.execPath, [path.join(root, 'bench', 'run.js'), '--smoke', '--out', out], {cwd: root, timeout: 280_000, maxBuffer: 16 * 1024 * 1024}, (error, stdout, stderr) => {
			resolve({code: error === null ? 0 : typeof error.code === 'number' ? error.code : null, stdout, stderr});
		});
	});
}

const positive = (value: unknown) => typeof value === 'number' && Number.isFinite(value) && value > 0;

describe('bench/run.js --smoke', () => {
	it('runs every scenario, prints the table and writes a complete JSON report', async () => {
		const dir = tempDir('hangar-bench-smoke-');
		const out = path.join(dir, 'smoke.json');
		const run = await runSmoke(out);
		expect(run.code, `bench failed:\n${run.stderr}\n${run.stdout}`).toBe(0);

		// The table: a header and a row for every scenario.
		expect(run.stdout).toMatch(/scenario\s+metric\s+value\s+target\s+result/);
		for (const label of ['1 call overhead', '2 throughput', '3 cold start', '4 status', '5 memory', '6 TUI CPU', '7 stdio bridge', '8 exposure', '9 soak']) {
			expect(run.stdout).toContain(label);
		}

		const report = JSON.parse(fs.readFileSync(out, 'utf8')) as Report;
		expect(report.mode).toBe('smoke');
		expect(report.machine.nproc).toBeGreaterThan(0);
		expect(report.machine.node).toBe(process.version);
		const {scenarios} = report;
		for (const name of ['callOverhead', 'throughput', 'coldStart', 'statusUnderTrouble', 'memory', 'tuiCpu', 'bridgeOverhead', 'exposure', 'soak'] as const) {
			expect(scenarios[name].status, `${name}: ${scenarios[name].error ?? ''}`).toBe('ok');
		}

		// Every paced call to an attached supervisor (the TUI, the serve daemon) was answered without error.
		const paced = (load: PacedLoad, role: string) => {
			expect(load.sent).toBeGreaterThan(0);
			expect(load.answered).toBe(load.sent);
			expect(load.unanswered).toBe(0);
			expect(load.errors).toBe(0);
			expect(positive(load.answeredPerSecond)).toBe(true);
			expect(load.cpu[role]!.percent).toBeGreaterThanOrEqual(0);
		};

		const tui = scenarios.tuiCpu.result;
		expect(tui.exitCode).toBe(0);
		expect(tui.leftBehind).toBe(0);
		expect(tui.idle.percent).toBeGreaterThanOrEqual(0);
		paced(tui.loaded, 'tui');

		const bridge = scenarios.bridgeOverhead.result;
		for (const route of ['direct', 'hop', 'embedded', 'bridge'] as const) {
			expect(bridge.paths[route].n).toBe(bridge.calls);
			expect(positive(bridge.paths[route].p50)).toBe(true);
		}

		// The bridge path has two hangar processes on it, metered apart: the --stdio bridge and the serve daemon
		// (a smoke run's few calls can round to 0 clock ticks).
		expect(Object.keys(bridge.paths.bridge.cpuUsPerCall).sort()).toEqual(['client', 'daemon', 'proxy', 'upstream']);
		expect(Object.keys(bridge.paths.embedded.cpuUsPerCall).sort()).toEqual(['client', 'proxy', 'upstream']);
		expect(typeof bridge.bridgeAddedUs.p50).toBe('number');
		expect(positive(bridge.bridgeOverEmbeddedP50)).toBe(true);
		for (const route of ['embedded', 'bridge'] as const) expect(bridge.throughput.paths[route].calls).toBeGreaterThan(0);
		expect(positive(bridge.throughput.bridgeVsEmbedded)).toBe(true);
		paced(bridge.serveUnderLoad, 'serve');

		const overhead = scenarios.callOverhead.result;
		for (const route of ['direct', 'hop', 'hangar'] as const) {
			expect(overhead.paths[route].n).toBe(overhead.calls);
			expect(positive(overhead.paths[route].p50)).toBe(true);
			expect(overhead.paths[route].p99).toBeGreaterThanOrEqual(overhead.paths[route].p50);
		}

		const throughput = scenarios.throughput.result;
		for (const route of ['direct', 'hop', 'hangar'] as const) {
			expect(throughput.paths[route].calls).toBeGreaterThan(0);
			expect(positive(throughput.paths[route].callsPerSecond)).toBe(true);
		}

		expect(positive(throughput.hangarVsDirect)).toBe(true);

		// Correctness, not speed: concurrent callers of a cold upstream share one start.
		const cold = scenarios.coldStart.result;
		expect(cold.calls).toBe(100);
		expect(cold.spawns.length).toBeGreaterThan(0);
		for (const spawns of cold.spawns) expect(spawns).toBe(1);
		for (const spawns of cold.plainStartSpawns) expect(spawns).toBe(1);
		expect(cold.errors).toBe(0);
		expect(positive(cold.plainStartMs.median)).toBe(true);
		expect(positive(cold.lastAnswerMs.median)).toBe(true);

		const status = scenarios.statusUnderTrouble.result;
		expect(status.hungCallsInFlight).toBeGreaterThanOrEqual(status.hung);
		expect(status.calm.n).toBe(status.samples);
		expect(status.trouble.n).toBe(status.samples);
		expect(positive(status.trouble.p99)).toBe(true);
		expect(status.trouble.responseBytes).toBeGreaterThan(status.upstreams * 50);
		expect(status.troubleWithHistory.n).toBe(status.samples);
		expect(status.troubleWithHistory.upstreamsWithHistory).toBe(status.upstreams - status.hung);

		const memory = scenarios.memory.result;
		expect(memory.points.some(point => point.upstreams === 0)).toBe(true);
		expect(memory.points.some(point => point.running)).toBe(true);
		for (const point of memory.points) expect(positive(point.rssKiB)).toBe(true);
		expect(Object.keys(memory.perUpstreamKiB).length).toBeGreaterThan(0);

		// Exposure: direct lists every known upstream tool plus the management tools, search only the latter.
		const exposure = scenarios.exposure.result;
		expect(exposure.configs.map(config => config.config)).toEqual(['config.example.json', expect.stringMatching(/generated upstreams$/)]);
		for (const config of exposure.configs) {
			expect(config.toolsKnown).toBeGreaterThan(config.upstreams);
			expect(config.direct.upstreamTools).toBe(config.toolsKnown);
			expect(config.direct.tools - config.direct.upstreamTools).toBe(config.search.tools);
			expect(config.search.upstreamTools).toBe(0);
			expect(config.search.bytes).toBeLessThan(config.direct.bytes);
		}

		// Soak, in small: every call answered exactly once, through crashes of the flaky upstream, and nothing left behind.
		const soak = scenarios.soak.result;
		expect({lost: soak.lost, duplicated: soak.duplicated, unknownIds: soak.unknownIds, leftover: soak.leftover}).toEqual({lost: 0, duplicated: 0, unknownIds: 0, leftover: 0});
		expect(soak.outcomes.results + soak.outcomes.toolErrors + Object.values(soak.outcomes.errors).reduce((sum, count) => sum + count, 0)).toBe(soak.calls);
		expect(soak.outcomes.toolErrors).toBeGreaterThan(0);
		expect(soak.outcomes.errors['-32603']).toBeGreaterThan(0);
		expect(positive(soak.callsPerSecond)).toBe(true);
		expect(positive(soak.rssKiB.afterWarmup) && positive(soak.rssKiB.end)).toBe(true);

		// Every target is evaluated (met or missed; speed is not judged here).
		for (const [name, target] of Object.entries(report.targets)) expect(typeof target.met, name).toBe('boolean');
		expect(report.cleanup.leftBehind).toBe(0);
		fs.rmSync(dir, {recursive: true, force: true});
	}, 300_000);
});
