#!/usr/bin/env node
/**
 * Compares hangar builds side by side on the call path (scenarios 1 and 2):
 *
 *   node bench/compare.js NAME=PATH/TO/cli.js [NAME=PATH/TO/cli.js ...] [--rounds N] [--calls N] [--seconds S]
 *
 * e.g. `node bench/compare.js base=dist/cli.js candidate=/tmp/hangar-candidate/dist/cli.js`
 * (a candidate is a copy of dist/ with a change, next to a package.json with
 * "type": "module" and a node_modules link). Every build gets its own warm
 * hangar in front of its own fixture server, next to the direct and minimal-hop
 * paths, and all of them are measured in the same interleaved rounds, so a
 * difference of a few microseconds survives a noisy machine better than two
 * separate `npm run bench` runs would. Prints sequential p50/p99, added
 * latency over direct, proxy CPU per call, and calls per second at 32 in flight.
 */
import path from 'node:path';
import {parseArgs} from 'node:util';
import {callTool, connectDirect, connectHangarWarm, connectHop, hangarBuild} from './lib/paths.js';
import {cpuMeter, sweep} from './lib/processes.js';
import {nsToMs, round, summarize} from './lib/stats.js';

const {values, positionals} = parseArgs({
	options: {rounds: {type: 'string', default: '10'}, calls: {type: 'string', default: '500'}, seconds: {type: 'string', default: '1.5'}},
	allowPositionals: true,
});
if (positionals.length === 0 || positionals.some(item => !item.includes('='))) {
	process.stderr.write('usage: node bench/compare.js NAME=PATH/TO/cli.js [NAME=PATH/TO/cli.js ...] [--rounds N] [--calls N] [--seconds S]\n');
	process.exit(2);
}

const rounds = Number(values.rounds);
const callsPerRound = Number(values.calls);
const sliceMs = Number(values.seconds) * 1000;
const args = {message: 'bench'};
const sessions = {};

process.on('SIGINT', () => {
	void sweep(0).then(() => process.exit(130));
});

try {
	sessions.direct = await connectDirect();
	sessions.hop = await connectHop();
	for (const item of positionals) {
		const [name, cli] = item.split('=');
		hangarBuild.cli = path.resolve(cli);
		sessions[name] = await connectHangarWarm();
	}

	const names = Object.keys(sessions);
	const rotated = r => names.map((_, i) => names[(i + r) % names.length]);
	for (const name of names) for (let i = 0; i < 1500; i++) await callTool(sessions[name].client, sessions[name].tool, args);

	const latency = Object.fromEntries(names.map(name => [name, []]));
	const seqCpu = Object.fromEntries(names.map(name => [name, 0]));
	for (let r = 0; r < rounds; r++) {
		for (const name of rotated(r)) {
			const session = sessions[name];
			const meter = cpuMeter(session);
			for (let i = 0; i < callsPerRound; i++) {
				const began = process.hrtime.bigint();
				await callTool(session.client, session.tool, args);
				latency[name].push(nsToMs(process.hrtime.bigint() - began));
			}

			seqCpu[name] += meter.stop().proxy ?? 0;
		}
	}

	const throughput = Object.fromEntries(names.map(name => [name, {calls: 0, ms: 0, cpu: 0}]));
	for (let r = 0; r < Math.max(2, Math.round(rounds / 2)); r++) {
		for (const name of rotated(r)) {
			const session = sessions[name];
			const meter = cpuMeter(session);
			const began = performance.now();
			const deadline = began + sliceMs;
			let calls = 0;
			await Promise.all(
				Array.from({length: 32}, async () => {
					while (performance.now() < deadline) {
						await callTool(session.client, session.tool, args);
						calls += 1;
					}
				}),
			);
			throughput[name].calls += calls;
			throughput[name].ms += performance.now() - began;
			throughput[name].cpu += meter.stop().proxy ?? 0;
		}
	}

	const direct = summarize(latency.direct);
	const hopAdded = summarize(latency.hop).p50 - direct.p50;
	const directRate = throughput.direct.calls / throughput.direct.ms;
	const rows = [['path', 'p50 ms', 'p99 ms', 'added p50 ms', 'added / hop', 'CPU µs/call seq', 'calls/s @32', 'vs direct', 'CPU µs/call @32']];
	for (const name of names) {
		const s = summarize(latency[name]);
		const added = s.p50 - direct.p50;
		const rate = throughput[name].calls / throughput[name].ms;
		rows.push([
			name,
			s.p50.toFixed(3),
			s.p99.toFixed(3),
			added.toFixed(3),
			name === 'direct' || name === 'hop' ? '' : `${round(added / hopAdded, 2)}x`,
			name === 'direct' ? '' : String(round((seqCpu[name] * 1000) / latency[name].length, 1)),
			String(Math.round(rate * 1000)),
			`${round((rate / directRate) * 100, 1)}%`,
			name === 'direct' ? '' : String(round((throughput[name].cpu * 1000) / throughput[name].calls, 1)),
		]);
	}

	const widths = rows[0].map((_, i) => Math.max(...rows.map(row => row[i].length)));
	for (const row of rows) console.log(row.map((cell, i) => cell.padEnd(widths[i])).join('  ').trimEnd());
} finally {
	await Promise.all(Object.values(sessions).map(async session => session.close()));
	await sweep(3000);
}
