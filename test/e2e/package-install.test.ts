/**
 * Installable as people install tools: the tarball `npm pack` makes,
 * installed globally into a temp prefix, gives an `mcp-hangar` on PATH that
 * runs, with no install warning. Uses the built dist/ (the pack skips the
 * rebuild, which would rewrite dist/ under the other tests) and the npm
 * registry or cache for the dependencies.
 */
import {execFile} from 'node:child_process';
import {randomUUID} from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import {describe, expect, it} from 'vitest';
import {processesWithTag, root, tempDir, waitFor} from '../support/hangar.js';
import {TmuxSession} from '../support/tmux.js';

type Run = {code: number | null; stdout: string; stderr: string};

async function run(command: string, args: string[], options: {cwd?: string; env?: NodeJS.ProcessEnv} = {}): Promise<Run> {
	return new Promise(resolve => {
		execFile(command, args, {cwd: options.cwd ?? root, env: options.env ?? process.env, timeout: 100_000, maxBuffer: 16 * 1024 * 1024}, (error, stdout, stderr) => {
			resolve({code: error === null ? 0 : typeof error.code === 'number' ? error.code : null, stdout, stderr});
		});
	});
}

/** npm's own lines about this machine's npm config, not about the install. */
const machineNoise = /Unknown user config|Unknown env config/;

describe('the npm package', () => {
	it('packs, installs globally without a warning, and runs from PATH', {timeout: 120_000}, async () => {
		const dir = tempDir('hangar-pack-');
		const pack = await run('npm', ['pack', '--ignore-scripts', '--json', '--pack-destination', dir]);
		expect(pack.code, pack.stderr).toBe(0);
		const {filename, files} = (JSON.parse(pack.stdout) as Array<{filename: string; files: Array<{path: string}>}>)[0]!;
		const packed = files.map(file => file.path);
		expect(packed).toContain('dist/cli.js');
		expect(packed).toContain('dist/demo/fixture-server.js');
		expect(packed).toContain('README.md');
		expect(packed.filter(file => file.startsWith('source/') || file.startsWith('test/'))).toEqual([]);
		expect(packed).toContain('LICENSE');
		expect(packed).toContain('demo/config.json');
		// Source maps would point at source/, which the package does not ship (see the README's install section).
		expect(packed.filter(file => file.endsWith('.map'))).toEqual([]);

		const prefix = path.join(dir, 'prefix');
		const install = await run('npm', ['install', '--global', '--prefix', prefix, '--prefer-offline', '--no-audit', '--no-fund', path.join(dir, filename)], {cwd: dir});
		expect(install.code, install.stderr).toBe(0);
		const warnings = install.stderr.split('\n').filter(line => /^npm (warn|WARN)/.test(line) && !machineNoise.test(line));
		expect(warnings).toEqual([]);

		const bin = path.join(prefix, 'bin');
		expect(fs.existsSync(path.join(bin, 'mcp-hangar'))).toBe(true);
		// PATH as a person has it: the prefix's bin, then the system's; nothing of this checkout.
		const env = {...process.env, PATH: `${bin}${path.delimiter}${path.dirname(process.execPath)}${path.delimiter}/usr/bin${path.delimiter}/bin`};
		const {version} = JSON.parse(fs.readFileSync(path.join(root, 'package.json'), 'utf8')) as {version: string};
		expect(await run('mcp-hangar', ['--version'], {cwd: dir, env})).toEqual({code: 0, stdout: `${version}\n`, stderr: ''});

		const fixture = path.join(prefix, 'lib', 'node_modules', 'mcp-hangar', 'dist', 'demo', 'fixture-server.js');
		const config = path.join(dir, 'mcp-hangar.json');
		fs.writeFileSync(config, JSON.stringify({hangar: {stateDir: './state'}, mcpServers: {fx: {command: process.execPath, args: [fixture, '--mode', 'normal']}}}));
		expect(await run('mcp-hangar', ['--check-config', '--config', config], {cwd: dir, env})).toEqual({code: 0, stdout: `${config}: OK, 1 upstream (fx)\n`, stderr: ''});
		// The installed engine and its dependencies work: a real upstream started, called and stopped.
		expect(await run('mcp-hangar', ['call', 'fx', 'echo', '--args', '{"message":"from the package"}'], {cwd: dir, env})).toMatchObject({code: 0, stdout: 'from the package\n'});

		// The help's examples name the shipped demo config by its absolute path, and run from any directory.
		const help = (await run('mcp-hangar', ['help'], {cwd: dir, env})).stdout;
		const examples = help.split('\n').slice(help.split('\n').indexOf('Examples')).filter(line => line.startsWith('  $ mcp-hangar ')).map(line => line.slice('  $ '.length));
		const tuiExample = examples.find(line => line.startsWith('mcp-hangar tui '));
		const callExample = examples.find(line => line.startsWith('mcp-hangar call '));
		const demoConfig = path.join(fs.realpathSync(path.join(prefix, 'lib', 'node_modules', 'mcp-hangar')), 'demo', 'config.json');
		expect(tuiExample).toBe(`mcp-hangar tui --config ${demoConfig} --demo-traffic flaky-demo/echo`);
		expect(callExample).toBe(`mcp-hangar call demo echo --args '{"message":"hi"}' --config ${demoConfig}`);
		const stateEnv = {...env, MCP_HANGAR_STATE_DIR: path.join(dir, 'demo-state')};
		expect(await run('mcp-hangar', ['call', 'demo', 'echo', '--args', '{"message":"hi"}', '--config', demoConfig], {cwd: dir, env: stateEnv})).toMatchObject({code: 0, stdout: 'hi\n'});
		const tag = randomUUID();
		const tui = new TmuxSession();
		try {
			// The example as typed, its `mcp-hangar` being the installed one.
			const [, ...exampleArgs] = tuiExample!.split(' ');
			tui.start([path.join(bin, 'mcp-hangar'), ...exampleArgs], {cwd: dir, env: {PATH: env.PATH, MCP_HANGAR_STATE_DIR: stateEnv.MCP_HANGAR_STATE_DIR, HANGAR_TEST_TAG: tag}, columns: 80, rows: 24});
			await tui.waitForScreen(screen => /demo\s+ready/.test(screen) && /flaky-demo\s+/.test(screen) && screen.includes('demo/config.json'), 'the demo config in the TUI');
			tui.keys('q');
			expect(await tui.waitForExit()).toBe(0);
			await waitFor(() => processesWithTag(tag).length === 0, 'no process of the TUI left');
		} finally {
			tui.kill();
		}

		// On PATH, its messages name it plainly; setup points a client at this installation by absolute paths.
		expect((await run('mcp-hangar', ['stauts'], {cwd: dir, env})).stderr).toContain('Did you mean "status"? Run mcp-hangar help for the commands.');
		const home = path.join(dir, 'home');
		const setup = await run('mcp-hangar', ['setup', 'cursor', '--config', config], {cwd: dir, env: {...env, HOME: home}});
		expect(setup.stdout).toContain('To go back: mcp-hangar setup cursor --undo');
		const written = JSON.parse(fs.readFileSync(path.join(home, '.cursor', 'mcp.json'), 'utf8')) as {mcpServers: {hangar: {command: string; args: string[]}}};
		expect(written.mcpServers.hangar).toEqual({command: process.execPath, args: [fs.realpathSync(path.join(prefix, 'lib', 'node_modules', 'mcp-hangar', 'dist', 'cli.js')), '--stdio', '--config', config]});
	});
});
