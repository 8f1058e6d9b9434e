#!/usr/bin/env node
/**
 * hangar against the floors and the peers a user would pick instead, with
 * real upstreams, in the same run (`npm run bench:peers`, which builds hangar
 * and installs the peers into bench/peers/ first).
 *
 *   node bench/peers.js [--smoke] [--only LIST] [--without-peers] [--out FILE] [--hangar-node-args="FLAGS"]
 *
 *   --only LIST         comma-separated parts: calls, memory, cold, aggregate (default: all)
 *   --smoke             every part briefly: checks that the bench works, says nothing about speed
 *   --without-peers     only the project's own paths (direct, the floors, hangar --stdio and
 *                       serve --http): needs nothing from bench/peers/
 *   --out FILE          where the JSON goes (default bench/results/peers.json, peers-smoke.json with --smoke)
 *   --hangar-cli PATH   run this hangar build instead of dist/cli.js
 *   --hangar-node-args="FLAGS"
 *                       node flags for every hangar process, e.g. "--cpu-prof --cpu-prof-dir=/tmp/prof"
 *
 * Parts:
 *   calls      server-everything's echo on every path (lib/peer-paths.js), all sessions open at
 *              once: sequential calls in interleaved rounds (added p50 over direct, CPU per call of
 *              the proxy from /proc), then 32 calls in flight per path in rotating slices
 *   memory     the same with server-memory's read_graph on the stdio paths and the HTTP floor
 *   cold       process spawn to the first tools/call answered, per path, in interleaved rounds;
 *              the proxy's RSS once idle after that first call. Also a second --stdio client started
 *              while a first one's daemon runs (the bridge alone: its start and idle RSS, and the
 *              daemon's idle RSS on its own), and a bare node process piping to that daemon's socket
 *              (bench/socket-hop.js), the floor of attaching
 *   aggregate  20 upstreams (10 server-everything, 10 server-memory) behind hangar --stdio,
 *              hangar serve --http and mcp-hub: time until every upstream's tools are listed,
 *              tools/list p50, the proxy's RSS
 *
 * Prints a table on stdout and writes every number to the JSON file; exits 0 when every
 * part ran (missed targets are reported, not failures). docs/performance.md has the results.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import {parseArgs} from 'node:util';
import {fmt, renderTable} from './lib/report.js';
import {spawn} from 'node:child_process';
import {allPaths, attachPaths, connectHttp, connectors, freePort, missingPeers, peersDir, stdioPaths} from './lib/peer-paths.js';
import {hangarBuild, hangarNodeArgs, root, tempDir, waitFor, writeHangarConfig, connect} from './lib/paths.js';
import {ListToolsResultSchema} from '@modelcontextprotocol/sdk/types.js';
import {cpuMs, killTagged, liveTagged, machineBusy, rssKiB, sleep, sweep, taggedEnv} from './lib/processes.js';
import {realUpstream} from './lib/real-upstreams.js';
import {addedLatency, ratio, rotated, sequentialRounds, throughputRounds, warmUp} from './lib/rounds.js';
import {machine, median, percentile, round} from './lib/stats.js';

const options = {
	smoke: {type: 'boolean', default: false},
	only: {type: 'string'},
	'without-peers': {type: 'boolean', default: false},
	out: {type: 'string'},
	'hangar-cli': {type: 'string'},
	'hangar-node-args': {type: 'string'},
	help: {type: 'boolean', default: false},
};
let flags;
try {
	flags = parseArgs({options, strict: true}).values;
} catch (error) {
	process.stderr.write(`bench:peers: ${error.message}\nRun node bench/peers.js --help for the options.\n`);
	process.exit(2);
}

if (flags.help) {
	const source = fs.readFileSync(new URL(import.meta.url), 'utf8');
	process.stdout.write(`${/\/\*\*([\s\S]*?)\*\//.exec(source)[1].replaceAll(/^ \* ?/gm, '').trim()}\n`);
	process.exit(0);
}

if (flags['hangar-cli'] !== undefined) hangarBuild.cli = path.resolve(flags['hangar-cli']);
if (flags['hangar-node-args'] !== undefined) hangarNodeArgs.push(...flags['hangar-node-args'].split(/\s+/).filter(Boolean));
if (!fs.existsSync(hangarBuild.cli)) {
	process.stderr.write(`bench:peers: ${path.relative(root, hangarBuild.cli)} is missing; run \`npm run build\` first (or use \`npm run bench:peers\`)\n`);
	process.exit(2);
}

const withPeers = !flags['without-peers'];
if (withPeers && missingPeers().length > 0) {
	process.stderr.write(`bench:peers: the peers are not installed (${missingPeers().map(file => path.relative(root, file)).join(', ')}); run \`npm ci --prefix bench/peers\` (npm run bench:peers does), or pass --without-peers\n`);
	process.exit(2);
}

const smoke = flags.smoke;
const ownPaths = ['direct', 'hop', 'twoHop', 'supervisedHop', 'supervisedTwoHop', 'hangar', 'hangarStandalone', 'httpHop', 'hangarHttp'];
const paths = withPeers ? allPaths : ownPaths;
const peerNames = ['mcpHub', 'supergateway', 'mcpProxy'].filter(name => paths.includes(name));
const labels = {
	direct: 'direct (stdio)',
	hop: 'minimal stdio hop',
	twoHop: 'two-process floor (a pipe to the hop on a socket)',
	supervisedHop: 'the hop + what a supervisor adds per call',
	supervisedTwoHop: 'two-process floor with a supervisor (a pipe to the supervised hop on a socket)',
	hangar: 'hangar --stdio (bridge + daemon)',
	hangarStandalone: 'hangar --stdio --standalone',
	httpHop: 'minimal HTTP→stdio hop',
	hangarHttp: 'hangar serve --http',
	mcpHub: 'mcp-hub 4.2.1 (legacy SSE)',
	supergateway: 'supergateway 4.0.0 --stateful',
	mcpProxy: 'mcp-proxy 6.7.19',
	hangarAttached: 'hangar --stdio, a supervisor already running (the bridge alone)',
	socketHop: 'bare node piping to that socket (the attach floor)',
};

const params = smoke
	? {
			calls: {warmup: 20, calls: 60, rounds: 2, inFlight: 32, durationMs: 600, throughputRounds: 1, warmupMs: 100},
			memory: {warmup: 20, calls: 60, rounds: 2, inFlight: 32, durationMs: 600, throughputRounds: 1, warmupMs: 100},
			// The settled reading on two paths only: it starts each path once more (a test runs the smoke).
			cold: {reps: 1, settleMs: 300, readings: 2, settledIdleMs: 1000, settledPaths: ['hop', 'hangarAttached']},
			aggregate: {everything: 2, memory: 2, reps: 1, listSamples: 10, settleMs: 300},
		}
	: {
			calls: {warmup: 300, calls: 1600, rounds: 4, inFlight: 32, durationMs: 2000, throughputRounds: 2, warmupMs: 200},
			memory: {warmup: 200, calls: 800, rounds: 4, inFlight: 32, durationMs: 1200, throughputRounds: 2, warmupMs: 100},
			cold: {reps: 3, settleMs: 700, readings: 3, settledIdleMs: 45_000},
			aggregate: {everything: 10, memory: 10, reps: 2, listSamples: 50, settleMs: 700},
		};

const log = message => process.stderr.write(`bench:peers: ${message}\n`);

// The bench's own HTTP clients: undici leaves an abort listener on the transport's signal per POST until a
// GC collects the request, and Node then warns once per listener past its limit, thousands of lines of
// the bench's own stderr (and CPU) during the HTTP rounds. Counted and reported instead.
let listenerWarnings = 0;
const emitWarning = process.emitWarning.bind(process);
process.emitWarning = (warning, ...rest) => {
	const type = typeof warning === 'object' ? warning?.name : typeof rest[0] === 'string' ? rest[0] : rest[0]?.type;
	if (type === 'MaxListenersExceededWarning') {
		listenerWarnings += 1;
		return;
	}

	emitWarning(warning, ...rest);
};

for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP']) {
	process.on(signal, () => {
		log(`${signal}: stopping every process it started`);
		killTagged();
		setTimeout(() => process.exit(130), 300);
	});
}

process.on('exit', () => killTagged());

/** Opens one session per path in front of its own upstream of `kind`; closes them all after `work`. */
async function withSessions(names, kind, work) {
	const sessions = {};
	const upstreams = [];
	try {
		for (const name of names) {
			const upstream = realUpstream(kind);
			upstreams.push(upstream);
			const session = await connectors[name](upstream);
			sessions[name] = {...session, callArgs: upstream.callArgs, check: upstream.check};
		}

		return await work(sessions);
	} finally {
		await Promise.all(Object.values(sessions).map(async session => session.close()));
		for (const upstream of upstreams) upstream.cleanup();
	}
}

