/**
 * The TUI's heap over an hour of ticking ages, in minutes: the real app
 * (dist/tui/components/HangarTui.js) drawn by Ink into a 140x40 stream that
 * discards what it gets, from a source of `upstreams` ready upstreams whose
 * ages move one second per read. `seconds` reads are drawn as fast as Ink
 * goes (an hour's worth by default: 3,600 distinct clocks, each row's ages
 * a new string each time, as in a TUI's first hour). The heap is read
 * after a full collection once `warmup` seconds are drawn and again at the
 * end; the growth between is what an hour of ages keeps. The CPU per frame
 * is this process's CPU time over the frames drawn after the warm-up.
 *
 *   node --expose-gc bench/scenarios/tui-heap.js [--upstreams N] [--seconds N] [--warmup N]
 *
 * (defaults 50, 3600, 300) prints the result as JSON. Build first. On a
 * build of Ink 6 with dist/tui/ink-patch.js (before Ink 8), its hooks are registered as the TUI did, unless --plain.
 */
import {EventEmitter} from 'node:events';
import {Writable} from 'node:stream';
import fs from 'node:fs';
import {parseArgs} from 'node:util';
import {hangarBuild} from '../lib/paths.js';

const {values} = parseArgs({options: {upstreams: {type: 'string'}, seconds: {type: 'string'}, warmup: {type: 'string'}, plain: {type: 'boolean'}, incremental: {type: 'boolean'}}});
const upstreams = Number(values.upstreams ?? 50);
const seconds = Number(values.seconds ?? 3600);
const warmup = Number(values.warmup ?? 300);
if (typeof globalThis.gc !== 'function') throw new Error('run with node --expose-gc');

// As the TUI loads Ink (source/tui/tui.tsx): React's production build, Ink drawing as in a terminal.
process.env.NODE_ENV = 'production';
delete process.env.CI;
delete process.env.CONTINUOUS_INTEGRATION;
const dist = new URL('.', `file://${hangarBuild.cli}`);
const inkVersion = JSON.parse(fs.readFileSync(new URL('../../node_modules/ink/package.json', import.meta.url), 'utf8')).version;
const patch = new URL('tui/ink-patch.js', dist);
const patched = values.plain !== true && inkVersion.startsWith('6.') && fs.existsSync(patch);
if (patched) (await import(patch.href)).boundInkCaches();
const React = (await import('react')).default;
const {render} = await import('ink');
const {HangarTui} = await import(new URL('tui/components/HangarTui.js', dist).href);
// Ink 8: the TUI shares Ink's output caches across frames (source/tui/ink-output-caches.ts), unless --plain.
const sharing = new URL('tui/ink-output-caches.js', dist);
const sharedCaches = values.plain !== true && !inkVersion.startsWith('6.') && fs.existsSync(sharing) && (await import(sharing.href)).shareInkOutputCaches();

const startedAt = Date.parse('2026-11-22T10:00:00Z');
function entry(index, clock) {
	const up = (index * 37 + clock) % 3600;
	return {
		name: `up-${String(index).padStart(2, '0')}`,
		state: 'ready', admin: 'enabled', ready: true, callable: true, stale: false, breaker: 'closed', pid: 4000 + index, transport: 'stdio',
		tools: 3, toolsSource: 'live', calls: 12, failures: 0, consecutiveFailures: 0, toolErrors: 0, inFlight: 0, latencyMs: {p50: 3.2, p95: 41},
		lastError: null, lastVerifiedAt: new Date(startedAt).toISOString(), nextRetryAt: null, stateSince: new Date(startedAt).toISOString(),
		upSeconds: up, idleSeconds: up % 600, restarts: 0, quarantineReason: null, contextTokens: 0,
	};
}

let clock = 0;
const source = {
	read() {
		clock += 1;
		return {
			configPath: '/home/me/.config/mcp-hangar/config.json', logFile: '/home/me/.local/state/mcp-hangar/hangar.log',
			startedAt, now: startedAt + clock * 1000, clients: [], notice: undefined,
			entries: Array.from({length: upstreams}, (_, index) => entry(index, clock)),
			toolNames: {}, details: undefined, logs: undefined, config: {drift: null, lastReload: null}, history: {},
			context: {exposure: 'direct', current: 1200, direct: 1200, search: 400},
		};
	},
	subscribe: () => () => {},
	command: async () => 'done',
	attachedClients: () => 0,
	approvalPins: () => '',
};

class Stdin extends EventEmitter {
	isTTY = true;
	setEncoding() {}
	setRawMode() {}
	resume() {}
	pause() {}
	ref() {}
	unref() {}
	read() {
		return null;
	}
}

let bytes = 0;
const stdout = new Writable({
	write(chunk, _encoding, done) {
		bytes += chunk.length;
		done();
	},
});
Object.assign(stdout, {columns: 140, rows: 40, isTTY: true});

let frames = 0;
let onFrame = () => {};
const instance = render(React.createElement(HangarTui, {source, size: {columns: 140, rows: 40}, timing: {frameMs: 1, tickMs: 1, maxFrameMs: 1}}), {
	stdout, stdin: new Stdin(), stderr: new Writable({write: (_c, _e, done) => done()}), patchConsole: false, exitOnCtrlC: false, maxFps: 1000, incrementalRendering: values.incremental === true,
	onRender() {
		frames += 1;
		onFrame();
	},
});
const until = target => new Promise(resolve => {
	onFrame = () => {
		if (clock >= target) resolve();
	};
});

const heapMiB = () => {
	globalThis.gc();
	globalThis.gc();
	return process.memoryUsage().heapUsed / 1048576;
};

await until(warmup);
const framesBefore = frames;
const heapBefore = heapMiB();
const cpuBefore = process.cpuUsage();
await until(seconds);
const cpu = process.cpuUsage(cpuBefore);
const framesAfter = frames - framesBefore;
const heapAfter = heapMiB();
instance.unmount();
const round = (value, digits = 2) => Number(value.toFixed(digits));
process.stdout.write(`${JSON.stringify({
	ink: inkVersion, node: process.version, patched, sharedCaches: await sharedCaches, upstreams, seconds, warmup,
	frames: framesAfter, readsPerFrame: round((seconds - warmup) / framesAfter), bytesWritten: bytes,
	heapMiB: {afterWarmup: round(heapBefore), atEnd: round(heapAfter), growth: round(heapAfter - heapBefore)},
	cpuMsPerFrame: round((cpu.user + cpu.system) / 1000 / framesAfter, 3),
}, null, 2)}\n`);
process.exit(0);
