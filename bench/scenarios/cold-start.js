/**
 * Scenario 3, cold start: a running hangar with one lazy upstream that is
 * cold (its echo tool is predefined in the config, so hangar lists it without
 * starting it). `calls` simultaneous tools/call hit it at once. Measured: how
 * many times the upstream process started (must be exactly 1: concurrent
 * callers share one start) and the time from sending the first call to the
 * last answer, against "one plain start": an SDK client spawning the same
 * command, initializing and calling echo once, directly.
 *
 * Hangar is measured two ways, each with a fresh hangar (and state dir) per run:
 *
 * - "running" (the target's number): hangar has been up and serving: it also
 *   has a warm upstream, which gets `warmCalls` calls before the burst, so
 *   hangar's own call path is compiled, as in a hangar that runs all day and
 *   meets a cold upstream. The bench's SDK client is just as warm in the plain
 *   start, so the two compare like with like.
 * - "fresh": the burst is the first thing hangar does after initialize, so it
 *   also pays for compiling its own code on first use (informational).
 *
 * Both sides run the fixture through bench/spawn-counter.js, which appends a
 * line per start to a file, with the time node got to run it. Plain starts
 * and the two kinds of cold runs alternate, `reps` of each; medians compared.
 */
import fs from 'node:fs';
import path from 'node:path';
import {callTool, connect, connectHangar, echoToolDefinition, fixtureCommand, hangarList, serverEntry, spawnCounterPath, tempDir, waitFor, writeHangarConfig} from '../lib/paths.js';
import {waitForNoTagged} from '../lib/processes.js';
import {median, nsToMs, round} from '../lib/stats.js';

function starts(file) {
	try {
		return fs.readFileSync(file, 'utf8').split('\n').filter(line => line !== '').map(line => ({pid: Number(line.split(' ')[0]), at: Number(line.split(' ')[1])}));
	} catch {
		return [];
	}
}

function countStarts(file) {
	return starts(file).length;
}

/** Wall-clock ms now, comparable with the times spawn-counter.js writes. */
const wallNow = () => performance.timeOrigin + performance.now();

/** ms from `since` (wall clock) until the first upstream process ran its first line of JS. */
function bootMs(file, since) {
	const first = starts(file)[0];
	return first === undefined ? undefined : first.at - since;
}

async function plainStart(dir, rep) {
	const countFile = path.join(dir, `plain-${rep}.starts`);
	const wall = wallNow();
	const began = process.hrtime.bigint();
	const session = await connect(process.execPath, [spawnCounterPath, countFile, '--mode', 'normal']);
	try {
		const result = await callTool(session.client, 'echo', {message: 'cold'});
		const ms = nsToMs(process.hrtime.bigint() - began);
		if (result.content?.[0]?.text !== 'cold') throw new Error(`plain start: unexpected result ${JSON.stringify(result)}`);
		return {ms, starts: countStarts(countFile), bootMs: bootMs(countFile, wall)};
	} finally {
		await session.close();
	}
}

async function coldRun(dir, name, calls, warmCalls) {
	const runDir = path.join(dir, name);
	fs.mkdirSync(runDir);
	const countFile = path.join(runDir, 'upstream.starts');
	const servers = {
		cold: {
			command: process.execPath,
			args: [spawnCounterPath, countFile, '--mode', 'normal'],
			lazy: true,
			tools: [echoToolDefinition],
		},
	};
	if (warmCalls > 0) servers.warm = {...serverEntry(fixtureCommand('normal')), lazy: false};
	const session = await connectHangar(writeHangarConfig(runDir, servers));
	try {
		await waitFor(async () => {
			const list = await hangarList(session.client);
			return list.find(entry => entry.name === 'cold')?.state === 'cold' && (warmCalls === 0 || list.find(entry => entry.name === 'warm')?.state === 'ready');
		}, 'upstream "cold" to be listed as cold (and "warm" as ready)');
		const startsBefore = countStarts(countFile);
		if (startsBefore !== 0) throw new Error(`the lazy upstream was started before any call (${startsBefore} starts)`);
		for (let i = 0; i < warmCalls; i++) await callTool(session.client, 'warm__echo', {message: 'warm'});
		// Let hangar settle before the burst.
		await new Promise(resolve => setTimeout(resolve, 200));

		const wall = wallNow();
		const began = process.hrtime.bigint();
		let firstMs;
		let errors = 0;
		let firstError;
		await Promise.all(
			Array.from({length: calls}, async (_, i) => {
				try {
					const result = await callTool(session.client, 'cold__echo', {message: `cold-${i}`});
					if (result.content?.[0]?.text !== `cold-${i}`) throw new Error(`unexpected result ${JSON.stringify(result)}`);
					firstMs ??= nsToMs(process.hrtime.bigint() - began);
				} catch (error) {
					errors += 1;
					firstError ??= error.message;
				}
			}),
		);
		const lastMs = nsToMs(process.hrtime.bigint() - began);
		return {lastMs, firstMs, errors, firstError, starts: countStarts(countFile), bootMs: bootMs(countFile, wall)};
	} finally {
		await session.close();
	}
}

function summarizeRuns(runs, plainMs) {
	const lastMs = median(runs.map(run => run.lastMs));
	return {
		spawns: runs.map(run => run.starts),
		errors: runs.reduce((sum, run) => sum + run.errors, 0),
		firstError: runs.find(run => run.firstError !== undefined)?.firstError,
		firstAnswerMs: {median: round(median(runs.map(run => run.firstMs ?? Number.NaN)), 1), samples: runs.map(run => round(run.firstMs, 1))},
		lastAnswerMs: {median: round(lastMs, 1), samples: runs.map(run => round(run.lastMs, 1))},
		lastAnswerOverPlainStart: round(lastMs / plainMs, 2),
		// From the first call until the upstream's node ran its first line: spawn + node boot.
		upstreamBootMs: round(median(runs.map(run => run.bootMs ?? Number.NaN)), 1),
	};
}

export async function coldStart({calls, reps, warmCalls}) {
	const dir = tempDir('hangar-bench-cold-');
	try {
		// One untimed plain start first, so neither side pays for a cold disk cache.
		await plainStart(dir, 'warmup');
		const plain = [];
		const running = [];
		const fresh = [];
		for (let rep = 0; rep < reps; rep++) {
			plain.push(await plainStart(dir, rep));
			await waitForNoTagged(3000);
			running.push(await coldRun(dir, `running-${rep}`, calls, warmCalls));
			await waitForNoTagged(3000);
			fresh.push(await coldRun(dir, `fresh-${rep}`, calls, 0));
			await waitForNoTagged(3000);
		}

		const plainMs = median(plain.map(run => run.ms));
		const warm = summarizeRuns(running, plainMs);
		return {
			calls,
			reps,
			warmCalls,
			// The running-hangar numbers are the scenario's result; "fresh" repeats them for a just-started hangar.
			...warm,
			plainStartSpawns: plain.map(run => run.starts),
			plainStartMs: {median: round(plainMs, 1), samples: plain.map(run => round(run.ms, 1))},
			plainUpstreamBootMs: round(median(plain.map(run => run.bootMs ?? Number.NaN)), 1),
			fresh: summarizeRuns(fresh, plainMs),
		};
	} finally {
		fs.rmSync(dir, {recursive: true, force: true});
	}
}
