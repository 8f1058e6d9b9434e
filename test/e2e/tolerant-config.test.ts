/**
 * A config pasted from another client, mistakes included, through the built
 * `mcp-hangar --stdio` and a real SDK client: the usable servers serve, each
 * broken one says why on every surface; start failures a retry cannot fix
 * say what happened and are not retried; tool filters hold on every
 * surface; a first run's first tools/list already lists the upstreams'
 * tools; and stderr stays quiet while the log file has the lifecycle.
 */
import fs from 'node:fs';
import path from 'node:path';
import {Client} from '@modelcontextprotocol/sdk/client/index.js';
import {StdioClientTransport} from '@modelcontextprotocol/sdk/client/stdio.js';
import {afterEach, describe, expect, it} from 'vitest';
import type {ToolHit, UpstreamDetails} from '../../source/core/views/views.js';
import {cliPath, closeHangars, everything, fastHangar, fixture, openHangar, rpcError, runCli, status, statusOf, tempDir, toolErrorText, writeConfig} from '../support/hangar.js';

afterEach(closeHangars);

/** A variable name no environment sets. */
const unset = 'HANGAR_TEST_SURELY_UNSET_VARIABLE';

async function structured<T>(client: Client, name: string, args: Record<string, unknown>): Promise<T> {
	return (await client.callTool({name, arguments: args})).structuredContent as T;
}

const upstreamTools = (tools: Array<{name: string}>) => tools.map(tool => tool.name).filter(name => !name.startsWith('hangar_'));

describe('a config pasted from Claude Desktop, with mistakes', () => {
	it('serves the usable servers at once, and each broken one says why in hangar_list, status and its calls', async () => {
		const dir = tempDir();
		const file = path.join(dir, 'claude_desktop_config.json');
		fs.writeFileSync(
			file,
			JSON.stringify(
				{
					globalShortcut: 'Ctrl+Space',
					hangar: {stateDir: path.join(dir, 'state'), ...fastHangar},
					mcpServers: {
						// Shared: under "auto" server-everything asks for roots and moves to per-client instances, and its shared one stops (test/integration/auto-verdict.test.ts covers that).
						everything: {...everything(), alwaysAllow: ['echo'], instances: 'shared'},
						typo: {command: 'npxx', args: ['-y', '@modelcontextprotocol/server-memory']},
						token: {...fixture('normal'), env: {API_TOKEN: `\${${unset}}`}},
						extra: {...fixture('normal'), colour: 'blue'},
					},
				},
				null,
				2,
			),
		);
		const hangar = await openHangar(file);
		// The first list after initialize already has the upstream's tools: nothing was cached.
		const tools = upstreamTools((await hangar.client.listTools()).tools);
		expect(tools).toContain('everything__echo');
		expect(tools.some(name => !name.startsWith('everything__'))).toBe(false);
		const echo = await hangar.client.callTool({name: 'everything__echo', arguments: {message: 'still here'}});
		expect(JSON.stringify(echo.content)).toContain('still here');

		const entries = await status(hangar.client);
		const byName = Object.fromEntries(entries.map(entry => [entry.name, entry]));
		expect(byName['everything']!.state).toBe('ready');
		expect(byName['typo']).toMatchObject({state: 'dead', nextRetryAt: null, restarts: 0});
		expect(byName['typo']!.lastError).toMatch(/command "npxx" was not found on PATH \(searched: .+\)/);
		expect(byName['token']!.state).toBe('invalid');
		expect(byName['token']!.lastError).toContain(`env.API_TOKEN: variable \${${unset}} is not set`);
		expect(byName['extra']!.state).toBe('invalid');
		expect(byName['extra']!.lastError).toContain('colour: unknown key "colour"');

		const typo = await rpcError(hangar.client.callTool({name: 'typo__read_graph', arguments: {}}));
		expect(typo.message).toContain('command "npxx" was not found on PATH');
		expect(typo.message).toContain('Check the spelling of "command"');
		const token = await rpcError(hangar.client.callTool({name: 'token__echo', arguments: {}}));
		expect(token.message).toMatch(/upstream "token".*its config entry cannot be used, so it never starts: env\.API_TOKEN: variable/);
		expect(token.message).toContain('Fix the entry "token"');
		const extra = await rpcError(hangar.client.callTool({name: 'hangar_call', arguments: {server: 'extra', tool: 'echo', arguments: {}}}));
		expect(extra.message).toContain('colour: unknown key "colour"');

		const details = await structured<UpstreamDetails>(hangar.client, 'hangar_details', {server: 'token'});
		expect(details.invalid).toContain('is not set');
		expect(details.server.state).toBe('invalid');

		// The CLI's status reads the same model (from the state dir, with no supervisor to ask).
		await hangar.close();
		const table = await runCli(['status', '--config', file]);
		expect(table.stdout).toMatch(/^token\s+invalid\s/m);
		expect(table.stdout).toMatch(/^extra\s+invalid\s/m);
		const check = await runCli(['--check-config', '--config', file]);
		expect(check.code).toBe(1);
		expect(check.stderr).toContain(`$.mcpServers.token.env.API_TOKEN: variable \${${unset}} is not set`);
		expect(check.stderr).toContain('$.mcpServers.extra.colour: unknown key "colour"');
		expect(check.stderr).toContain('note: $.globalShortcut: "globalShortcut" (Claude Desktop) is ignored');
		expect(check.stderr).toContain('Until then hangar serves the other 2 upstreams; "token", "extra" show as invalid');
	});

	it('recognises a VS Code mcp.json by its shape', async () => {
		const dir = tempDir();
		const file = path.join(dir, 'mcp.json');
		fs.writeFileSync(file, JSON.stringify({inputs: [{type: 'promptString', id: 'key'}], servers: {memory: {command: 'npx', args: ['-y', 'x']}}}));
		const check = await runCli(['--check-config', '--config', file]);
		expect(check.code).toBe(1);
		expect(check.stderr).toContain('this looks like a VS Code mcp.json ("servers" and "inputs")');
		expect(check.stderr).toContain('mcp-hangar import FILE');
	});
});