/** The proxy's CPU per call: on the default --stdio path, the bridge's and the daemon's together. */
const proxyCpu = cpu => (cpu.proxy === undefined ? undefined : cpu.proxy + (cpu.daemon ?? 0));
const proxyRss = session => rssKiB(session.proxyPid) + (session.daemonPid === undefined ? 0 : rssKiB(session.daemonPid));

/** The floor a path is judged against: the stdio hop for stdio paths, the HTTP hop for HTTP ones. */
const floorOf = name => (stdioPaths.includes(name) ? 'hop' : 'httpHop');

async function calls(kind, names, p) {
	return withSessions(names, kind, async sessions => {
		await warmUp(sessions, p.warmup);
		const measured = await sequentialRounds(sessions, {calls: p.calls, rounds: p.rounds});
		const loaded = await throughputRounds(sessions, {inFlight: p.inFlight, durationMs: p.durationMs * p.throughputRounds, rounds: p.throughputRounds, warmupMs: p.warmupMs});
		const rssAfterLoadKiB = Object.fromEntries(names.filter(name => name !== 'direct').map(name => [name, proxyRss(sessions[name])]));
		// The same sequential rounds again, now that every path has served tens of thousands of calls: V8 has
		// compiled each one's hot path by now (the rounds above cover a process's first ~2,000 calls, where a
		// path with more JavaScript on its call path runs longer interpreted). A long-lived daemon lives here.
		const steady = await sequentialRounds(sessions, {calls: p.calls, rounds: p.rounds});
		const out = {};
		for (const name of names) {
			const added = name === 'direct' ? undefined : addedLatency(measured, name, 'direct');
			out[name] = {
				latency: measured.paths[name],
				addedP50Ms: added?.added.p50,
				addedP50ByRoundMs: added?.p50ByRound.map(value => round(value, 3)),
				cpuUsPerCall: measured.paths[name].cpuUsPerCall,
				proxyCpuUsPerCall: proxyCpu(measured.paths[name].cpuUsPerCall),
				callsPerSecond: loaded[name].callsPerSecond,
				callsPerSecondByRound: loaded[name].callsPerSecondByRound,
				cpuUsPerCallLoaded: loaded[name].cpuUsPerCall,
				rssAfterLoadKiB: rssAfterLoadKiB[name],
				steady: {
					p50Ms: steady.paths[name].p50,
					addedP50Ms: name === 'direct' ? undefined : addedLatency(steady, name, 'direct').added.p50,
					cpuUsPerCall: steady.paths[name].cpuUsPerCall,
					proxyCpuUsPerCall: proxyCpu(steady.paths[name].cpuUsPerCall),
				},
			};
		}

		for (const name of names) {
			if (name === 'direct') continue;
			const floor = out[floorOf(name)];
			if (floor === undefined || name === floorOf(name)) continue;
			out[name].vsFloor = {
				floor: floorOf(name),
				addedP50: ratio(out[name].addedP50Ms, floor.addedP50Ms),
				cpuPerCall: ratio(out[name].proxyCpuUsPerCall, floor.proxyCpuUsPerCall),
				throughput: ratio(out[name].callsPerSecond, floor.callsPerSecond),
			};
			out[name].steady.vsFloor = {
				floor: floorOf(name),
				addedP50: ratio(out[name].steady.addedP50Ms, floor.steady.addedP50Ms),
				cpuPerCall: ratio(out[name].steady.proxyCpuUsPerCall, floor.steady.proxyCpuUsPerCall),
			};
		}

		// Beside the hop, each --stdio path against the floor of its own shape: the default path (two
		// processes) against the two-process floor, standalone against the hop plus a supervisor's least.
		const against = (name, floorName) => {
			if (out[name] === undefined || out[floorName] === undefined) return undefined;
			return {
				floor: floorName,
				addedP50: ratio(out[name].addedP50Ms, out[floorName].addedP50Ms),
				cpuPerCall: ratio(out[name].proxyCpuUsPerCall, out[floorName].proxyCpuUsPerCall),
				throughput: ratio(out[name].callsPerSecond, out[floorName].callsPerSecond),
			};
		};

		if (out.hangar !== undefined) out.hangar.vsTwoHop = against('hangar', 'twoHop');
		if (out.hangar !== undefined) out.hangar.vsSupervisedTwoHop = against('hangar', 'supervisedTwoHop');
		if (out.hangarStandalone !== undefined) out.hangarStandalone.vsSupervisedHop = against('hangarStandalone', 'supervisedHop');

		return {upstream: kind, ...p, paths: out};
	});
}

