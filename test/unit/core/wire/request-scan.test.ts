/**
 * The bridge's reading of a client's request from its bytes (request-scan.ts).
 * Whatever it says must be what the full check (message-classifier.ts) says
 * of the same line: when it answers, the line passes the rule as a request
 * or a notification with that id and method; when it cannot tell, it says
 * nothing (undefined) and the bridge checks the line in full.
 */
import {describe, expect, it} from 'vitest';
import {checkJsonRpcLine, isProblem} from '../../../../source/core/wire/message-classifier.js';
import {maxScannedBytes, scanRequest, type ScannedRequest} from '../../../../source/core/wire/request-scan.js';
import {edgeCases} from '../../../support/json-rpc-edge-cases.js';

/** The line as the bridge sees it: inside a larger read, with bytes after it that would change its meaning if read. */
function scan(line: string | Buffer, after = '5.5e1}"]'): ScannedRequest | undefined {
	const body = typeof line === 'string' ? Buffer.from(line) : line;
	const bytes = Buffer.concat([Buffer.from('{"x":1}\n'), body, Buffer.from(after)]);
	return scanRequest(bytes, 8, 8 + body.length);
}

/** What the full check says, in the scan's terms: undefined unless it passes as a request or a notification. */
function checked(line: string | Buffer): ScannedRequest | undefined {
	const result = checkJsonRpcLine(typeof line === 'string' ? line : line.toString('utf8'));
	if (isProblem(result) || result.kind === 'response') return undefined;
	return {id: result.id, method: result.method!};
}

/** The scan may decline what the check passes, never disagree with it. */
function expectAgrees(line: string | Buffer): void {
	const scanned = scan(line);
	if (scanned !== undefined) expect(scanned).toEqual(checked(line));
}

