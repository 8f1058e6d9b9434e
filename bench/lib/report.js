/**
 * Targets, their evaluation, and the table printed on stdout. The JSON file
 * carries the same numbers in full; the table is the summary a person reads.
 */

/** The targets (2-core machine). `value` picks the measured number out of a scenario's result. */
export const targets = {
	callOverhead: {
		description: "hangar's added p50 latency at most 1.5x the minimal hop's",
		value: result => result.hangarOverHopAdded.p50,
		check: value => value !== null && value <= 1.5,
		show: value => `${fmt(value)}x`,
		goal: '<= 1.5x',
	},
	throughput: {
		description: 'throughput at 32 in flight at least 70% of direct',
		value: result => result.hangarVsDirect,
		check: value => value !== null && value >= 0.7,
		show: value => `${fmt(value * 100, 1)}%`,
		goal: '>= 70%',
	},
	coldStartSpawns: {
		description: 'exactly one spawn for 100 simultaneous cold calls (correctness)',
		scenario: 'coldStart',
		value: result => Math.max(...result.spawns, ...result.fresh.spawns),
		check: (value, result) => [...result.spawns, ...result.fresh.spawns].every(spawns => spawns === 1) && result.errors === 0 && result.fresh.errors === 0,
		show: (value, result) => {
			const all = [...result.spawns, ...result.fresh.spawns];
			return all.every(spawns => spawns === 1) ? `1 in each of ${all.length} runs` : all.join(',');
		},
		goal: '1 each run',
	},
	coldStart: {
		description: 'last answer within 1.2x of one plain start (hangar already running and serving)',
		value: result => result.lastAnswerOverPlainStart,
		check: value => value !== null && value <= 1.2,
		show: value => `${fmt(value)}x`,
		goal: '<= 1.2x',
	},
	statusUnderTrouble: {
		description: 'hangar_list p99 under 5 ms with 50 hung upstreams',
		value: result => result.trouble.p99,
		check: value => value !== null && value < 5,
		show: value => `${fmt(value)} ms`,
		goal: '< 5 ms',
	},
	statusWithHistory: {
		description: 'the same, once every healthy upstream has a full latency window (as after a while in use)',
		scenario: 'statusUnderTrouble',
		value: result => result.troubleWithHistory?.p99 ?? null,
		check: value => value !== null && value < 5,
		show: value => `${fmt(value)} ms`,
		goal: '< 5 ms',
	},
	memory: {
		description: 'under 1 MB resident memory per idle (configured, not started) upstream in the hangar process',
		value: result => lastPerUpstream(result, 'lazy'),
		check: value => value !== null && value < 1024,
		show: value => `${fmt(value, 0)} KiB`,
		goal: '< 1024 KiB',
	},
	soak: {
		description: 'soak: every call answered exactly once (no answer lost or duplicated)',
		value: result => result.lost + result.duplicated + result.unknownIds,
		check: value => value === 0,
		show: value => String(value),
		goal: '0 lost or duplicated',
	},
	soakMemory: {
		description: "soak: hangar's RSS grows less than 10% from the first 20% of the calls to the end",
		scenario: 'soak',
		value: result => result.rssGrowth,
		check: value => value !== null && value < 0.1,
		show: value => `${fmt(value * 100, 1)}%`,
		goal: '< 10%',
	},
	soakLeftover: {
		description: 'soak: no process left once hangar has exited',
		scenario: 'soak',
		value: result => result.leftover,
		check: value => value === 0,
		show: value => String(value),
		goal: '0',
	},
	memoryRunning: {
		description: '(informational) resident memory per running idle upstream in the hangar process, same 1 MB bar',
		scenario: 'memory',
		value: result => lastPerUpstream(result, 'running'),
		check: value => value !== null && value < 1024,
		show: value => `${fmt(value, 0)} KiB`,
		goal: '< 1024 KiB',
	},
};

/** The per-upstream memory of the largest measured count of `kind` ("lazy" or "running") upstreams. */
function lastPerUpstream(result, kind) {
	const entries = Object.entries(result.perUpstreamKiB).filter(([key]) => key.startsWith(kind));
	return entries.length === 0 ? null : entries.at(-1)[1];
}

export function evaluateTargets(scenarios) {
	const out = {};
	for (const [name, target] of Object.entries(targets)) {
		const scenario = scenarios[target.scenario ?? name];
		if (scenario?.status !== 'ok') {
			out[name] = {description: target.description, goal: target.goal, status: scenario?.status ?? 'not run', met: null};
			continue;
		}

		const value = target.value(scenario.result);
		out[name] = {description: target.description, goal: target.goal, value, met: Boolean(target.check(value, scenario.result)), shown: target.show(value, scenario.result)};
	}

	return out;
}

