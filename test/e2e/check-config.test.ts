import fs from 'node:fs';
import path from 'node:path';
import {execa} from 'execa';
import {describe, expect, it} from 'vitest';
import {loadConfig, maxSeconds} from '../../source/core/config/read-config.js';
import {cliPath, root, tempDir} from '../support/hangar.js';

/** A variable name no environment sets. */
const unset = 'HANGAR_TEST_SURELY_UNSET_VARIABLE';

type Check = {exitCode: number | undefined; stdout: string; stderr: string};

/** Runs the built `mcp-hangar --check-config --config FILE` as a subprocess. */
async function checkConfig(file: string, options: {cwd?: string; args?: string[]} = {}): Promise<Check> {
	const env: Record<string, string | undefined> = {...process.env};
	delete env[unset];
	const result = await execa(process.execPath, [cliPath, '--check-config', '--config', file, ...(options.args ?? [])], {
		cwd: options.cwd ?? root,
		env,
		extendEnv: false,
		reject: false,
		stripFinalNewline: false,
		timeout: 30_000,
	});
	return {exitCode: result.exitCode, stdout: String(result.stdout), stderr: String(result.stderr)};
}

/** Writes `content` (JSON-encoded unless it is a string) to a fresh temp file and returns its path. */
function configFile(content: unknown, name = 'mcp-hangar.json'): string {
	const file = path.join(tempDir('hangar-config-'), name);
	fs.writeFileSync(file, typeof content === 'string' ? content : JSON.stringify(content, null, 2));
	return file;
}

const server = {command: 'node', args: ['server.js']};

/** Runs --check-config on `content` and checks that it failed, naming the file, each JSON path and each expectation. */
async function expectInvalid(content: unknown, problems: Array<[jsonPath: string, expected: string | RegExp]>): Promise<string> {
	const file = configFile(content);
	const result = await checkConfig(file);
	expect(result.exitCode, result.stderr).not.toBe(0);
	expect(result.stdout).toBe('');
	expect(result.stderr).toContain(`Invalid configuration in ${file}:`);
	const lines = result.stderr.split('\n');
	for (const [jsonPath, expected] of problems) {
		const line = lines.find(candidate => candidate.startsWith(`  - ${jsonPath}: `));
		expect(line, `a line for ${jsonPath} in:\n${result.stderr}`).toBeDefined();
		if (typeof expected === 'string') expect(line).toContain(expected);
		else expect(line).toMatch(expected);
	}

	expect(result.stderr).toContain('mcp-hangar --check-config');
	return result.stderr;
}

