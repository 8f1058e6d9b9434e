/**
 * Scenario 2, throughput: `inFlight` concurrent callers (each awaits its call
 * and sends the next) on each path, counting completed calls per second.
 * Only one path is loaded at a time (on a 2-core machine two loaded paths
 * would share the cores), but all three sessions stay open and the
 * `durationMs` per path is split into `rounds` slices taken in rotating order,
 * so drift in the machine's speed lands on all three alike.
 *
 * Reported: calls per second per path; hangar and the hop as a fraction of
 * direct; the CPU time per call each process on the path used (client =
 * the bench, proxy, upstream), which shows where the cycles go.
 */
import {callTool, withThreePaths} from '../lib/paths.js';
import {cpuMeter} from '../lib/processes.js';
import {round} from '../lib/stats.js';

const args = {message: 'bench'};

async function drive(session, inFlight, durationMs) {
	const {client, tool} = session;
	let completed = 0;
	let errors = 0;
	let firstError;
	const began = performance.now();
	const deadline = began + durationMs;
	const worker = async () => {
		while (performance.now() < deadline) {
			try {
				await callTool(client, tool, args);
				completed += 1;
			} catch (error) {
				errors += 1;
				firstError ??= error.message;
			}
		}
	};

	await Promise.all(Array.from({length: inFlight}, worker));
	return {calls: completed, errors, firstError, elapsedMs: performance.now() - began};
}

/** CPU µs per completed call for each process on the path (client = the bench itself). */
export function perCall(cpu, calls) {
	const us = ms => (ms === undefined || calls === 0 ? undefined : round((ms * 1000) / calls, 1));
	return {client: us(cpu.client), proxy: us(cpu.proxy), upstream: us(cpu.upstream)};
}

export async function throughput({inFlight, durationMs, warmupMs, rounds}) {
	return withThreePaths(async sessions => {
		const names = Object.keys(sessions);
		for (const name of names) await drive(sessions[name], inFlight, warmupMs);

		const totals = Object.fromEntries(names.map(name => [name, {calls: 0, errors: 0, firstError: undefined, elapsedMs: 0, perRound: [], cpu: {client: 0, proxy: name === 'direct' ? undefined : 0, upstream: 0}}]));
		for (let r = 0; r < rounds; r++) {
			for (const name of names.map((_, i) => names[(i + r) % names.length])) {
				const total = totals[name];
				const meter = cpuMeter(sessions[name]);
				const slice = await drive(sessions[name], inFlight, durationMs / rounds);
				const used = meter.stop();
				for (const key of Object.keys(used)) if (used[key] !== undefined) total.cpu[key] += used[key];
				total.calls += slice.calls;
				total.errors += slice.errors;
				total.firstError ??= slice.firstError;
				total.elapsedMs += slice.elapsedMs;
				total.perRound.push(round((slice.calls / slice.elapsedMs) * 1000, 0));
			}
		}

		const paths = {};
		for (const name of names) {
			const total = totals[name];
			if (total.errors > 0) throw new Error(`${name}: ${total.errors} calls failed (first: ${total.firstError})`);
			paths[name] = {
				calls: total.calls,
				elapsedMs: round(total.elapsedMs, 0),
				callsPerSecond: round((total.calls / total.elapsedMs) * 1000, 0),
				callsPerSecondByRound: total.perRound,
				cpuUsPerCall: perCall(total.cpu, total.calls),
			};
		}

		return {
			inFlight,
			durationMs,
			rounds,
			warmupMs,
			paths,
			hangarVsDirect: round(paths.hangar.callsPerSecond / paths.direct.callsPerSecond, 3),
			hopVsDirect: round(paths.hop.callsPerSecond / paths.direct.callsPerSecond, 3),
		};
	});
}
