#!/usr/bin/env node
/**
 * Where the first answer of a cold `mcp-hangar --stdio` goes: with no
 * supervisor running and a fresh state dir, a client spawns the bridge,
 * which starts the daemon, which starts server-everything; the client sends
 * initialize and then calls `up__echo`. Against server-everything started
 * directly (initialize, then `echo`), in interleaved rounds, and split into
 * phases by bench/lib/phase-hook.mjs, preloaded into every node process:
 *
 *   node bench/cold-phases.js [--rounds N] [--known] [LABEL=PATH/TO/dist/cli.js ...]
 *
 * Each start has a new state dir, as a first run has (hangar knows nothing
 * of the upstream yet, so it probes its protocol generation first), unless
 * `--known`: then each build keeps one state dir, started once before the
 * rounds, as every start after a config's first one finds it (the
 * upstream's generation saved: no probe).
 *
 * Each build given (default: this one's dist/cli.js) is run in turn with
 * direct; each phase is a median over the rounds:
 *
 *   bridge: spawn → daemon spawned     the client's process start to the bridge spawning `serve --linger`
 *   daemon: start → upstream spawned   the daemon's node start, config and early launch (its CPU beside)
 *   daemon: start → listening          the daemon's engine loaded, its socket listening (its CPU beside)
 *   upstream: spawn → reading          server-everything's own boot, beside the daemon's
 *   upstream reading → answer          the handshake: era probe, initialize, the first lists, the call
 *
 * The hook's own cost (a line appended per event) is in every path alike.
 * Wall times on a busy machine move by tens of per cent between rounds:
 * compare builds within one run, and read the CPU columns, which move less.
 */
import {spawn} from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import {parseArgs} from 'node:util';
import {cliPath, root, tempDir} from './lib/paths.js';
import {lines} from './lib/json-lines.js';
import {sleep} from './lib/processes.js';
import {everythingBin} from './lib/real-upstreams.js';
import {rotated} from './lib/rounds.js';
import {median} from './lib/stats.js';

const {values: options, positionals} = parseArgs({options: {rounds: {type: 'string', default: '10'}, known: {type: 'boolean', default: false}}, allowPositionals: true});
const builds = positionals.length === 0 ? [['this', cliPath]] : positionals.map(word => [word.slice(0, word.indexOf('=')), path.resolve(word.slice(word.indexOf('=') + 1))]);
const hook = path.join(root, 'bench', 'lib', 'phase-hook.mjs');

/** One cold start: spawn `args`, initialize, call `tool`; the events every process logged, and the client's own times. `dir`: where the events go (a temp dir of its own when not given). */
async function coldStart(args, tool, stateDir, given) {
	const dir = given ?? tempDir('hangar-cold-phases-');
	const phaseOut = path.join(dir, 'phases.jsonl');
	const startedAt = performance.timeOrigin + performance.now();
	const child = spawn(process.execPath, args, {stdio: ['pipe', 'pipe', 'pipe'], env: {...process.env, NODE_OPTIONS: `--import=${hook}`, PHASE_OUT: phaseOut}});
	let stderr = '';
	const waiting = new Map();
	child.stderr.on('data', chunk => {
		stderr += chunk;
	});
	lines(child.stdout, line => {
		const message = JSON.parse(line);
		waiting.get(message.id)?.(message);
	});
	const request = async (id, method, params) =>
		new Promise((resolve, reject) => {
			const timer = setTimeout(() => reject(new Error(`no answer to ${method} within 60 s; stderr: ${stderr}`)), 60_000);
			waiting.set(id, message => {
				clearTimeout(timer);
				resolve(message);
			});
			child.stdin.write(`${JSON.stringify({jsonrpc: '2.0', id, method, params})}\n`);
		});

	try {
		await request(1, 'initialize', {protocolVersion: '2025-06-18', capabilities: {}, clientInfo: {name: 'cold-phases', version: '1.0.0'}});
		const initializedAt = performance.timeOrigin + performance.now();
		child.stdin.write(`${JSON.stringify({jsonrpc: '2.0', method: 'notifications/initialized'})}\n`);
		const answer = await request(2, 'tools/call', {name: tool, arguments: {message: 'cold'}});
		const answeredAt = performance.timeOrigin + performance.now();
		if (answer.result?.content?.[0]?.text !== 'Echo: cold') throw new Error(`unexpected answer ${JSON.stringify(answer).slice(0, 300)}`);
		const events = fs.readFileSync(phaseOut, 'utf8').trim().split('\n').map(line => JSON.parse(line));
		return {startedAt, initializedAt, answeredAt, events};
	} finally {
		child.stdin.end();
		await new Promise(resolve => {
			if (child.exitCode === null) child.once('exit', resolve);
			else resolve();
		});
		await stopDaemon(stateDir);
		if (given === undefined) fs.rmSync(dir, {recursive: true, force: true});
	}
}

