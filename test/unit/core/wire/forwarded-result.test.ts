import {describe, expect, it} from 'vitest';
import {maskedPreview} from '../../../../source/core/engine/call-log.js';
import {maskedPreviewOfJson, scanAnswerLine, skipValue} from '../../../../source/core/wire/forwarded-result.js';

const answer = (result: string, id = '"h7"') => `{"result":${result},"jsonrpc":"2.0","id":${id}}`;

describe('an upstream answer read without parsing its result', () => {
	it('keeps the result as the upstream wrote it, spaces and escapes included, and reads isError', () => {
		const result = '{ "content" : [{"type":"text","text":"a\\u00e9\\"\\\\b"}], "isError" : true }';
		const scanned = scanAnswerLine(`  {"jsonrpc":"2.0", "id":"h7", "result":${result}}  `);
		expect(scanned?.id).toBe('h7');
		expect(scanned?.result.json).toBe(result);
		expect(scanned?.result.isError).toBe(true);
		expect(scanned?.result.value()).toEqual(JSON.parse(result));
	});

	it('says when a result has a task or content that may carry a URI, and when it has neither', () => {
		const plain = scanAnswerLine(answer('{"content":[{"type":"text","text":"hi"}],"isError":false}'))!.result;
		expect([plain.isError, plain.hasTask, plain.mayCarryUris]).toEqual([false, false, false]);
		expect(scanAnswerLine(answer('{"task":{"taskId":"t1","status":"working"}}'))!.result.hasTask).toBe(true);
		expect(scanAnswerLine(answer('{"content":[{"type":"resource_link","uri":"file:///a","name":"a"}]}'))!.result.mayCarryUris).toBe(true);
		// Spelled with escapes, the word is still suspected.
		expect(scanAnswerLine(answer('{"content":[{"type":"\\u0072esource","resource":{"uri":"x:a","text":""}}]}'))!.result.mayCarryUris).toBe(true);
	});

	it('leaves every line that is not a well-formed result answer to one of hangar\'s requests to the full parse', () => {
		const refused = [
			answer('{"a":tru}'),
			`${answer('{"a":1}')}x`,
			answer('{"a":"tab\tinside"}'),
			answer('{"a":"bad \\x escape"}'),
			answer('{"a":"\\u12g4"}'),
			answer('[1]'),
			answer('{"a":01}'),
			answer('{"a":[1,]}'),
			answer('{"a":1,}'),
			answer('{"a":"unterminated}'),
			answer('{}', '7'),
			answer('{}', '"x7"'),
			'{"jsonrpc":"2.0","id":"h1","result":{},"error":{"code":1,"message":"m"}}',
			'{"jsonrpc":"1.0","id":"h1","result":{}}',
			'{"id":"h1","result":{}}',
			'{"jsonrpc":"2.0","id":"h1","method":"x","params":{}}',
			`${'['.repeat(600)}${']'.repeat(600)}`,
			answer(`{"deep":${'['.repeat(600)}${']'.repeat(600)}}`),
		];
		for (const line of refused) expect(scanAnswerLine(line), line.slice(0, 80)).toBeUndefined();
	});

	it('agrees with JSON.parse on strings of every length around the one where it stops reading characters one by one', () => {
		for (let length = 55; length <= 75; length++) {
			for (const tail of ['', '\t', '\\n', '\\x', '\\u00e9', '\\"', '\u0001', '"']) {
				const text = `"${'a'.repeat(length)}${tail}"`;
				const line = answer(`{"content":[{"type":"text","text":${text}}]}`);
				let valid = true;
				try {
					JSON.parse(line);
				} catch {
					valid = false;
				}

				expect(scanAnswerLine(line) !== undefined, `${length} ${JSON.stringify(tail)}`).toBe(valid);
				expect(skipValue(text, 0) === text.length, `${length} ${JSON.stringify(tail)}`).toBe(valid);
			}
		}
	});

	it('checks values as JSON.parse does', () => {
		const values = ['0', '-0.5e+3', '1E9', '"\\/\\b\\f\\n\\r\\t"', 'true', 'false', 'null', '{"a":[{},[],""]}', ' [ 1 , 2 ] '.trim()];
		for (const value of values) expect(skipValue(value, 0), value).toBe(value.length);
		for (const value of ['-', '1.', '.5', '+1', 'tru', '"\\"', '{"a"}', '{1:2}', '[1 2]']) expect(skipValue(value, 0), value).not.toBe(value.length);
	});
});

describe('the call log preview of a result kept as text', () => {
	it('reads as the preview of the parsed result: secret-looking keys masked, secrets masked, cut to the bound', () => {
		const result = {content: [{type: 'text', text: 'the key is s3cret, "quoted"\n'}], structuredContent: {apiToken: 'abc', nested: {password: [1, 2], ok: [true, null]}}};
		const json = JSON.stringify(result);
		expect(maskedPreviewOfJson(json, 2000, ['s3cret'])).toBe(maskedPreview(result, 2000, ['s3cret']));
		expect(maskedPreviewOfJson(json, 40)).toBe(maskedPreview(result, 40));
		const long = JSON.stringify({content: [{type: 'text', text: 'x'.repeat(1_000_000)}]});
		expect(maskedPreviewOfJson(long, 100)).toBe(maskedPreview(JSON.parse(long), 100));
	});
});
