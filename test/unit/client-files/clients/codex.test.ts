import fs from 'node:fs';
import {describe, expect, it} from 'vitest';
import {codex, rewriteCodexConfig} from '../../../../source/client-files/clients/codex.js';
import {convertServer} from '../../../../source/client-files/server-entry.js';
import {parseToml} from '../../../../source/client-files/toml.js';

describe('Codex setup rewrite', () => {
	const launch = {command: '/usr/bin/node', args: ['/opt/hangar/dist/cli.js', '--stdio', '--config', '/home/me/hangar config.json']};
	const hangarTable = ['[mcp_servers.hangar]', 'command = "/usr/bin/node"', 'args = ["/opt/hangar/dist/cli.js", "--stdio", "--config", "/home/me/hangar config.json"]'];

	it('cuts every [mcp_servers…] table, keeps other tables and the comments above them, and appends one hangar table', () => {
		const before = [
			'model = "o3"',
			'',
			'[mcp_servers.a]',
			'command = "npx"',
			'',
			'[mcp_servers.a.env]',
			'K = "v"',
			'',
			'# about the UI',
			'[tui]',
			'notifications = true',
			'',
			'[mcp_servers."b.c"]',
			'url = "https://x.example/mcp"',
			'',
		].join('\n');
		const after = rewriteCodexConfig(before, launch);
		expect(after).toBe(
			[
				'model = "o3"',
				'',
				'# about the UI',
				'[tui]',
				'notifications = true',
				'',
				...hangarTable,
				'',
			].join('\n'),
		);
		expect(parseToml(after)['mcp_servers']).toEqual({hangar: {command: launch.command, args: launch.args}});
	});

	it('writes a file that had none', () => {
		expect(rewriteCodexConfig('', launch)).toBe(`[mcp_servers.hangar]\ncommand = "/usr/bin/node"\nargs = ["/opt/hangar/dist/cli.js", "--stdio", "--config", "/home/me/hangar config.json"]\n`);
	});

	it('keeps everything outside the server tables of a real Codex file: comments, [projects."…"], [tui], and a multi-line string that mentions a server table', () => {
		const fixture = fs.readFileSync(new URL('../../../fixtures/client-configs/codex-config.toml', import.meta.url), 'utf8');
		const instructions = 'developer_instructions = """\nWhen you add a server, write it as\n[mcp_servers.example]\ncommand = "npx"\n"""\n';
		const before = fixture.replace('sandbox_mode = "workspace-write"\n', `sandbox_mode = "workspace-write"\n${instructions}`);
		const after = rewriteCodexConfig(before, launch);
		expect(after).toBe(
			[
				'# Codex configuration',
				'model = "gpt-5-codex"',
				'approval_policy = "on-request"',
				'sandbox_mode = "workspace-write"',
				instructions,
				'[projects."/home/ada/src/shop"]',
				'trust_level = "trusted"',
				'',
				// A comment line above a cut table stays: it may head more than that table.
				'# Documentation lookup',
				'# Notifications go last',
				'[tui]',
				'notifications = true',
				'',
				...hangarTable,
				'',
			].join('\n'),
		);
		const value = parseToml(after);
		expect(value['developer_instructions']).toContain('[mcp_servers.example]');
		expect(value['mcp_servers']).toEqual({hangar: {command: launch.command, args: launch.args}});
		expect(value['tui']).toEqual({notifications: true});
	});

	it('cuts root-level mcp_servers keys and a bare [mcp_servers] table, in CRLF files too', () => {
		const expected = ['model = "o3"', '', ...hangarTable, ''].join('\r\n');
		const rootKeys = 'mcp_servers.a.command = "x"\r\nmcp_servers.a.args = [\r\n  "1",\r\n]\r\nmodel = "o3"\r\n';
		expect(rewriteCodexConfig(rootKeys, launch)).toBe(expected);
		const bareTable = 'model = "o3"\r\n\r\n[mcp_servers]\r\nb = { command = "y", env = { K = "v" } }\r\n';
		expect(rewriteCodexConfig(bareTable, launch)).toBe(expected);
	});
});

describe('Codex entries', () => {
	const convert = (raw: Record<string, unknown>) =>
		convertServer('x', raw, codex.dialect, {client: 'codex', file: '/home/me/.codex/config.toml', group: {path: ['mcp_servers'], projectDir: undefined, servers: {}}, home: '/home/me', platform: 'linux'});

	it('enabled_tools and disabled_tools become includeTools and excludeTools, with a note each and no claim that every tool is served', () => {
		const server = convert({command: 'npx', args: ['-y', 'gh'], enabled_tools: ['search_code', 'get_file'], disabled_tools: ['get_file']});
		expect(server.entry).toEqual({command: 'npx', args: ['-y', 'gh'], includeTools: ['search_code', 'get_file'], excludeTools: ['get_file']});
		expect(server.notes).toEqual(['enabled_tools → includeTools', 'disabled_tools → excludeTools']);
	});

	it('a cwd under ~ is written out from the home directory (hangar does not expand ~), an absolute one kept as it is', () => {
		expect(convert({command: 'tool', cwd: '~/work'})).toMatchObject({entry: {command: 'tool', cwd: '/home/me/work'}, notes: ['cwd "~/work" written as "/home/me/work": hangar does not expand ~']});
		expect(convert({command: 'tool', cwd: '~'}).entry).toEqual({command: 'tool', cwd: '/home/me'});
		expect(convert({command: 'tool', cwd: '/srv/work'})).toMatchObject({entry: {command: 'tool', cwd: '/srv/work'}, notes: []});
	});

	it('a tool list that is not one is dropped, saying so', () => {
		expect(convert({command: 'npx', disabled_tools: 'all'})).toMatchObject({entry: {command: 'npx'}, notes: ['disabled_tools dropped: expected an array of tool names']});
	});
});
