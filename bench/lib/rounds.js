/**
 * The interleaved rounds every call-path measurement takes (scenarios 1, 2
 * and 7, and bench/compare.js): all sessions stay open, the measured work is
 * split into rounds, and each round visits the paths in a rotated order, so
 * drift on the machine (turbo, other load) lands on every path alike. Each
 * path's slice is bracketed by a CPU meter of the processes on that path, so
 * a result also says where the cycles went.
 *
 * A session is what bench/lib/paths.js connects: `{client, tool, proxyPid?,
 * daemonPid?, upstreamPid}`, plus, for an upstream other than the fixture
 * (bench/lib/peer-paths.js), the call's `callArgs` and a `check(result)`.
 */
import {callTool} from './paths.js';
import {cpuMeter} from './processes.js';
import {nsToMs, percentile, round, summarize} from './stats.js';

export const echoArgs = {message: 'bench'};
const echoed = result => result.content?.[0]?.text === echoArgs.message;

/** The paths in the order round `r` visits them. */
export function rotated(names, r) {
	return names.map((_, i) => names[(i + r) % names.length]);
}

/** CPU µs per completed call for each process on the path (client = the bench itself). */
export function perCall(cpu, calls) {
	return Object.fromEntries(Object.entries(cpu).map(([role, ms]) => [role, calls === 0 ? undefined : round((ms * 1000) / calls, 1)]));
}

function addInto(total, used) {
	for (const [role, ms] of Object.entries(used)) total[role] = (total[role] ?? 0) + ms;
}

/** `calls` sequential echo calls on each path, not measured (JIT, caches). */
export async function warmUp(sessions, calls) {
	for (const {client, tool, callArgs = echoArgs} of Object.values(sessions)) {
		for (let i = 0; i < calls; i++) await callTool(client, tool, callArgs);
	}
}

/**
 * `calls` sequential echo calls per path, in `rounds` rounds. Returns each
 * path's latency summary (ms) with its CPU µs per call, and the raw samples
 * (in round order: round r is `samples[name].slice(r * perRound, (r + 1) * perRound)`).
 */
export async function sequentialRounds(sessions, {calls, rounds}) {
	const names = Object.keys(sessions);
	const samples = Object.fromEntries(names.map(name => [name, []]));
	const cpu = Object.fromEntries(names.map(name => [name, {}]));
	const perRound = Math.ceil(calls / rounds);
	for (let r = 0; r < rounds; r++) {
		for (const name of rotated(names, r)) {
			const {client, tool, callArgs = echoArgs, check = echoed} = sessions[name];
			const into = samples[name];
			const count = Math.min(perRound, calls - into.length);
			const meter = cpuMeter(sessions[name]);
			for (let i = 0; i < count; i++) {
				const began = process.hrtime.bigint();
				const result = await callTool(client, tool, callArgs);
				into.push(nsToMs(process.hrtime.bigint() - began));
				if (!check(result)) throw new Error(`${name}: unexpected echo result ${JSON.stringify(result)}`);
			}

			addInto(cpu[name], meter.stop());
		}
	}

	const paths = Object.fromEntries(names.map(name => [name, {...summarize(samples[name]), cpuUsPerCall: perCall(cpu[name], samples[name].length)}]));
	return {paths, samples, perRound};
}

/**
 * What `path` adds over `base` at p50/p95/p99 (ms), and per round at p50 (the
 * paths of one round are measured seconds apart, so the spread of a per-round
 * figure shows how much of the overall one is the machine).
 */
export function addedLatency({paths, samples, perRound}, path, base) {
	const added = Object.fromEntries(['p50', 'p95', 'p99'].map(p => [p, round(paths[path][p] - paths[base][p], 3)]));
	const rounds = Math.ceil(samples[path].length / perRound);
	const p50InRound = (name, r) => percentile(samples[name].slice(r * perRound, (r + 1) * perRound), 50);
	const p50ByRound = Array.from({length: rounds}, (_, r) => p50InRound(path, r) - p50InRound(base, r));
	return {added, p50ByRound};
}

/** a / b, rounded, or null when b is not positive (a ratio of added latencies can be meaningless on a noisy round). */
export function ratio(a, b, digits = 2) {
	return b > 0 ? round(a / b, digits) : null;
}

/** `inFlight` concurrent callers on one path for `durationMs`, each sending its next call when the last is answered. */
export async function drive(session, inFlight, durationMs) {
	const {client, tool, callArgs = echoArgs} = session;
	let completed = 0;
	let errors = 0;
	let firstError;
	const began = performance.now();
	const deadline = began + durationMs;
	const worker = async () => {
		while (performance.now() < deadline) {
			try {
				await callTool(client, tool, callArgs);
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

/**
 * Throughput: one path loaded at a time (on a 2-core machine two loaded paths
 * would share the cores), `durationMs` per path split into `rounds` slices in
 * rotating order, after `warmupMs` on each. Throws if any call failed.
 */
export async function throughputRounds(sessions, {inFlight, durationMs, rounds, warmupMs = 0}) {
	const names = Object.keys(sessions);
	if (warmupMs > 0) for (const name of names) await drive(sessions[name], inFlight, warmupMs);

	const totals = Object.fromEntries(names.map(name => [name, {calls: 0, errors: 0, firstError: undefined, elapsedMs: 0, perRound: [], cpu: {}}]));
	for (let r = 0; r < rounds; r++) {
		for (const name of rotated(names, r)) {
			const total = totals[name];
			const meter = cpuMeter(sessions[name]);
			const slice = await drive(sessions[name], inFlight, durationMs / rounds);
			addInto(total.cpu, meter.stop());
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

	return paths;
}