/** The daemon lingers for its next client: stopped here, and waited for. */
async function stopDaemon(stateDir) {
	if (stateDir === undefined) return;
	let pid;
	try {
		pid = JSON.parse(fs.readFileSync(path.join(stateDir, 'endpoint.json'), 'utf8')).pid;
		process.kill(pid, 'SIGTERM');
	} catch {
		return;
	}

	for (let waited = 0; waited < 15_000; waited += 20) {
		try {
			process.kill(pid, 0);
		} catch {
			return;
		}

		await sleep(20);
	}
}

/** The phases of one cold start, from its events (undefined where an event is missing). */
function phasesOf({startedAt, answeredAt, events}) {
	const find = (test, from = events) => from.find(event => test(event.what));
	const upstreamStart = find(what => what.startsWith('start ') && what.includes('server-everything'));
	const upstreamSpawn = find(what => what.startsWith('spawn ') && what.includes('server-everything'));
	const reading = find(what => what.startsWith('in '));
	const daemonStart = find(what => what.startsWith('start ') && what.endsWith(' serve'));
	const ofDaemon = daemonStart === undefined ? [] : events.filter(event => event.pid === daemonStart.pid);
	const daemonSpawned = find(what => what.startsWith('spawn ') && what.includes(' serve'));
	const upstreamSpawned = find(what => what.startsWith('spawn ') && what.includes('server-everything'), ofDaemon);
	const listening = find(what => what === 'listen', ofDaemon);
	return {
		'bridge: spawn → daemon spawned': daemonSpawned?.at - startedAt,
		'daemon: start → upstream spawned': upstreamSpawned?.sinceStart,
		'  daemon CPU to upstream spawn': upstreamSpawned?.cpuMs,
		'daemon: start → listening': listening?.sinceStart,
		'  daemon CPU to listening': listening?.cpuMs,
		'upstream: spawn → reading': reading?.at - (upstreamSpawn?.at ?? upstreamStart?.at),
		'upstream: spawn → probe sent': find(what => what === 'probe sent', ofDaemon)?.at - upstreamSpawn?.at,
		'upstream reading → answer': answeredAt - reading?.at,
		'spawn → answer': answeredAt - startedAt,
	};
}

/** A config of server-everything alone, started at launch, in a dir of its own; its state dir inside. */
function configDir() {
	const dir = tempDir('hangar-cold-phases-');
	const stateDir = path.join(dir, 'state');
	const config = path.join(dir, 'mcp-hangar.json');
	fs.writeFileSync(config, JSON.stringify({hangar: {stateDir}, mcpServers: {up: {command: process.execPath, args: [everythingBin], lazy: false, instances: 'shared'}}}));
	return {dir, stateDir, config};
}

const paths = [['direct'], ...builds];
const samples = new Map(paths.map(([label]) => [label, []]));
/** With --known: each build's config dir, its first start made here and not counted. */
const known = new Map();
const rounds = Number(options.rounds);
try {
	if (options.known) {
		for (const [label, cli] of builds) {
			const kept = configDir();
			known.set(label, kept);
			await coldStart([cli, '--stdio', '--config', kept.config], 'up__echo', kept.stateDir);
		}
	}

	for (let round = 0; round < rounds; round++) {
		for (const [label, cli] of rotated(paths, round)) {
			if (cli === undefined) {
				samples.get(label).push(phasesOf(await coldStart([everythingBin], 'echo')));
				continue;
			}

			const kept = known.get(label);
			if (kept !== undefined) {
				samples.get(label).push(phasesOf(await coldStart([cli, '--stdio', '--config', kept.config], 'up__echo', kept.stateDir)));
				continue;
			}

			const {dir, stateDir, config} = configDir();
			try {
				samples.get(label).push(phasesOf(await coldStart([cli, '--stdio', '--config', config], 'up__echo', stateDir, dir)));
			} finally {
				fs.rmSync(dir, {recursive: true, force: true});
			}
		}
	}
} finally {
	for (const {dir} of known.values()) fs.rmSync(dir, {recursive: true, force: true});
}

const names = Object.keys(phasesOf({events: []}));
const directMs = median(samples.get('direct').map(phases => phases['spawn → answer']));
const rows = [['ms (median)', ...paths.map(([label]) => label)]];
for (const name of names) rows.push([name, ...paths.map(([label]) => format(median(samples.get(label).map(phases => phases[name]).filter(Number.isFinite))))]);
rows.push(['spawn → answer / direct', ...paths.map(([label]) => `${(median(samples.get(label).map(phases => phases['spawn → answer'])) / directMs).toFixed(2)}×`)]);
const widths = rows[0].map((_, column) => Math.max(...rows.map(row => row[column].length)));
for (const row of rows) process.stdout.write(`${row.map((cell, column) => (column === 0 ? cell.padEnd(widths[column]) : cell.padStart(widths[column]))).join('  ')}\n`);

function format(value) {
	return Number.isFinite(value) ? value.toFixed(0) : '–';
}
