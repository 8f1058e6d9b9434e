/**
 * Scenario 7, bridge overhead: what `mcp-hangar --stdio` costs when it
 * bridges to a running supervisor (`mcp-hangar serve`, over its Unix socket)
 * instead of embedding one. Four sessions are open at once, each in front of
 * its own `fixture-server --mode normal`:
 *
 *   direct:   client -> fixture server
 *   hop:      client -> bench/hop.js -> fixture server
 *   embedded: client -> mcp-hangar --stdio -> fixture server (scenario 1's hangar path)
 *   bridge:   client -> mcp-hangar --stdio -> (socket) mcp-hangar serve -> fixture server
 *
 * Sequential echo calls are taken on all four in interleaved rounds
 * (lib/rounds.js), then 32 callers in flight on the embedded and bridge
 * paths. The bridge is one more process on the path, so the floor for what it
 * adds is what the minimal hop adds over direct: the bridge's added p50 over
 * embedded is reported in µs, as a ratio of the embedded p50, and as a
 * multiple of the hop's added p50.
 *
 * Last, the serve daemon gets `loadRate` calls a second for `loadWindowMs`
 * from a raw client on its socket (lib/paced-load.js) and its CPU is read:
 * the same load scenario 6 puts on the TUI, which is the same supervisor
 * plus a screen, so the difference is what drawing costs.
 */
import {pacedLoad} from '../lib/paced-load.js';
import {connectBridgeWarm, connectDirect, connectHangarWarm, connectHop, withPaths} from '../lib/paths.js';
import {addedLatency, ratio, sequentialRounds, throughputRounds, warmUp} from '../lib/rounds.js';
import {round} from '../lib/stats.js';

const us = ms => round(ms * 1000, 1);

export async function bridgeOverhead({calls, warmup, rounds, inFlight, durationMs, inFlightRounds, warmupMs, loadRate, loadWindowMs}) {
	return withPaths({direct: connectDirect, hop: connectHop, embedded: connectHangarWarm, bridge: connectBridgeWarm}, async sessions => {
		await warmUp(sessions, warmup);
		const measured = await sequentialRounds(sessions, {calls, rounds});
		const bridge = addedLatency(measured, 'bridge', 'embedded');
		const hop = addedLatency(measured, 'hop', 'direct');
		const {paths} = measured;

		const loaded = await throughputRounds({embedded: sessions.embedded, bridge: sessions.bridge}, {inFlight, durationMs, rounds: inFlightRounds, warmupMs});
		const serveUnderLoad = await pacedLoad(sessions.bridge.socketPath, {tool: 'fx__echo', rate: loadRate, durationMs: loadWindowMs, meter: {serve: sessions.bridge.daemonPid}});
		return {
			calls,
			warmup,
			rounds,
			unit: 'ms',
			paths,
			bridgeAddedUs: Object.fromEntries(Object.entries(bridge.added).map(([p, ms]) => [p, us(ms)])),
			bridgeAddedP50ByRoundUs: bridge.p50ByRound.map(ms => us(ms)),
			bridgeOverEmbeddedP50: ratio(paths.bridge.p50, paths.embedded.p50),
			hopAddedUs: Object.fromEntries(Object.entries(hop.added).map(([p, ms]) => [p, us(ms)])),
			bridgeAddedOverHopAddedP50: ratio(bridge.added.p50, hop.added.p50),
			throughput: {
				inFlight,
				durationMs,
				rounds: inFlightRounds,
				warmupMs,
				paths: loaded,
				bridgeVsEmbedded: ratio(loaded.bridge.callsPerSecond, loaded.embedded.callsPerSecond, 3),
			},
			serveUnderLoad,
		};
	});
}

/** Rows for the bench table (bench/run.js). */
export function bridgeOverheadRows(scenario) {
	const label = '7 stdio bridge';
	// lib/report.js prints the row of a skipped or failed run.
	if (scenario.status !== 'ok') return [];
	const r = scenario.result;
	const ms3 = value => (value === null ? '-' : value.toFixed(3));
	const cpu = (path, role) => r.paths[path].cpuUsPerCall[role] ?? '-';
	const load = r.throughput;
	return [
		...['embedded', 'bridge'].map(path => [label, `${path} p50/p95/p99 (ms)`, `${ms3(r.paths[path].p50)} / ${ms3(r.paths[path].p95)} / ${ms3(r.paths[path].p99)}`, '', '']),
		[label, 'bridge added over embedded: p50 / p99 (µs)', `${r.bridgeAddedUs.p50} / ${r.bridgeAddedUs.p99}`, '', ''],
		[label, 'bridge p50 / embedded p50', `${r.bridgeOverEmbeddedP50}x`, '', ''],
		[label, 'bridge added / hop added (one more process), p50', `${r.bridgeAddedOverHopAddedP50}x (hop adds ${r.hopAddedUs.p50} µs)`, '', ''],
		[label, 'CPU per call: embedded / bridge + serve (µs)', `${cpu('embedded', 'proxy')} / ${cpu('bridge', 'proxy')} + ${cpu('bridge', 'daemon')}`, '', ''],
		[label, `${load.inFlight} in flight: embedded / bridge (calls/s)`, `${load.paths.embedded.callsPerSecond} / ${load.paths.bridge.callsPerSecond} (${round(load.bridgeVsEmbedded * 100, 1)}%)`, '', ''],
		[label, `serve at ${r.serveUnderLoad.rate} calls/s (answered ${r.serveUnderLoad.answeredPerSecond}): % of one core`, `${r.serveUnderLoad.cpu.serve.percent}%`, '', ''],
	];
}