/** Cold start and idle RSS: each path started fresh, `reps` times, in rotating order. */
async function cold(names) {
	const p = params.cold;
	const samples = Object.fromEntries(names.map(name => [name, {ms: [], rssKiB: []}]));
	for (let r = 0; r < p.reps; r++) {
		for (const name of rotated(names, r)) {
			const upstream = realUpstream('everything');
			const session = await connectors[name](upstream);
			try {
				samples[name].ms.push(session.answeredAt - session.startedAt);
				await sleep(p.settleMs);
				const readings = [];
				for (let i = 0; i < p.readings; i++) {
					readings.push(session.proxyPid === undefined ? rssKiB(session.upstreamPid) : proxyRss(session));
					await sleep(100);
				}

				samples[name].rssKiB.push(median(readings));
				if (session.attachedDaemonPid !== undefined) samples[name].daemonRssKiB = [...(samples[name].daemonRssKiB ?? []), rssKiB(session.attachedDaemonPid)];
			} finally {
				await session.close();
				upstream.cleanup();
			}
		}
	}

	await settledIdle(p.settledPaths === undefined ? names : names.filter(name => p.settledPaths.includes(name)), samples, p.settledIdleMs);
	const out = {};
	const directMs = median(samples.direct.ms);
	for (const name of names) {
		out[name] = {
			startToFirstAnswerMs: round(median(samples[name].ms), 1),
			samplesMs: samples[name].ms.map(value => round(value, 1)),
			overDirect: ratio(median(samples[name].ms), directMs),
			// For direct, the upstream's own RSS (there is no proxy); for the default --stdio, the bridge's and the daemon's.
			idleRssKiB: median(samples[name].rssKiB),
			...(samples[name].daemonRssKiB === undefined ? {} : {daemonIdleRssKiB: median(samples[name].daemonRssKiB)}),
			...(samples[name].settledRssKiB === undefined ? {} : {settledIdleRssKiB: samples[name].settledRssKiB}),
			...(samples[name].settledDaemonRssKiB === undefined ? {} : {settledDaemonIdleRssKiB: samples[name].settledDaemonRssKiB}),
		};
	}

	if (out.hangarAttached !== undefined && out.socketHop !== undefined) out.hangarAttached.overFloor = ratio(out.hangarAttached.startToFirstAnswerMs, out.socketHop.startToFirstAnswerMs);

	return {upstream: 'everything', ...p, paths: out};
}

