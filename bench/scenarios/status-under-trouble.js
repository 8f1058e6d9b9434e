/**
 * Scenario 4, status under trouble: hangar with `upstreams` fixture servers,
 * `hung` of them in `--mode hang` (they answer initialize, tools/list and ping
 * but never a tools/call). Every upstream has its echo tool predefined in the
 * config, so none has to start just to be listed.
 *
 * With `startAll` every upstream is `lazy: false` and running (200 node
 * processes); without it only the hung ones run and the others stay cold
 * (configured, listed, never started). Once the running ones are ready,
 * hangar_list is timed `samples` times in a row while nothing is in flight
 * ("calm"), then `callsPerHung` calls are sent to each hung upstream and left
 * hanging, and hangar_list is timed again ("trouble"). Then every healthy
 * running upstream gets `historyCalls` calls, so its latency window is full as
 * in a hangar that has been up a while, and hangar_list is timed a third time
 * with the hung calls still hanging ("trouble with history"). Also recorded: how long
 * after its spawn hangar answered initialize, and when every running upstream
 * was ready (both from the moment the bench spawned hangar).
 *
 * hangar_list answers a page of 50 entries by default, with `total` and the
 * counts by state of all; each phase times that default call, as a client
 * makes it. "trouble" is also timed for the whole list in one answer
 * (`troubleFullList`, limit = upstreams), the ~200 KB answer of finding 4 in
 * docs/performance.md.
 *
 * Each phase also reports `arrived`: the time until the whole answer was on
 * the client's side, before the SDK client parsed it, which splits each
 * latency into hangar's part (with the transfer) and the client's.
 */
import fs from 'node:fs';
import {callTool, connectHangar, echoToolDefinition, fixtureCommand, hangarList, serverEntry, tempDir, waitFor, writeHangarConfig} from '../lib/paths.js';
import {waitForNoTagged} from '../lib/processes.js';
import {nsToMs, round, summarize} from '../lib/stats.js';

/** hangar_list's default page size (`defaultListLimit` in source/core/gateway/management-tools.ts). */
const defaultListLimit = 50;

/**
 * Times `samples` hangar_list calls in a row, each checked to list `expected`
 * upstreams and to count `expectedTotal` in all. Besides the time until the SDK
 * client resolved each call, `arrived` is the time until the answer's last
 * byte reached the client, before the SDK parsed it (hangar's part plus the
 * transfer), so the rest is the client's own (its read buffer, JSON.parse,
 * schema checks, its GC).
 */
async function timeList(session, samples, expected, expectedTotal, args = {}) {
	const times = [];
	const arrived = [];
	let bytes = 0;
	for (let i = 0; i < samples; i++) {
		const began = process.hrtime.bigint();
		const result = await callTool(session.client, 'hangar_list', args);
		const done = process.hrtime.bigint();
		times.push(nsToMs(done - began));
		const last = session.lastArrival();
		if (last !== undefined && last > began) arrived.push(nsToMs(last - began));
		const upstreams = result.structuredContent?.upstreams;
		if (!Array.isArray(upstreams) || upstreams.length !== expected) throw new Error(`hangar_list returned ${upstreams?.length} upstreams, expected ${expected}`);
		if (result.structuredContent.total !== expectedTotal) throw new Error(`hangar_list says ${result.structuredContent.total} upstreams in all, expected ${expectedTotal}`);
		if (i === 0) bytes = JSON.stringify(result).length;
	}

	return {...summarize(times), responseBytes: bytes, arrived: arrived.length === samples ? summarize(arrived) : undefined};
}

/**
 * Times `samples` MCP pings in a row: the cheapest request hangar answers,
 * through the same client, pipe and event loop. Its tail is the floor the
 * machine sets for any answer at that moment; hangar_list's p99 is read
 * against it.
 */
async function timePing(session, samples) {
	const times = [];
	for (let i = 0; i < samples; i++) {
		const began = process.hrtime.bigint();
		await session.client.ping();
		times.push(nsToMs(process.hrtime.bigint() - began));
	}

	return summarize(times);
}

