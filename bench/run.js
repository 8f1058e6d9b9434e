#!/usr/bin/env node
/**
 * mcp-hangar's benchmark (`npm run bench`, which builds first).
 *
 *   node bench/run.js [--smoke] [--only LIST] [--out FILE] [--hangar-node-args="FLAGS"]
 *
 *   --smoke             every scenario briefly (a few dozen calls, 1 s of throughput,
 *                       20 upstreams): checks that the bench works, says nothing about speed
 *   --only LIST         comma-separated scenarios to run, by number or name:
 *                       1 callOverhead, 2 throughput, 3 coldStart, 4 statusUnderTrouble, 5 memory,
 *                       6 tuiCpu, 7 bridgeOverhead, 8 exposure, 9 soak
 *   --out FILE          where the JSON goes (default bench/results/latest.json,
 *                       bench/results/smoke.json with --smoke)
 *   --status-running hung|all
 *                       scenario 4: run only the hung upstreams, or all of them (default all)
 *   --hangar-cli PATH   run this hangar build instead of dist/cli.js (to compare a
 *                       candidate change with the same bench)
 *   --hangar-node-args="FLAGS"
 *                       node flags for every hangar process (note the "="), e.g.
 *                       --hangar-node-args="--cpu-prof --cpu-prof-dir=/tmp/hangar-prof"
 *
 * Prints a table on stdout and writes every number to the JSON file. Exits 0
 * when every scenario ran (missed targets are reported, not failures), 1 when
 * a scenario failed, and always stops every process it started.
 * docs/performance.md describes the scenarios and records the latest results.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import {parseArgs} from 'node:util';
import {fixturePath, hangarBuild, hangarNodeArgs, root} from './lib/paths.js';
import {killTagged, liveTagged, machineBusy, sweep} from './lib/processes.js';
import {evaluateTargets, renderTable, tableRows} from './lib/report.js';
import {machine, round} from './lib/stats.js';
import {callOverhead} from './scenarios/call-overhead.js';
import {coldStart} from './scenarios/cold-start.js';
import {exposure, exposureRows} from './scenarios/exposure.js';
import {memory} from './scenarios/memory.js';
import {statusUnderTrouble} from './scenarios/status-under-trouble.js';
import {bridgeOverhead, bridgeOverheadRows} from './scenarios/bridge-overhead.js';
import {throughput} from './scenarios/throughput.js';
import {tuiCpu, tuiCpuRows} from './scenarios/tui-cpu.js';
import {soak, soakRows} from './scenarios/soak.js';

function parseFlags() {
	try {
		return parseArgs({options, strict: true}).values;
	} catch (error) {
		process.stderr.write(`bench: ${error.message}\nRun node bench/run.js --help for the options.\n`);
		process.exit(2);
	}
}

const options = {
	smoke: {type: 'boolean', default: false},
	only: {type: 'string'},
	out: {type: 'string'},
	'status-running': {type: 'string', default: 'all'},
	'hangar-node-args': {type: 'string'},
	'hangar-cli': {type: 'string'},
	help: {type: 'boolean', default: false},
};
const flags = parseFlags();

if (flags.help) {
	const source = fs.readFileSync(new URL(import.meta.url), 'utf8');
	process.stdout.write(`${/\/\*\*([\s\S]*?)\*\//.exec(source)[1].replaceAll(/^ \* ?/gm, '').trim()}\n`);
	process.exit(0);
}

if (!['hung', 'all'].includes(flags['status-running'])) {
	process.stderr.write('bench: --status-running must be "hung" or "all"\n');
	process.exit(2);
}

if (flags['hangar-cli'] !== undefined) hangarBuild.cli = path.resolve(flags['hangar-cli']);
for (const file of [hangarBuild.cli, fixturePath]) {
	if (!fs.existsSync(file)) {
		process.stderr.write(`bench: ${path.relative(root, file)} is missing; run \`npm run build\` first (or use \`npm run bench\`)\n`);
		process.exit(2);
	}
}

if (flags['hangar-node-args'] !== undefined) hangarNodeArgs.push(...flags['hangar-node-args'].split(/\s+/).filter(Boolean));

const smoke = flags.smoke;
const statusStartAll = flags['status-running'] === 'all';

/**
 * The scenarios in order, with their full and smoke parameters. A scenario
 * with `rows` prints its own lines of the table (after those of lib/report.js);
 * one with `skip` instead of `run` keeps its place in the report and the JSON.
 */