export function fmt(value, digits = 2) {
	if (value === null || value === undefined || Number.isNaN(value)) return '-';
	return Number(value).toFixed(digits);
}

const ms3 = value => fmt(value, 3);
const cpuPair = paths => `${fmt(paths.hop.cpuUsPerCall?.proxy, 1)} / ${fmt(paths.hangar.cpuUsPerCall?.proxy, 1)}`;

/** Rows of [scenario, metric, value, target, verdict] for the printed table. */
export function tableRows(scenarios, verdicts) {
	const rows = [];
	const verdict = name => {
		const v = verdicts[name];
		if (v === undefined) return ['', ''];
		return [v.goal, v.met === null ? v.status : v.met ? 'met' : 'MISSED'];
	};

	const failed = (label, scenario) =>
		rows.push([label, scenario.status, scenario.status === 'skipped' ? scenario.reason : String(scenario.error).split('\n')[0], '', '']);

	const s1 = scenarios.callOverhead;
	if (s1?.status === 'ok') {
		const r = s1.result;
		for (const path of ['direct', 'hop', 'hangar']) {
			const p = r.paths[path];
			rows.push(['1 call overhead', `${path} p50/p95/p99 (ms)`, `${ms3(p.p50)} / ${ms3(p.p95)} / ${ms3(p.p99)}`, '', '']);
		}

		rows.push(['1 call overhead', 'added p50: hop / hangar (ms)', `${ms3(r.addedMs.p50.hop)} / ${ms3(r.addedMs.p50.hangar)}`, '', '']);
		rows.push(['1 call overhead', 'added p99: hop / hangar (ms)', `${ms3(r.addedMs.p99.hop)} / ${ms3(r.addedMs.p99.hangar)}`, '', '']);
		rows.push(['1 call overhead', 'proxy CPU per call: hop / hangar (µs)', cpuPair(r.paths), '', '']);
		if (r.hangarOverHopAddedP50ByRound !== undefined) {
			rows.push(['1 call overhead', 'same ratio within each round', r.hangarOverHopAddedP50ByRound.map(value => fmt(value, 1)).join(' '), '', '']);
		}

		rows.push(['1 call overhead', 'hangar added / hop added, p50', `${fmt(r.hangarOverHopAdded.p50)}x`, ...verdict('callOverhead')]);
	} else if (s1 !== undefined) failed('1 call overhead', s1);

	const s2 = scenarios.throughput;
	if (s2?.status === 'ok') {
		const r = s2.result;
		for (const path of ['direct', 'hop', 'hangar']) {
			rows.push(['2 throughput', `${path}, ${r.inFlight} in flight (calls/s)`, fmt(r.paths[path].callsPerSecond, 0), '', '']);
		}

		rows.push(['2 throughput', 'proxy CPU per call: hop / hangar (µs)', cpuPair(r.paths), '', '']);
		rows.push(['2 throughput', 'hop / direct', `${fmt(r.hopVsDirect * 100, 1)}%`, '', '']);
		rows.push(['2 throughput', 'hangar / direct', `${fmt(r.hangarVsDirect * 100, 1)}%`, ...verdict('throughput')]);
	} else if (s2 !== undefined) failed('2 throughput', s2);

	const s3 = scenarios.coldStart;
	if (s3?.status === 'ok') {
		const r = s3.result;
		rows.push(['3 cold start', `spawns for ${r.calls} simultaneous cold calls`, verdicts.coldStartSpawns?.shown ?? '-', ...verdict('coldStartSpawns')]);
		rows.push(['3 cold start', 'one plain start (ms, median)', fmt(r.plainStartMs.median, 1), '', '']);
		rows.push(['3 cold start', 'spawn + node boot: plain / via hangar (ms)', `${fmt(r.plainUpstreamBootMs, 1)} / ${fmt(r.upstreamBootMs, 1)}`, '', '']);
		rows.push(['3 cold start', 'first / last answer (ms, median)', `${fmt(r.firstAnswerMs.median, 1)} / ${fmt(r.lastAnswerMs.median, 1)}`, '', '']);
		rows.push(['3 cold start', 'last answer / plain start', `${fmt(r.lastAnswerOverPlainStart)}x`, ...verdict('coldStart')]);
		rows.push(['3 cold start', 'just-started hangar: last answer (ms) / ratio', `${fmt(r.fresh.lastAnswerMs.median, 1)} / ${fmt(r.fresh.lastAnswerOverPlainStart)}x`, '', '']);
	} else if (s3 !== undefined) failed('3 cold start', s3);

	const s4 = scenarios.statusUnderTrouble;
	if (s4?.status === 'ok') {
		const r = s4.result;
		rows.push(['4 status', `upstreams / hung / running`, `${r.upstreams} / ${r.hung} / ${r.running}`, '', '']);
		rows.push(['4 status', 'initialize answered / all ready after (ms)', `${fmt(r.initializeMs, 0)} / ${fmt(r.allReadyMs, 0)}`, '', '']);
		rows.push(['4 status', `hangar_list (default page: ${r.pageSize ?? r.upstreams} entries) calm p50/p99 (ms)`, `${ms3(r.calm.p50)} / ${ms3(r.calm.p99)}`, '', '']);
		rows.push(['4 status', `hangar_list, ${r.hungCallsInFlight} hung calls: p50 (ms)`, ms3(r.trouble.p50), '', '']);
		rows.push(['4 status', `hangar_list, ${r.hungCallsInFlight} hung calls: p99 (ms)`, ms3(r.trouble.p99), ...verdict('statusUnderTrouble')]);
		if (r.trouble.arrived !== undefined) {
			rows.push(['4 status', '... answer arrived, before the SDK client parsed it: p50/p99 (ms)', `${ms3(r.trouble.arrived.p50)} / ${ms3(r.trouble.arrived.p99)}`, '', '']);
		}
		if (r.troublePing !== undefined) {
			rows.push(['4 status', '... an MCP ping in the same phase (the floor): p50/p99 (ms)', `${ms3(r.troublePing.p50)} / ${ms3(r.troublePing.p99)}`, '', '']);
		}
		if (r.troubleFullList !== undefined) {
			rows.push(['4 status', `... all ${r.troubleFullList.limit} in one answer (${fmt(r.troubleFullList.responseBytes / 1024, 0)} KB): p50/p99 (ms)`, `${ms3(r.troubleFullList.p50)} / ${ms3(r.troubleFullList.p99)}`, '', '']);
		}
		if (r.troubleWithHistory !== undefined) {
			rows.push(['4 status', '... + call history: p50 (ms)', ms3(r.troubleWithHistory.p50), '', '']);
			rows.push(['4 status', '... + call history: p99 (ms)', ms3(r.troubleWithHistory.p99), ...verdict('statusWithHistory')]);
		}
	} else if (s4 !== undefined) failed('4 status', s4);

	const s5 = scenarios.memory;
	if (s5?.status === 'ok') {
		const r = s5.result;
		for (const point of r.points) {
			rows.push(['5 memory', `hangar RSS, ${point.upstreams} ${point.running ? 'running idle' : 'lazy'} upstreams (MiB)`, fmt(point.rssKiB / 1024, 1), '', '']);
		}

		for (const [key, value] of Object.entries(r.perUpstreamKiB)) {
			const name = key.startsWith('lazy') ? 'memory' : 'memoryRunning';
			const isLast = name === 'memory' ? key === Object.keys(r.perUpstreamKiB).filter(k => k.startsWith('lazy')).at(-1) : true;
			rows.push(['5 memory', `per upstream, ${key.replace(/(\d+)/, ' $1')} (KiB)`, fmt(value, 0), ...(isLast ? verdict(name) : ['', ''])]);
		}
	} else if (s5 !== undefined) failed('5 memory', s5);

	for (const [key, label] of [
		['tuiCpu', '6 TUI CPU'],
		['bridgeOverhead', '7 stdio bridge'],
	]) {
		const scenario = scenarios[key];
		if (scenario !== undefined && scenario.status !== 'ok') failed(label, scenario);
	}

	return rows;
}

export function renderTable(rows) {
	const header = ['scenario', 'metric', 'value', 'target', 'result'];
	const all = [header, ...rows].map(row => row.map(cell => String(cell ?? '')));
	const widths = header.map((_, i) => Math.max(...all.map(row => (i === 2 && (row[1] === 'skipped' || row[1] === 'error') ? 0 : row[i].length))));
	const line = row => row.map((cell, i) => (i === row.length - 1 ? cell : cell.padEnd(widths[i]))).join('  ').trimEnd();
	return [line(all[0]), widths.map(w => '-'.repeat(w)).join('  '), ...all.slice(1).map(line)].join('\n');
}
