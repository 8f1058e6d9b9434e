/**
 * Scenario 9, soak: `calls` tools/call requests, `inFlight` at a time (each
 * slot sends its next call when its last is answered), through
 * `mcp-hangar --stdio --standalone`, alternating between a healthy upstream and a flaky
 * one that fails about 10% of its calls at random: tool errors (isError),
 * JSON-RPC errors, and now and then a crash (every call in flight on it then
 * fails, and calls fail fast until it has restarted).
 *
 * A raw JSON-RPC client, not the SDK, so that every answer is seen as it
 * came: each request id must be answered exactly once. Reported: calls per
 * second; answers lost (never came) and duplicated (came twice), both must
 * be 0; how the answers split (results, tool errors, JSON-RPC errors by
 * code); hangar's resident memory once the first 20% of the calls are
 * answered and at the end (growth under 10%: memory levels off after the
 * warm-up; each the median of the samples taken around it, since RSS swings
 * between garbage collections); restarts of the flaky upstream; and the processes left once
 * hangar has exited (must be 0, its watchdog included).
 */
import {spawn} from 'node:child_process';
import fs from 'node:fs';
import {fixtureCommand, hangarBuild, hangarNodeArgs, serverEntry, tempDir, writeHangarConfig} from '../lib/paths.js';
import {liveTagged, rssKiB, sleep, taggedEnv} from '../lib/processes.js';
import {median, round} from '../lib/stats.js';

/** Pids of live `watchdog.js <hangarPid>` processes (a watchdog carries no bench tag: its environment is empty). */
function watchdogsOf(hangarPid) {
	const found = [];
	for (const entry of fs.readdirSync('/proc')) {
		if (!/^\d+$/.test(entry)) continue;
		try {
			const argv = fs.readFileSync(`/proc/${entry}/cmdline`, 'utf8').split('\0');
			if (!argv.some(arg => arg.endsWith('watchdog.js')) || !argv.includes(String(hangarPid))) continue;
			if (/\) Z /.test(fs.readFileSync(`/proc/${entry}/stat`, 'utf8'))) continue;
			found.push(Number(entry));
		} catch {}
	}

	return found;
}

