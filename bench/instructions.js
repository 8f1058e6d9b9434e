/**
 * User-space instructions per call, counted by valgrind's callgrind: the
 * one measure of a call's cost here that a busy machine does not move.
 * `bench:peers` reads CPU time, which on this 2-core host moves ±15–25%
 * from run to run (docs/performance.md, "Noise"); an instruction count of
 * the same build moves well under 1% for the hop, and up to ±6% for
 * hangar's paths, whose count depends on which of their functions V8 has
 * optimized by then (run it twice or more before reading a difference
 * under 10%).
 *
 *   npm run bench:instructions [-- --calls N --warm N --only hop,hangarStandalone]
 *
 * Each path gets its own server-everything and an SDK client that calls
 * `echo` sequentially: `--warm` calls uninstrumented (the JIT settles),
 * then `--calls` calls counted. Counted: every thread of the proxy process
 * (the daemon and the bridge each, for the default path), less the
 * functions of V8's optimizing compiler, which compiles once and may still
 * be at it when counting begins, and those of a major collection (both
 * shown apart, see majorGcFrame), and less what the process runs idle
 * over as long (its timers), which the slowness of valgrind would
 * otherwise spread over the calls. Not counted:
 * the kernel (the reads, writes and waits of a call, the same four system
 * calls on every path, are a large part of a call's CPU time), so these
 * ratios are larger than bench:peers' CPU ratios, which have the same
 * kernel time on both sides.
 *
 * Needs valgrind (`apt-get install valgrind`); without it, says so and
 * exits 2.
 */
import {execFileSync, spawn, spawnSync} from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import {parseArgs} from 'node:util';
import {callTool, cliPath, connect, hopPath, root, tempDir, writeHangarConfig} from './lib/paths.js';
import {realUpstream} from './lib/real-upstreams.js';
import {sleep, sweep} from './lib/processes.js';

const {values: options} = parseArgs({
	options: {
		calls: {type: 'string', default: '2000'},
		warm: {type: 'string', default: '10000'},
		only: {type: 'string'},
	},
});
const calls = Number(options.calls);
const warm = Number(options.warm);

if (spawnSync('valgrind', ['--version']).status !== 0 || spawnSync('callgrind_annotate', ['--version']).status === null) {
	process.stderr.write('bench:instructions needs valgrind (callgrind and callgrind_annotate): apt-get install valgrind\n');
	process.exit(2);
}

const out = tempDir('hangar-instructions-');
const valgrind = ['--tool=callgrind', '--instr-atstart=no', `--callgrind-out-file=${path.join(out, '%p.out')}`];
/**
 * TurboFan compiles on the thread that runs the code, not in the
 * background: how much of the warm-up's code the background thread had
 * optimized when counting began depended on how busy the machine was (a
 * build counted 125.6k and 191.2k per standalone call in two runs with
 * other work on the machine). Compiled in line, the hot code is optimized
 * during the warm-up, whatever the load.
 */
const v8Flags = ['--no-concurrent-recompilation', '--no-concurrent-osr'];
/** V8's optimizing compiler (TurboFan and its zones): a one-time cost, see the module comment. */
const compilerFrame = /v8::internal::compiler::|v8::internal::Zone|turboshaft/;
/**
 * A major (mark-compact) collection of the old generation: it comes every
 * so many thousand calls and costs tens of millions of instructions, so a
 * window of 2,000 calls holds one or none, and a path's count doubled
 * between runs with it (standalone: 105k against 184k, 59k of it this).
 * Shown apart, like the compiler; the young generation's scavenges, paid in
 * proportion to what each call allocates, stay counted.
 */
const majorGcFrame = /MarkCompact|ConcurrentMarking|MarkingVisitor|IncrementalMarking|MarkingWorklist|MarkingBarrier|Sweeper|ActiveSystemPages/;

