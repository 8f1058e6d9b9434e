/**
 * The first connect from a real Claude Code (issue 27, item 3): `claude mcp
 * add` then `claude mcp list` with nothing cached, no supervisor running and
 * the production default of hangar.firstListWaitSeconds. Claude Code gives a
 * server's first tools/list 5 s (measured with 2.1.197: a list answered later
 * shows "tools fetch failed"); one upstream here never answers, so the first
 * list waits out the whole first-list wait and must still land inside that
 * budget, on a busy machine too.
 */
import {execFile} from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import {afterEach, describe, expect, it} from 'vitest';
import {cliPath, everything, processesWithTag, root, spawnEnv, tempDir, waitFor, writeConfig} from '../support/hangar.js';

const claude = path.join(root, 'node_modules', '.bin', 'claude');

type Run = {code: number | null; stdout: string; stderr: string};

const tags: string[] = [];

afterEach(async () => {
	for (const tag of tags.splice(0)) {
		for (const pid of processesWithTag(tag)) {
			try {
				process.kill(pid, 'SIGTERM');
			} catch {}
		}

		await waitFor(() => processesWithTag(tag).length === 0 || undefined, `hangar processes of ${tag} gone`);
	}
});

async function run(file: string, args: string[], env: Record<string, string>, cwd: string): Promise<Run> {
	return new Promise(resolve => {
		execFile(file, args, {cwd, env, timeout: 60_000}, (error, stdout, stderr) => {
			resolve({code: error === null ? 0 : typeof error.code === 'number' ? error.code : null, stdout, stderr});
		});
	});
}

describe('Claude Code', () => {
	it('shows hangar connected with its tools on the very first `claude mcp list`, while an upstream never answers', async () => {
		const home = tempDir('hangar-claude-');
		const config = writeConfig(home, {
			everything: everything({instances: 'shared'}),
			// Never answers initialize: the first tools/list waits out hangar.firstListWaitSeconds in full.
			mute: {command: process.execPath, args: ['-e', 'setInterval(() => {}, 1 << 30)']},
		});
		const tag = `claude-${path.basename(home)}`;
		tags.push(tag);
		const env = spawnEnv({
			HOME: home,
			HANGAR_TEST_TAG: tag,
			PATH: `${path.dirname(process.execPath)}:${process.env['PATH'] ?? '/usr/bin:/bin'}`,
			DISABLE_AUTOUPDATER: '1',
			CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: '1',
		});

		const add = await run(claude, ['mcp', 'add', 'hangar', '--', process.execPath, cliPath, '--stdio', '--config', config], env, home);
		expect(add.code, add.stderr).toBe(0);
		expect(fs.existsSync(path.join(home, '.claude.json'))).toBe(true);

		const list = await run(claude, ['mcp', 'list'], env, home);
		expect(list.code, list.stderr).toBe(0);
		const line = list.stdout.split('\n').find(text => text.startsWith('hangar:'));
		expect(line, list.stdout).toMatch(/✔ Connected$/);
		expect(list.stdout).not.toMatch(/failed|timed out/i);

		// The list it was given held the upstream's tools (learned at launch and cached), not the management tools alone.
		const status = await run(process.execPath, [cliPath, 'status', '--json', '--config', config], env, home);
		const entry = (JSON.parse(status.stdout) as {upstreams: Array<{name: string; tools: number}>}).upstreams.find(u => u.name === 'everything');
		expect(entry?.tools).toBeGreaterThan(0);
	}, 90_000);
});