export async function soak({calls, inFlight = 16, warmupShare = 0.2, crashRate = 0.0002, timeoutMs = 180_000}) {
	const dir = tempDir('hangar-bench-soak-');
	const file = writeHangarConfig(
		dir,
		{
			healthy: serverEntry(fixtureCommand('normal'), {lazy: false}),
			// About 10% of calls fail: 5% isError (half of --fail-rate; the other half pass at once with
			// --delay-ms 0), 5% a JSON-RPC error, and a crash about every 1/crashRate calls.
			flaky: serverEntry(fixtureCommand('flaky', ['--fail-rate', '0.1', '--delay-ms', '0', '--error-rate', '0.05', '--crash-rate', String(crashRate), '--seed', '7']), {lazy: false}),
		},
		// Crashes are part of the load: restart at once, as often as it takes.
		{backoffMinSeconds: 0.05, backoffMaxSeconds: 0.2, restartBudget: {maxRestarts: 100_000, windowSeconds: 60}, healthIntervalSeconds: 0},
	);
	// --standalone: the supervisor runs in the process whose memory is measured.
	const child = spawn(process.execPath, [...hangarNodeArgs, hangarBuild.cli, '--stdio', '--standalone', '--config', file], {env: taggedEnv(), stdio: ['pipe', 'pipe', 'pipe']});
	child.stderr.resume();
	const exited = new Promise(resolve => child.once('exit', (code, signal) => resolve({code, signal})));

	/** Request id -> the slot waiting for it. */
	const pending = new Map();
	const answeredIds = new Set();
	let duplicated = 0;
	let unknown = 0;
	const outcomes = {results: 0, toolErrors: 0, errors: {}};
	const waiters = new Map();
	let rest = '';
	child.stdout.setEncoding('utf8');
	child.stdout.on('data', chunk => {
		const lines = (rest + chunk).split('\n');
		rest = lines.pop();
		for (const line of lines) {
			if (line === '') continue;
			const message = JSON.parse(line);
			if (message.id === undefined) continue;
			const waiter = waiters.get(message.id);
			if (waiter !== undefined) {
				waiters.delete(message.id);
				waiter(message);
				continue;
			}

			if (!pending.has(message.id)) {
				if (answeredIds.has(message.id)) duplicated += 1;
				else unknown += 1;
				continue;
			}

			const slot = pending.get(message.id);
			pending.delete(message.id);
			answeredIds.add(message.id);
			if (message.error !== undefined) outcomes.errors[message.error.code] = (outcomes.errors[message.error.code] ?? 0) + 1;
			else if (message.result?.isError === true) outcomes.toolErrors += 1;
			else outcomes.results += 1;
			slot();
		}
	});

	const request = (id, method, params) =>
		new Promise(resolve => {
			waiters.set(id, resolve);
			child.stdin.write(`${JSON.stringify({jsonrpc: '2.0', id, method, params})}\n`);
		});
	const hangarList = async id => (await request(id, 'tools/call', {name: 'hangar_list', arguments: {}})).result.structuredContent.upstreams;

	try {
		await request('init', 'initialize', {protocolVersion: '2025-06-18', capabilities: {}, clientInfo: {name: 'hangar-bench-soak', version: '1.0.0'}});
		child.stdin.write('{"jsonrpc":"2.0","method":"notifications/initialized"}\n');
		let polls = 0;
		for (;;) {
			const entries = await hangarList(`ready-${polls++}`);
			if (entries.every(entry => entry.state === 'ready')) break;
			if (polls > 600) throw new Error(`upstreams not ready: ${JSON.stringify(entries.map(entry => [entry.name, entry.state, entry.lastError]))}`);
			await sleep(50);
		}

		let sent = 0;
		let answered = 0;
		// RSS at every hundredth of the calls. Between two garbage collections it swings by a tenth or more, so
		// each point is the median of the samples around it: 15-25% of the calls, and the last 10%.
		const sampleEvery = Math.max(1, Math.round(calls / 100));
		const rssSamplesKiB = [];
		const began = performance.now();
		const deadline = Date.now() + timeoutMs;
		await new Promise((resolve, reject) => {
			const next = () => {
				if (sent >= calls) {
					if (answered === calls) resolve();
					return;
				}

				if (Date.now() > deadline) {
					reject(new Error(`soak: ${answered} of ${calls} calls answered within ${timeoutMs} ms`));
					return;
				}

				sent += 1;
				const id = sent;
				const server = id % 2 === 0 ? 'healthy' : 'flaky';
				pending.set(id, () => {
					answered += 1;
					if (answered % sampleEvery === 0) rssSamplesKiB.push(rssKiB(child.pid));
					next();
				});
				child.stdin.write(`{"jsonrpc":"2.0","id":${id},"method":"tools/call","params":{"name":"${server}__echo","arguments":{"message":"soak ${id}"}}}\n`);
			};

			for (let slot = 0; slot < inFlight; slot++) next();
		});
		const seconds = (performance.now() - began) / 1000;
		const around = (from, to) => median(rssSamplesKiB.slice(Math.floor(from * rssSamplesKiB.length), Math.max(Math.floor(from * rssSamplesKiB.length) + 1, Math.ceil(to * rssSamplesKiB.length))));
		const rssAfterWarmupKiB = around(warmupShare - 0.05, warmupShare + 0.05);
		const rssEndKiB = around(0.9, 1);
		// Late duplicates would come right after the last answer.
		await sleep(200);
		const flaky = (await hangarList('final')).find(entry => entry.name === 'flaky');

		child.stdin.end();
		const exit = await Promise.race([exited, sleep(30_000).then(() => undefined)]);
		// The exit hook has killed every tree; the watchdog then finds nothing and exits.
		let leftover = [...liveTagged(), ...watchdogsOf(child.pid)];
		for (let wait = 0; wait < 40 && leftover.length > 0; wait++) {
			await sleep(50);
			leftover = [...liveTagged(), ...watchdogsOf(child.pid)];
		}

		const failures = outcomes.toolErrors + Object.values(outcomes.errors).reduce((sum, count) => sum + count, 0);
		return {
			calls,
			inFlight,
			seconds: round(seconds, 1),
			callsPerSecond: round(calls / seconds, 0),
			lost: pending.size,
			duplicated,
			unknownIds: unknown,
			outcomes: {...outcomes, failedShare: round(failures / calls, 4), flakyFailedShare: round(failures / (calls / 2), 4)},
			flakyRestarts: flaky?.restarts ?? null,
			rssKiB: {afterWarmup: rssAfterWarmupKiB, end: rssEndKiB, everyTenth: rssSamplesKiB.filter((_, index) => index % 10 === 9)},
			rssGrowth: round((rssEndKiB - rssAfterWarmupKiB) / rssAfterWarmupKiB, 4),
			exit: exit ?? 'did not exit within 30 s',
			leftover: leftover.length,
		};
	} finally {
		if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
		fs.rmSync(dir, {recursive: true, force: true});
	}
}

export function soakRows(scenario) {
	const label = '9 soak';
	if (scenario.status !== 'ok') return [];
	const r = scenario.result;
	const errors = Object.entries(r.outcomes.errors).map(([code, count]) => `${code}: ${count}`).join(', ') || 'none';
	return [
		[label, `${r.calls} calls, ${r.inFlight} in flight, half to a flaky upstream: calls/s`, `${r.callsPerSecond} (${r.seconds} s)`, '', ''],
		[label, 'answers lost / duplicated', `${r.lost} / ${r.duplicated}`, '0 / 0', r.lost === 0 && r.duplicated === 0 && r.unknownIds === 0 ? 'met' : 'MISSED'],
		[label, 'results / tool errors / JSON-RPC errors by code', `${r.outcomes.results} / ${r.outcomes.toolErrors} / ${errors}`, '', ''],
		[label, 'share failed (flaky upstream alone); its restarts', `${(r.outcomes.failedShare * 100).toFixed(1)}% (${(r.outcomes.flakyFailedShare * 100).toFixed(1)}%); ${r.flakyRestarts}`, '', ''],
		[label, 'hangar RSS after 20% / at the end (MiB), growth', `${(r.rssKiB.afterWarmup / 1024).toFixed(1)} / ${(r.rssKiB.end / 1024).toFixed(1)}, ${(r.rssGrowth * 100).toFixed(1)}%`, '< 10%', r.rssGrowth < 0.1 ? 'met' : 'MISSED'],
		[label, 'processes left after hangar exited', String(r.leftover), '0', r.leftover === 0 ? 'met' : 'MISSED'],
	];
}
