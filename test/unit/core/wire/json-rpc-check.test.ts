import {describe, expect, it} from 'vitest';
import {checkJsonRpcBody, isProblem} from '../../../../source/core/wire/json-rpc-check.js';

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
