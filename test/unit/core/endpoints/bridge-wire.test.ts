/**
 * The bridge's reading of the supervisor's lines from their ends, and its
 * forwarding of them as the bytes that came (bridge-wire.ts). Whatever the
 * layout, the id read must be the one a full parse finds, or the bridge
 * would forget a request still owed or keep one answered.
 */
import {PassThrough} from 'node:stream';
import {describe, expect, it} from 'vitest';
import {Outlet, readSupervisorLine, SupervisorLines, type SupervisorLine} from '../../../../source/core/endpoints/bridge-wire.js';

function read(line: string): SupervisorLine {
	const bytes = Buffer.from(`junk\n${line}\nmore`);
	// The line sits inside a larger read, as it does in the bridge.
	return readSupervisorLine(bytes, 5, 5 + Buffer.byteLength(line));
}

/** What a full parse says the line is, in the same terms. */
function parsed(line: string): SupervisorLine {
	if (line.startsWith('[')) return {kind: 'batch'};
	const value = JSON.parse(line) as {id?: unknown; method?: unknown; error?: unknown};
	if (typeof value.method !== 'string' && (typeof value.id === 'string' || typeof value.id === 'number')) return {kind: 'answer', id: value.id, error: 'error' in value};
	return {kind: 'other', method: typeof value.method === 'string' ? value.method : undefined};
}

const lines = [
	// hangar's own layout, id first
	'{"jsonrpc":"2.0","id":12,"result":{"content":[{"type":"text","text":"hi"}]}}',
	'{"jsonrpc":"2.0","id":-3,"error":{"code":-32601,"message":"no"}}',
	'{"jsonrpc":"2.0","id":"a\\"b","result":{}}',
	'{"jsonrpc":"2.0","id":"é☃𝄞","result":{}}',
	'{"jsonrpc":"2.0","id":"\\u00e9","result":{}}',
	// the SDK's layout, id last, with ids and id-like text nested in the result
	'{"result":{"id":7,"content":[{"type":"text","text":"x,\\"id\\":5}"}]},"jsonrpc":"2.0","id":3}',
	'{"result":{"nested":{"id":"inner"}},"jsonrpc":"2.0","id":"outer"}',
	'{"error":{"code":-32000,"message":"m","data":{"id":1}},"jsonrpc":"2.0","id":44}',
	// an answer whose ends say nothing: parsed
	'{"result":{"a":1,"id":9}}',
	'{"id":5,"jsonrpc":"2.0","result":{}}',
	'{"jsonrpc":"2.0","id":1.5,"result":{}}',
	// notifications and requests to the client
	'{"jsonrpc":"2.0","method":"notifications/hangar/draining"}',
	'{"method":"notifications/progress","params":{"progressToken":1,"id":3},"jsonrpc":"2.0"}',
	'{"jsonrpc":"2.0","method":"notifications/\\u0068angar/draining","params":{}}',
	'{"jsonrpc":"2.0","id":4,"method":"roots/list"}',
	'{"method":"sampling/createMessage","params":{"x":{"id":2}},"jsonrpc":"2.0","id":8}',
	'[{"jsonrpc":"2.0","id":1,"result":{}}]',
];

describe('reading a supervisor line from its ends', () => {
	it.each(lines)('reads %s as a full parse does', line => {
		expect(read(line)).toEqual(parsed(line));
	});

	it('reads a line that is not JSON as nothing the bridge tracks', () => {
		expect(read('{"jsonrpc":"2.0","id":1,"res')).toEqual({kind: 'other', method: undefined});
		expect(read('not json')).toEqual({kind: 'other', method: undefined});
	});
});

/** Feeds `chunks` to a SupervisorLines that keeps the lines `keep` says, and returns what it forwarded and saw. */
function split(chunks: Buffer[], keep: (line: string) => boolean = () => false) {
	const seen: string[] = [];
	const forwarded: Buffer[] = [];
	const splitter = new SupervisorLines(
		(bytes, start, end) => {
			const line = bytes.toString('utf8', start, end);
			seen.push(line);
			return !keep(line);
		},
		bytes => forwarded.push(bytes),
	);
	for (const chunk of chunks) splitter.write(chunk);
	return {seen, forwarded, text: Buffer.concat(forwarded).toString('utf8')};
}