describe('start failures a retry cannot fix', () => {
	it('say what happened in their own sentence, go straight to dead and are not retried', async () => {
		const dir = tempDir();
		const notExecutable = path.join(dir, 'server.sh');
		fs.writeFileSync(notExecutable, '#!/bin/sh\nexec node server.js\n', {mode: 0o644});
		const badShebang = path.join(dir, 'bad-shebang.js');
		fs.writeFileSync(badShebang, '#!/usr/bin/no-such-interpreter\nconsole.log(1)\n', {mode: 0o755});
		const envShebang = path.join(dir, 'env-shebang.js');
		fs.writeFileSync(envShebang, '#!/usr/bin/env no-such-runtime-xyz\nconsole.log(1)\n', {mode: 0o755});
		const config = writeConfig(
			dir,
			{
				missing: {command: 'no-such-command-xyz', env: {PATH: `/nonexistent-a${path.delimiter}/nonexistent-b`}},
				noexec: {command: notExecutable},
				shebang: {command: badShebang},
				envshebang: {command: envShebang},
				nocwd: {...fixture('normal'), cwd: 'no-such-dir'},
			},
			fastHangar,
		);
		const hangar = await openHangar(config);
		// A first list waits for the starts at launch to settle: each has failed by then.
		await hangar.client.listTools();
		const reasons: Record<string, string> = {};
		for (const entry of await status(hangar.client)) {
			expect(entry, entry.name).toMatchObject({state: 'dead', nextRetryAt: null, restarts: 0});
			reasons[entry.name] = entry.lastError ?? '';
		}

		expect(reasons['missing']).toBe(`start failed: command "no-such-command-xyz" was not found on PATH (searched: /nonexistent-a${path.delimiter}/nonexistent-b)`);
		expect(reasons['noexec']).toBe(`start failed: "${notExecutable}" is not executable`);
		expect(reasons['shebang']).toBe(`start failed: "${badShebang}" starts with "#!/usr/bin/no-such-interpreter", but "/usr/bin/no-such-interpreter" does not exist`);
		expect(reasons['envshebang']).toMatch(/^start failed: ".*env-shebang\.js" starts with "#!\/usr\/bin\/env no-such-runtime-xyz", but "no-such-runtime-xyz" was not found on PATH/);
		expect(reasons['nocwd']).toBe(`start failed: its working directory "${path.join(dir, 'no-such-dir')}" (the entry's "cwd") does not exist`);

		// One start each, and none planned: the transitions say so.
		const details = await structured<UpstreamDetails>(hangar.client, 'hangar_details', {server: 'noexec'});
		expect(details.transitions.map(record => `${record.from}->${record.to}`)).toEqual(['cold->starting', 'starting->dead']);
		expect(details.transitions[1]!.reason).toContain('(permanent: not retried)');
		// A call is refused with the reason and what to change, and does not start it again.
		const refused = await rpcError(hangar.client.callTool({name: 'noexec__anything', arguments: {}}));
		expect(refused.message).toContain('is not executable');
		expect(refused.message).toContain('chmod +x');
		// A person's start tries again (and fails the same way, saying so).
		const started = await rpcError(hangar.client.callTool({name: 'hangar_start', arguments: {server: 'noexec'}}));
		expect(started.message).toContain('is not executable');
		expect((await statusOf(hangar.client, 'noexec')).nextRetryAt).toBeNull();
	});

	it('leave crashes temporary: a process that exits during start is retried with backoff', async () => {
		const dir = tempDir();
		const hangar = await openHangar(writeConfig(dir, {crashy: fixture('crash-during-init')}, fastHangar));
		await hangar.client.listTools();
		const entry = await statusOf(hangar.client, 'crashy');
		expect(entry.state === 'dead' || entry.state === 'starting').toBe(true);
		expect(entry.lastError).toMatch(/exited with code \d+ during initialization/);
		expect(entry.nextRetryAt !== null || entry.state === 'starting').toBe(true);
	});
});

