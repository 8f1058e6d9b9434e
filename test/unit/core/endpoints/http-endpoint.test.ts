/**
 * The pure parts of the HTTP endpoint: which hosts are loopback and how the
 * --http flags resolve (token, refusals).
 */
import fs from 'node:fs';
import path from 'node:path';
import {describe, expect, it} from 'vitest';
import {HttpSetupError, resolveHttpOptions} from '../../../../source/core/endpoints/http-endpoint.js';
import {isLoopbackHost} from '../../../../source/core/endpoints/loopback-host.js';
import {tempDir} from '../../../support/hangar.js';

const token = 'a-token-of-sixteen+chars';

describe('isLoopbackHost', () => {
	it('knows loopback names and addresses', () => {
		for (const host of ['localhost', 'LOCALHOST', '127.0.0.1', '127.1.2.3', '::1', '[::1]', '::ffff:127.0.0.1']) expect(isLoopbackHost(host), host).toBe(true);
		for (const host of ['0.0.0.0', '::', '192.168.1.2', 'example.com', 'localhost.example.com', '128.0.0.1', '']) expect(isLoopbackHost(host), host).toBe(false);
	});
});

describe('resolveHttpOptions', () => {
	it('defaults to 127.0.0.1:8080 without a token', () => {
		expect(resolveHttpOptions({}, {})).toEqual({host: '127.0.0.1', port: 8080, token: undefined, tokenSource: undefined});
	});

	it('takes the token from --token-file (trimmed) before MCP_HANGAR_TOKEN', () => {
		const file = path.join(tempDir(), 'token');
		fs.writeFileSync(file, `${token}\n`);
		expect(resolveHttpOptions({tokenFile: file, host: '0.0.0.0'}, {MCP_HANGAR_TOKEN: 'another-token-0123456789'})).toMatchObject({host: '0.0.0.0', token, tokenSource: `--token-file ${file}`});
		expect(resolveHttpOptions({}, {MCP_HANGAR_TOKEN: token})).toMatchObject({token, tokenSource: 'MCP_HANGAR_TOKEN'});
	});

	it('refuses to listen beyond loopback without a token, and says what to do', () => {
		for (const host of ['0.0.0.0', '::', '192.168.1.2']) {
			expect(() => resolveHttpOptions({host}, {})).toThrow(HttpSetupError);
			expect(() => resolveHttpOptions({host}, {})).toThrow(`refusing to serve MCP over HTTP on ${host} without a token`);
		}

		expect(() => resolveHttpOptions({host: '0.0.0.0'}, {})).toThrow('Set MCP_HANGAR_TOKEN or pass --token-file FILE, or listen on loopback only (--host 127.0.0.1)');
	});

	it('refuses short or spaced tokens, empty or missing token files, and ports out of range', () => {
		expect(() => resolveHttpOptions({}, {MCP_HANGAR_TOKEN: 'short'})).toThrow('the token from MCP_HANGAR_TOKEN must be at least 16 characters without spaces (got 5); generate one with: openssl rand -hex 32');
		expect(() => resolveHttpOptions({}, {MCP_HANGAR_TOKEN: 'sixteen chars with spaces'})).toThrow('without spaces');
		const dir = tempDir();
		const empty = path.join(dir, 'empty');
		fs.writeFileSync(empty, '\n');
		expect(() => resolveHttpOptions({tokenFile: empty}, {})).toThrow(`the token file ${empty} is empty`);
		expect(() => resolveHttpOptions({tokenFile: path.join(dir, 'none')}, {})).toThrow('(no such file)');
		for (const port of [-1, 65_536, 1.5, Number.NaN]) expect(() => resolveHttpOptions({port}, {}), String(port)).toThrow('--port must be a whole number from 0 to 65535');
		expect(resolveHttpOptions({port: 0}, {}).port).toBe(0);
	});
});
