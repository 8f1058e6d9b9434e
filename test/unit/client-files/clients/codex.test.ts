import {describe, expect, it} from 'vitest';
import {rewriteCodexConfig} from '../../../../source/client-files/clients/codex.js';
import {parseToml} from '../../../../source/client-files/toml.js';

describe('Codex setup rewrite', () => {
	const launch = {command: '/usr/bin/node', args: ['/opt/hangar/dist/cli.js', '--stdio', '--config', '/home/me/hangar config.json']};

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
				'[mcp_servers.hangar]',
				'command = "/usr/bin/node"',
				'args = ["/opt/hangar/dist/cli.js", "--stdio", "--config", "/home/me/hangar config.json"]',
				'',
			].join('\n'),
		);
		expect(parseToml(after).value['mcp_servers']).toEqual({hangar: {command: launch.command, args: launch.args}});
	});

	it('writes a file that had none', () => {
		expect(rewriteCodexConfig('', launch)).toBe(`[mcp_servers.hangar]\ncommand = "/usr/bin/node"\nargs = ["/opt/hangar/dist/cli.js", "--stdio", "--config", "/home/me/hangar config.json"]\n`);
	});
});