export async function statusUnderTrouble({upstreams, hung, startAll, samples, callsPerHung, historyCalls}) {
	const dir = tempDir('hangar-bench-status-');
	const servers = {};
	const width = String(upstreams).length;
	const hungNames = [];
	for (let i = 0; i < upstreams; i++) {
		const isHung = i >= upstreams - hung;
		const name = `${isHung ? 'hung' : 'ok'}-${String(i).padStart(width, '0')}`;
		if (isHung) hungNames.push(name);
		servers[name] = serverEntry(fixtureCommand(isHung ? 'hang' : 'normal', ['--tag', 'bench-status']), {
			lazy: !(isHung || startAll),
			tools: [echoToolDefinition],
			callTimeoutSeconds: 300,
			startTimeoutSeconds: 120,
		});
	}

	const running = startAll ? upstreams : hung;
	const file = writeHangarConfig(dir, servers, {stopGraceSeconds: 1});
	const began = performance.now();
	const session = await connectHangar(file);
	// Hangar spawns its eager upstreams at launch; the time until it answers initialize shows what that costs a client.
	const initializeMs = performance.now() - began;
	const pendingCalls = [];
	try {
		await waitFor(
			async () => (await hangarList(session.client)).filter(entry => entry.state === 'ready').length >= running,
			`${running} upstreams to be ready`,
			120_000,
			250,
		);
		const allReadyMs = performance.now() - began;

		// What a client gets by default: the first page (50 entries, with the counts of all).
		const page = Math.min(upstreams, defaultListLimit);
		const calm = await timeList(session, samples, page, upstreams);

		let settledEarly = 0;
		for (const name of hungNames) {
			for (let i = 0; i < callsPerHung; i++) {
				pendingCalls.push(
					callTool(session.client, `${name}__echo`, {message: 'never answered'}, {timeout: 600_000}).then(
						() => {
							settledEarly += 1;
						},
						() => {},
					),
				);
			}
		}

		// Let hangar forward them all, then make sure none was answered.
		await new Promise(resolve => setTimeout(resolve, 500));
		const trouble = await timeList(session, samples, page, upstreams);
		const troublePing = await timePing(session, samples);
		// All of them in one answer, as a client asking for limit 200 gets them.
		const troubleFullList = {limit: upstreams, ...(await timeList(session, samples, upstreams, upstreams, {limit: upstreams}))};

		// A hangar that has been up a while has call history: fill every healthy running upstream's
		// latency window (hangar keeps the last 256 calls) and time hangar_list again, hung calls still hanging.
		let history;
		if (historyCalls > 0) {
			const healthy = Object.keys(servers).filter(name => !hungNames.includes(name) && !servers[name].lazy);
			await Promise.all(
				healthy.map(async name => {
					for (let i = 0; i < historyCalls; i++) await callTool(session.client, `${name}__echo`, {message: 'history'});
				}),
			);
			history = {upstreamsWithHistory: healthy.length, callsEach: historyCalls, ...(await timeList(session, samples, page, upstreams))};
		}
		if (settledEarly > 0) throw new Error(`${settledEarly} calls to hung upstreams were answered; the scenario is broken`);
		const states = await hangarList(session.client);
		const notReady = states.filter(entry => hungNames.includes(entry.name) && entry.state !== 'ready').map(entry => `${entry.name}=${entry.state}`);

		return {
			upstreams,
			hung,
			running,
			startAll,
			hungCallsInFlight: pendingCalls.length,
			hungNotReadyDuringMeasurement: notReady,
			initializeMs: round(initializeMs, 0),
			allReadyMs: round(allReadyMs, 0),
			samples,
			unit: 'ms',
			pageSize: page,
			calm,
			trouble,
			troublePing,
			troubleFullList,
			troubleWithHistory: history,
		};
	} finally {
		await session.close();
		await Promise.allSettled(pendingCalls);
		await waitForNoTagged(20_000);
		fs.rmSync(dir, {recursive: true, force: true});
	}
}
