/**
 * Scenario 2, throughput: `inFlight` concurrent callers (each awaits its call
 * and sends the next) on each path, counting completed calls per second.
 * Only one path is loaded at a time (on a 2-core machine two loaded paths
 * would share the cores), but all three sessions stay open and the
 * `durationMs` per path is split into `rounds` slices taken in rotating order
 * (lib/rounds.js), so drift in the machine's speed lands on all three alike.
 *
 * Reported: calls per second per path; hangar and the hop as a fraction of
 * direct; the CPU time per call each process on the path used (client =
 * the bench, proxy, upstream), which shows where the cycles go.
 */
import {withThreePaths} from '../lib/paths.js';
import {ratio, throughputRounds} from '../lib/rounds.js';

export async function throughput({inFlight, durationMs, warmupMs, rounds}) {
	return withThreePaths(async sessions => {
		const paths = await throughputRounds(sessions, {inFlight, durationMs, rounds, warmupMs});
		return {
			inFlight,
			durationMs,
			rounds,
			warmupMs,
			paths,
			hangarVsDirect: ratio(paths.hangar.callsPerSecond, paths.direct.callsPerSecond, 3),
			hopVsDirect: ratio(paths.hop.callsPerSecond, paths.direct.callsPerSecond, 3),
		};
	});
}