describe('per-server tool filters', () => {
	it('keep a filtered tool from tools/list, hangar_find_tools and hangar_list counts, and refuse its calls with the rule', async () => {
		const dir = tempDir();
		const config = writeConfig(
			dir,
			{
				deny: fixture('normal', ['--tools-count', '3'], {excludeTools: ['tool_1', 'tool_2']}),
				allow: fixture('normal', ['--tools-count', '3'], {includeTools: ['tool_?'], disabledTools: ['tool_1']}),
			},
			fastHangar,
		);
		const hangar = await openHangar(config);
		const tools = upstreamTools((await hangar.client.listTools()).tools);
		expect(tools.filter(name => name.startsWith('deny__'))).not.toContain('deny__tool_1');
		expect(tools).toContain('deny__tool_3');
		expect(tools).toContain('deny__echo');
		expect(tools.filter(name => name.startsWith('allow__')).sort()).toEqual(['allow__tool_2', 'allow__tool_3']);

		const hits = (await structured<{hits: ToolHit[]}>(hangar.client, 'hangar_find_tools', {query: 'tool_2', limit: 50})).hits.map(hit => hit.name);
		expect(hits).toContain('allow__tool_2');
		expect(hits).not.toContain('deny__tool_2');
		expect((await statusOf(hangar.client, 'allow')).tools).toBe(2);

		const byName = await rpcError(hangar.client.callTool({name: 'deny__tool_2', arguments: {}}));
		expect(byName.message).toBe('MCP error -32602: Tool "tool_2" of server "deny" is not served: excludeTools "tool_2" in its config entry filters it out. Change that filter in hangar\'s config to serve it; tools/list and hangar_find_tools show the tools that are served.');
		const viaCall = await toolErrorText(hangar.client.callTool({name: 'hangar_call', arguments: {server: 'allow', tool: 'echo', arguments: {}}}));
		expect(viaCall).toContain('includeTools ["tool_?"] (it matches none of them)');

		const details = await structured<UpstreamDetails>(hangar.client, 'hangar_details', {server: 'allow'});
		expect(details.filteredTools).toEqual(expect.arrayContaining([{name: 'tool_1', rule: 'excludeTools "tool_1"'}, {name: 'echo', rule: 'includeTools ["tool_?"] (it matches none of them)'}]));
	});
});