const scenarios = [
	{
		id: 1,
		name: 'callOverhead',
		title: 'sequential echo calls: direct vs minimal hop vs hangar --stdio',
		run: callOverhead,
		full: {calls: 5000, warmup: 2000, rounds: 10},
		smoke: {calls: 30, warmup: 10, rounds: 3},
	},
	{
		id: 2,
		name: 'throughput',
		title: '32 calls in flight: calls per second on each path',
		run: throughput,
		full: {inFlight: 32, durationMs: 5000, warmupMs: 500, rounds: 3},
		smoke: {inFlight: 32, durationMs: 1000, warmupMs: 200, rounds: 1},
	},
	{
		id: 3,
		name: 'coldStart',
		title: '100 simultaneous calls to a cold upstream',
		run: coldStart,
		full: {calls: 100, reps: 6, warmCalls: 300},
		smoke: {calls: 100, reps: 1, warmCalls: 20},
	},
	{
		id: 4,
		name: 'statusUnderTrouble',
		title: 'hangar_list latency with hung upstreams holding calls',
		run: statusUnderTrouble,
		full: {upstreams: 200, hung: 50, startAll: statusStartAll, samples: 500, callsPerHung: 2, historyCalls: 260},
		smoke: {upstreams: 20, hung: 5, startAll: statusStartAll, samples: 20, callsPerHung: 2, historyCalls: 20},
	},
	{
		id: 5,
		name: 'memory',
		title: "hangar's own resident memory by number of upstreams",
		run: memory,
		full: {counts: [50, 200], runningCount: 50, reps: 2, runningReps: 1, settleMs: 1000, readings: 3},
		smoke: {counts: [5, 20], runningCount: 5, reps: 1, settleMs: 300, readings: 2},
	},
	{
		id: 6,
		name: 'tuiCpu',
		title: 'TUI CPU with 50 idle upstreams, then with 1,000 calls a second from an attached client',
		run: tuiCpu,
		// Ages show to the second in an upstream's first hour, so an idle table is still redrawn once a second. The idle window starts
		// 75 s after launch: in the first minute V8 is still optimizing the code that draws (its compiler threads cost more than the
		// drawing), and that minute is the "while starting up" row. The window spans a round of health pings.
		full: {upstreams: 50, windowMs: 20_000, idleAfterMs: 75_000, loadRate: 1000, loadWindowMs: 4000},
		smoke: {upstreams: 5, windowMs: 1000, idleAfterMs: 3000, loadRate: 1000, loadWindowMs: 1000},
		rows: tuiCpuRows,
	},
	{
		id: 7,
		name: 'bridgeOverhead',
		title: 'overhead of the --stdio bridge path (to mcp-hangar serve) over the embedded path',
		run: bridgeOverhead,
		full: {calls: 2400, warmup: 1000, rounds: 6, inFlight: 32, durationMs: 3000, inFlightRounds: 2, warmupMs: 300, loadRate: 1000, loadWindowMs: 2000},
		smoke: {calls: 40, warmup: 10, rounds: 2, inFlight: 32, durationMs: 1000, inFlightRounds: 1, warmupMs: 100, loadRate: 1000, loadWindowMs: 1000},
		rows: bridgeOverheadRows,
	},
	{
		id: 8,
		name: 'exposure',
		title: 'tools/list size in direct and search exposure: config.example.json and a generated config',
		run: exposure,
		full: {upstreams: 50, timeoutMs: 180_000},
		smoke: {upstreams: 6, timeoutMs: 60_000},
		// Printed after the rows of lib/report.js.
		rows: exposureRows,
	},
	{
		id: 9,
		name: 'soak',
		title: 'soak: calls through --stdio, 16 in flight, to a healthy upstream and one that fails 10% of calls (crashes included)',
		run: soak,
		full: {calls: 300_000, inFlight: 16},
		// More crashes per call, so a few happen in a smoke run's calls too.
		smoke: {calls: 3000, inFlight: 16, crashRate: 0.002},
		rows: soakRows,
	},
];

function selected() {
	if (flags.only === undefined) return scenarios;
	const wanted = flags.only.split(',').map(item => item.trim()).filter(Boolean);
	const picked = scenarios.filter(s => wanted.includes(String(s.id)) || wanted.includes(s.name));
	const unknown = wanted.filter(item => !scenarios.some(s => String(s.id) === item || s.name === item));
	if (unknown.length > 0) {
		process.stderr.write(`bench: unknown scenario(s) ${unknown.join(', ')}; known: ${scenarios.map(s => `${s.id} ${s.name}`).join(', ')}\n`);
		process.exit(2);
	}

	return picked;
}