/**
 * Idle RSS once settled: every path started once more, all left idle together
 * until the last one started `ms` ago, then read. The cold part's reading,
 * 0.7 s after the first answer, is a process just out of its start: its young
 * generation still holds the start's garbage, which V8's memory reducer only
 * collects and gives back about half a minute later, in a long-lived daemon
 * as in every peer (docs/performance.md). Started after the timed reps, so
 * no collection of a held process lands inside a timed cold start.
 */
async function settledIdle(names, samples, ms) {
	if (!(ms > 0)) return;
	const held = [];
	try {
		for (const name of names) {
			const upstream = realUpstream('everything');
			try {
				held.push({name, upstream, session: await connectors[name](upstream)});
			} catch (error) {
				upstream.cleanup();
				throw error;
			}
		}

		const lastAnswer = Math.max(...held.map(({session}) => session.answeredAt));
		await sleep(Math.max(0, lastAnswer + ms - performance.now()));
		for (const {name, session} of held) {
			samples[name].settledRssKiB = session.proxyPid === undefined ? rssKiB(session.upstreamPid) : proxyRss(session);
			if (session.attachedDaemonPid !== undefined) samples[name].settledDaemonRssKiB = rssKiB(session.attachedDaemonPid);
		}
	} finally {
		for (const {session, upstream} of held) {
			await session.close();
			upstream.cleanup();
		}
	}
}

/** The tool names a plain SDK client sees from each kind of upstream: what "all tools listed" must include. */
async function toolsSeenDirectly(kind) {
	const upstream = realUpstream(kind);
	const session = await connect(upstream.command, upstream.args, {env: upstream.env});
	try {
		// server-everything adds tools just after initialized (and says so): ask until the list stops growing.
		let names = [];
		await waitFor(async () => {
			const now = (await session.client.listTools()).tools.map(tool => tool.name);
			const stable = now.length === names.length;
			names = now;
			return stable;
		}, `${kind}'s tools/list to settle`, 10_000, 100);
		return names;
	} finally {
		await session.close();
		upstream.cleanup();
	}
}

/** 20 upstreams behind one proxy: time until every upstream's tools are listed, tools/list p50, RSS. */
async function aggregate(names) {
	const p = params.aggregate;
	const expected = {everything: await toolsSeenDirectly('everything'), memory: await toolsSeenDirectly('memory')};
	const fleet = () => [
		...Array.from({length: p.everything}, (_, i) => [`ev${String(i + 1).padStart(2, '0')}`, realUpstream('everything')]),
		...Array.from({length: p.memory}, (_, i) => [`mem${String(i + 1).padStart(2, '0')}`, realUpstream('memory')]),
	];
	const wanted = upstreams => upstreams.flatMap(([server, upstream]) => expected[upstream.kind].map(tool => `${server}__${tool}`));
	const samples = Object.fromEntries(names.map(name => [name, {listedMs: [], listP50Ms: [], listCpuUs: [], rssKiB: [], tools: [], bytes: []}]));

	for (let r = 0; r < p.reps; r++) {
		for (const name of rotated(names, r)) {
			const upstreams = fleet();
			const servers = Object.fromEntries(upstreams.map(([server, upstream]) => [server, {command: upstream.command, args: upstream.args, env: upstream.env}]));
			const started = await startAggregate(name, servers);
			try {
				const want = wanted(upstreams);
				let tools = [];
				await waitFor(
					async () => {
						tools = (await started.client.listTools()).tools.map(tool => tool.name);
						const have = new Set(tools);
						return want.every(tool => have.has(tool));
					},
					`${name} to list every tool of its ${upstreams.length} upstreams`,
					120_000,
					50,
				);
				samples[name].listedMs.push(performance.now() - started.startedAt);
				samples[name].tools.push(tools.length);
				samples[name].bytes.push(Buffer.byteLength(JSON.stringify({tools: (await started.client.listTools()).tools})));
				const times = [];
				const cpuBefore = cpuMs(started.pid);
				for (let i = 0; i < p.listSamples; i++) {
					const began = performance.now();
					// Not client.listTools(): it compiles a validator for every output schema on each call, the client's cost.
					await started.client.request({method: 'tools/list', params: {}}, ListToolsResultSchema);
					times.push(performance.now() - began);
				}

				samples[name].listCpuUs.push(((cpuMs(started.pid) - cpuBefore) * 1000) / p.listSamples);
				samples[name].listP50Ms.push(percentile(times, 50));
				await sleep(p.settleMs);
				samples[name].rssKiB.push(rssKiB(started.pid));
			} finally {
				await started.close();
				for (const [, upstream] of upstreams) upstream.cleanup();
				await sweep(3000);
			}
		}
	}

	const out = {};
	for (const name of names) {
		const s = samples[name];
		out[name] = {
			allListedMs: round(median(s.listedMs), 0),
			allListedSamplesMs: s.listedMs.map(value => round(value, 0)),
			toolsListed: s.tools,
			// The size of the tools/list result as the client parsed it: the lists differ (hangar adds its management tools and the tools server-everything offers to a client that declares sampling, elicitation and roots).
			toolsListBytes: median(s.bytes),
			toolsListP50Ms: round(median(s.listP50Ms), 3),
			toolsListCpuUs: round(median(s.listCpuUs), 0),
			rssKiB: median(s.rssKiB),
		};
	}

	return {upstreams: p.everything + p.memory, everything: p.everything, memory: p.memory, expectedTools: wanted(fleet()).length, ...p, paths: out};
}

