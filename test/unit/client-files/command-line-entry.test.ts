import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import {describe, expect, it} from 'vitest';
import {shellSplit} from '../../../source/client-files/command-line-entry.js';
import {convertServer} from '../../../source/client-files/server-entry.js';

const context = {client: 'cursor' as const, file: '/home/u/.cursor/mcp.json', group: {path: ['mcpServers'], projectDir: undefined, servers: {}}, home: '/home/u', platform: 'linux' as const};

describe('a whole command line pasted into "command", on import', () => {
	it('is split into the program and its arguments, with a note', () => {
		const converted = convertServer('memory', {command: 'npx -y @modelcontextprotocol/server-memory', env: {A: 'b'}}, {}, context);
		expect(converted.entry).toEqual({command: 'npx', args: ['-y', '@modelcontextprotocol/server-memory'], env: {A: 'b'}});
		expect(converted.notes.join('\n')).toContain('"command" held a whole command line: written as command "npx" with args ["-y","@modelcontextprotocol/server-memory"]');
	});

	it('keeps quoted words whole, and goes on to the Windows and mcp-remote rewrites', () => {
		expect(convertServer('fs', {command: `uvx mcp-server-fs --root "/home/u/My Documents" --name 'a b'`}, {}, context).entry).toEqual({
			command: 'uvx',
			args: ['mcp-server-fs', '--root', '/home/u/My Documents', '--name', 'a b'],
		});
		expect(convertServer('b', {command: 'npx.cmd -y server-brave-search'}, {}, context).entry).toEqual({command: 'npx', args: ['-y', 'server-brave-search']});
		expect(convertServer('l', {command: 'npx -y mcp-remote https://mcp.linear.app/sse'}, {}, context).entry).toMatchObject({url: 'https://mcp.linear.app/sse'});
	});

	it('is left alone with args of its own, as one word, or with an open quote', () => {
		expect(convertServer('x', {command: 'npx -y', args: ['server']}, {}, context).entry).toEqual({command: 'npx -y', args: ['server']});
		expect(convertServer('x', {command: 'npx'}, {}, context).entry).toEqual({command: 'npx'});
		expect(convertServer('x', {command: 'node "unterminated'}, {}, context).entry).toEqual({command: 'node "unterminated'});
		// A program whose path has spaces in it.
		const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'hangar command '));
		const program = path.join(dir, 'my server');
		fs.writeFileSync(program, '#!/bin/sh\n', {mode: 0o755});
		expect(convertServer('x', {command: program}, {}, context).entry).toEqual({command: program});
		fs.rmSync(dir, {recursive: true});
	});

	it('splits as a POSIX shell does', () => {
		expect(shellSplit(String.raw`a  b\ c "d \"e\" $f" 'g\h' ""`)).toEqual(['a', 'b c', 'd "e" $f', String.raw`g\h`, '']);
	});
});
