/**
 * Preload of bench/cold-phases.js (`NODE_OPTIONS=--import=…`), loaded into
 * every node process of a cold start (the bridge, the daemon, the watchdog,
 * server-everything): appends to PHASE_OUT one line per event, with the
 * wall clock, the time since this process started and its CPU so far:
 * its start, each child it spawns, each server it listens with, and, in
 * server-everything, the first lines it reads and writes (when it is ready
 * and each step of hangar's handshake with it). Bench-only: hangar has no
 * such hook.
 */
import cp from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';

const out = process.env.PHASE_OUT;
const log = what => {
	const cpu = process.cpuUsage();
	const at = performance.timeOrigin + performance.now();
	fs.appendFileSync(out, `${JSON.stringify({pid: process.pid, at, sinceStart: performance.now(), cpuMs: (cpu.user + cpu.system) / 1000, what})}\n`);
};

const script = process.argv[1] ?? '';
log(`start ${script} ${process.argv[2] ?? ''}`);
const spawn = cp.ChildProcess.prototype.spawn;
cp.ChildProcess.prototype.spawn = function (options) {
	log(`spawn ${options.args.slice(1, 3).join(' ')}`);
	return spawn.call(this, options);
};

const listen = net.Server.prototype.listen;
net.Server.prototype.listen = function (...args) {
	log('listen');
	return listen.apply(this, args);
};

if (script.includes('server-everything')) {
	const write = process.stdout.write.bind(process.stdout);
	let written = 0;
	process.stdout.write = (chunk, ...rest) => {
		if (written++ < 12) log(`out ${String(chunk).slice(0, 100)}`);
		return write(chunk, ...rest);
	};

	let read = 0;
	// prependListener does not start the stream flowing: the events come when the server itself reads.
	process.stdin.prependListener('data', chunk => {
		if (read++ < 12) log(`in ${String(chunk).slice(0, 100)}`);
	});
}

if (script.endsWith('cli.js') && process.argv[2] === 'serve') {
	const write = net.Socket.prototype.write;
	let probed = false;
	net.Socket.prototype.write = function (chunk, ...rest) {
		if (!probed && typeof chunk === 'string' && chunk.includes('server/discover')) {
			probed = true;
			log('probe sent');
		}

		return write.call(this, chunk, ...rest);
	};
}
