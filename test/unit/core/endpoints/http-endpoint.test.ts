/**
 * The pure parts of the HTTP endpoint: which hosts are loopback, how the
 * --http flags resolve (token, refusals), what a malformed body is told, and
 * what the debug log masks.
 */
import fs from 'node:fs';
import path from 'node:path';
import {describe, expect, it} from 'vitest';
import {HttpSetupError, isLoopbackHost, resolveHttpOptions} from '../../../../source/core/endpoints/http-endpoint.js';
import {checkJsonRpcBody, isProblem} from '../../../../source/core/wire/json-rpc-check.js';
import {maskSecrets, maskedJson} from '../../../../source/core/base/secret-mask.js';
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

describe('checkJsonRpcBody', () => {
	const problem = (text: string) => {
		const checked = checkJsonRpcBody(text);
		if (!isProblem(checked)) throw new Error(`no problem with ${text}`);
		return checked;
	};

	it('reads a request, a notification and a response', () => {
		expect(checkJsonRpcBody('{"jsonrpc":"2.0","id":"a","method":"tools/call","params":{"name":"x"}}')).toMatchObject({kind: 'request', id: 'a', method: 'tools/call', params: {name: 'x'}});
		expect(checkJsonRpcBody('{"jsonrpc":"2.0","method":"notifications/initialized"}')).toMatchObject({kind: 'notification', id: undefined});
		expect(checkJsonRpcBody('{"jsonrpc":"2.0","id":3,"result":{}}')).toMatchObject({kind: 'response', id: 3});
	});

	it('says what is wrong, with the code JSON-RPC gives it and the id when it can be read', () => {
		expect(problem('nope')).toMatchObject({code: -32_700, id: null});
		expect(problem('nope').message).toMatch(/^Parse error: the body is not valid JSON \(Unexpected token/);
		expect(problem('  ')).toEqual({code: -32_700, id: null, message: 'Parse error: the body is empty. Send one JSON-RPC 2.0 message as a JSON object.'});
		expect(problem('[]')).toEqual({code: -32_600, id: null, message: 'Invalid Request: JSON-RPC batches are not supported by MCP; send one message per request'});
		expect(problem('"text"').message).toBe('Invalid Request: expected a JSON-RPC 2.0 message object, got string');
		expect(problem('null').message).toBe('Invalid Request: expected a JSON-RPC 2.0 message object, got null');
		expect(problem('{"jsonrpc":"1.0","id":4,"method":"ping"}')).toEqual({code: -32_600, id: 4, message: 'Invalid Request: "jsonrpc" must be "2.0"'});
		expect(problem('{"jsonrpc":"2.0","id":1.5,"method":"ping"}').message).toBe('Invalid Request: "id" must be a string or an integer (MCP does not allow null ids)');
		expect(problem('{"jsonrpc":"2.0","id":{},"method":"ping"}').id).toBeNull();
		expect(problem('{"jsonrpc":"2.0","id":5,"method":""}')).toEqual({code: -32_600, id: 5, message: 'Invalid Request: "method" must be a non-empty string'});
		expect(problem('{"jsonrpc":"2.0","id":6,"method":"ping","params":7}')).toEqual({code: -32_602, id: 6, message: 'Invalid params: "params" of "ping" must be an object'});
		expect(problem('{"jsonrpc":"2.0","result":{}}').message).toBe('Invalid Request: a response needs the "id" of the request it answers');
		expect(problem('{"jsonrpc":"2.0","id":7,"result":3}').message).toBe('Invalid Request: "result" must be an object');
		expect(problem('{"jsonrpc":"2.0","id":8}').message).toBe(
			'Invalid Request: expected a request ("method" and "id"), a notification ("method") or a response ("result" or "error")',
		);
	});
});

describe('maskSecrets', () => {
	it('masks values under secret-looking keys, at any depth, and known secrets anywhere in strings', () => {
		const body = {
			params: {
				name: 'db__query',
				arguments: {sql: 'select 1', password: 'hunter2', apiKey: 'k-1', nested: [{Authorization: 'Bearer x'}], credentials: {user: 'u', pin: 1}},
				note: `my token is ${token}.`,
			},
		};
		expect(maskSecrets(body, [token])).toEqual({
			params: {
				name: 'db__query',
				arguments: {sql: 'select 1', password: '***', apiKey: '***', nested: [{Authorization: '***'}], credentials: '***'},
				note: 'my token is ***.',
			},
		});
		expect(body.params.arguments.password).toBe('hunter2');
	});

	it('cuts long bodies for the log line', () => {
		const text = maskedJson({data: 'x'.repeat(100)}, [], 40);
		expect(text).toMatch(/^\{"data":"x{31}… \(\d+ chars\)$/);
	});
});
