/**
 * Scenario 5, memory: hangar's own resident memory (VmRSS of the hangar
 * process; its children are other processes and are not counted) with 0, N1,
 * N2 ... lazy upstreams configured and never started (their echo tool is
 * predefined, so nothing needs a start to be listed), and, for comparison, with
 * `runningCount` upstreams running and idle (`lazy: false`).
 *
 * Each point: start hangar, wait until the running ones are ready, call
 * tools/list and hangar_list once (the session is in use, as a real client
 * would leave it), wait `settleMs`, then take the median of `readings`
 * samples of VmRSS 100 ms apart. Each point is measured `reps` times with a
 * fresh hangar (the running point, which is informational, `runningReps`
 * times), and the median is kept. Per upstream = (rss(N) - rss(0)) / N.
 */
import fs from 'node:fs';
import {connectHangar, echoToolDefinition, fixtureCommand, hangarList, serverEntry, tempDir, waitFor, writeHangarConfig} from '../lib/paths.js';
import {rssKiB, sleep, waitForNoTagged} from '../lib/processes.js';
import {median, round} from '../lib/stats.js';

async function measure(count, running, settleMs, readings) {
	const dir = tempDir('hangar-bench-mem-');
	const servers = {};
	for (let i = 0; i < count; i++) {
		servers[`up-${String(i).padStart(3, '0')}`] = serverEntry(fixtureCommand('normal', ['--tag', 'bench-memory']), {
			lazy: !running,
			tools: [echoToolDefinition],
			startTimeoutSeconds: 120,
		});
	}

	const file = writeHangarConfig(dir, servers, {stopGraceSeconds: 1});
	const session = await connectHangar(file);
	try {
		if (running) {
			await waitFor(async () => (await hangarList(session.client)).filter(entry => entry.state === 'ready').length >= count, `${count} upstreams to be ready`, 120_000, 250);
		}

		await session.client.listTools();
		const list = await hangarList(session.client);
		if (list.length !== count) throw new Error(`hangar_list shows ${list.length} upstreams, expected ${count}`);
		const started = list.filter(entry => entry.state !== 'cold').length;
		if (!running && started > 0) throw new Error(`${started} lazy upstreams were started; the memory point would count them`);
		await sleep(settleMs);
		const samples = [];
		for (let i = 0; i < readings; i++) {
			samples.push(rssKiB(session.pid));
			await sleep(100);
		}

		return median(samples);
	} finally {
		await session.close();
		await waitForNoTagged(15_000);
		fs.rmSync(dir, {recursive: true, force: true});
	}
}

export async function memory({counts, runningCount, reps, runningReps = reps, settleMs, readings}) {
	const points = [];
	const measurePoint = async (upstreams, running) => {
		const values = [];
		for (let rep = 0; rep < (running ? runningReps : reps); rep++) values.push(await measure(upstreams, running, settleMs, readings));
		const point = {upstreams, running, rssKiB: median(values), samplesKiB: values};
		points.push(point);
		return point;
	};

	const base = await measurePoint(0, false);
	const perUpstreamKiB = {};
	for (const count of counts.filter(count => count > 0)) {
		const point = await measurePoint(count, false);
		perUpstreamKiB[`lazy${count}`] = round((point.rssKiB - base.rssKiB) / count, 1);
	}

	if (runningCount > 0) {
		const point = await measurePoint(runningCount, true);
		perUpstreamKiB[`running${runningCount}`] = round((point.rssKiB - base.rssKiB) / runningCount, 1);
	}

	return {unit: 'KiB', reps, runningReps, settleMs, points, perUpstreamKiB};
}