/** One aggregating proxy in front of `servers` (a hangar-style mcpServers object), connected. */
async function startAggregate(name, servers) {
	const dir = tempDir('hangar-bench-aggregate-');
	const port = await freePort();
	let child;
	let client;
	let stdioSession;
	const startedAt = performance.now();
	// One shared instance per upstream, as the peers run them (see peer-paths.js's hangarConfig).
	const hangarServers = () => Object.fromEntries(Object.entries(servers).map(([key, entry]) => [key, {...entry, lazy: false, instances: 'shared'}]));
	if (name === 'hangarStandalone') {
		// One process holding the 20 upstreams, like mcp-hub (the default --stdio would put a bridge in front).
		stdioSession = await connect(process.execPath, [...hangarNodeArgs, hangarBuild.cli, '--stdio', '--standalone', '--config', writeHangarConfig(dir, hangarServers())]);
		client = stdioSession.client;
	} else {
		const logFd = fs.openSync(path.join(dir, `${name}.log`), 'a');
		if (name === 'hangarHttp') {
			const file = writeHangarConfig(dir, hangarServers());
			child = spawn(process.execPath, [...hangarNodeArgs, hangarBuild.cli, 'serve', '--http', '--host', '127.0.0.1', '--port', String(port), '--config', file], {env: taggedEnv(), stdio: ['ignore', logFd, logFd]});
		} else {
			const file = path.join(dir, 'mcp-hub.json');
			fs.writeFileSync(file, JSON.stringify({mcpServers: servers}));
			child = spawn(process.execPath, ['--import', path.join(peersDir, 'loopback.mjs'), path.join(peersDir, 'node_modules', 'mcp-hub', 'dist', 'cli.js'), '--port', String(port), '--config', file], {
				env: taggedEnv({HOME: dir, XDG_STATE_HOME: path.join(dir, 'state'), XDG_DATA_HOME: path.join(dir, 'data'), XDG_CONFIG_HOME: path.join(dir, 'config')}),
				stdio: ['ignore', logFd, logFd],
				cwd: dir,
			});
		}

		fs.closeSync(logFd);
		try {
			client = await connectHttp(`http://127.0.0.1:${port}/mcp`, {sse: name === 'mcpHub', timeoutMs: 60_000, intervalMs: 10});
		} catch (error) {
			child.kill('SIGKILL');
			throw new Error(`${name}: ${error.message}; its log ends: ${fs.readFileSync(path.join(dir, `${name}.log`), 'utf8').slice(-2000)}`);
		}
	}

	return {
		client,
		startedAt,
		pid: stdioSession?.pid ?? child.pid,
		async close() {
			await client.close().catch(() => {});
			if (child !== undefined && child.exitCode === null) {
				child.kill('SIGTERM');
				const timer = setTimeout(() => child.kill('SIGKILL'), 2000);
				await new Promise(resolve => child.once('exit', resolve));
				clearTimeout(timer);
			}

			fs.rmSync(dir, {recursive: true, force: true});
		},
	};
}

const parts = [
	{name: 'calls', run: async () => calls('everything', paths, params.calls)},
	{name: 'memory', run: async () => calls('memory', ['direct', 'hop', 'twoHop', 'supervisedHop', 'hangar', 'hangarStandalone', 'httpHop', 'hangarHttp'], params.memory)},
	// The supervised two-process floor is a floor of the calls only.
	{name: 'cold', run: async () => cold([...paths.filter(name => name !== 'supervisedTwoHop'), ...attachPaths])},
	{name: 'aggregate', run: async () => aggregate(['hangarStandalone', 'hangarHttp', ...(withPeers ? ['mcpHub'] : [])])},
];
const wanted = flags.only?.split(',').map(item => item.trim()) ?? parts.map(part => part.name);
const unknown = wanted.filter(name => !parts.some(part => part.name === name));
if (unknown.length > 0) {
	process.stderr.write(`bench:peers: unknown part(s) ${unknown.join(', ')}; known: ${parts.map(part => part.name).join(', ')}\n`);
	process.exit(2);
}

const began = performance.now();
const results = {};
for (const part of parts.filter(candidate => wanted.includes(candidate.name))) {
	const busyBefore = round(await machineBusy(smoke ? 100 : 500), 2);
	if (busyBefore > 0.15) log(`the machine was ${Math.round(busyBefore * 100)}% busy before ${part.name} (other processes): expect noisy numbers`);
	log(`${part.name}: ${JSON.stringify(params[part.name])}`);
	const t0 = performance.now();
	try {
		results[part.name] = {status: 'ok', machineBusyBefore: busyBefore, result: await part.run()};
	} catch (error) {
		results[part.name] = {status: 'error', machineBusyBefore: busyBefore, error: error.stack ?? String(error)};
		log(`${part.name} failed: ${error.stack ?? error}`);
	}

	results[part.name].durationMs = round(performance.now() - t0, 0);
	const killed = await sweep(5000);
	if (killed > 0) log(`${part.name}: ${killed} process(es) had to be killed after it`);
	log(`${part.name}: done in ${((performance.now() - t0) / 1000).toFixed(1)} s`);
}

