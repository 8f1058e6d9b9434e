#!/usr/bin/env node
/**
 * Compares hangar builds side by side on the call path (scenarios 1 and 2):
 *
 *   node bench/compare.js NAME=PATH/TO/cli.js [NAME=PATH/TO/cli.js ...] [--rounds N] [--calls N] [--seconds S] [--message-bytes N] [--otlp NAME,...]
 *
 * e.g. `node bench/compare.js base=dist/cli.js candidate=/tmp/hangar-candidate/dist/cli.js`
 * (a candidate is a copy of dist/ with a change, next to a package.json with
 * "type": "module" and a node_modules link). Every build gets its own warm
 * hangar in front of its own fixture server, next to the direct and minimal-hop
 * paths, and all of them are measured in the same interleaved rounds, so a
 * difference of a few microseconds survives a noisy machine better than two
 * separate `npm run bench` runs would. Prints sequential p50/p99, added
 * latency over direct, proxy CPU per call, and calls per second at 32 in flight.
 * `--message-bytes N` echoes a message of N bytes instead of "bench" (a large
 * answer: what forwarding results as text saves grows with its size).
 * `--otlp NAME,...` runs those builds with tracing on: OTEL_EXPORTER_OTLP_ENDPOINT
 * set to a loopback OTLP/HTTP receiver in this process, which answers every
 * export with 200 and counts what it received (issue 29: tracing off costs
 * nothing, tracing on is reported; e.g. `off=dist/cli.js on=dist/cli.js --otlp on`).
 * The load average before and after is printed under the table.
 */
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import {parseArgs} from 'node:util';
import {connectDirect, connectHangarWarm, connectHop, hangarBuild} from './lib/paths.js';
import {sweep} from './lib/processes.js';
import {sequentialRounds, throughputRounds, warmUp} from './lib/rounds.js';
import {round} from './lib/stats.js';

const {values, positionals} = parseArgs({
	options: {rounds: {type: 'string', default: '10'}, calls: {type: 'string', default: '500'}, seconds: {type: 'string', default: '1.5'}, 'message-bytes': {type: 'string'}, otlp: {type: 'string'}},
	allowPositionals: true,
});
if (positionals.length === 0 || positionals.some(item => !item.includes('='))) {
	process.stderr.write('usage: node bench/compare.js NAME=PATH/TO/cli.js [NAME=PATH/TO/cli.js ...] [--rounds N] [--calls N] [--seconds S] [--message-bytes N] [--otlp NAME,...]\n');
	process.exit(2);
}

const rounds = Number(values.rounds);
const callsPerRound = Number(values.calls);
const sliceMs = Number(values.seconds) * 1000;
const sessions = {};

process.on('SIGINT', () => {
	void sweep(0).then(() => process.exit(130));
});

const traced = new Set((values.otlp ?? '').split(',').filter(Boolean));
const received = {exports: 0, bytes: 0};
const receiver = traced.size === 0 ? undefined : http.createServer((request, response) => {
	request.on('data', chunk => {
		received.bytes += chunk.length;
	});
	request.on('end', () => {
		received.exports += 1;
		response.writeHead(200, {'content-type': 'application/json'}).end('{}');
	});
});
if (receiver !== undefined) await new Promise(resolve => receiver.listen(0, '127.0.0.1', resolve));
const otlpEnv = receiver === undefined ? {} : {OTEL_EXPORTER_OTLP_ENDPOINT: `http://127.0.0.1:${receiver.address().port}`};

try {
	sessions.direct = await connectDirect();
	sessions.hop = await connectHop();
	for (const item of positionals) {
		const [name, cli] = item.split('=');
		hangarBuild.cli = path.resolve(cli);
		sessions[name] = await connectHangarWarm(traced.has(name) ? {env: otlpEnv} : {});
	}

	if (values['message-bytes'] !== undefined) {
		const message = 'x'.repeat(Number(values['message-bytes']));
		for (const session of Object.values(sessions)) {
			session.callArgs = {message};
			session.check = result => result.content?.[0]?.text?.length >= message.length;
		}
	}

	const names = Object.keys(sessions);
	// The machine's load, before and after: a loaded machine's numbers are read as ratios within the run.
	const load = () => os.loadavg().map(value => value.toFixed(1)).join(' ');
	const loadBefore = load();
	await warmUp(sessions, 1500);
	const sequential = (await sequentialRounds(sessions, {calls: callsPerRound * rounds, rounds})).paths;
	const throughputSlices = Math.max(2, Math.round(rounds / 2));
	const loaded = await throughputRounds(sessions, {inFlight: 32, durationMs: sliceMs * throughputSlices, rounds: throughputSlices});

	const direct = sequential.direct;
	const hopAdded = sequential.hop.p50 - direct.p50;
	const rows = [['path', 'p50 ms', 'p99 ms', 'added p50 ms', 'added / hop', 'CPU µs/call seq', 'calls/s @32', 'vs direct', 'CPU µs/call @32']];
	for (const name of names) {
		const s = sequential[name];
		const added = s.p50 - direct.p50;
		rows.push([
			name,
			s.p50.toFixed(3),
			s.p99.toFixed(3),
			added.toFixed(3),
			name === 'direct' || name === 'hop' ? '' : `${round(added / hopAdded, 2)}x`,
			name === 'direct' ? '' : String(s.cpuUsPerCall.proxy),
			String(loaded[name].callsPerSecond),
			`${round((loaded[name].callsPerSecond / loaded.direct.callsPerSecond) * 100, 1)}%`,
			name === 'direct' ? '' : String(loaded[name].cpuUsPerCall.proxy),
		]);
	}

	const widths = rows[0].map((_, i) => Math.max(...rows.map(row => row[i].length)));
	for (const row of rows) console.log(row.map((cell, i) => cell.padEnd(widths[i])).join('  ').trimEnd());
	console.log(`load average (1, 5, 15 min) on ${os.cpus().length} CPUs: ${loadBefore} before, ${load()} after`);
	if (receiver !== undefined) console.log(`traced (${[...traced].join(', ')}): the OTLP receiver took ${received.exports} exports, ${received.bytes} bytes`);
} finally {
	receiver?.close();
	await Promise.all(Object.values(sessions).map(async session => session.close()));
	await sweep(3000);
}