const paths = {
	hop: 'the minimal stdio hop (bench/hop.js)',
	supervisedHop: 'the hop + what a supervisor adds per call (bench/supervised-hop.js)',
	twoHop: 'two-process floor: bench/socket-hop.js piping to bench/hop.js --listen',
	supervisedTwoHop: 'two-process floor with a supervisor: bench/socket-hop.js piping to bench/supervised-hop.js --listen',
	hangarStandalone: 'hangar --stdio --standalone',
	hangar: 'hangar --stdio, the default: the bridge + the daemon',
};
const chosen = options.only === undefined ? Object.keys(paths) : options.only.split(',');

/** Instructions counted in `pid` since the last zeroing, without the compiler's. */
function countedSinceZero(pid) {
	execFileSync('callgrind_control', ['-d', String(pid)], {stdio: 'ignore'});
	const dumps = fs.readdirSync(out).filter(file => file.startsWith(`${pid}.out.`));
	const newest = dumps.sort((a, b) => Number(b.split('.').pop()) - Number(a.split('.').pop()))[0];
	const annotated = execFileSync('callgrind_annotate', ['--threshold=100', path.join(out, newest)], {encoding: 'utf8', maxBuffer: 256 * 1024 * 1024});
	let total = 0;
	let compiler = 0;
	let majorGc = 0;
	for (const line of annotated.split('\n')) {
		const match = /^\s*([\d,]+) \([\s\d.]+%\)\s+(.*)$/.exec(line);
		if (match === null) continue;
		const count = Number(match[1].replaceAll(',', ''));
		if (match[2].includes('PROGRAM TOTALS')) total = count;
		else if (compilerFrame.test(match[2])) compiler += count;
		else if (majorGcFrame.test(match[2])) majorGc += count;
	}

	return {total, compiler, majorGc};
}

const control = (pids, ...args) => {
	for (const pid of pids) execFileSync('callgrind_control', [...args, String(pid)], {stdio: 'ignore'});
};

/** Calls until one succeeds: a start under valgrind takes tens of seconds. */
async function firstCall(client, tool, args) {
	for (let attempt = 0; ; attempt++) {
		try {
			await callTool(client, tool, args);
			return;
		} catch (error) {
			if (attempt > 300) throw error;
			await sleep(200);
		}
	}
}