describe('forwarding the supervisor\'s lines', () => {
	it('forwards a read of whole lines as the very Buffer that came', () => {
		const chunk = Buffer.from('{"a":1}\n{"b":2}\n');
		const {forwarded, seen} = split([chunk]);
		expect(forwarded).toHaveLength(1);
		expect(forwarded[0]).toBe(chunk);
		expect(seen).toEqual(['{"a":1}', '{"b":2}']);
	});

	it('finds every line and forwards every byte wherever the reads split it, inside a multi-byte character too', () => {
		const text = '{"jsonrpc":"2.0","id":"é☃𝄞","result":{"text":"line\\nbreak ☃"}}\n{"x":"𝄞"}\n';
		const bytes = Buffer.from(text);
		for (let cut = 1; cut < bytes.length; cut++) {
			for (const second of [cut + 1, cut + 3, bytes.length]) {
				if (second > bytes.length) continue;
				const {seen, text: out} = split([bytes.subarray(0, cut), bytes.subarray(cut, second), bytes.subarray(second)].filter(chunk => chunk.length > 0));
				expect(seen).toEqual(text.split('\n').slice(0, 2));
				expect(out).toBe(text);
			}
		}
	});

	it('keeps what the bridge keeps and forwards the rest in order, without a \\r and without blank lines', () => {
		const chunks = [Buffer.from('one\n\nhide\ntwo\r\nthr'), Buffer.from('ee\nhide'), Buffer.from('\nfour\n')];
		const {text, seen} = split(chunks, line => line === 'hide');
		expect(seen).toEqual(['one', 'hide', 'two', 'three', 'hide', 'four']);
		expect(text).toBe('one\ntwo\nthree\nfour\n');
	});

	it('holds a line until its newline comes, however long, and joins it once', () => {
		const long = `{"result":{"text":"${'☃'.repeat(400_000)}"},"jsonrpc":"2.0","id":1}`;
		const bytes = Buffer.from(`${long}\n`);
		const chunks: Buffer[] = [];
		for (let at = 0; at < bytes.length; at += 65_536) chunks.push(bytes.subarray(at, at + 65_536));
		const {seen, forwarded, text} = split(chunks);
		expect(seen).toEqual([long]);
		expect(forwarded).toHaveLength(1);
		expect(text).toBe(`${long}\n`);
		expect(readSupervisorLine(forwarded[0]!, 0, forwarded[0]!.length - 1)).toEqual({kind: 'answer', id: 1, error: false});
	});

	it('forwards nothing of a line that never ends', () => {
		expect(split([Buffer.from('{"jsonrpc":"2.0","id":1,"result":{}}')]).forwarded).toEqual([]);
	});
});

describe('an outlet', () => {
	function outlet() {
		const stream = new PassThrough();
		const writes: string[] = [];
		stream.on('data', (chunk: Buffer) => writes.push(chunk.toString()));
		return {stream, writes, outlet: new Outlet(stream)};
	}

	it('writes at once, or joins in order what is written while it holds', async () => {
		const {writes, outlet: out} = outlet();
		out.write('a\n');
		Outlet.holdingDuring([out, undefined], () => {
			out.write('b\n');
			out.write(Buffer.from('c☃\n'));
			out.write('d\n');
		});
		await new Promise(resolve => setImmediate(resolve));
		expect(writes).toEqual(['a\n', 'b\nc☃\nd\n']);
	});

	it('writes a large message on its own, after what was held before it', async () => {
		const {writes, outlet: out} = outlet();
		const large = `${'x'.repeat(20_000)}\n`;
		Outlet.holdingDuring([out], () => {
			out.write('before\n');
			out.write(large);
			out.write('after\n');
		});
		await new Promise(resolve => setImmediate(resolve));
		expect(writes).toEqual(['before\n', large, 'after\n']);
	});

	it('drops what is written once its stream has ended', () => {
		const {stream, outlet: out} = outlet();
		stream.end();
		expect(() => out.write('late\n')).not.toThrow();
		expect(stream.writableLength).toBe(0);
	});
});