let interrupted = false;
for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP']) {
	process.on(signal, () => {
		if (interrupted) process.exit(130);
		interrupted = true;
		process.stderr.write(`\nbench: ${signal}: stopping every process it started\n`);
		killTagged();
		setTimeout(() => {
			killTagged();
			process.exit(130);
		}, 300);
	});
}

process.on('exit', () => {
	// Last resort (an unexpected throw): nothing the bench started may outlive it.
	killTagged();
});

const log = message => process.stderr.write(`bench: ${message}\n`);

const outFile = path.resolve(flags.out ?? path.join(root, 'bench', 'results', smoke ? 'smoke.json' : 'latest.json'));
const began = performance.now();
const results = {};
const report = {
	version: 1,
	mode: smoke ? 'smoke' : 'full',
	startedAt: new Date().toISOString(),
	machine: {...machine(), loadAverageAtStart: os.loadavg().map(value => round(value, 2))},
	hangarCli: path.relative(root, hangarBuild.cli),
	hangarNodeArgs,
	scenarios: results,
};

for (const scenario of selected()) {
	if (interrupted) break;
	if (scenario.skip !== undefined) {
		results[scenario.name] = {id: scenario.id, title: scenario.title, status: 'skipped', reason: scenario.skip};
		continue;
	}

	const params = smoke ? scenario.smoke : scenario.full;
	// Other load on the machine makes every number noisier: note how busy it was just before.
	const busyBefore = round(await machineBusy(smoke ? 100 : 500), 2);
	if (busyBefore > 0.15) log(`the machine was ${Math.round(busyBefore * 100)}% busy before ${scenario.name} (other processes): expect noisy numbers`);
	log(`${scenario.id} ${scenario.name}: ${scenario.title} ${JSON.stringify(params)}`);
	const t0 = performance.now();
	const common = {id: scenario.id, title: scenario.title, params, machineBusyBefore: busyBefore};
	try {
		const result = await scenario.run(params);
		results[scenario.name] = {...common, status: 'ok', durationMs: round(performance.now() - t0, 0), result};
	} catch (error) {
		results[scenario.name] = {...common, status: 'error', durationMs: round(performance.now() - t0, 0), error: error.stack ?? String(error)};
		log(`${scenario.name} failed: ${error.stack ?? error}`);
	}

	// Nothing from one scenario may run into the next.
	const killed = await sweep(5000);
	if (killed > 0) log(`${scenario.name}: ${killed} process(es) had to be killed after the scenario`);
	log(`${scenario.name}: done in ${((performance.now() - t0) / 1000).toFixed(1)} s`);
}

const killedAtEnd = await sweep(3000);
const busyScenarios = Object.entries(results).filter(([, result]) => (result.machineBusyBefore ?? 0) > 0.15).map(([name]) => name);
report.durationMs = round(performance.now() - began, 0);
report.targets = evaluateTargets(results);
report.cleanup = {killedAtEnd, leftBehind: liveTagged().length};
if (interrupted) report.interrupted = true;

fs.mkdirSync(path.dirname(outFile), {recursive: true});
fs.writeFileSync(outFile, `${JSON.stringify(report, null, 2)}\n`);

const m = report.machine;
process.stdout.write(
	`mcp-hangar bench (${report.mode}) on ${m.nproc} CPUs, ${m.cpuModel}, ${m.memTotalMiB} MiB, node ${m.node}\n\n` +
		`${renderTable([...tableRows(results, report.targets), ...scenarios.filter(s => s.rows !== undefined && results[s.name] !== undefined).flatMap(s => s.rows(results[s.name]))])}\n\n` +
		`${(report.durationMs / 1000).toFixed(1)} s; results in ${path.relative(process.cwd(), outFile) || outFile}` +
		`${report.cleanup.leftBehind > 0 ? `; WARNING: ${report.cleanup.leftBehind} processes left behind` : ''}\n` +
		`${busyScenarios.length > 0 ? `NOTE: other processes kept the machine busy before ${busyScenarios.join(', ')}; those numbers are noisy (see machineBusyBefore in the JSON)\n` : ''}`,
);

const failed = Object.values(results).some(result => result.status === 'error') || interrupted;
process.exit(failed ? 1 : 0);
