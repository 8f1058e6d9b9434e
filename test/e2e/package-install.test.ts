/**
 * Installable as people install tools: the tarball `npm pack` makes,
 * installed globally into a temp prefix, gives an `mcp-hangar` on PATH that
 * runs, with no install warning. Uses the built dist/ (the pack skips the
 * rebuild, which would rewrite dist/ under the other tests) and the npm
 * registry or cache for the dependencies.
 */
import {execFile} from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import {describe, expect, it} from 'vitest';
import {root, tempDir} from '../support/hangar.js';

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

		// On PATH, its messages name it plainly; setup points a client at this installation by absolute paths.
		expect((await run('mcp-hangar', ['stauts'], {cwd: dir, env})).stderr).toContain('Did you mean "status"? Run mcp-hangar help for the commands.');
		const home = path.join(dir, 'home');
		const setup = await run('mcp-hangar', ['setup', 'cursor', '--config', config], {cwd: dir, env: {...env, HOME: home}});
		expect(setup.stdout).toContain('To go back: mcp-hangar setup cursor --undo');
		const written = JSON.parse(fs.readFileSync(path.join(home, '.cursor', 'mcp.json'), 'utf8')) as {mcpServers: {hangar: {command: string; args: string[]}}};
		expect(written.mcpServers.hangar).toEqual({command: process.execPath, args: [fs.realpathSync(path.join(prefix, 'lib', 'node_modules', 'mcp-hangar', 'dist', 'cli.js')), '--stdio', '--config', config]});
	});
});
