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

	it('a Windows path in the command or an argument is kept, with a note that it names no file here', () => {
		const converted = convertServer(
			'memory',
			{command: 'C:\\Program Files\\nodejs\\node.exe', args: ['C:\\Users\\me\\AppData\\Roaming\\npm\\node_modules\\server-memory\\dist\\index.js']},
			{},
			{...context, platform: 'linux'},
		);
		expect(converted.entry?.command).toBe('C:\\Program Files\\nodejs\\node.exe');
		expect(converted.notes).toEqual([
			'"C:\\Program Files\\nodejs\\node.exe" (command) and "C:\\Users\\me\\AppData\\Roaming\\npm\\node_modules\\server-memory\\dist\\index.js" (args[0]) are Windows paths, which name no file on linux: write this machine\'s paths in hangar\'s config',
		]);
		const data = convertServer('sqlite', {command: 'uvx', args: ['mcp-server-sqlite', '--db-path', '\\\\server\\share\\test.db']}, {}, {...context, platform: 'darwin'});
		expect(data.notes).toEqual(['"\\\\server\\share\\test.db" (args[2]) is a Windows path, which names no file on darwin: write this machine\'s path in hangar\'s config']);
		expect(convertServer('w', {command: 'C:\\tools\\x.exe'}, {}, {...context, platform: 'win32'}).notes).toEqual([]);
	});
});
