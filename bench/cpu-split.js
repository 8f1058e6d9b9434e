#!/usr/bin/env node
/**
 * Where a call's CPU goes, process by process and thread by thread: each
 * path of bench/lib/peer-paths.js (server-everything's echo) is warmed, then
 * called N times with F calls in flight, and every process of the path is
 * read from /proc before and after: user and system time per call (its
 * main thread apart from its other threads: V8's compiler and GC helpers,
 * libuv's pool), and read and write system calls per call (/proc/PID/io).
 * Rounds are interleaved; each cell is the median over them.
 *
 *   node bench/cpu-split.js [--paths hop,supervisedHop,hangarStandalone] [--flight 1] [--calls 20000] [--warm 5000] [--rounds 5]
 *
 * bench:peers reads one CPU figure per path; this tells which process and
 * which kind of time a difference is in (docs/performance.md, "fourteenth
 * round"). Linux only (/proc). Times are in clock ticks (10 ms), so a cell
 * is exact to 10 ms / calls: 0.5 µs at 20,000 calls.
 */
import fs from 'node:fs';
import {parseArgs} from 'node:util';
import {connectors} from './lib/peer-paths.js';
import {rolePids, statTicks} from './lib/processes.js';
import {realUpstream} from './lib/real-upstreams.js';
import {median} from './lib/stats.js';

const {values: options} = parseArgs({
	options: {
		paths: {type: 'string', default: 'hop,supervisedHop,hangarStandalone'},
		flight: {type: 'string', default: '1'},
		calls: {type: 'string', default: '20000'},
		warm: {type: 'string', default: '5000'},
		rounds: {type: 'string', default: '5'},
	},
});
const paths = options.paths.split(',');
const flight = Number(options.flight);
const calls = Number(options.calls);
const warm = Number(options.warm);
const rounds = Number(options.rounds);
for (const name of paths) {
	if (connectors[name] === undefined) {
		process.stderr.write(`cpu-split: no path "${name}"; one of ${Object.keys(connectors).join(', ')}\n`);
		process.exit(2);
	}
}

if (!fs.existsSync('/proc/self/io')) {
	process.stderr.write('cpu-split: needs /proc/PID/io (Linux)\n');
	process.exit(2);
}

/** Ticks of the main thread and of the rest, and system calls, of one process. */
function read(pid) {
	const times = {mainUser: 0, mainSystem: 0, otherUser: 0, otherSystem: 0};
	for (const task of fs.readdirSync(`/proc/${pid}/task`)) {
		let stat;
		try {
			stat = fs.readFileSync(`/proc/${pid}/task/${task}/stat`, 'utf8');
		} catch {
			continue; // A thread that ended between the listing and the read.
		}

		const {user, system} = statTicks(stat);
		const main = task === String(pid);
		times[main ? 'mainUser' : 'otherUser'] += user;
		times[main ? 'mainSystem' : 'otherSystem'] += system;
	}

	const io = Object.fromEntries(
		fs
			.readFileSync(`/proc/${pid}/io`, 'utf8')
			.trim()
			.split('\n')
			.map(line => line.split(': ')),
	);
	return {...times, reads: Number(io.syscr), writes: Number(io.syscw)};
}

async function drive(session, count) {
	let started = 0;
	const worker = async () => {
		while (started < count) {
			started += 1;
			await session.client.callTool({name: session.tool, arguments: {message: 'hi'}});
		}
	};

	await Promise.all(Array.from({length: flight}, worker));
}

const tickMicros = 10_000;
/** rows[path][process][measure] = samples */
const rows = {};
/** rates[path] = calls a second, one per round */
const rates = {};
for (let round = 1; round <= rounds; round++) {
	for (const name of paths) {
		const session = await connectors[name](realUpstream('everything'));
		try {
			await drive(session, warm);
			const processes = rolePids(session);
			const before = processes.map(([, pid]) => read(pid));
			const startedAt = performance.now();
			await drive(session, calls);
			const seconds = (performance.now() - startedAt) / 1000;
			const after = processes.map(([, pid]) => read(pid));
			rows[name] ??= {};
			(rates[name] ??= []).push(calls / seconds);
			processes.forEach(([role], index) => {
				const cell = (rows[name][role] ??= {});
				for (const key of Object.keys(before[index])) {
					const delta = after[index][key] - before[index][key];
					(cell[key] ??= []).push(key === 'reads' || key === 'writes' ? delta / calls : (delta * tickMicros) / calls);
				}
			});
		} finally {
			await session.close();
		}
	}

	process.stderr.write(`round ${round}/${rounds} done\n`);
}

const fixed = (value, digits = 1) => value.toFixed(digits);
process.stdout.write(`${flight} in flight, ${calls} calls after ${warm}, median of ${rounds} interleaved rounds; µs per call (main thread + other threads), system calls per call\n\n`);
process.stdout.write('| path | process | user | system | reads | writes |\n| --- | --- | --- | --- | --- | --- |\n');
for (const name of paths) {
	process.stdout.write(`| ${name} | (calls/s ${Math.round(median(rates[name]))}) | | | | |\n`);
	for (const [role, cell] of Object.entries(rows[name])) {
		const m = key => median(cell[key]);
		process.stdout.write(`| | ${role} | ${fixed(m('mainUser'))} + ${fixed(m('otherUser'))} | ${fixed(m('mainSystem'))} + ${fixed(m('otherSystem'))} | ${fixed(m('reads'), 2)} | ${fixed(m('writes'), 2)} |\n`);
	}
}
