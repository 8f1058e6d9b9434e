/**
 * A spawn that fails gives back every descriptor it took (early-spawn.ts):
 * Node opens a child's stdio pipes before it knows whether the spawn works,
 * and at EMFILE it kept them, three descriptors per failure, until nothing
 * could start any more. A Node process under `ulimit -n 64` fills its table
 * to the limit, frees 1, 2, … 12 descriptors and spawns an upstream each
 * time (as hangar does, through `spawnUpstream`): whether the spawn fails
 * (EMFILE, at any of its steps) or works, its count of open descriptors
 * returns to where it was. Linux only (/proc/self/fd, ulimit in sh).
 */
import {execFile} from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import {pathToFileURL} from 'node:url';
import {describe, expect, it} from 'vitest';
import {root, spawnEnv, tempDir} from '../support/hangar.js';

const probe = `
import fs from 'node:fs';
const {spawnUpstream} = await import(process.argv[2]);
const count = () => fs.readdirSync('/proc/self/fd').length - 1;
const launch = {kind: 'stdio', command: process.execPath, args: ['-e', ''], env: {}, cwd: process.cwd()};
async function attempt() {
	let child;
	try {
		child = spawnUpstream(launch, 'fd-probe');
	} catch (error) {
		return error.code ?? 'thrown';
	}
	return new Promise(resolve => {
		child.once('error', error => resolve(error.code));
		child.once('spawn', () => child.once('close', () => resolve('spawned')));
	});
}
await attempt(); // the first spawn also starts the watchdog, which keeps its pipe
const baseline = count();
const results = [];
for (let free = 1; free <= 12; free++) {
	const held = [];
	for (;;) {
		try { held.push(fs.openSync('/dev/null', 'r')); } catch { break; }
	}
	for (const fd of held.splice(held.length - free, free)) fs.closeSync(fd);
	const outcome = await attempt();
	for (const fd of held) fs.closeSync(fd);
	await new Promise(resolve => setTimeout(resolve, 20));
	results.push({free, outcome, open: count()});
}
process.stdout.write(JSON.stringify({baseline, results}));
`;

describe.runIf(process.platform === 'linux')('a failed spawn', () => {
	it('releases every descriptor it took, at whatever step it failed', async () => {
		const dir = tempDir();
		const script = path.join(dir, 'probe.mjs');
		fs.writeFileSync(script, probe);
		const module = pathToFileURL(path.join(root, 'dist', 'core', 'link', 'early-spawn.js')).href;
		const output = await new Promise<string>((resolve, reject) => {
			execFile('sh', ['-c', 'ulimit -n 64 && exec "$0" "$@"', process.execPath, script, module], {env: spawnEnv(), timeout: 60_000}, (error, stdout, stderr) => {
				if (error === null) resolve(stdout);
				else reject(new Error(`${error.message}\n${stderr}`));
			});
		});
		const {baseline, results} = JSON.parse(output) as {baseline: number; results: Array<{free: number; outcome: string; open: number}>};
		expect(results.filter(result => result.outcome === 'EMFILE').length).toBeGreaterThan(0);
		expect(results.some(result => result.outcome === 'spawned')).toBe(true);
		expect(results.filter(result => result.open !== baseline)).toEqual([]);
	});
});
