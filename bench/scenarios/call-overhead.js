/**
 * Scenario 1, call overhead: sequential tools/call of the fixture's echo tool
 * on three paths (direct, minimal hop, hangar --stdio), each in front of its
 * own `fixture-server --mode normal`. All three sessions are open at once and
 * the measured calls are taken in interleaved rounds (rotating which path goes
 * first), so drift on the machine (turbo, other load) lands on all three alike.
 *
 * Reported: p50/p95/p99 per path; each proxy's added latency over direct at
 * each percentile; hangar's added latency as a multiple of the hop's, over all
 * calls (the target's number) and within each round (to show the noise).
 */
import {callTool, withThreePaths} from '../lib/paths.js';
import {cpuMeter} from '../lib/processes.js';
import {nsToMs, percentile, round, summarize} from '../lib/stats.js';
import {perCall} from './throughput.js';

const args = {message: 'bench'};

export async function callOverhead({calls, warmup, rounds}) {
	return withThreePaths(async sessions => {
		const names = Object.keys(sessions);

		for (const name of names) {
			const {client, tool} = sessions[name];
			for (let i = 0; i < warmup; i++) await callTool(client, tool, args);
		}

		const samples = Object.fromEntries(names.map(name => [name, []]));
		const cpu = Object.fromEntries(names.map(name => [name, {client: 0, proxy: name === 'direct' ? undefined : 0, upstream: 0}]));
		const perRound = Math.ceil(calls / rounds);
		for (let r = 0; r < rounds; r++) {
			const order = names.map((_, i) => names[(i + r) % names.length]);
			for (const name of order) {
				const {client, tool} = sessions[name];
				const into = samples[name];
				const count = Math.min(perRound, calls - into.length);
				const meter = cpuMeter(sessions[name]);
				for (let i = 0; i < count; i++) {
					const began = process.hrtime.bigint();
					const result = await callTool(client, tool, args);
					into.push(nsToMs(process.hrtime.bigint() - began));
					if (result.content?.[0]?.text !== 'bench') throw new Error(`${name}: unexpected echo result ${JSON.stringify(result)}`);
				}

				const used = meter.stop();
				for (const key of Object.keys(used)) if (used[key] !== undefined) cpu[name][key] += used[key];
			}
		}

		const paths = Object.fromEntries(names.map(name => [name, {...summarize(samples[name]), cpuUsPerCall: perCall(cpu[name], samples[name].length)}]));
		const added = {};
		const ratio = {};
		for (const p of ['p50', 'p95', 'p99']) {
			const hop = paths.hop[p] - paths.direct[p];
			const hangar = paths.hangar[p] - paths.direct[p];
			added[p] = {hop: round(hop, 3), hangar: round(hangar, 3)};
			ratio[p] = hop > 0 ? round(hangar / hop, 2) : null;
		}

		// The same ratio within each round (paths measured minutes apart drift; within a round they do not):
		// its spread shows how much of a run's ratio is the machine.
		const byRound = [];
		for (let r = 0; r < rounds; r++) {
			const p50 = name => percentile(samples[name].slice(r * perRound, (r + 1) * perRound), 50);
			const hop = p50('hop') - p50('direct');
			byRound.push(hop > 0 ? round((p50('hangar') - p50('direct')) / hop, 2) : null);
		}

		return {calls, warmup, rounds, unit: 'ms', paths, addedMs: added, hangarOverHopAdded: ratio, hangarOverHopAddedP50ByRound: byRound};
	});
}