/** The issue's targets, each a ratio within this run. */
function evaluate() {
	const targets = [];
	const add = (id, description, goal, value, met, shown) => targets.push({id, description, goal, value, met, shown});
	// Issue 28's targets: the default path within 2x the hop, standalone within 1.5x.
	const goals = {hangar: {latency: 2, cpu: 2, throughput: 0.8}, hangarStandalone: {latency: 1.5, cpu: 1.5, throughput: undefined}};
	for (const part of ['calls', 'memory']) {
		for (const name of ['hangar', 'hangarStandalone']) {
			const r = results[part]?.result?.paths?.[name]?.vsFloor;
			if (r === undefined) continue;
			const kind = results[part].result.upstream;
			const goal = goals[name];
			add(`${kind}.${name}.addedP50`, `${labels[name]}: added p50 / the hop's (${kind})`, `<= ${goal.latency}x`, r.addedP50, r.addedP50 !== null && r.addedP50 <= goal.latency, `${fmt(r.addedP50)}x`);
			add(`${kind}.${name}.cpuPerCall`, `${labels[name]}: CPU per call / the hop's (${kind})`, `<= ${goal.cpu}x`, r.cpuPerCall, r.cpuPerCall !== null && r.cpuPerCall <= goal.cpu, `${fmt(r.cpuPerCall)}x`);
			if (goal.throughput !== undefined) {
				add(`${kind}.${name}.throughput`, `${labels[name]}: calls/s at 32 in flight / the hop's (${kind})`, `>= ${goal.throughput * 100}%`, r.throughput, r.throughput !== null && r.throughput >= goal.throughput, `${fmt(r.throughput * 100, 1)}%`);
			}

			// What the floors of the path's shape themselves reach against the same goals: a miss they share is the floor's.
			for (const floorName of name === 'hangar' ? ['twoHop', 'supervisedTwoHop'] : ['supervisedHop']) {
				const own = results[part].result.paths[floorName]?.vsFloor;
				if (own !== undefined) {
					add(`${kind}.${floorName}.vsHop`, `${labels[floorName]} / the hop's (${kind}): added p50, CPU per call, calls/s at 32`, 'the floor', own, true, `${fmt(own.addedP50)}x, ${fmt(own.cpuPerCall)}x, ${fmt(own.throughput * 100, 1)}%`);
				}
			}
		}
	}

	const c = results.cold?.result?.paths;
	for (const [name, goal] of [['hangar', 2], ['hangarStandalone', 2], ['hangarAttached', 1.3]]) {
		if (c?.[name] === undefined) continue;
		add(`${name}.coldStart`, `${labels[name]}: spawn to first tools/call answered / the upstream spawned directly`, `<= ${goal}x`, c[name].overDirect, c[name].overDirect !== null && c[name].overDirect <= goal, `${fmt(c[name].overDirect)}x`);
	}

	const rssGoal = (id, description, kib, goalMiB) => {
		if (kib === undefined) return;
		const mib = kib / 1024;
		add(id, description, `<= ${goalMiB} MiB`, round(mib, 1), mib <= goalMiB, `${fmt(mib, 1)} MiB`);
	};
	rssGoal('bridge.idleRss', 'the --stdio bridge alone: idle RSS', c?.hangarAttached?.idleRssKiB, 45);
	rssGoal('daemon.idleRss', 'the daemon (serve --linger) alone: idle RSS', c?.hangarAttached?.daemonIdleRssKiB, 75);
	rssGoal('hangarStandalone.idleRss', `${labels.hangarStandalone}: idle RSS`, c?.hangarStandalone?.idleRssKiB, 75);
	const settledFor = `idle RSS ${fmt((results.cold?.result?.settledIdleMs ?? 0) / 1000, 0)} s after the first answer`;
	rssGoal('bridge.settledIdleRss', `the --stdio bridge alone: ${settledFor}`, c?.hangarAttached?.settledIdleRssKiB, 45);
	rssGoal('daemon.settledIdleRss', `the daemon (serve --linger) alone: ${settledFor}`, c?.hangarAttached?.settledDaemonIdleRssKiB, 75);
	if (c?.hangarAttached?.settledDaemonIdleRssKiB !== undefined && c?.mcpHub?.settledIdleRssKiB !== undefined) {
		const mine = c.hangarAttached.settledDaemonIdleRssKiB;
		const hub = c.mcpHub.settledIdleRssKiB;
		add('daemon.settledIdleRssVsMcpHub', `the daemon alone vs mcp-hub: ${settledFor}`, 'at or below', round(mine / 1024, 1), mine <= hub, `${fmt(mine / 1024, 1)} vs ${fmt(hub / 1024, 1)} MiB`);
	}

	const h = results.calls?.result?.paths;
	if (h?.hangarHttp !== undefined && peerNames.length > 0) {
		const peers = peerNames.map(name => h[name]);
		const best = (value, better) => peers.every(peer => better(value(h.hangarHttp), value(peer)));
		add('http.p50', 'serve --http: lowest p50 among the peers', 'lowest', h.hangarHttp.latency.p50, best(x => x.latency.p50, (a, b) => a < b), `${fmt(h.hangarHttp.latency.p50, 3)} ms (peers ${peers.map(peer => fmt(peer.latency.p50, 3)).join(', ')})`);
		add('http.throughput', 'serve --http: highest calls/s at 32 in flight among the peers', 'highest', h.hangarHttp.callsPerSecond, best(x => x.callsPerSecond, (a, b) => a > b), `${fmt(h.hangarHttp.callsPerSecond, 0)} (peers ${peers.map(peer => fmt(peer.callsPerSecond, 0)).join(', ')})`);
		add('http.cpu', 'serve --http: lowest CPU per call among the peers', 'lowest', h.hangarHttp.proxyCpuUsPerCall, best(x => x.proxyCpuUsPerCall, (a, b) => a < b), `${fmt(h.hangarHttp.proxyCpuUsPerCall, 0)} µs (peers ${peers.map(peer => fmt(peer.proxyCpuUsPerCall, 0)).join(', ')})`);
	}

	if (h?.hangarHttp?.vsFloor !== undefined) {
		const v = h.hangarHttp.vsFloor.cpuPerCall;
		add('http.cpuVsHop', "serve --http's CPU per call / the HTTP hop's", '<= 2x', v, v !== null && v <= 2, `${fmt(v)}x`);
	}

	const a = results.aggregate?.result;
	if (a !== undefined) {
		const all = Object.entries(a.paths).every(([, path]) => path.toolsListed.every(count => count >= a.expectedTools));
		add('aggregate.listed', `${a.upstreams} upstreams: every tool listed on every path`, 'all', all, all, all ? 'yes' : 'no');
		if (a.paths.mcpHub !== undefined) {
			for (const name of ['hangarStandalone', 'hangarHttp']) {
				const mine = a.paths[name];
				add(`aggregate.${name}.listP50`, `${labels[name]}: tools/list p50 vs mcp-hub's (${a.upstreams} upstreams)`, 'lower', mine.toolsListP50Ms, mine.toolsListP50Ms < a.paths.mcpHub.toolsListP50Ms, `${fmt(mine.toolsListP50Ms, 2)} vs ${fmt(a.paths.mcpHub.toolsListP50Ms, 2)} ms`);
				add(`aggregate.${name}.rss`, `${labels[name]}: RSS vs mcp-hub's (${a.upstreams} upstreams)`, 'lower', mine.rssKiB, mine.rssKiB < a.paths.mcpHub.rssKiB, `${fmt(mine.rssKiB / 1024, 1)} vs ${fmt(a.paths.mcpHub.rssKiB / 1024, 1)} MiB`);
			}
		}
	}

	return targets;
}