/** A client that initializes, lists the tools once and exits, as the MCP Inspector's CLI does. */
async function oneShotList(config: string): Promise<string[]> {
	const transport = new StdioClientTransport({command: process.execPath, args: [cliPath, '--stdio', '--standalone', '--config', config], stderr: 'pipe'});
	const client = new Client({name: 'one-shot', version: '1.0.0'});
	await client.connect(transport);
	try {
		return upstreamTools((await client.listTools()).tools);
	} finally {
		await client.close();
	}
}

describe('a first run', () => {
	it('lists the upstreams\' tools in the first tools/list, and a one-shot client run twice sees them both times', async () => {
		const dir = tempDir();
		const config = writeConfig(dir, {everything: everything(), fx: fixture('normal')}, fastHangar);
		const first = await oneShotList(config);
		expect(first).toContain('everything__echo');
		expect(first).toContain('fx__echo');
		// The lists were written when learned: the next run has them before any upstream answers.
		const persisted = JSON.parse(fs.readFileSync(path.join(dir, 'state', 'state.json'), 'utf8')) as {upstreams: Record<string, {tools?: unknown[]}>};
		expect(persisted.upstreams['everything']!.tools!.length).toBeGreaterThan(0);
		writeConfig(dir, {everything: everything(), fx: fixture('normal')}, {...fastHangar, firstListWaitSeconds: 0});
		const second = await oneShotList(config);
		expect(second.sort()).toEqual(first.sort());
	});

	it('shows an upstream that never listed its tools as "not listed yet", not stale', async () => {
		const dir = tempDir();
		const config = writeConfig(dir, {later: fixture('normal', [], {disabled: true})}, fastHangar);
		await openHangar(config);
		const table = await runCli(['status', '--config', config]);
		expect(table.stdout).toMatch(/^later\s+disabled\s+.*not listed yet/m);
		expect(table.stdout).not.toContain('stale');
	});
});

describe('--stdio logging', () => {
	it('keeps stderr to warnings by default while the state dir\'s log file gets the lifecycle', async () => {
		const dir = tempDir();
		const config = writeConfig(dir, {fx: fixture('normal', [], {lazy: false})}, fastHangar);
		const hangar = await openHangar(config);
		await hangar.client.listTools();
		expect((await statusOf(hangar.client, 'fx')).state).toBe('ready');
		await hangar.close();
		expect(hangar.stderr()).not.toMatch(/ info /);
		const log = fs.readFileSync(path.join(dir, 'state', 'hangar.log'), 'utf8');
		expect(log).toMatch(/info \[fx\] cold -> starting/);
		expect(log).toMatch(/info \[fx\] starting -> ready/);
	});

	it('writes info to stderr with --log-level info', async () => {
		const dir = tempDir();
		const config = writeConfig(dir, {fx: fixture('normal', [], {lazy: false})}, fastHangar);
		const hangar = await openHangar(config, {args: ['--log-level', 'info']});
		await hangar.client.listTools();
		await hangar.close();
		expect(hangar.stderr()).toMatch(/info \[hangar\] serving MCP on stdio/);
	});
});