describe('mcp-hangar --check-config', () => {
	it('accepts a valid config: exit 0 and OK with the upstream names', async () => {
		const file = configFile({
			$schema: 'https://example.com/schema.json',
			hangar: {failureThreshold: 2, restartBudget: {maxRestarts: 3, windowSeconds: 30}},
			mcpServers: {alpha: server, 'beta-2': {url: 'https://example.com/mcp', headers: {Authorization: 'Bearer x'}}, gamma_1: {command: 'node', lazy: false}},
		});
		const result = await checkConfig(file);
		expect(result.stderr).toBe('');
		expect(result.exitCode).toBe(0);
		expect(result.stdout).toBe(`${file}: OK, 3 upstreams (alpha, beta-2, gamma_1)\n`);
	});

	it('writes nothing: a missing state dir is not created, and one that cannot be (a read-only disk) never turns an OK into a failure', async () => {
		const file = configFile({mcpServers: {alpha: server}});
		const missing = path.join(tempDir('hangar-state-'), 'not-yet');
		const checked = await checkConfig(file, {args: ['--state-dir', missing]});
		expect([checked.exitCode, checked.stdout, checked.stderr]).toEqual([0, `${file}: OK, 1 upstream (alpha)\n`, '']);
		expect(fs.existsSync(missing)).toBe(false);

		// mkdir under a regular file fails (ENOTDIR) as it does on a read-only disk (EROFS), even for root.
		const blocker = path.join(tempDir('hangar-state-'), 'a-file');
		fs.writeFileSync(blocker, '');
		const unwritable = await checkConfig(file, {args: ['--state-dir', path.join(blocker, 'state')]});
		expect([unwritable.exitCode, unwritable.stdout, unwritable.stderr]).toEqual([0, `${file}: OK, 1 upstream (alpha)\n`, '']);
	});

	it('warns, exit 0, about a command this PATH does not have, and one that does not exist at its path', async () => {
		const file = configFile({mcpServers: {good: server, typo: {command: 'surely-not-a-command-hangar-xyz'}, gone: {command: './bin/missing-server'}, off: {command: 'also-missing-xyz', disabled: true}}});
		const result = await checkConfig(file);
		expect(result.stderr).toBe('');
		expect(result.exitCode).toBe(0);
		const warnings = result.stdout.split('\n').filter(line => line.startsWith('warning: '));
		expect(warnings).toEqual([
			expect.stringMatching(/^warning: "typo": command "surely-not-a-command-hangar-xyz" was not found on PATH \(searched: .+\)\. Check the spelling/),
			expect.stringMatching(/^warning: "gone": command "\.\/bin\/missing-server" does not exist \(looked for .+missing-server\)\. /),
		]);
		expect(result.stdout).toContain('note: commands were looked up with this shell\'s PATH');
	});

	it('accepts config.example.json from the repository root', async () => {
		const file = path.join(root, 'config.example.json');
		const result = await checkConfig(file);
		expect(result.stderr).toBe('');
		expect(result.exitCode).toBe(0);
		expect(result.stdout).toMatch(/^.*config\.example\.json: OK, \d+ upstreams? \(.+\)\n$/);
	});

	it('refuses an unknown key at the top level', async () => {
		await expectInvalid({mcpServers: {x: server}, mcpServer: {}}, [['$.mcpServer', 'unknown top-level key "mcpServer", ignored (did you mean "mcpServers"?)']]);
	});

	it('refuses an unknown key in a server', async () => {
		await expectInvalid({mcpServers: {x: {...server, lazzy: true}}}, [['$.mcpServers.x.lazzy', 'unknown key "lazzy" (did you mean "lazy"?)']]);
		await expectInvalid({mcpServers: {x: {...server, enviroment: {TOKEN: 'x'}}}}, [['$.mcpServers.x.enviroment', 'unknown key "enviroment" (did you mean "env"?)']]);
	});

	it('refuses an unknown key in hangar and in hangar.restartBudget', async () => {
		await expectInvalid({hangar: {failureTreshold: 3}, mcpServers: {x: server}}, [['$.hangar.failureTreshold', 'unknown setting "failureTreshold", ignored (did you mean "failureThreshold"?)']]);
		await expectInvalid({hangar: {restartBudget: {maxRestarts: 2, windowSeconds: 5, window: 5}}, mcpServers: {x: server}}, [
			['$.hangar.restartBudget', 'unknown key "window"'],
		]);
	});

	it('refuses values of the wrong type, naming each path and what was expected', async () => {
		await expectInvalid(
			{
				hangar: {failureThreshold: '3', lazy: 'no', maxMessageBytes: 10},
				mcpServers: {
					x: {command: 'node', args: 'server.js', env: {A: 1}, lazy: 'yes', callTimeoutSeconds: -1, idleTimeoutSeconds: '300'},
					y: {command: 'node', args: ['ok', 5], env: ['A=1'], tools: [{description: 'no name'}]},
					z: {url: 'not a url'},
				},
			},
			[
				['$.hangar.failureThreshold', /expected (number|int)/],
				['$.hangar.lazy', 'expected boolean'],
				['$.hangar.maxMessageBytes', /expected .*>=1024/],
				['$.mcpServers.x.args', 'expected an array of strings'],
				['$.mcpServers.x.env.A', 'expected string'],
				['$.mcpServers.x.lazy', 'expected boolean'],
				['$.mcpServers.x.callTimeoutSeconds', 'expected callTimeoutSeconds to be more than 0'],
				['$.mcpServers.x.idleTimeoutSeconds', 'expected a number of seconds (idleTimeoutSeconds)'],
				['$.mcpServers.y.args[1]', 'expected string'],
				['$.mcpServers.y.env', 'expected an object of string values'],
				['$.mcpServers.y.tools[0].name', 'expected string'],
				['$.mcpServers.z.url', 'expected an http(s) URL'],
			],
		);
	});

	it('refuses mcpServers that is missing or not an object', async () => {
		await expectInvalid({hangar: {}}, [['$', 'expected "mcpServers": an object mapping server names to servers']]);
		await expectInvalid({mcpServers: [server]}, [['$.mcpServers', 'expected an object mapping server names to servers']]);
		await expectInvalid([], [['$', 'expected a JSON object with "mcpServers", got an array']]);
	});

	it('refuses a server with neither command nor url', async () => {
		await expectInvalid({mcpServers: {x: {lazy: true}}}, [['$.mcpServers.x', 'expected either "command" (a subprocess) or "url" (a remote server)']]);
	});

	it('refuses a server with both command and url', async () => {
		await expectInvalid({mcpServers: {x: {command: 'node', url: 'https://example.com/mcp'}}}, [
			['$.mcpServers.x', 'expected only one of "command" and "url", not both'],
		]);
	});

	it('refuses fields that do not fit the kind of server', async () => {
		await expectInvalid(
			{
				mcpServers: {
					remote: {url: 'https://example.com/mcp', args: ['x']},
					local: {command: 'node', headers: {A: 'b'}},
					typed: {command: 'node', type: 'sse'},
					stdio: {url: 'https://example.com/mcp', type: 'stdio'},
				},
			},
			[
				['$.mcpServers.remote', '"args", "env" and "cwd" only apply to "command" servers'],
				['$.mcpServers.local.headers', '"headers" only applies to "url" servers'],
				['$.mcpServers.typed.type', 'expected "stdio" (or no "type") for a "command" server'],
				['$.mcpServers.stdio.type', 'expected "http", "streamable-http" or "sse" (or no "type") for a "url" server'],
			],
		);
	});

	it('refuses bad server names, each with its own path', async () => {
		const long = 'n'.repeat(40);
		const stderr = await expectInvalid(
			{mcpServers: {a__b: server, 'bad name': server, [long]: server, x_: server, fine: server}},
			[
				['$.mcpServers.a__b', 'bad server name "a__b": expected 1-32 letters, digits, "-" or single "_"'],
				['$.mcpServers["bad name"]', 'bad server name "bad name": expected 1-32'],
				[`$.mcpServers.${long}`, `bad server name "${long}": expected 1-32`],
				['$.mcpServers.x_', 'bad server name "x_": expected'],
			],
		);
		expect(stderr).not.toContain('"fine"');
	});

	it('accepts a 32-character server name and single underscores', async () => {
		const file = configFile({mcpServers: {['a'.repeat(32)]: server, a_b_c: server, 'x-1': server}});
		const result = await checkConfig(file);
		expect(result.exitCode, result.stderr).toBe(0);
	});

	it('refuses durations a timer cannot hold, which would otherwise fire at once', async () => {
		await expectInvalid({hangar: {healthIntervalSeconds: 1e9}, mcpServers: {x: {...server, callTimeoutSeconds: 3e6}}}, [
			['$.hangar.healthIntervalSeconds', `expected healthIntervalSeconds to be at most ${maxSeconds}`],
			['$.mcpServers.x.callTimeoutSeconds', `expected callTimeoutSeconds to be at most ${maxSeconds}`],
		]);
	});

	it('refuses unknown pinning and managementTools values, and "none" with search exposure, which needs hangar_find_tools and hangar_call', async () => {
		await expectInvalid({hangar: {pinning: 'always', managementTools: 'some'}, mcpServers: {x: server}}, [
			['$.hangar.pinning', 'expected "first-use" (pin tools the first time they are listed), "approval" (only when a person approves) or "off"'],
			['$.hangar.managementTools', 'expected "all" (every hangar_* tool), "read-only"'],
		]);
		await expectInvalid({hangar: {exposure: 'search', managementTools: 'none'}, mcpServers: {x: server}}, [
			['$.hangar.managementTools', 'expected "all" or "read-only" with "exposure": "search"'],
		]);
	});

	it('refuses backoffMinSeconds above backoffMaxSeconds', async () => {
		await expectInvalid({hangar: {backoffMinSeconds: 10, backoffMaxSeconds: 5}, mcpServers: {x: server}}, [
			['$.hangar.backoffMinSeconds', 'expected backoffMinSeconds to be at most backoffMaxSeconds'],
		]);
	});

	it('reports a missing file with its path, and how to make one for it', async () => {
		const file = path.join(tempDir('hangar-config-'), 'nope', 'missing.json');
		const result = await checkConfig(file);
		expect(result.exitCode).toBe(1);
		expect(result.stderr).toContain(`no config file at ${file}.`);
		expect(result.stderr).toContain(`\`mcp-hangar import CLIENT --config ${file}\` copies them`);
		expect(result.stderr).not.toContain('Fix these entries');
	});

	it('with no config anywhere (a new user), names where it looked and the commands that make one, for every command that needs it', async () => {
		const home = tempDir('hangar-home-');
		const env: Record<string, string> = {PATH: process.env['PATH'] ?? '/usr/bin:/bin', HOME: home, MCP_HANGAR_STATE_DIR: path.join(home, 'state')};
		const userConfig = path.join(home, '.config', 'mcp-hangar', 'config.json');
		for (const args of [['--check-config'], ['status'], ['call', 'x', 'y']]) {
			const result = await execa(process.execPath, [cliPath, ...args], {cwd: home, env, extendEnv: false, reject: false, timeout: 30_000});
			expect(result.exitCode, args.join(' ')).toBe(1);
			const stderr = String(result.stderr);
			expect(stderr).toContain(`no config file at ${path.join(home, 'mcp-hangar.json')}.`);
			expect(stderr).toContain(`Without --config, hangar uses ./mcp-hangar.json, else ${userConfig}.`);
			expect(stderr).toContain('`mcp-hangar import` lists the servers your MCP clients already have (`mcp-hangar import CLIENT` copies them), or `mcp-hangar add NAME -- COMMAND [ARGS...]` adds one.');
			expect(stderr).not.toContain('Invalid configuration');
		}
	});

	it('reports a misspelt "command" as the typo and the missing command, not as arguments without a command', async () => {
		const file = configFile({mcpServers: {typo: {comand: 'node', args: ['x.js'], env: {A: 'b'}}, ok: server}});
		const result = await checkConfig(file);
		expect(result.exitCode).toBe(1);
		expect(result.stderr).toContain('$.mcpServers.typo.comand: unknown key "comand" (did you mean "command"?)');
		expect(result.stderr).toContain('$.mcpServers.typo: expected either "command" (a subprocess) or "url" (a remote server)');
		// Its args are what a command takes: telling the person they only apply to command servers sends them the wrong way.
		expect(result.stderr).not.toContain('only apply to "command" servers');
	});

	it('reports invalid JSON with its path and where in the file', async () => {
		const file = configFile('{\n  "mcpServers": {\n    "x": {"command": "node",}\n  }\n}\n');
		const result = await checkConfig(file);
		expect(result.exitCode).not.toBe(0);
		expect(result.stderr).toContain(`Invalid configuration in ${file}:`);
		expect(result.stderr).toMatch(/ {2}- \$: not valid JSON: .*\(line 3, column 29\)/);
		// Said once, whether or not this Node's own message already names the line.
		expect(result.stderr.match(/line 3,? column 29/g)).toHaveLength(1);
		// A comma before "}" is what editors that read JSON with comments let through: say so, and where to go.
		expect(result.stderr).toContain(`a comma before "}" or "]" (JSON allows none; VS Code and Cursor accept it): remove it, or, for another client's file, run: mcp-hangar import ${file}`);
	});

	it('reports an empty file as invalid JSON', async () => {
		const file = configFile('');
		const result = await checkConfig(file);
		expect(result.exitCode).not.toBe(0);
		expect(result.stderr).toContain(`${file}:\n  - $: not valid JSON`);
	});

	it('accepts a file that starts with a byte order mark', async () => {
		const file = configFile(`\uFEFF${JSON.stringify({mcpServers: {x: server}})}`);
		const result = await checkConfig(file);
		expect(result.exitCode, result.stderr).toBe(0);
	});

	it('refuses ${UNSET_VAR} in args, naming the variable, the element and whose environment it was looked up in', async () => {
		// The check runs in the person's shell, and exits: not "hangar pid N", a process gone when they read it.
		await expectInvalid({mcpServers: {x: {command: 'node', args: ['server.js', `--token=\${${unset}}`]}}}, [
			['$.mcpServers.x.args[1]', /variable \$\{HANGAR_TEST_SURELY_UNSET_VARIABLE\} is not set \(in this shell's environment, where mcp-hangar --check-config ran; a supervisor a client starts has that client's environment instead\): set it in this server's "env" or in its "envFile" \(read again on mcp-hangar reload\), or write \$\{HANGAR_TEST_SURELY_UNSET_VARIABLE:-default\}/],
		]);
	});

	it('refuses ${UNSET_VAR} in command, env, cwd, url and headers too', async () => {
		await expectInvalid(
			{
				mcpServers: {
					local: {command: `\${${unset}}/bin/server`, env: {TOKEN: `\${${unset}}`}, cwd: `\${${unset}}`},
					remote: {url: 'https://example.com/mcp', headers: {Authorization: `Bearer \${${unset}}`}},
				},
			},
			[
				['$.mcpServers.local.command', `variable \${${unset}} is not set`],
				['$.mcpServers.local.env.TOKEN', `variable \${${unset}} is not set`],
				['$.mcpServers.local.cwd', `variable \${${unset}} is not set`],
				['$.mcpServers.remote.headers.Authorization', `variable \${${unset}} is not set`],
			],
		);
	});

	it('tells a url server to put an unset variable in its envFile, not in an "env" it cannot have', async () => {
		const file = configFile({mcpServers: {remote: {url: 'https://example.com/mcp', headers: {Authorization: `Bearer \${${unset}}`}}, ok: server}});
		const result = await checkConfig(file);
		expect(result.stderr).toContain(`variable \${${unset}} is not set`);
		expect(result.stderr).toContain(`: set it in this server's "envFile" (read again on mcp-hangar reload), or write \${${unset}:-default}`);
	});

	it('ignores unset variables in a disabled entry, which never runs', async () => {
		const file = configFile({mcpServers: {off: {command: 'node', args: ['server.js'], env: {TOKEN: `\${${unset}}`}, disabled: true}, on: server}});
		const result = await checkConfig(file);
		expect(result.stderr).toBe('');
		expect(result.exitCode).toBe(0);
	});

	it('shows warnings together with the errors, not only once the errors are fixed', async () => {
		const file = configFile({mcpServers: {bad: {command: 'node', args: [`\${${unset}}`]}, missing: {command: 'surely-not-a-command-on-path-xyz'}}});
		const result = await checkConfig(file);
		expect(result.exitCode).toBe(1);
		expect(result.stderr).toContain(`variable \${${unset}} is not set`);
		expect(result.stderr).toMatch(/^warning: "missing": /m);
		expect(result.stdout).toBe('');
	});

	it('recognises a JSON-with-comments file and a Codex TOML file, and points to import', async () => {
		const jsonc = configFile('// VS Code settings\n{\n  "servers": {"x": {"command": "node"}}\n}\n', 'mcp.json');
		const withComments = await checkConfig(jsonc);
		expect(withComments.exitCode).toBe(1);
		expect(withComments.stderr).toContain('This looks like JSON with comments');
		expect(withComments.stderr).toContain(`mcp-hangar import ${jsonc} --config mcp-hangar.json`);

		const toml = configFile('model = "o3"\n\n[mcp_servers.docs]\ncommand = "npx"\nargs = ["-y", "docs-mcp"]\n', 'config.toml');
		const codex = await checkConfig(toml);
		expect(codex.exitCode).toBe(1);
		expect(codex.stderr).toContain('This looks like TOML (Codex\'s config.toml)');
		expect(codex.stderr).toContain(`mcp-hangar import ${toml}`);
	});

	it('resolves a relative --state-dir against the current directory, not the config file', async () => {
		const cwd = tempDir('hangar-cwd-');
		const file = configFile({mcpServers: {x: server}});
		const config = loadConfig(file, {stateDir: 'relative-state'});
		expect(config.hangar.stateDir).toBe(path.resolve('relative-state'));
		// And the CLI accepts the flag.
		const result = await checkConfig(file, {cwd, args: ['--state-dir', 'relative-state']});
		expect(result.exitCode, result.stderr).toBe(0);
	});
});
