/**
 * What a person did survives the ways a state dir changes hands: `serve`
 * restarted at once by a service manager (the new process opens the dir
 * while the old one still stops its upstreams and holds the lock), a lock
 * left naming a pid that now belongs to an unrelated process, and several
 * processes breaking one stale lock at once. Real processes throughout (the
 * built dist/ binary and the fixture server). Build first (npm test does).
 */
import {spawn, type ChildProcess} from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import {afterEach, describe, expect, it} from 'vitest';
import {cliPath, fixture, root, runCli, stubborn, tempDir, waitFor, waitForExit, writeConfig} from '../support/hangar.js';

const started: ChildProcess[] = [];

afterEach(async () => {
	for (const child of started.splice(0)) child.kill('SIGKILL');
});

type Serve = {child: ChildProcess; output: () => string};

/** `mcp-hangar serve`, as a service manager starts it. */
function serve(config: string): Serve {
	const child = spawn(process.execPath, [cliPath, 'serve', '--config', config, '--log-level', 'info'], {stdio: ['ignore', 'pipe', 'pipe']});
	started.push(child);
	let output = '';
	child.stdout!.on('data', (chunk: Buffer) => (output += chunk.toString()));
	child.stderr!.on('data', (chunk: Buffer) => (output += chunk.toString()));
	return {child, output: () => output};
}

/** Waits until `serve` answers on the state dir's socket. */
async function listening(stateDir: string, server: Serve): Promise<void> {
	await waitFor(() => {
		try {
			return (JSON.parse(fs.readFileSync(path.join(stateDir, 'endpoint.json'), 'utf8')) as {pid: number}).pid === server.child.pid;
		} catch {
			return false;
		}
	}, `serve pid ${server.child.pid} to listen`);
}

/**
 * A person's quarantine from the CLI, retried while it is refused as not
 * savable (as a person would, told to retry in a moment). A success is a
 * promise that it was saved; a refusal must say why.
 */
async function quarantine(config: string, server: string): Promise<{refusals: number}> {
	let refusals = 0;
	for (;;) {
		const run = await runCli(['quarantine', server, '--config', config]);
		if (run.code === 0) return {refusals};
		expect(run.stderr, run.stderr).toContain('could not save the change and did not quarantine it');
		refusals += 1;
		if (refusals > 100) throw new Error(`quarantine of ${server} refused 100 times: ${run.stderr}`);
		await new Promise(resolve => setTimeout(resolve, 200));
	}
}

function savedQuarantines(stateDir: string): string[] {
	const state = JSON.parse(fs.readFileSync(path.join(stateDir, 'state.json'), 'utf8')) as {upstreams: Record<string, {admin?: {state: string}}>};
	return Object.entries(state.upstreams)
		.filter(([, upstream]) => upstream.admin?.state === 'quarantined')
		.map(([name]) => name)
		.sort();
}

describe('a person\'s quarantine survives the state dir changing hands', () => {
	it('serve restarted at once by a supervisor-like loop (kill, start again immediately, quarantine in between)', async () => {
		const dir = tempDir();
		const stateDir = path.join(dir, 'state');
		// An upstream that ignores SIGTERM makes each old serve take 8 s to stop (two grace periods), holding the lock meanwhile.
		const config = writeConfig(
			dir,
			{hold: stubborn({lazy: false}), a: fixture('normal'), b: fixture('normal'), c: fixture('normal')},
			{stopGraceSeconds: 4},
		);
		let current = serve(config);
		await listening(stateDir, current);
		let tookOver = 0;
		for (const name of ['a', 'b', 'c']) {
			await quarantine(config, name);
			// What a service manager does on "restart": SIGTERM, then the next process at once.
			const old = current;
			old.child.kill('SIGTERM');
			current = serve(config);
			await listening(stateDir, current);
			await waitForExit(old.child.pid!);
			// Logged after the lock check, so whether it found the dir held is known by then.
			await waitFor(() => current.output().includes('serving 4 upstreams'), 'the new serve to log that it serves');
			if (current.output().includes('writes this state dir; this one keeps its state changes in memory')) {
				await waitFor(() => current.output().includes('took over the state dir'), 'the new serve to take the state dir over');
				tookOver += 1;
			}
		}

		current.child.kill('SIGTERM');
		await waitForExit(current.child.pid!);
		expect(savedQuarantines(stateDir)).toEqual(['a', 'b', 'c']);
		// The race the test is about did happen: a new serve opened the dir while the old one held it.
		expect(tookOver).toBeGreaterThan(0);
		const status = await runCli(['status', '--json', '--config', config]);
		const upstreams = (JSON.parse(status.stdout) as {upstreams: Array<{name: string; admin: string}>}).upstreams;
		expect(upstreams.filter(upstream => upstream.admin === 'quarantined').map(upstream => upstream.name).sort()).toEqual(['a', 'b', 'c']);
		// Three restarts whose old process takes 8 s to stop: longer than the default 60 s on a loaded machine.
	}, 180_000);

	it('a stale state.lock naming a reused pid (a live unrelated process with another start time)', async () => {
		const dir = tempDir();
		const stateDir = path.join(dir, 'state');
		const config = writeConfig(dir, {a: fixture('normal')});
		fs.mkdirSync(stateDir, {recursive: true, mode: 0o700});
		const other = spawn('sleep', ['1000'], {stdio: 'ignore'});
		started.push(other);
		await waitFor(() => fs.readFileSync(`/proc/${other.pid}/cmdline`, 'utf8').startsWith('sleep'), 'sleep to exec');
		const bootId = fs.readFileSync('/proc/sys/kernel/random/boot_id', 'utf8').trim();
		// What a crashed hangar left: its pid, since handed to `sleep`, which started at another time.
		fs.writeFileSync(path.join(stateDir, 'state.lock'), JSON.stringify({pid: other.pid, startTime: '12', cmdline: `${process.execPath} ${cliPath} serve`, bootId}));
		const server = serve(config);
		await listening(stateDir, server);
		expect(server.output()).not.toContain('holds the state lock');
		expect((await quarantine(config, 'a')).refusals).toBe(0);
		server.child.kill('SIGTERM');
		await waitForExit(server.child.pid!);
		expect(savedQuarantines(stateDir)).toEqual(['a']);
		expect(JSON.parse(fs.readFileSync(path.join(stateDir, 'quarantine.json'), 'utf8')).upstreams.a.reason).toBe('quarantined by a person (mcp-hangar quarantine)');
		expect(fs.existsSync(path.join(stateDir, 'state.lock'))).toBe(false);
	});
});

