/**
 * Scenario 1, call overhead: sequential tools/call of the fixture's echo tool
 * on three paths (direct, minimal hop, hangar --stdio), each in front of its
 * own `fixture-server --mode normal`. All three sessions are open at once and
 * the measured calls are taken in interleaved rounds (lib/rounds.js), so
 * drift on the machine (turbo, other load) lands on all three alike.
 *
 * Reported: p50/p95/p99 per path; each proxy's added latency over direct at
 * each percentile; hangar's added latency as a multiple of the hop's, over all
 * calls (the target's number) and within each round (to show the noise).
 */
import {withThreePaths} from '../lib/paths.js';
import {addedLatency, ratio, sequentialRounds, warmUp} from '../lib/rounds.js';
import {round} from '../lib/stats.js';

export async function callOverhead({calls, warmup, rounds}) {
	return withThreePaths(async sessions => {
		await warmUp(sessions, warmup);
		const measured = await sequentialRounds(sessions, {calls, rounds});
		const hop = addedLatency(measured, 'hop', 'direct');
		const hangar = addedLatency(measured, 'hangar', 'direct');
		const addedMs = {};
		const hangarOverHopAdded = {};
		for (const p of ['p50', 'p95', 'p99']) {
			addedMs[p] = {hop: hop.added[p], hangar: hangar.added[p]};
			hangarOverHopAdded[p] = ratio(hangar.added[p], hop.added[p]);
		}

		return {
			calls,
			warmup,
			rounds,
			unit: 'ms',
			paths: measured.paths,
			addedMs,
			hangarOverHopAdded,
			hangarOverHopAddedP50ByRound: hangar.p50ByRound.map((added, r) => ratio(added, hop.p50ByRound[r])),
			hopAddedP50ByRound: hop.p50ByRound.map(added => round(added, 3)),
		};
	});
}
