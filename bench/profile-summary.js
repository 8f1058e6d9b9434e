#!/usr/bin/env node
/**
 * Summarizes a V8 .cpuprofile (from `node --cpu-prof`, e.g. a hangar process
 * run with `node bench/run.js --hangar-node-args="--cpu-prof --cpu-prof-dir=DIR"`):
 *
 *   node bench/profile-summary.js FILE.cpuprofile [--top N] [--match TEXT] [--from S] [--to S]
 *
 * Prints self time by area (hangar's own code, the MCP SDK, zod, execa,
 * node internals, GC, idle), the top functions by self time, and the top
 * functions by total (inclusive) time. --match keeps only functions whose
 * name or file contains TEXT in the inclusive list. --from/--to keep only the
 * samples between those seconds after the profile started (e.g. to leave out
 * startup and look at the measured phase only).
 */
import fs from 'node:fs';
import {parseArgs} from 'node:util';

const {values, positionals} = parseArgs({
	options: {top: {type: 'string', default: '25'}, match: {type: 'string'}, from: {type: 'string'}, to: {type: 'string'}},
	allowPositionals: true,
});
const file = positionals[0];
if (file === undefined) {
	process.stderr.write('usage: node bench/profile-summary.js FILE.cpuprofile [--top N] [--match TEXT] [--from S] [--to S]\n');
	process.exit(2);
}

const top = Number(values.top);
const profile = JSON.parse(fs.readFileSync(file, 'utf8'));
const nodes = new Map(profile.nodes.map(node => [node.id, node]));
const parent = new Map();
for (const node of profile.nodes) for (const child of node.children ?? []) parent.set(child, node.id);

// Self time per node from the sample timeline (µs), within --from/--to seconds.
const fromUs = values.from === undefined ? -Infinity : Number(values.from) * 1e6;
const toUs = values.to === undefined ? Infinity : Number(values.to) * 1e6;
const self = new Map();
let at = 0;
for (let i = 0; i < profile.samples.length; i++) {
	at += profile.timeDeltas[i] ?? 0;
	if (at < fromUs || at > toUs) continue;
	const delta = profile.timeDeltas[i + 1] ?? 0;
	self.set(profile.samples[i], (self.get(profile.samples[i]) ?? 0) + delta);
}

const total = [...self.values()].reduce((a, b) => a + b, 0);

function short(url) {
	return url
		.replace(/^file:\/\//, '')
		.replace(/^.*\/node_modules\//, '')
		.replace(/^.*\/dist\//, 'dist/');
}

function area(frame) {
	const {url, functionName} = frame;
	if (functionName === '(idle)') return 'idle';
	if (functionName === '(garbage collector)') return 'gc';
	if (functionName === '(program)') return 'program (native, unattributed)';
	if (url.includes('/node_modules/@modelcontextprotocol/sdk/')) return 'MCP SDK';
	if (url.includes('/node_modules/zod')) return 'zod';
	if (url.includes('/node_modules/execa') || url.includes('/node_modules/get-stream')) return 'execa';
	if (url.includes('/node_modules/')) return `other: ${short(url).split('/')[0]}`;
	if (url.includes('/dist/')) return 'hangar (dist/)';
	if (url.startsWith('node:') || url === '') return 'node internals / native';
	return short(url);
}

const label = frame => `${frame.functionName || '(anonymous)'} ${short(frame.url)}:${frame.lineNumber + 1}`;

const byArea = new Map();
const byFunction = new Map();
for (const [id, time] of self) {
	const frame = nodes.get(id).callFrame;
	byArea.set(area(frame), (byArea.get(area(frame)) ?? 0) + time);
	byFunction.set(label(frame), (byFunction.get(label(frame)) ?? 0) + time);
}

// Inclusive time: each sample counts once for every distinct function on its stack.
const inclusive = new Map();
const stackCache = new Map();
function stackLabels(id) {
	let labels = stackCache.get(id);
	if (labels !== undefined) return labels;
	labels = new Set();
	for (let at = id; at !== undefined; at = parent.get(at)) labels.add(label(nodes.get(at).callFrame));
	stackCache.set(id, labels);
	return labels;
}

for (const [id, time] of self) {
	for (const name of stackLabels(id)) inclusive.set(name, (inclusive.get(name) ?? 0) + time);
}

const ms = us => (us / 1000).toFixed(1).padStart(9);
const pct = us => `${((us / total) * 100).toFixed(1).padStart(5)}%`;
const busy = total - (byArea.get('idle') ?? 0);

console.log(`${file}\nsampled ${(total / 1e6).toFixed(2)} s, busy ${(busy / 1e6).toFixed(2)} s\n`);
console.log('self time by area (ms, % of sampled time):');
for (const [name, time] of [...byArea].sort((a, b) => b[1] - a[1])) console.log(`${ms(time)} ${pct(time)}  ${name}`);
console.log(`\ntop ${top} functions by self time:`);
for (const [name, time] of [...byFunction].sort((a, b) => b[1] - a[1]).slice(0, top)) console.log(`${ms(time)} ${pct(time)}  ${name}`);
console.log(`\ntop ${top} functions by total time${values.match === undefined ? '' : ` matching "${values.match}"`}:`);
const skip = new Set(['(root)', '(program)', '(idle)']);
for (const [name, time] of [...inclusive]
	.filter(([name]) => !skip.has(name.split(' ')[0]) && (values.match === undefined || name.includes(values.match)))
	.sort((a, b) => b[1] - a[1])
	.slice(0, top)) {
	console.log(`${ms(time)} ${pct(time)}  ${name}`);
}
