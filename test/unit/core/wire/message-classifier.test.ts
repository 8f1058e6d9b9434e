import {JSONRPCMessageSchema, isJSONRPCNotification, isJSONRPCRequest} from '@modelcontextprotocol/sdk/types.js';
import {describe, expect, it} from 'vitest';
import {
	answerIdOfEnds,
	answerIdText,
	checkJsonRpcBody,
	checkJsonRpcLine,
	duplicateIdProblem,
	errorLine,
	idTextOfPrefix,
	isProblem,
	peekMessage,
	type CheckedMessage,
	type MessageProblem,
} from '../../../../source/core/wire/message-classifier.js';
import {edgeCases} from '../../../support/json-rpc-edge-cases.js';

function problem(line: string): MessageProblem {
	const checked = checkJsonRpcLine(line);
	if (!isProblem(checked)) throw new Error(`no problem with ${line}`);
	return checked;
}

function message(line: string): CheckedMessage {
	const checked = checkJsonRpcLine(line);
	if (isProblem(checked)) throw new Error(`${line}: ${checked.message}`);
	return checked;
}

describe('the message classifier', () => {
	it('passes every message it accepts in a form the SDK accepts too, so none is dropped there without an answer', () => {
		const accepted = edgeCases.map(({line}) => checkJsonRpcLine(line)).filter(checked => !isProblem(checked)) as CheckedMessage[];
		expect(accepted.length).toBeGreaterThan(10);
		for (const checked of accepted) {
			expect(JSONRPCMessageSchema.safeParse(checked.value).success, JSON.stringify(checked.value)).toBe(true);
			if (checked.kind === 'request') expect(isJSONRPCRequest(checked.value), JSON.stringify(checked.value)).toBe(true);
			if (checked.kind === 'notification') expect(isJSONRPCNotification(checked.value), JSON.stringify(checked.value)).toBe(true);
		}
	});

	it('answers each line of the edge-case table it refuses as the table says, and refuses none the table serves', () => {
		for (const {why, line, answer} of edgeCases) {
			const checked = checkJsonRpcLine(line);
			if (!isProblem(checked)) {
				// Served, or refused further on (an unknown method, the connection state): then the table's answer is not this module's.
				if (answer !== 'none' && 'result' in answer) expect(checked.kind, why).toBe('request');
				continue;
			}

			if (answer === 'none') expect(checked.silent, why).toBe(true);
			else expect({code: checked.code, id: answerIdText(checked), silent: checked.silent}, why).toEqual({code: 'error' in answer ? answer.error : 'no error', id: answer.id, silent: undefined});
		}
	});

	it('drops the members JSON-RPC does not define, and keeps the very object when there are none', () => {
		const extra = message('{"jsonrpc":"2.0","id":1,"method":"ping","params":{},"trace":"x","result":{}}');
		expect(extra.value).toEqual({jsonrpc: '2.0', id: 1, method: 'ping', params: {}});
		const plain = JSON.parse('{"jsonrpc":"2.0","method":"notifications/initialized"}') as unknown;
		expect(message(JSON.stringify(plain)).value).toEqual(plain);
		expect(message('{"jsonrpc":"2.0","id":"r","error":{"code":1,"message":"m"},"x":1}').value).toEqual({jsonrpc: '2.0', id: 'r', error: {code: 1, message: 'm'}});
	});

	it('ignores a byte order mark before a line or a body, and only there', () => {
		expect(message('\uFEFF{"jsonrpc":"2.0","id":1,"method":"ping"}')).toMatchObject({kind: 'request', id: 1});
		expect(checkJsonRpcBody('\uFEFF{"jsonrpc":"2.0","method":"notifications/initialized"}')).toMatchObject({kind: 'notification'});
		expect(problem('\uFEFF\uFEFF{"jsonrpc":"2.0","id":1,"method":"ping"}').code).toBe(-32_700);
	});

	it('names the frame in a parse error', () => {
		expect(problem('{').message).toMatch(/^Parse error: the line is not valid JSON \(.+\)\. Send one JSON-RPC 2\.0 message as a JSON object\.$/);
		expect((checkJsonRpcBody('') as MessageProblem).message).toBe('Parse error: the body is empty. Send one JSON-RPC 2.0 message as a JSON object.');
	});

	it('takes an id as usable only when it is a string or a safe integer written as JSON.stringify writes it', () => {
		for (const id of ['0', '-1', '42', '9007199254740991', '-9007199254740991', '"1.5"', '""']) {
			expect(message(`{"jsonrpc":"2.0","id":${id},"method":"ping"}`).id, id).toEqual(JSON.parse(id));
		}

		for (const id of ['1.5', '2.0', '1e2', '1E2', '-0', '1e300', '9007199254740992', '9007199254740993', '-9007199254740993', '12345678901234567890123']) {
			const refused = problem(`{"jsonrpc":"2.0","id":${id},"method":"ping"}`);
			expect([refused.code, answerIdText(refused)], id).toEqual([-32_600, id]);
		}
	});

	it('says why an id is refused: not an integer, or too big to echo', () => {
		expect(problem('{"jsonrpc":"2.0","id":1.5,"method":"ping"}').message).toBe('Invalid Request: "id" must be a string or an integer (MCP does not allow null ids)');
		expect(problem('{"jsonrpc":"2.0","id":9007199254740993,"method":"ping"}').message).toBe(
			'Invalid Request: "id" 9007199254740993 is beyond the integers hangar can echo exactly (-9007199254740991 to 9007199254740991); use a smaller integer or a string',
		);
		expect(problem('{"jsonrpc":"2.0","id":-0,"method":"ping"}').message).toContain('must be a string or an integer');
	});

	it('reads the written id wherever the top-level "id" is, never one inside params or a string, and the last of duplicates', () => {
		const layouts: Array<[string, string]> = [
			['{"jsonrpc":"2.0","id":1.50,"method":"ping"}', '1.50'],
			['{ "id" : 1E+2 , "jsonrpc":"2.0","method":"ping"}', '1E+2'],
			['{"method":"ping","jsonrpc":"2.0","id":-0}', '-0'],
			['{"method":"ping", "jsonrpc":"2.0", "id": 2.5 }\n', '2.5'],
			['{"method":"ping","params":{"id":7,"x":"\\"id\\":3"},"id":9007199254740993,"jsonrpc":"2.0"}', '9007199254740993'],
			['{"id":4.5,"jsonrpc":"2.0","method":"ping","id":5.5}', '5.5'],
			['{"jsonrpc":"2.0","method":"a{\\"id\\":1}[","id":6.5,"params":{"id":8}}', '6.5'],
		];
		for (const [line, written] of layouts) expect(answerIdText(problem(line)), line).toBe(written);
	});

	it('refuses a request whose _meta or progress token the SDK would drop without an answer', () => {
		expect(problem('{"jsonrpc":"2.0","id":1,"method":"ping","params":{"_meta":null}}')).toEqual({code: -32_602, id: 1, message: 'Invalid params: "params._meta" of "ping" must be an object'});
		expect(problem('{"jsonrpc":"2.0","id":2,"method":"tools/list","params":{"_meta":{"progressToken":true}}}').message).toBe(
			'Invalid params: "params._meta.progressToken" of "tools/list" must be a string or an integer',
		);
		expect(problem('{"jsonrpc":"2.0","id":3,"method":"ping","params":{"_meta":{"io.modelcontextprotocol/related-task":{}}}}').code).toBe(-32_602);
		expect(message('{"jsonrpc":"2.0","id":4,"method":"ping","params":{"_meta":{"progressToken":7,"other":1}}}').kind).toBe('request');
	});

	it('refuses a notification method sent with an id, and keeps quiet about the problems of notifications and responses', () => {
		expect(problem('{"jsonrpc":"2.0","id":"n","method":"notifications/initialized"}')).toEqual({
			code: -32_601,
			id: 'n',
			message: 'Method not found: "notifications/initialized" is a notification and was not acted on; send it without an "id"',
		});
		expect(problem('{"jsonrpc":"2.0","method":"notifications/progress","params":[]}')).toMatchObject({code: -32_602, id: null, silent: true});
		expect(problem('{"jsonrpc":"2.0","id":"r","result":{},"error":{"code":1,"message":"m"}}')).toMatchObject({code: -32_600, silent: true});
		expect(problem('{"jsonrpc":"2.0","id":"r","error":{"code":1.5,"message":"m"}}')).toMatchObject({code: -32_600, silent: true});
		expect(problem('{"jsonrpc":"1.0","id":"r","result":{}}')).toMatchObject({code: -32_600, id: 'r', silent: true});
		// Without a method, a string one and no id, it is no notification: answered with id null.
		expect(problem('{"jsonrpc":"2.0","method":null}')).toEqual({code: -32_600, id: null, message: 'Invalid Request: "method" must be a non-empty string'});
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

describe('answerIdOfEnds', () => {
	it('finds an answer\'s id written first (in its first kilobyte) or last (in its last, as the SDK writes answers)', () => {
		expect(answerIdOfEnds('{"jsonrpc":"2.0","id":"h3","result":{"content":[{"type":"text","text":"xxxx', 'xxxx"}]}}')).toBe('h3');
		expect(answerIdOfEnds('{"result":{"content":[{"type":"text","text":"xxxx', 'xxxx"}]},"jsonrpc":"2.0","id":"h12"}')).toBe('h12');
		expect(answerIdOfEnds('{"result":{"contents":[{"text":"xxxx', 'xxxx"}]},"jsonrpc":"2.0","id":7}\r')).toBe(7);
	});

	it('finds none in a request or notification, a nested id, or an id that may be cut off', () => {
		expect(answerIdOfEnds('{"jsonrpc":"2.0","id":4,"method":"sampling/createMessage","params":{"messages":"xxx', 'xxx"}}')).toBeUndefined();
		expect(answerIdOfEnds('{"method":"notifications/message","params":{"data":"xxx', 'xxx"},"jsonrpc":"2.0","id":3}')).toBeUndefined();
		expect(answerIdOfEnds('{"result":{"items":[{"id":"inner","text":"xxx', 'xxx"}]}}')).toBeUndefined();
		expect(answerIdOfEnds('{"result":{"text":"xxx', 'xxx"},"nested":{"id":5}}')).toBeUndefined();
		expect(answerIdOfEnds('{"jsonrpc":"2.0","id":"cut', 'xxx"}}')).toBeUndefined();
	});
});

describe('idTextOfPrefix', () => {
	it('finds a complete top-level id in the first bytes of a line, as written', () => {
		expect(idTextOfPrefix('{"jsonrpc":"2.0","id":"big-1","method":"tools/call","params":{"name":"x","arguments":{"message":"xxxx')).toBe('"big-1"');
		expect(idTextOfPrefix('{"jsonrpc":"2.0","params":{"arguments":{"id":"nested"}},"id":9007199254740993,"method":"tools/call","pad":"ppp')).toBe('9007199254740993');
		expect(idTextOfPrefix('{"jsonrpc":"2.0","method":"a{\\"id\\":1}[","id":42.5,"pad":"ppp')).toBe('42.5');
	});

	it('says null when the id is missing, nested, or may be cut off', () => {
		expect(idTextOfPrefix('{"jsonrpc":"2.0","method":"tools/call","params":{"arguments":{"id":"inner","message":"xxx')).toBe('null');
		expect(idTextOfPrefix('{"jsonrpc":"2.0","id":12')).toBe('null');
		expect(idTextOfPrefix('{"jsonrpc":"2.0","id":"cut')).toBe('null');
		expect(idTextOfPrefix('{"jsonrpc":"2.0","id":null,"method":"x","pad":"')).toBe('null');
	});
});

describe('answers', () => {
	it('writes an error line with the id spliced in exactly as received', () => {
		expect(errorLine('9007199254740993', -32_600, 'no')).toBe('{"jsonrpc":"2.0","id":9007199254740993,"error":{"code":-32600,"message":"no"}}');
		expect(JSON.parse(errorLine('"a"', -32_012, 'gone', {error: 'SupervisorUnavailable'}))).toEqual({jsonrpc: '2.0', id: 'a', error: {code: -32_012, message: 'gone', data: {error: 'SupervisorUnavailable'}}});
		expect(answerIdText(problem('{"jsonrpc":"2.0","id":1e300,"method":"ping"}'))).toBe('1e300');
		expect(answerIdText(problem('nope'))).toBe('null');
	});

	it('refuses a reused id in flight with -32600 and that id', () => {
		expect(duplicateIdProblem('dup')).toEqual({code: -32_600, id: 'dup', message: 'Invalid Request: request id "dup" is already in use by a request in flight; give each request its own id'});
	});
});

describe('peekMessage', () => {
	it('reads the id of a response in the layouts hangar and the SDK write, and parses anything else', () => {
		expect(peekMessage('{"jsonrpc":"2.0","id":7,"error":{"code":1,"message":"x"}}')).toEqual({id: 7, method: undefined, response: true, error: true});
		expect(peekMessage('{"result":{"content":[{"id":1}]},"jsonrpc":"2.0","id":"s"}')).toEqual({id: 's', method: undefined, response: true, error: false});
		expect(peekMessage('{"jsonrpc":"2.0","method":"notifications/hangar/draining"}')).toEqual({id: undefined, method: 'notifications/hangar/draining', response: false, error: false});
		expect(peekMessage('{"id":3,"jsonrpc":"2.0","result":{}}')).toEqual({id: 3, method: undefined, response: true, error: false});
		expect(peekMessage('[1]')).toBeUndefined();
		expect(peekMessage('nope')).toBeUndefined();
	});
});
