import path from 'node:path';
import {afterEach, describe, expect, it} from 'vitest';
import {fastHangar, fixture, processesWithTag, closeHangars, openHangar, runCli, statusOf, tempDir, waitFor, writeConfig} from '../support/hangar.js';
import {startDaemon, stopDaemons} from '../support/serve.js';

afterEach(async () => {
	await closeHangars();
	await stopDaemons('SIGKILL');
});

describe('mcp-hangar status, call, approve, quarantine', () => {
	it('prints the hangar_list view as a table or JSON', async () => {
		const dir = tempDir();
		const config = writeConfig(dir, {fx: fixture('normal', [], {tools: [{name: 'echo', inputSchema: {type: 'object'}}]}), off: fixture('normal', [], {disabled: true})}, fastHangar);
		const table = await runCli(['status', '--config', config]);
		expect(table.code).toBe(0);
		const lines = table.stdout.trimEnd().split('\n');
		expect(lines[0]).toMatch(/^NAME\s+STATE\s+ADMIN\s+CALLABLE\s+TOOLS\s+~TOKENS\s+VERIFIED\s+CALLS\s+FAILED\s+P50\s+RESTARTS\s+INSTANCES\s+ERA\s+LAST ERROR$/);
		// fx's one predefined tool, as clients list it: {"name":"fx__echo","inputSchema":{"type":"object"}} is 52 characters, 13 tokens.
		expect(lines[1]).toMatch(/^fx\s+cold\s+enabled\s+yes\s+1 \(stale\)\s+13\s+-\s+0\s+0\s+-\s+0\s+auto: shared\s+-\s+-$/);
		expect(lines[2]).toMatch(/^off\s+disabled\s+disabled\s+no\s/);
		expect(table.stderr).toContain(`No hangar process is running on this state dir: upstreams start when a client calls (mcp-hangar --stdio --config ${config}) or in mcp-hangar tui --config ${config}.`);
		// Given a --state-dir, the commands it names carry it: without it they would start a supervisor on another state dir.
		const elsewhere = path.join(dir, 'elsewhere');
		const other = await runCli(['status', '--config', config, '--state-dir', elsewhere]);
		expect(other.stderr).toContain(`(mcp-hangar --stdio --config ${config} --state-dir ${elsewhere}) or in mcp-hangar tui --config ${config} --state-dir ${elsewhere}.`);
		expect(table.stderr).toMatch(/Context: ~\d+ tokens of tool and prompt definitions to each client \(direct exposure; search exposure would send ~\d+; estimated at 4 characters a token\)\./);

		const json = await runCli(['status', '--json', '--config', config]);
		expect(json.code).toBe(0);
		const parsed = JSON.parse(json.stdout) as {live: boolean; upstreams: Array<{name: string; callable: boolean}>};
		expect(parsed.live).toBe(false);
		expect(parsed.upstreams.map(entry => [entry.name, entry.callable])).toEqual([
			['fx', true],
			['off', false],
		]);
	});

	it('shows the config\'s problems as part of its output, not as log lines, live and from the saved state', async () => {
		const dir = tempDir();
		const config = writeConfig(
			dir,
			{fx: fixture('normal', [], {alwaysAllow: ['echo']}), bad: fixture('normal', ['${HANGAR_TEST_UNSET_VARIABLE}']), ghost: {command: '/nonexistent/hangar-test-ghost'}},
			{...fastHangar, lingerSeconds: 0},
		);
		const problem = /^Config: \$\.mcpServers\.bad\.args\[3\]: variable \$\{HANGAR_TEST_UNSET_VARIABLE\} is not set/m;
		const saved = await runCli(['status', '--config', config]);
		expect(saved.code).toBe(0);
		expect(saved.stderr).toMatch(problem);
		// The command it names checks this config, not the default one.
		expect(saved.stderr).toContain(`Config: 1 key of other clients ignored (mcp-hangar --check-config --config ${config} lists it)`);
		// Nothing runs to say ghost cannot start: the saved state says so as --check-config does, not a bare "cold, callable".
		expect(saved.stderr).toContain('warning: "ghost": command "/nonexistent/hangar-test-ghost" does not exist');
		// Said once, in status's words: no timestamped log line repeats it.
		expect(saved.stderr).not.toMatch(/^\d{4}-\d\d-\d\dT.* warn /m);
		const json = JSON.parse((await runCli(['status', '--json', '--config', config])).stdout) as {configIssues: Array<{path: string; severity: string}>};
		expect(json.configIssues.map(issue => [issue.path, issue.severity])).toEqual([
			['$.mcpServers.fx.alwaysAllow', 'notice'],
			['$.mcpServers.bad.args[3]', 'error'],
		]);

		await startDaemon(config);
		const live = await runCli(['status', '--config', config]);
		expect(live.stderr).toContain('Live state of');
		expect(live.stderr).toMatch(problem);
	});

	it('calls one tool: result on stdout, non-zero exit on every kind of error, no process left', async () => {
		const dir = tempDir();
		const config = writeConfig(dir, {fx: fixture('normal')}, fastHangar);
		const ok = await runCli(['call', 'fx', 'echo', '--args', '{"message":"hi there"}', '--config', config]);
		expect(ok).toMatchObject({code: 0, stdout: 'hi there\n'});
		expect(processesWithTag(ok.tag)).toEqual([]);
		// Its own hangar's end is in the audit trail, named after the command.
		const actions = await runCli(['logs', '--actions', '--json', '--config', config]);
		expect(actions.stdout.trim().split('\n').map(line => JSON.parse(line) as Record<string, unknown>)).toEqual([expect.objectContaining({action: 'shutdown', upstream: null, via: 'mcp-hangar call finished', outcome: 'done'})]);

		const toolError = await runCli(['call', 'fx', 'fail', '--args', '{"message":"bad input"}', '--config', config]);
		expect(toolError.code).toBe(1);
		expect(toolError.stdout).toBe('bad input\n');
		expect(toolError.stderr).toContain('upstream "fx": tool "fail" returned an error (isError)');

		const unknownTool = await runCli(['call', 'fx', 'ecko', '--config', config]);
		expect(unknownTool.code).toBe(1);
		expect(unknownTool.stderr).toContain('upstream "fx": unknown tool "ecko". Did you mean "echo"? Its 6 tools: echo, add, sleep, fail, stderr, pid.');

		const unknownServer = await runCli(['call', 'fy', 'echo', '--config', config]);
		expect(unknownServer.code).toBe(1);
		expect(unknownServer.stderr).toBe('mcp-hangar: upstream "fy": lookup failed: no upstream of that name is configured. Configured upstreams: fx.\n');

		const badJson = await runCli(['call', 'fx', 'echo', '--args', '{message', '--config', config]);
		expect(badJson.code).toBe(2);
		expect(badJson.stderr).toContain('--args is not valid JSON');
		const missing = await runCli(['call', 'fx', '--config', config]);
		expect(missing.code).toBe(2);
		expect(missing.stderr).toContain('"call" needs SERVER and TOOL');
	});

	it('says a one-shot call\'s failed start is not retried, since its own hangar exits with it', async () => {
		const dir = tempDir();
		const config = writeConfig(dir, {broken: {command: process.execPath, args: ['-e', 'process.stderr.write("boom\\n"); process.exit(3)']}}, fastHangar);
		const failed = await runCli(['call', 'broken', 'echo', '--config', config]);
		expect(failed.code).toBe(1);
		expect(failed.stderr).toBe(
			'mcp-hangar: upstream "broken": start failed: the process exited with code 3 during initialization; last stderr: boom. No hangar is running for this config, and the one this command ran for itself exits with it: run the command again, or keep a hangar running (mcp-hangar serve, or mcp-hangar tui) to restart "broken" by itself. If it keeps failing, check its command, args and env in the config and its stderr.\n',
		);
		expect(failed.stderr).not.toMatch(/retries in|restarts it by itself in/);
	});

	it('quarantines and approves through the state dir, and refuses when another hangar owns it', async () => {
		const dir = tempDir();
		const config = writeConfig(dir, {fx: fixture('normal')}, fastHangar);
		expect(await runCli(['quarantine', 'fx', '--config', config])).toMatchObject({code: 0, stdout: 'quarantined "fx": stopped, tools hidden, calls refused until a person approves it\n'});
		const refused = await runCli(['call', 'fx', 'echo', '--args', '{"message":"x"}', '--config', config]);
		expect(refused.code).toBe(1);
		expect(refused.stderr).toContain('the upstream is quarantined (quarantined by a person (mcp-hangar quarantine)) and its calls are refused');
		const status = await runCli(['status', '--config', config]);
		expect(status.stdout).toMatch(/\nfx\s+quarantined\s+quarantined\s+no\s/);

		// A --stdio hangar of one client writes the state dir and takes no commands: the change could not be saved, so it is refused.
		const running = await openHangar(config);
		await waitFor(async () => (await statusOf(running.client, 'fx')).state === 'quarantined', 'the running hangar to load the quarantine');
		const busy = await runCli(['approve', 'fx', '--config', config]);
		expect(busy.code).toBe(1);
		expect(busy.stderr).toContain(`approve failed: hangar process ${running.pid} writes the state dir`);
		expect(busy.stderr).toContain(`could not save the change and did not approve it`);
		expect(busy.stderr).toContain('run `mcp-hangar serve` or the tui, which clients and these commands share');
		await running.close();

		await waitFor(async () => (await runCli(['approve', 'fx', '--config', config])).code === 0, 'approve to succeed once the state dir is free');
		expect(await runCli(['call', 'fx', 'echo', '--args', '{"message":"back"}', '--config', config])).toMatchObject({code: 0, stdout: 'back\n'});
	});
});
