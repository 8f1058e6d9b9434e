/**
 * Scenario 2, throughput: `inFlight` concurrent callers (each awaits its call
 * and sends the next) for `durationMs` on each path, one path at a time (on a
 * 2-core machine two loaded paths at once would share the cores). Counts
 * completed calls per second; hangar and the hop as a fraction of direct.
 */
import {callTool, connectDirect, connectHangarWarm, connectHop} from '../lib/paths.js';
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
	const elapsedMs = performance.now() - began;
	return {calls: completed, errors, firstError, elapsedMs: round(elapsedMs, 1), callsPerSecond: round((completed / elapsedMs) * 1000, 0)};
}

export async function throughput({inFlight, durationMs, warmupMs}) {
	const paths = {};
	for (const [name, open] of [
		['direct', connectDirect],
		['hop', connectHop],
		['hangar', connectHangarWarm],
	]) {
		const session = await open();
		try {
			await drive(session, inFlight, warmupMs);
			paths[name] = await drive(session, inFlight, durationMs);
			if (paths[name].errors > 0) throw new Error(`${name}: ${paths[name].errors} calls failed (first: ${paths[name].firstError})`);
		} finally {
			await session.close();
		}
	}

	return {
		inFlight,
		durationMs,
		warmupMs,
		paths,
		hangarVsDirect: round(paths.hangar.callsPerSecond / paths.direct.callsPerSecond, 3),
		hopVsDirect: round(paths.hop.callsPerSecond / paths.direct.callsPerSecond, 3),
	};
}
