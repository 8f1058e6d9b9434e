import {describe, expect, it} from 'vitest';
import {CallLog, callMatches, maskedPreview} from '../../../../source/core/engine/call-log.js';
import {registerSecrets} from '../../../../source/core/base/secret-mask.js';
import {ForwardedResult} from '../../../../source/core/wire/forwarded-result.js';

const call = (n: number, overrides: Partial<Parameters<CallLog['record']>[0]> = {}): Parameters<CallLog['record']>[0] => ({
	at: 1000 + n,
	client: 'claude-code',
	upstream: 'fx',
	tool: 'echo',
	ms: n,
	outcome: 'ok',
	code: null,
	error: null,
	args: {message: `m${n}`},
	result: {content: [{type: 'text', text: `r${n}`}]},
	...overrides,
});

describe('calls log', () => {
	it('keeps the last calls in a fixed-size ring, numbered, newest first without their bodies', () => {
		const log = new CallLog(3);
		for (let n = 1; n <= 5; n++) log.record(call(n));
		expect(log.size).toBe(3);
		expect(log.lastSeq).toBe(5);
		expect(log.oldestSeq).toBe(3);
		const newest = log.newest(10);
		expect(newest.map(entry => entry.seq)).toEqual([5, 4, 3]);
		expect(newest[0]).not.toHaveProperty('args');
		expect(log.get(2)).toBeUndefined();
		expect(log.get(4)?.args).toBe('{"message":"m4"}');
		expect(log.after(3).map(entry => entry.seq)).toEqual([4, 5]);
	});

	it('masks secret-looking keys, the config\'s secret values and secrets by shape in arguments, results and errors', () => {
		registerSecrets(['SEKRET-VALUE-1']);
		const log = new CallLog();
		log.record(call(1, {args: {query: 'x', api_key: 'k-123', nested: {Authorization: 'Bearer abc'}}, result: {content: [{type: 'text', text: 'it said SEKRET-VALUE-1 and Bearer abcdef123456'}]}}));
		log.record(call(2, {outcome: 'error', code: 'UpstreamTimeout', error: 'failed for https://user:pw@example.com/x', result: undefined}));
		const stored = log.get(1)!;
		expect(stored.args).toBe('{"query":"x","api_key":"***","nested":{"Authorization":"***"}}');
		expect(stored.result).toBe('{"content":[{"type":"text","text":"it said *** and Bearer ***"}]}');
		expect(log.get(2)?.error).toBe('failed for https://***@example.com/x');
		expect(log.get(2)?.result).toBeNull();
	});

	it('keeps an upstream\'s long error cut at the preview bound, masking a secret that crosses the cut', () => {
		registerSecrets(['SEKRET-AT-THE-CUT']);
		const log = new CallLog(3, 100);
		log.record(call(1, {outcome: 'error', code: '-32000', error: `${'e'.repeat(90)}SEKRET-AT-THE-CUT${'x'.repeat(4_000_000)}`, result: undefined}));
		log.record(call(2, {outcome: 'error', code: '-32000', error: 'short', result: undefined}));
		expect(log.get(1)?.error).toBe(`${'e'.repeat(90)}***${'x'.repeat(7)}… (cut at 100 characters)`);
		expect(log.newest(2).map(entry => entry.error)).toEqual(['short', log.get(1)?.error]);
	});

	it('shows a call as it was logged when its details are read later, small or large, whatever changed since', () => {
		const log = new CallLog();
		const small = {message: 'hello', token: 'tk-1', count: 3};
		const nested = {deep: {a: 1}, list: [1, 2]};
		const long = {text: 'y'.repeat(5000)};
		const json = '{"content":[{"type":"text","text":"Echo: hello"}],"api_key":"k"}';
		log.record(call(1, {args: small, result: new ForwardedResult(json, false, false, false)}));
		log.record(call(2, {args: nested, result: {content: [{type: 'text', text: 'r'}]}}));
		log.record(call(3, {args: long, result: new ForwardedResult(json, false, false, false)}));
		log.record(call(4, {args: undefined, result: undefined}));
		small.message = 'changed';
		nested.deep.a = 2;
		long.text = 'changed';
		expect(log.newest(10)[0]).not.toHaveProperty('given');
		expect(log.get(1)).toMatchObject({args: '{"message":"hello","token":"***","count":3}', result: '{"content":[{"type":"text","text":"Echo: hello"}],"api_key":"***"}'});
		expect(Object.keys(log.get(1)!)).not.toContain('given');
		expect(log.get(2)).toMatchObject({args: '{"deep":{"a":1},"list":[1,2]}', result: '{"content":[{"type":"text","text":"r"}]}'});
		expect(log.get(3)!.args).toBe(`{"text":"${'y'.repeat(1991)}… (cut at 2000 characters)`);
		expect(log.after(3)).toMatchObject([{seq: 4, args: '{}', result: null}]);
	});

	it('cuts a large result while serializing it, saying where', () => {
		const preview = maskedPreview({content: [{type: 'text', text: 'x'.repeat(1_000_000)}]}, 100);
		expect(preview.length).toBeLessThan(140);
		expect(preview).toMatch(/^\{"content":\[\{"type":"text","text":"x+… \(cut at 100 characters\)$/);
	});

	it('matches a filter when every word appears in the client, upstream, tool, outcome or code', () => {
		const entry = {seq: 1, at: 0, client: 'cursor', upstream: 'memory', tool: 'read_graph', ms: 1, outcome: 'error' as const, code: 'UpstreamTimeout', error: 'x'};
		expect(callMatches(entry, '')).toBe(true);
		expect(callMatches(entry, 'memory timeout')).toBe(true);
		expect(callMatches(entry, 'memory__read_graph')).toBe(true);
		expect(callMatches(entry, 'CURSOR error')).toBe(true);
		expect(callMatches(entry, 'memory ok')).toBe(false);
	});
});
