import {describe, expect, it} from 'vitest';
import {convertServer} from '../../../source/client-files/server-entry.js';

const context = {client: 'claude-desktop' as const, file: '/home/u/claude_desktop_config.json', group: {path: ['mcpServers'], projectDir: undefined, servers: {}}, home: '/home/u'};

describe('a command written for Windows, imported on Linux or macOS', () => {
	it('npx.cmd becomes npx, with a note', () => {
		const converted = convertServer('brave', {command: 'npx.cmd', args: ['-y', '@modelcontextprotocol/server-brave-search'], env: {BRAVE_API_KEY: 'k'}}, {}, {...context, platform: 'linux'});
		expect(converted.entry).toEqual({command: 'npx', args: ['-y', '@modelcontextprotocol/server-brave-search'], env: {BRAVE_API_KEY: 'k'}});
		expect(converted.notes.join('\n')).toContain('written as "npx -y @modelcontextprotocol/server-brave-search" for linux');
	});

	it('cmd /c PROGRAM ARGS becomes PROGRAM ARGS (and /s /c, cmd.exe)', () => {
		expect(convertServer('fs', {command: 'cmd', args: ['/c', 'npx', '-y', '@modelcontextprotocol/server-filesystem', '/data']}, {}, {...context, platform: 'darwin'}).entry).toEqual({
			command: 'npx',
			args: ['-y', '@modelcontextprotocol/server-filesystem', '/data'],
		});
		expect(convertServer('x', {command: 'cmd.exe', args: ['/s', '/C', 'uvx.exe', 'mcp-server-fetch']}, {}, {...context, platform: 'linux'}).entry).toEqual({command: 'uvx', args: ['mcp-server-fetch']});
	});

	it('cmd /c npx mcp-remote URL still becomes the native url server', () => {
		const converted = convertServer('linear', {command: 'cmd', args: ['/c', 'npx', '-y', 'mcp-remote', 'https://mcp.linear.app/sse']}, {}, {...context, platform: 'linux'});
		expect(converted.entry).toMatchObject({url: 'https://mcp.linear.app/sse'});
	});

	it('is kept as written on Windows, and a Windows path or a plain command is left alone', () => {
		expect(convertServer('b', {command: 'npx.cmd', args: ['-y', 'x']}, {}, {...context, platform: 'win32'}).entry).toEqual({command: 'npx.cmd', args: ['-y', 'x']});
		expect(convertServer('b', {command: 'C:\\Program Files\\nodejs\\npx.cmd', args: ['-y', 'x']}, {}, {...context, platform: 'linux'}).entry?.command).toBe('C:\\Program Files\\nodejs\\npx.cmd');
		const plain = convertServer('m', {command: 'npx', args: ['-y', 'x']}, {}, {...context, platform: 'linux'});
		expect(plain.entry).toEqual({command: 'npx', args: ['-y', 'x']});
		expect(plain.notes).toEqual([]);
	});
});