describe('reading a client request from its bytes', () => {
	it.each([
		['the SDK layout', '{"method":"tools/call","params":{"name":"up__echo","arguments":{"message":"bench"}},"jsonrpc":"2.0","id":7}', {id: 7, method: 'tools/call'}],
		['hangar\'s layout', '{"jsonrpc":"2.0","id":"a-1","method":"tools/list","params":{}}', {id: 'a-1', method: 'tools/list'}],
		['a notification', '{"jsonrpc":"2.0","method":"notifications/initialized"}', {id: undefined, method: 'notifications/initialized'}],
		['space everywhere JSON allows it', ' \t{ "jsonrpc" : "2.0" ,\t"id" : -12 , "method" : "ping" , "params" : { } } \r', {id: -12, method: 'ping'}],
		['an escaped string id', '{"jsonrpc":"2.0","id":"a\\"b\\\\c\\u00e9","method":"ping"}', {id: 'a"b\\cé', method: 'ping'}],
		['a non-ASCII id and method', '{"jsonrpc":"2.0","id":"é☃𝄞","method":"tools/é"}', {id: 'é☃𝄞', method: 'tools/é'}],
		['"id" and "method" inside params', '{"method":"tools/call","params":{"id":99,"method":"x","s":"\\",\\"id\\":5,"},"jsonrpc":"2.0","id":3}', {id: 3, method: 'tools/call'}],
		['the largest safe integer', '{"jsonrpc":"2.0","id":9007199254740991,"method":"ping"}', {id: 9_007_199_254_740_991, method: 'ping'}],
		['zero', '{"jsonrpc":"2.0","id":0,"method":"ping"}', {id: 0, method: 'ping'}],
		['members JSON-RPC does not define', '{"jsonrpc":"2.0","id":1,"method":"ping","extra":[1,2.5e-3,true,false,null,{"a":[]}]}', {id: 1, method: 'ping'}],
	])('reads %s', (_why, line, expected) => {
		expect(scan(line)).toEqual(expected);
		expect(checked(line)).toEqual(expected);
	});

	it.each([
		['a batch', '[{"jsonrpc":"2.0","id":1,"method":"ping"}]'],
		['a response', '{"jsonrpc":"2.0","id":1,"result":{}}'],
		['a byte order mark', '\uFEFF{"jsonrpc":"2.0","id":1,"method":"ping"}'],
		['a key written twice', '{"jsonrpc":"2.0","id":1,"id":2,"method":"ping"}'],
		['a key written with escapes', '{"jsonrpc":"2.0","\\u0069d":1,"method":"ping"}'],
		['a method written with escapes', '{"jsonrpc":"2.0","id":1,"method":"hangar\\/command"}'],
		['params with _meta', '{"jsonrpc":"2.0","id":1,"method":"ping","params":{"_meta":{"progressToken":1}}}'],
		['params with a key that may be _meta', '{"jsonrpc":"2.0","id":1,"method":"ping","params":{"_m\\u0065ta":5}}'],
		['-0', '{"jsonrpc":"2.0","id":-0,"method":"ping"}'],
		['a leading zero', '{"jsonrpc":"2.0","id":01,"method":"ping"}'],
		['2^53 + 1', '{"jsonrpc":"2.0","id":9007199254740993,"method":"ping"}'],
		['a fraction', '{"jsonrpc":"2.0","id":2.0,"method":"ping"}'],
		['an exponent', '{"method":"ping","jsonrpc":"2.0","id":1e2}'],
		['a line cut off', '{"jsonrpc":"2.0","id":1,"method":"ping"'],
		['trailing text', '{"jsonrpc":"2.0","id":1,"method":"ping"}x'],
		['a trailing comma', '{"jsonrpc":"2.0","id":1,"method":"ping",}'],
		['a raw control character in a string', '{"jsonrpc":"2.0","id":"a\tb","method":"ping"}'],
		['a bad escape', '{"jsonrpc":"2.0","id":1,"method":"ping","x":"\\q"}'],
		['a short \\u escape', '{"jsonrpc":"2.0","id":1,"method":"ping","x":"\\u12"}'],
		['nesting deeper than the scan follows', `{"jsonrpc":"2.0","id":1,"method":"ping","x":${'['.repeat(100)}${']'.repeat(100)}}`],
	])('leaves %s to the full check', (_why, line) => {
		expect(scan(line)).toBeUndefined();
	});

	it('never reads past the end of the line', () => {
		// Each is valid only with the bytes that follow it in the read.
		expect(scan('{"jsonrpc":"2.0","id":1,"method":"ping"', '}\n')).toBeUndefined();
		expect(scan('{"jsonrpc":"2.0","method":"ping","id":1', '5}\n')).toBeUndefined();
		expect(scan('{"jsonrpc":"2.0","method":"ping","id":1}', '.5\n')).toEqual({id: 1, method: 'ping'});
		expect(scan('{"jsonrpc":"2.0","method":"ping","x":tru', 'e}\n')).toBeUndefined();
		expect(scan('{"jsonrpc":"2.0","method":"ping","x":"\\u12', '34"}\n')).toBeUndefined();
		expect(scan('{"jsonrpc":"2.0","method":"ping","x":1', 'e5}\n')).toBeUndefined();
	});

	it('leaves a line longer than it reads to the full check', () => {
		const line = `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"x":"${'a'.repeat(maxScannedBytes)}"}}`;
		expect(scan(line)).toBeUndefined();
		expect(checked(line)).toEqual({id: 1, method: 'tools/call'});
	});

	it('agrees with the full check on every edge case of the rule', () => {
		for (const {line} of edgeCases) expectAgrees(line);
	});

	it('agrees with the full check on invalid UTF-8, inside strings and out', () => {
		const parts = (...pieces: Array<string | number[]>) => Buffer.concat(pieces.map(piece => (typeof piece === 'string' ? Buffer.from(piece) : Buffer.from(piece))));
		expectAgrees(parts('{"jsonrpc":"2.0","id":"', [0xff, 0xe2], '","method":"ping"}'));
		expectAgrees(parts('{"jsonrpc":"2.0","id":1,"method":"', [0xc3], '"}'));
		expectAgrees(parts('{"jsonrpc":"2.0","id":1,"method":"ping"}', [0xc2, 0xa0]));
		expectAgrees(parts([0xef, 0xbb, 0xbf], '{"jsonrpc":"2.0","id":1,"method":"ping"}'));
	});

	it('agrees with the full check on lines damaged at random', () => {
		const seeds = [
			'{"method":"tools/call","params":{"name":"up__echo","arguments":{"message":"a \\"quoted\\" \\\\ text","n":[1,-2.5e+3,true,null]}},"jsonrpc":"2.0","id":123}',
			'{"jsonrpc":"2.0","id":"x\\"y","method":"resources/read","params":{"uri":"file:///a","_meta":{"progressToken":"t"}}}',
			'{"jsonrpc":"2.0","method":"notifications/progress","params":{"progressToken":1,"progress":0.5}}',
		];
		const alphabet = '{}[]",:\\ -.0123456789eEtrufalsnidmeothpc_\u00e9';
		let state = 42;
		const random = (below: number): number => {
			state = (state * 1_103_515_245 + 12_345) % 2_147_483_648;
			return state % below;
		};

		let decided = 0;
		for (let round = 0; round < 20_000; round++) {
			let line = seeds[round % seeds.length]!;
			for (let edits = 1 + random(3); edits > 0; edits--) {
				const at = random(line.length + 1);
				const kind = random(3);
				const char = alphabet[random(alphabet.length)]!;
				line = kind === 0 ? line.slice(0, at) + line.slice(at + 1) : kind === 1 ? line.slice(0, at) + char + line.slice(at) : line.slice(0, at) + char + line.slice(at + 1);
			}

			const scanned = scan(line);
			if (scanned === undefined) continue;
			decided += 1;
			expect(scanned, line).toEqual(checked(line));
		}

		// Most damage breaks the line; enough still passes for the comparison to mean something.
		expect(decided).toBeGreaterThan(1000);
	});
});
