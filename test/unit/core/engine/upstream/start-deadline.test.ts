import {describe, expect, it} from 'vitest';
import {fetchesPackage, firstRunMs, maxStartMs, startDeadline} from '../../../../../source/core/engine/upstream/start-deadline.js';

const stdio = (command: string, ...args: string[]) => ({kind: 'stdio' as const, command, args, env: {}, cwd: '/'});

describe('the start deadline', () => {
	it('knows the package runners that download first, and only with the argument that runs a package', () => {
		for (const launch of [stdio('npx', '-y', 'pkg'), stdio('/usr/local/bin/uvx', 'mcp-server-time'), stdio('npm', 'exec', 'pkg'), stdio('pnpm', 'dlx', 'pkg'), stdio('docker', 'run', '-i', 'img'), stdio('npx.cmd', 'pkg')]) {
			expect(fetchesPackage(launch), launch.command).toBe(true);
		}

		for (const launch of [stdio('node', 'server.js'), stdio('npm', 'start'), stdio('docker', 'exec', 'c'), stdio('python', '-m', 'srv')]) expect(fetchesPackage(launch), `${launch.command} ${launch.args.join(' ')}`).toBe(false);
		expect(fetchesPackage({kind: 'remote', url: 'https://x', headers: {}, transport: 'auto'})).toBe(false);
	});

	it('gives a package runner\'s first run (nothing listed yet) the time to download, and the setting after', () => {
		const npx = {launch: stdio('npx', '-y', 'pkg'), startTimeoutMs: 30_000};
		expect(startDeadline(npx, true, 0)).toEqual({ms: firstRunMs, why: 'a first run of a package runner, which may download first'});
		expect(startDeadline(npx, false, 0)).toEqual({ms: 30_000, why: undefined});
		expect(startDeadline({...npx, startTimeoutMs: 200_000}, true, 0)).toEqual({ms: 200_000, why: undefined});
		expect(startDeadline({launch: stdio('node', 's.js'), startTimeoutMs: 30_000}, true, 0)).toEqual({ms: 30_000, why: undefined});
	});

	it('doubles after each start in a row that ran out of time, up to a bound', () => {
		const node = {launch: stdio('node', 's.js'), startTimeoutMs: 30_000};
		expect(startDeadline(node, false, 1).ms).toBe(60_000);
		expect(startDeadline(node, false, 2)).toEqual({ms: 120_000, why: 'doubled after 2 starts in a row ran out of time'});
		expect(startDeadline(node, false, 10).ms).toBe(maxStartMs);
		// A setting above the bound is never cut.
		expect(startDeadline({...node, startTimeoutMs: 600_000}, false, 3).ms).toBe(600_000);
	});
});