describe('a state file with bad fields', () => {
	it('starts, serves, and status names each dropped field and why', async () => {
		const dir = tempDir();
		const stateDir = path.join(dir, 'state');
		const config = writeConfig(dir, {a: fixture('normal'), b: fixture('normal')});
		fs.mkdirSync(stateDir, {recursive: true, mode: 0o700});
		fs.writeFileSync(path.join(stateDir, 'state.json'), JSON.stringify({version: 1, upstreams: {a: {tools: [null], catalog: 5}, b: {counters: null, admin: {state: 'quarantined', at: 1, reason: 'by a person'}}}}));
		const status = await runCli(['status', '--config', config]);
		expect(status.code).toBe(0);
		expect(status.stderr).toMatch(/State: state file .*state\.json: upstreams\["a"\]\.tools\.0: .*: dropped tools/);
		expect(status.stderr).toMatch(/State: .*upstreams\["a"\]\.catalog: .*: dropped catalog/);
		expect(status.stderr).toMatch(/State: .*upstreams\["b"\]\.counters is null, not an object: reset to 0/);
		expect(status.stdout).toMatch(/\nb\s+quarantined\s+quarantined\s/);
		const json = JSON.parse((await runCli(['status', '--json', '--config', config])).stdout) as {state: {problems: string[]}};
		expect(json.state.problems.filter(problem => /: dropped \w+$|reset to 0$/.test(problem))).toHaveLength(3);
		// A call goes through, counting into the counters that were null.
		expect(await runCli(['call', 'a', 'echo', '--args', '{"message":"hi"}', '--config', config])).toMatchObject({code: 0, stdout: 'hi\n'});
	});
});

describe('breaking a stale lock', () => {
	it('lets exactly one of several processes that find it stale at once take it', async () => {
		const lockModule = path.join(root, 'dist', 'core', 'engine', 'state-lock.js');
		for (let round = 0; round < 3; round++) {
			const dir = tempDir();
			const lock = path.join(dir, 'state.lock');
			const go = path.join(dir, 'go');
			fs.writeFileSync(lock, '999999999');
			// Each waits for the go file, tries, says what it got, and stays alive (holding what it took) until its stdin closes.
			const script = [
				`const {takeLock} = await import(${JSON.stringify(lockModule)});`,
				`const fs = await import('node:fs');`,
				`process.stdout.write('ready\\n');`,
				`while (!fs.existsSync(${JSON.stringify(go)})) await new Promise(resolve => setTimeout(resolve, 1));`,
				`process.stdout.write(JSON.stringify(takeLock(${JSON.stringify(lock)})) + '\\n');`,
				`process.stdin.resume(); process.stdin.on('end', () => process.exit(0));`,
			].join('\n');
			const racers = Array.from({length: 6}, () => {
				const child = spawn(process.execPath, ['--input-type=module', '-e', script], {stdio: ['pipe', 'pipe', 'inherit']});
				started.push(child);
				let output = '';
				child.stdout!.on('data', (chunk: Buffer) => (output += chunk.toString()));
				return {child, output: () => output};
			});
			await waitFor(() => racers.every(racer => racer.output().includes('ready')), 'every racer to be ready');
			fs.writeFileSync(go, '');
			const results = await waitFor(() => {
				const lines = racers.map(racer => racer.output().split('\n')[1] ?? '');
				return lines.every(line => line.length > 0) ? lines.map(line => JSON.parse(line) as {taken: boolean}) : undefined;
			}, 'every racer to try');
			expect(results.filter(result => result.taken)).toHaveLength(1);
			for (const racer of racers) racer.child.stdin!.end();
		}
	});
});