const targets = evaluate();
const killedAtEnd = await sweep(3000);
const report = {
	version: 1,
	mode: smoke ? 'smoke' : 'full',
	withPeers,
	startedAt: new Date(Date.now() - (performance.now() - began)).toISOString(),
	machine: {...machine(), loadAverageAtStart: os.loadavg().map(value => round(value, 2))},
	hangarCli: path.relative(root, hangarBuild.cli),
	hangarNodeArgs,
	durationMs: round(performance.now() - began, 0),
	parts: results,
	targets,
	cleanup: {killedAtEnd, leftBehind: liveTagged().length},
	benchClientListenerWarnings: listenerWarnings,
};
const outFile = path.resolve(flags.out ?? path.join(root, 'bench', 'results', smoke ? 'peers-smoke.json' : 'peers.json'));
fs.mkdirSync(path.dirname(outFile), {recursive: true});
fs.writeFileSync(outFile, `${JSON.stringify(report, null, 2)}\n`);

/** A --stdio path's ratios to the floor of its own shape (the two-process floor, the supervised hop), if any. */
const shapeFloor = r => r?.vsSupervisedTwoHop ?? r?.vsTwoHop ?? r?.vsSupervisedHop;

/** An idle RSS in MiB, with the settled reading in brackets when there is one. */
const rssPair = (kib, settledKib) => `${fmt(kib / 1024, 1)}${settledKib === undefined ? '' : ` (${fmt(settledKib / 1024, 1)})`} MiB`;

