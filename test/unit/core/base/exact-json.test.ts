import {describe, expect, it} from 'vitest';
import {canonicalJson} from '../../../../source/core/base/canonical-json.js';
import {isRawJson, parseExact, parseExactMessage} from '../../../../source/core/base/exact-json.js';
import {maskSecrets, maskStrings} from '../../../../source/core/base/secret-mask.js';
import {checkJsonRpcLine} from '../../../../source/core/wire/message-classifier.js';

const lossy = '{"a":9007199254740993,"b":1234567890123456789,"c":1e400,"d":-1E+400,"e":[12345678901234567890],"f":9007199254740992,"g":1.5,"h":1e+300}';

describe('numbers read exactly', () => {
	it('writes back every number JSON.parse would change as it was written, and leaves the rest numbers', () => {
		const value = parseExact(lossy) as Record<string, unknown>;
		expect(JSON.stringify(value)).toBe(lossy);
		expect(JSON.stringify(JSON.parse(lossy))).not.toBe(lossy);
		expect(isRawJson(value['a'])).toBe(true);
		expect(value['f']).toBe(9_007_199_254_740_992);
		expect(value['g']).toBe(1.5);
		expect(value['h']).toBe(1e300);
	});

	it('parses a text without a long digit run or a three-digit exponent plainly', () => {
		const value = parseExact('{"a":123456789012345,"b":1e99,"c":"9007199254740993"}') as Record<string, unknown>;
		expect(value).toEqual({a: 123_456_789_012_345, b: 1e99, c: '9007199254740993'});
	});

	it('finds them after a space, in an array, signed, with a fraction; and keeps a task\'s ttl and pollInterval numbers', () => {
		const text = '{"a": 1e400, "b":[ 9007199254740993], "c":-12345678901234567890, "d":1.5E+308, "task":{"ttl":9223372036854775807,"pollInterval":1e400}}';
		const value = parseExact(text) as {task: {ttl: unknown; pollInterval: unknown}};
		expect(JSON.stringify(value)).toBe('{"a":1e400,"b":[9007199254740993],"c":-12345678901234567890,"d":1.5e+308,"task":{"ttl":9223372036854776000,"pollInterval":null}}');
		expect(typeof value.task.ttl).toBe('number');
		expect(typeof value.task.pollInterval).toBe('number');
	});

	it('keeps the numbers hangar reads numbers, so an unsafe id is still refused and echoed as written', () => {
		const line = '{"jsonrpc":"2.0","id":9007199254740993,"method":"tools/call","params":{"name":"x","arguments":{"n":9007199254740993},"_meta":{"progressToken":12345678901234567890}}}';
		const message = parseExactMessage(line) as {id: unknown; params: {arguments: {n: unknown}; _meta: {progressToken: unknown}}};
		expect(typeof message.id).toBe('number');
		expect(typeof message.params._meta.progressToken).toBe('number');
		expect(isRawJson(message.params.arguments.n)).toBe(true);
		expect(checkJsonRpcLine(line)).toMatchObject({code: -32_600, idText: '9007199254740993'});
		const progress = parseExactMessage('{"jsonrpc":"2.0","method":"notifications/progress","params":{"progressToken":"p","progress":1e400,"total":12345678901234567890}}') as {params: Record<string, unknown>};
		expect(progress.params).toEqual({progressToken: 'p', progress: Number.POSITIVE_INFINITY, total: 12_345_678_901_234_567_000});
		const cancelled = parseExactMessage('{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":9007199254740993}}') as {params: Record<string, unknown>};
		expect(typeof cancelled.params['requestId']).toBe('number');
	});

	it('is a leaf to the walks that copy or hash parsed JSON', () => {
		const value = parseExact('{"schema":{"maximum":1e400,"default":9007199254740993},"token":"x"}');
		expect(JSON.stringify(maskSecrets(value))).toBe('{"schema":{"maximum":1e400,"default":9007199254740993},"token":"***"}');
		expect(JSON.stringify(maskStrings(value))).toBe('{"schema":{"maximum":1e400,"default":9007199254740993},"token":"x"}');
		// A pin hashes a kept number as JSON.parse reads it: a tool pinned before is not changed by it.
		expect(canonicalJson(value)).toBe(canonicalJson(JSON.parse('{"schema":{"maximum":1e400,"default":9007199254740993},"token":"x"}')));
	});
});