async function measure(name) {
	const up = realUpstream('everything');
	const dir = tempDir();
	const under = args => ['valgrind', [...valgrind, process.execPath, ...v8Flags, ...args]];
	let session;
	let tool = 'up__echo';
	/** The daemon's process, when the path has one (spawned here). */
	let daemonChild;
	const config = () => writeHangarConfig(dir, {up: {command: up.command, args: up.args, env: up.env, lazy: false, instances: 'shared'}});
	if (name === 'hop') {
		session = await connect(...under([hopPath, up.command, ...up.args]), {env: up.env});
		tool = 'echo';
	} else if (name === 'supervisedHop') {
		session = await connect(...under([path.join(root, 'bench', 'supervised-hop.js'), path.join(dir, 'audit.jsonl'), 'up', up.command, ...up.args]), {env: up.env});
	} else if (name === 'twoHop' || name === 'supervisedTwoHop') {
		const socket = path.join(dir, 'hop.sock');
		const hop = name === 'twoHop' ? [hopPath, '--listen', socket] : [path.join(root, 'bench', 'supervised-hop.js'), '--listen', socket, path.join(dir, 'audit.jsonl'), 'up'];
		const [command, args] = under([...hop, up.command, ...up.args]);
		const child = spawn(command, args, {stdio: ['ignore', 'pipe', 'ignore'], env: {...process.env, ...up.env}});
		daemonChild = child;
		await new Promise((resolve, reject) => {
			let text = '';
			child.stdout.on('data', chunk => {
				text += chunk;
				if (text.includes('listening')) resolve();
			});
			child.once('exit', code => reject(new Error(`${name}'s hop exited with ${code} before it listened`)));
		});
		session = await connect(...under([path.join(root, 'bench', 'socket-hop.js'), socket]));
		if (name === 'twoHop') tool = 'echo';
	} else if (name === 'hangarStandalone') {
		session = await connect(...under([cliPath, '--stdio', '--config', config(), '--standalone']), {env: up.env});
	} else {
		// The daemon is the supervisor a bridge would start: started here first, under valgrind, then a bridge attaches to it.
		const file = config();
		const [command, args] = under([cliPath, 'serve', '--config', file]);
		const child = spawn(command, args, {stdio: 'ignore', env: {...process.env, ...up.env}});
		daemonChild = child;
		const endpoint = path.join(dir, 'state', 'endpoint.json');
		for (let waited = 0; !fs.existsSync(endpoint); waited += 200) {
			if (waited > 120_000) throw new Error('the daemon under valgrind did not start within 120 s');
			await sleep(200);
		}

		session = await connect(...under([cliPath, '--stdio', '--config', file]), {env: up.env});
	}

	await firstCall(session.client, tool, up.callArgs);
	for (let index = 0; index < warm; index++) await callTool(session.client, tool, up.callArgs);
	const pids = daemonChild === undefined ? [session.pid] : [session.pid, daemonChild.pid];
	control(pids, '-z');
	control(pids, '-i', 'on');
	const began = performance.now();
	for (let index = 0; index < calls; index++) await callTool(session.client, tool, up.callArgs);
	const windowMs = performance.now() - began;
	control(pids, '-i', 'off');
	const counted = pids.map(pid => countedSinceZero(pid));
	// What the process runs with no call at all (timers: health checks, state polls), counted over as
	// long again (at most a minute) and taken off in proportion: valgrind stretches the window fiftyfold
	// or more, and a loaded machine further, so per second work would otherwise count as per call.
	const idleMs = Math.min(windowMs, 60_000);
	control(pids, '-z');
	control(pids, '-i', 'on');
	await sleep(idleMs);
	control(pids, '-i', 'off');
	const idle = pids.map(pid => countedSinceZero(pid));
	for (const [index, part] of counted.entries()) {
		const scale = windowMs / idleMs;
		part.idle = Math.round((idle[index].total - idle[index].compiler - idle[index].majorGc) * scale);
		part.total -= part.idle;
	}

	await session.close();
	// The hop behind a socket exits on its own when its one client goes: a child that has exited is not signalled.
	daemonChild?.kill('SIGTERM');
	await sweep(5000);
	up.cleanup?.();
	const perCall = counted.map(({total, compiler, majorGc}) => (total - compiler - majorGc) / calls);
	const compilerPerCall = counted.reduce((sum, {compiler}) => sum + compiler, 0) / calls;
	const majorGcPerCall = counted.reduce((sum, {majorGc}) => sum + majorGc, 0) / calls;
	const idlePerCall = counted.reduce((sum, {idle}) => sum + idle, 0) / calls;
	return {perCall: perCall.reduce((sum, value) => sum + value, 0), parts: perCall, compilerPerCall, majorGcPerCall, idlePerCall};
}

const results = {};
for (const name of chosen) {
	if (!(name in paths)) throw new Error(`unknown path "${name}"; the paths are ${Object.keys(paths).join(', ')}`);
	process.stderr.write(`${name}: ${paths[name]} ...\n`);
	results[name] = await measure(name);
}

const thousands = value => `${(value / 1000).toFixed(1)}k`;
console.log(`user-space instructions per sequential echo call (${calls} counted after ${warm}), V8's optimizing compiler, major collections and idle work left out`);
for (const [name, result] of Object.entries(results)) {
	const ratio = results.hop === undefined ? '' : `  ${(result.perCall / results.hop.perCall).toFixed(2)}× the hop`;
	const parts = result.parts.length > 1 ? ` (${name === 'hangar' ? 'bridge' : 'socket-hop'} ${thousands(result.parts[0])} + ${name === 'hangar' ? 'daemon' : 'hop'} ${thousands(result.parts[1])})` : '';
	console.log(`${name.padEnd(18)} ${thousands(result.perCall).padStart(7)}${ratio}${parts}  [compiler still at work: ${thousands(result.compilerPerCall)}; major GC in the window: ${thousands(result.majorGcPerCall)}; idle work taken off: ${thousands(result.idlePerCall)}]`);
}

fs.rmSync(out, {recursive: true, force: true});