/** The issue's table: one row per path, ratios to the floor (or to direct, for cold start) in brackets. */
function pathTable() {
	const rows = [['path', 'added p50 over direct', 'CPU µs/call (seq)', 'calls/s @32', 'cold start', 'RSS idle (settled)']];
	const callsResult = results.calls?.result?.paths ?? {};
	const coldResult = results.cold?.result?.paths ?? {};
	for (const name of [...paths, ...attachPaths]) {
		const r = callsResult[name];
		const c = coldResult[name];
		const vs = r?.vsFloor;
		rows.push([
			labels[name],
			r === undefined ? '' : name === 'direct' ? `(p50 ${fmt(r.latency.p50, 3)} ms)` : `${fmt(r.addedP50Ms, 3)} ms${vs ? ` (${fmt(vs.addedP50)}× ${vs.floor})` : ''}${shapeFloor(r) ? ` (${fmt(shapeFloor(r).addedP50)}× ${shapeFloor(r).floor})` : ''}`,
			r === undefined || name === 'direct' ? '' : `${fmt(r.proxyCpuUsPerCall, 0)}${vs ? ` (${fmt(vs.cpuPerCall)}×)` : ''}${shapeFloor(r) ? ` (${fmt(shapeFloor(r).cpuPerCall)}× ${shapeFloor(r).floor})` : ''}`,
			r === undefined ? '' : `${fmt(r.callsPerSecond, 0)}${vs ? ` (${fmt(vs.throughput * 100, 0)}%)` : ''}${shapeFloor(r) ? ` (${fmt(shapeFloor(r).throughput * 100, 0)}% ${shapeFloor(r).floor})` : ''}`,
			c === undefined ? '' : `${fmt(c.startToFirstAnswerMs, 0)} ms (${fmt(c.overDirect)}×${c.overFloor === undefined ? '' : `; ${fmt(c.overFloor)}× the attach floor`})`,
			c === undefined ? '' : `${rssPair(c.idleRssKiB, c.settledIdleRssKiB)}${name === 'direct' ? ' (upstream)' : ''}${c.daemonIdleRssKiB === undefined ? '' : ` (daemon ${rssPair(c.daemonIdleRssKiB, c.settledDaemonIdleRssKiB)})`}`,
		]);
	}

	// Each path once V8 compiled its hot path (after the calls at 32 in flight): information, not a target.
	const steadyNames = Object.keys(callsResult).filter(name => callsResult[name].steady !== undefined);
	if (steadyNames.length > 0) {
		rows.push(['steady state (after the load part):', 'added p50 over direct', 'CPU µs/call (seq)', '', '', '']);
		for (const name of steadyNames) {
			const r = callsResult[name].steady;
			const vs = r.vsFloor;
			rows.push([
				`  ${labels[name]}`,
				name === 'direct' ? `(p50 ${fmt(r.p50Ms, 3)} ms)` : `${fmt(r.addedP50Ms, 3)} ms${vs ? ` (${fmt(vs.addedP50)}× ${vs.floor})` : ''}`,
				name === 'direct' ? '' : `${fmt(r.proxyCpuUsPerCall, 0)}${vs ? ` (${fmt(vs.cpuPerCall)}×)` : ''}`,
				'',
				'',
				'',
			]);
		}
	}

	const m = results.memory?.result?.paths;
	if (m !== undefined) {
		rows.push(['server-memory read_graph:', '', '', '', '', '']);
		for (const name of Object.keys(m)) {
			const r = m[name];
			const vs = r.vsFloor;
			rows.push([
				`  ${labels[name]}`,
				name === 'direct' ? `(p50 ${fmt(r.latency.p50, 3)} ms)` : `${fmt(r.addedP50Ms, 3)} ms${vs ? ` (${fmt(vs.addedP50)}× ${vs.floor})` : ''}${shapeFloor(r) ? ` (${fmt(shapeFloor(r).addedP50)}× ${shapeFloor(r).floor})` : ''}`,
				name === 'direct' ? '' : `${fmt(r.proxyCpuUsPerCall, 0)}${vs ? ` (${fmt(vs.cpuPerCall)}×)` : ''}`,
				`${fmt(r.callsPerSecond, 0)}${vs ? ` (${fmt(vs.throughput * 100, 0)}%)` : ''}`,
				'',
				'',
			]);
		}
	}

	const a = results.aggregate?.result?.paths;
	if (a !== undefined) {
		rows.push([`${results.aggregate.result.upstreams} upstreams:`, 'all tools listed after', 'tools/list p50 (proxy CPU)', 'RSS', 'tools', 'tools/list KB']);
		for (const [name, r] of Object.entries(a)) {
			rows.push([`  ${labels[name]}`, `${fmt(r.allListedMs / 1000, 2)} s`, `${fmt(r.toolsListP50Ms, 2)} ms (${fmt(r.toolsListCpuUs / 1000, 2)} ms)`, `${fmt(r.rssKiB / 1024, 1)} MiB`, r.toolsListed.join(', '), fmt(r.toolsListBytes / 1024, 0)]);
		}
	}

	for (const [name, result] of Object.entries(results)) if (result.status !== 'ok') rows.push([`${name}: ${result.status}`, String(result.error).split('\n')[0], '', '', '', '']);
	return rows;
}

function plain(rows) {
	const widths = rows[0].map((_, i) => Math.max(...rows.map(row => String(row[i]).length)));
	return rows.map(row => row.map((cell, i) => String(cell).padEnd(widths[i])).join('  ').trimEnd()).join('\n');
}

const m = report.machine;
process.stdout.write(
	`mcp-hangar bench:peers (${report.mode}${withPeers ? '' : ', without peers'}) on ${m.nproc} CPUs, ${m.cpuModel}, node ${m.node}; upstream: server-everything echo unless said\n\n` +
		`${plain(pathTable())}\n\n` +
		`${renderTable(targets.map(target => ['target', target.description, target.shown, target.goal, target.met ? 'met' : 'MISSED']))}\n\n` +
		`${(report.durationMs / 1000).toFixed(1)} s; results in ${path.relative(process.cwd(), outFile) || outFile}` +
		`${report.cleanup.leftBehind > 0 ? `; WARNING: ${report.cleanup.leftBehind} processes left behind` : ''}\n`,
);

process.exit(Object.values(results).some(result => result.status !== 'ok') ? 1 : 0);
