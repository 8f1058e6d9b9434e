/**
 * One supervisor per config, whatever environment a client passes: MCP
 * clients built on the SDK launch their stdio servers with only HOME, PATH,
 * SHELL and TERM. `setup` pins the state dir the person's shell resolves
 * (XDG_STATE_HOME here) in the launch it writes, so such a client reaches
 * the supervisor that `serve` (or the TUI) runs from that shell.
 */
import fs from 'node:fs';
import path from 'node:path';
import {execFile} from 'node:child_process';
import {Client} from '@modelcontextprotocol/sdk/client/index.js';
import {StdioClientTransport} from '@modelcontextprotocol/sdk/client/stdio.js';
import {afterEach, describe, expect, it} from 'vitest';
import {clientHome} from '../support/client-homes.js';
import {cliPath, fixture, waitFor} from '../support/hangar.js';
import {startDaemon, stopDaemons} from '../support/serve.js';

const clients: Client[] = [];

afterEach(async () => {
	await Promise.all(clients.splice(0).map(async client => client.close()));
	await stopDaemons();
});

describe('a client that trims its environment', () => {
	it('reaches the supervisor serve runs with XDG_STATE_HOME set, through the launch setup wrote', async () => {
		const home = clientHome(() => false);
		const config = path.join(home.root, 'hangar.json');
		fs.writeFileSync(config, JSON.stringify({mcpServers: {fx: fixture('normal')}}));
		const stateHome = path.join(home.root, 'xdg-state');
		// The person's shell: XDG_STATE_HOME set, MCP_HANGAR_STATE_DIR not.
		const shell = {...home.env, PATH: process.env['PATH'] ?? '/usr/bin:/bin', XDG_STATE_HOME: stateHome, MCP_HANGAR_STATE_DIR: ''};
		const setup = await new Promise<{code: number | null; stderr: string}>(resolve => {
			execFile(process.execPath, [cliPath, 'setup', 'claude-desktop', '--config', config], {env: shell, cwd: home.project}, (error, _stdout, stderr) => {
				resolve({code: error === null ? 0 : typeof error.code === 'number' ? error.code : null, stderr});
			});
		});
		expect(setup).toEqual({code: 0, stderr: ''});
		const entry = (JSON.parse(fs.readFileSync(home.file('~/.config/Claude/claude_desktop_config.json'), 'utf8')) as {mcpServers: Record<string, {command: string; args: string[]}>}).mcpServers['hangar']!;
		expect(entry.args.slice(-2)).toEqual(['--state-dir', path.join(stateHome, 'mcp-hangar')]);

		const served = await startDaemon(config, {env: shell});
		// The SDK's default stdio environment, as Claude Desktop and most clients pass it.
		const bare = {HOME: home.home, PATH: process.env['PATH'] ?? '/usr/bin:/bin', SHELL: '/bin/sh', TERM: 'dumb'};
		const transport = new StdioClientTransport({command: entry.command, args: [...entry.args, '--log-level', 'info'], env: bare, stderr: 'pipe'});
		let stderr = '';
		transport.stderr?.on('data', (chunk: Buffer) => {
			stderr += chunk.toString();
		});
		const client = new Client({name: 'trimmed', version: '1.0.0'});
		clients.push(client);
		await client.connect(transport);
		await waitFor(() => stderr.includes(`(pid ${served.pid}, mcp-hangar serve)`), 'the bridge to attach to the supervisor serve runs');
		expect((await client.listTools()).tools.map(tool => tool.name)).toContain('fx__echo');
	});
});
